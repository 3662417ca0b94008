# SPDX-License-Identifier: MIT
# The add-on's Blender properties: the simulation settings of a mesh object (Object.tauform) and
# the collider settings (Object.tauform_collider). Built when the library loads, from the library's
# own parameter table (tf_param_get_info) and def defaults (tf_*_def_init): the ranges, units,
# descriptions and defaults come from libtauform, so they cannot drift from it. Parameters the
# library can change every frame are animatable (keyframes, drivers); values fixed when a
# simulation is created (mass, mesh, solver, lattice) are not, so an artist never keys a value that
# would do nothing.
import bpy
from bpy.props import (BoolProperty, EnumProperty, FloatProperty, FloatVectorProperty,
                       IntProperty, PointerProperty, StringProperty)

from .values import typed

FLT_MAX = 3.4e38
NOT_ANIMATABLE = set()

# Blender units for the library's SI units; others are shown in the label
BLENDER_UNIT = {"s": "TIME_ABSOLUTE", "m": "LENGTH", "m/s": "VELOCITY", "m/s^2": "ACCELERATION"}


def _clamp(x):
    return max(-FLT_MAX, min(FLT_MAX, x))


def _desc(doc, unit, default):
    shown = ", ".join("%g" % typed(v) for v in default)
    return "%s%s. Default %s (from libtauform)" % (doc[0].upper() + doc[1:],
                                                    " [%s]" % unit if unit else "", shown)


def lib_param(lib, name, label, default=None, soft=None, animatable=True, description=None,
              hi=None):
    """A property for library parameter `name`: its range, unit, doc and default."""
    p = lib.param(name)
    default = default if default is not None else p["default"]
    unit = p["unit"]
    kw = dict(name=label if unit in BLENDER_UNIT or not unit else "%s (%s)" % (label, unit),
              description=description or _desc(p["doc"], unit, default),
              min=_clamp(p["lo"]), max=_clamp(p["hi"] if hi is None else hi))
    if not animatable:
        kw["options"] = NOT_ANIMATABLE
    if soft:
        kw["soft_min"], kw["soft_max"] = soft
    if p["integer"]:
        return IntProperty(name=kw["name"], description=kw["description"], min=0,
                           max=2 ** 31 - 1, default=int(default[0]))
    if unit in BLENDER_UNIT:
        kw["unit"] = BLENDER_UNIT[unit]
    if p["count"] == 3:
        return FloatVectorProperty(size=3, default=default, subtype="XYZ", **kw)
    return FloatProperty(default=default[0], precision=_precision(default[0]), **kw)


def _precision(x):
    """Enough decimals to show a default such as 1e-05 (Blender shows 3 by default)."""
    x = abs(x)
    if x == 0 or x >= 0.1:
        return 3
    digits = 3
    while x < 0.1 and digits < 8:
        x *= 10
        digits += 1
    return digits


def def_float(value, label, unit, doc, lo, hi, animatable=False, soft=None):
    """A property for a def field without a parameter id (read at the start frame)."""
    kw = dict(name=label if not unit or unit in BLENDER_UNIT else "%s (%s)" % (label, unit),
              description=_desc(doc, unit, (value,)), default=value, min=lo, max=hi,
              precision=_precision(value))
    if unit in BLENDER_UNIT:
        kw["unit"] = BLENDER_UNIT[unit]
    if not animatable:
        kw["options"] = NOT_ANIMATABLE
    if soft:
        kw["soft_min"], kw["soft_max"] = soft
    return FloatProperty(**kw)


def _mesh_poll(_self, obj):
    return obj.type == "MESH"


def object_settings(lib):
    """The annotations of TauformObjectSettings for this library."""
    cd, fd = lib.cloth_defaults, lib.flesh_defaults
    P = lambda *a, **k: lib_param(lib, *a, **k)  # noqa: E731
    a = {}
    a["enabled"] = BoolProperty(name="tauform", description="Simulate this mesh with tauform",
                                default=False, options=NOT_ANIMATABLE)
    a["kind"] = EnumProperty(
        name="Type", options=NOT_ANIMATABLE, default="CLOTH",
        items=[("CLOTH", "Cloth", "A triangle sheet: membrane and bending"),
               ("FLESH", "Flesh", "A volume: the closed mesh is filled with tets by the library "
                                  "and carried by them")])
    a["frame_start"] = IntProperty(name="Start", default=1, options=NOT_ANIMATABLE,
                                   description="First simulated frame: the rest shape and the "
                                               "start state are the mesh at this frame")
    a["frame_end"] = IntProperty(name="End", default=250, options=NOT_ANIMATABLE,
                                 description="Last simulated frame")
    a["substeps"] = IntProperty(name="Substeps", default=1, min=1, max=10000,
                                options=NOT_ANIMATABLE,
                                description="Solver steps per frame (a rig's default is 1)")
    # damping
    a["damping"] = EnumProperty(
        name="Damping", default="TAU",
        items=[("TAU", "Tau", "Give tau, the time scale of settling"),
               ("SETTLE", "Settle Time", "Give the time the cloth takes to settle; tau follows "
                                         "from the slowest mode (tf_sim_settle_tau)")],
        options=NOT_ANIMATABLE)
    a["tau"] = P("tau", "Tau", soft=(0.001, 10))
    a["settle_time"] = FloatProperty(
        name="Settle Time", unit="TIME_ABSOLUTE", default=1.0, min=1e-4, max=1e6,
        description="Seconds for the slowest mode to decay 100x (cloth with hard pins); "
                    "tau is computed from it each frame. Add-on default 1 s")
    a["kappa"] = P("kappa", "Kappa")
    a["use_scene_gravity"] = BoolProperty(
        name="Scene Gravity", default=True, options=NOT_ANIMATABLE,
        description="Use the scene's gravity (Scene > Gravity); off: the gravity below")
    a["gravity"] = P("gravity", "Gravity")
    # cloth material
    a["density"] = def_float(cd.density, "Density", "kg/m^2", "mass per area of the cloth",
                             1e-9, 1e6, soft=(0.001, 10))
    a["total_mass"] = def_float(cd.total_mass, "Total Mass", "kg",
                                "mass of the whole cloth; > 0 overrides the density", 0, 1e9)
    a["stretch"] = P("stretch_stiffness", "Stretch", soft=(1, 1e6))
    a["poisson"] = P("poisson", "Poisson", default=(cd.poisson,))
    a["bend"] = P("bend_stiffness", "Bending", soft=(0, 0.1))
    a["bend_group"] = StringProperty(
        name="Bending Group", options=NOT_ANIMATABLE,
        description="Vertex group: weight w gives a vertex Bending + w x (Max Bending - Bending); "
                    "empty: Bending everywhere")
    a["bend_max"] = P("bend_stiffness", "Max Bending", default=(100 * cd.bend_stiffness,),
                      soft=(0, 0.1), description="Bending at weight 1 of the bending group "
                      "[N m]. Add-on default 100 x the library's bending")
    a["bend_model"] = EnumProperty(
        name="Bending Model", options=NOT_ANIMATABLE,
        default="SHELL" if cd.bend_model == 0 else "HINGE",
        items=[("SHELL", "Shell", "Thin-plate bending, the same in every direction on any mesh; "
                                  "two pinned rows clamp (libtauform TF_BEND_SHELL)"),
               ("HINGE", "Hinge", "The dihedral-angle hinge: cheaper, stiffer along some mesh "
                                  "directions (libtauform TF_BEND_HINGE)")],
        description="The bending energy, read at the start frame. Default from libtauform")
    a["bend_poisson"] = P("bend_poisson", "Bend Poisson", animatable=False)
    # plasticity (cloth and flesh; the bend limits: cloth)
    a["use_plastic"] = BoolProperty(
        name="Plasticity", default=False, options=NOT_ANIMATABLE,
        description="Rest shapes that yield past an elastic limit, up to a plastic limit: a "
                    "stretched elbow stays bagged, a fold keeps a crease, a dent in flesh stays")
    a["plastic_yield"] = P("plastic_yield", "Yield")
    a["plastic_limit"] = P("plastic_limit", "Plastic Limit")
    a["plastic_time"] = P("plastic_time", "Flow Time")
    a["bend_yield"] = P("bend_yield", "Bend Yield")
    a["bend_plastic_limit"] = P("bend_plastic_limit", "Bend Limit")
    # the response (Palazzi's multilevel force distribution): how far the wind's push reaches
    a["use_response"] = BoolProperty(
        name="Response", default=False, options=NOT_ANIMATABLE,
        description="Share the external forces (the wind's) between the vertices and the whole "
                    "body: the body answers as one piece, the stiffness and settling unchanged")
    a["response_global"] = FloatProperty(
        name="Global", default=100.0, min=0.0, max=100.0, subtype="PERCENTAGE",
        description="Share of each external force moving the whole body as one rigid piece "
                    "(its force and torque kept); the rest acts where it is applied")
    a["response_group"] = StringProperty(
        name="Response Group", options=NOT_ANIMATABLE,
        description="Vertex group (cloth) whose vertices (weight above 0) use Group Global "
                    "instead; empty: none")
    a["response_group_global"] = FloatProperty(
        name="Group Global", default=0.0, min=0.0, max=100.0, subtype="PERCENTAGE",
        description="Global share for the forces on the response group's vertices")
    # flesh material
    a["youngs"] = P("youngs_modulus", "Young's Modulus", soft=(100, 1e7))
    a["flesh_poisson"] = P("poisson", "Poisson", default=(fd.poisson,), hi=0.4999)
    a["flesh_density"] = def_float(fd.density, "Density", "kg/m^3", "mass per volume of flesh",
                                   1e-6, 1e6)
    a["tet_element"] = EnumProperty(
        name="Tet Element", options=NOT_ANIMATABLE,
        default="LINEAR" if fd.element == 0 else "QUADRATIC",
        items=[("LINEAR", "Linear", "4-node tets: cheap, but a bent limb or a nearly "
                                    "incompressible body is too stiff, more so on a coarse "
                                    "lattice (libtauform TF_TET_LINEAR)"),
               ("QUADRATIC", "Quadratic", "10-node tets: the same sag and jiggle at any lattice "
                                          "from 2 cells across a limb, about 10x the cost per "
                                          "tet (libtauform TF_TET_QUADRATIC)")],
        description="The tet element, read at the start frame. Default from libtauform")
    a["lattice_cells"] = IntProperty(
        name="Lattice Cells", default=fd.lattice_cells, min=2, max=512, options=NOT_ANIMATABLE,
        description="Tet lattice cubes along the mesh's longest side. Default %d (from "
                    "libtauform)" % fd.lattice_cells)
    # pins
    a["pin_group"] = StringProperty(
        name="Pin Group", options=NOT_ANIMATABLE,
        description="Vertex group: weight 1 pins a vertex to the object's own evaluated mesh "
                    "(armature, shape keys, hooks drag it), 0 < w < 1 pulls it softly, 0 frees it")
    a["pin_stiffness"] = P("pin_stiffness", "Pin Stiffness", soft=(1, 1e6))
    # wind
    a["use_air"] = BoolProperty(name="Air", default=False, options=NOT_ANIMATABLE,
                                description="Aerodynamic drag and lift, with the wind below and "
                                            "the scene's wind force fields")
    a["air_density"] = P("air_density", "Air Density", default=(1.225,), description=(
        "0 = no air; 1.225 = air at sea level [kg/m^3]. Default 1.225 once Air is on (as a rig's "
        "wind table); off = 0, the library's default"))
    a["wind"] = P("wind", "Wind")
    a["drag"] = P("drag", "Drag")
    a["lift"] = P("lift", "Lift")
    a["turbulence"] = P("turbulence", "Turbulence")
    a["turbulence_scale"] = P("turbulence_scale", "Eddy Size")
    a["turbulence_time"] = P("turbulence_time", "Eddy Time")
    a["turbulence_seed"] = P("turbulence_seed", "Seed")
    a["gust"] = P("gust", "Gusts")
    a["gust_period"] = P("gust_period", "Gust Period")
    a["use_wind_fields"] = BoolProperty(
        name="Wind Fields", default=True, options=NOT_ANIMATABLE,
        description="Add the scene's wind force fields to the wind (see plugin/docs/blender.md)")
    a["wind_collection"] = PointerProperty(
        type=bpy.types.Collection, name="Field Collection", options=NOT_ANIMATABLE,
        description="Only wind fields in this collection; empty: all in the scene")
    # contact
    a["thickness"] = P("thickness", "Thickness")
    a["friction"] = P("friction", "Friction")
    a["use_ground"] = BoolProperty(name="Ground", default=False, options=NOT_ANIMATABLE,
                                   description="A ground plane z = height (world up)")
    a["ground_height"] = P("ground_height", "Height")
    a["ground_friction"] = P("ground_friction", "Friction")
    a["self_exclude_group"] = StringProperty(
        name="Exclude Group", options=NOT_ANIMATABLE,
        description="Vertex group (weight > 0) whose vertices do not collide with each other, "
                    "only with the rest of the cloth (a collar sewn onto itself); empty: none")
    a["use_self_collision"] = BoolProperty(
        name="Self Collision", default=False,
        description="The cloth's (skin's) own layers never pass through each other: kept one "
                    "Thickness apart, with Friction (parameter self_contact; keyable)")
    a["layer_group"] = StringProperty(
        name="Layer Group", options=NOT_ANIMATABLE,
        description="Cloth objects with the same Layer Group are simulated together and never "
                    "pass through each other (a shirt under a jacket): each keeps its Stretch, "
                    "Density, Bending and groups, every other setting is the group's first "
                    "object's (by name) and must agree; baking one bakes them all, and the first one's Live "
                    "Preview previews them all; empty: none")
    # solver (fixed at the start frame)
    s = cd.solver
    a["max_newton"] = IntProperty(name="Newton Iterations", default=s.max_newton, min=1,
                                  max=10000, options=NOT_ANIMATABLE,
                                  description="Per step. Default %d (from libtauform)"
                                  % s.max_newton)
    a["max_cg"] = IntProperty(name="CG Iterations", default=s.max_cg, min=1, max=100000,
                              options=NOT_ANIMATABLE,
                              description="Per Newton iteration. Default %d (from libtauform)"
                              % s.max_cg)
    a["tolerance"] = def_float(s.tolerance, "Tolerance", "",
                               "relative convergence tolerance of a step", 1e-12, 1)
    a["abs_tolerance"] = def_float(s.abs_tolerance, "Abs Tolerance", "m/s",
                                   "absolute tolerance on the Newton correction", 0, 1)
    a["threads"] = IntProperty(name="Threads", default=cd.threads, min=0, max=256,
                               options=NOT_ANIMATABLE,
                               description="Threads of the simulation, 0 every core (default, from "
                                           "libtauform; one on a small mesh). The result is the "
                                           "same for every count")
    # rig
    a["rig"] = EnumProperty(
        name="Rig", default="NONE", options=NOT_ANIMATABLE,
        items=[("NONE", "None", "Panel values only"),
               ("TEXT", "Text", "A Lua rig in a text datablock"),
               ("FILE", "File", "A Lua rig file")])
    a["rig_text"] = PointerProperty(type=bpy.types.Text, name="Rig Text",
                                    options=NOT_ANIMATABLE)
    a["rig_file"] = StringProperty(name="Rig File", subtype="FILE_PATH",
                                   options=NOT_ANIMATABLE)
    # cache
    a["cache_dir"] = StringProperty(
        name="Cache Directory", subtype="DIR_PATH", default="//tauform_cache/",
        options=NOT_ANIMATABLE,
        description="Where the PC2 cache goes; // is the .blend's directory")
    a["preview"] = BoolProperty(
        name="Live Preview", default=True, options=NOT_ANIMATABLE,
        description="Simulate while the frame advances one at a time from the start frame, as "
                    "Blender's cloth does; jumping back resets")
    a["baked"] = BoolProperty(name="Baked", default=False, options=NOT_ANIMATABLE)
    a["cached_last"] = IntProperty(name="Cached Up To", default=0, options=NOT_ANIMATABLE)
    return a


def collider_settings(lib):
    d = lib.collider_defaults
    return {
        "enabled": BoolProperty(name="tauform Collider", default=False, options=NOT_ANIMATABLE,
                                description="tauform cloth and flesh collide with this mesh "
                                            "(evaluated, in world space, every frame)"),
        "thickness": def_float(d.thickness, "Thickness", "m",
                               "added to the cloth's thickness: the contact gap", 0, 0.1,
                               animatable=True),
        "friction": def_float(d.friction, "Friction", "",
                              "friction coefficient; a contact's is sqrt(cloth's x this)", 0, 10,
                              animatable=True),
        "one_sided": BoolProperty(name="Closed (One-Sided)", default=bool(d.one_sided),
                                  options=NOT_ANIMATABLE,
                                  description="A closed mesh with outward normals: vertices found "
                                              "inside are pushed out"),
    }


classes = []


def register(lib):
    obj_cls = type("TauformObjectSettings", (bpy.types.PropertyGroup,),
                   {"__annotations__": object_settings(lib)})
    col_cls = type("TauformColliderSettings", (bpy.types.PropertyGroup,),
                   {"__annotations__": collider_settings(lib)})
    for c in (obj_cls, col_cls):
        bpy.utils.register_class(c)
        classes.append(c)
    bpy.types.Object.tauform = PointerProperty(type=obj_cls)
    bpy.types.Object.tauform_collider = PointerProperty(type=col_cls)


def unregister():
    for name in ("tauform", "tauform_collider"):
        if hasattr(bpy.types.Object, name):
            delattr(bpy.types.Object, name)
    while classes:
        bpy.utils.unregister_class(classes.pop())
