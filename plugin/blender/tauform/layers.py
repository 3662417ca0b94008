# SPDX-License-Identifier: MIT
# Layer groups: cloth objects simulated together, so they collide with each other (a shirt under a
# jacket, a tablecloth on a runner). The library couples garments as pieces of one simulation
# (plugin/docs/tau-step.md sec. 10, Between simulations): one mesh with a piece per object,
# self-contact on, and each piece its own fabric through per-vertex maps: Stretch (libtauform
# 1.15), Density or Total Mass (as vertex masses), Bending with its Bending Group, pins and the
# self-collision Exclude Group. Everything else is one per simulation and comes from the group's
# first object by name: damping, gravity, air and wind, contact and ground, solver, frames and
# substeps. Another member whose value of one of those differs is refused naming both objects and
# the field (at the start frame, and at each frame for keyed fields), never silently replaced.
import ctypes as C
from array import array

from . import abi
from .meshread import InputError
from .session import FrameInput, Session, local_shape
from .values import typed

# panel values that each member keeps for itself; every other one is the group's
OWN_VALUES = ("stretch_stiffness", "bend_stiffness", "bend_max")
# settings read once that must agree across the group (label, attribute)
SHARED_STATIC = (("Type", "kind"), ("Start", "frame_start"), ("End", "frame_end"),
                 ("Substeps", "substeps"), ("Damping", "damping"), ("Bending Model", "bend_model"),
                 ("Bend Poisson", "bend_poisson"), ("Newton Iterations", "max_newton"),
                 ("CG Iterations", "max_cg"), ("Tolerance", "tolerance"),
                 ("Abs Tolerance", "abs_tolerance"), ("Threads", "threads"), ("Air", "use_air"),
                 ("Ground", "use_ground"), ("Scene Gravity", "use_scene_gravity"),
                 ("Wind Fields", "use_wind_fields"))


def layer_members(scene, group):
    """The tauform objects of the scene in layer group `group`, by name."""
    return sorted((o for o in scene.objects
                   if o.type == "MESH" and o.tauform.enabled and o.tauform.layer_group == group),
                  key=lambda o: o.name)


def _same(a, b):
    if isinstance(a, (int, float, str, bool)) or a is None:
        return a == b
    return tuple(a) == tuple(b)


class LayerSession(Session):
    """One simulation of every object in a layer group (the bake's interface of Session: members,
    counts, read_frame, apply, advance, outputs)."""

    def __init__(self, lib, scene, obj, depsgraph, base_dir=""):
        self.lib, self.dll = lib, lib.dll
        self.group = obj.tauform.layer_group
        objs = layer_members(scene, self.group)
        self.names = [o.name for o in objs]
        self.obj_name = "layer group '%s'" % self.group
        lead = objs[0].tauform
        for o in objs:
            s = o.tauform
            if s.kind != "CLOTH":
                raise InputError("'%s' is in layer group '%s': layer groups are for cloth"
                                 % (o.name, self.group))
            if s.rig != "NONE":
                raise InputError("'%s' in layer group '%s' has a Lua rig: a rig drives one "
                                 "object (give layered garments as one rig's mesh, "
                                 "tauform.mesh.merge)" % (o.name, self.group))
            if s.use_plastic or s.use_response:
                raise InputError("'%s' in layer group '%s': Plasticity and Response are not "
                                 "available in a layer group yet" % (o.name, self.group))
            for label, attr in SHARED_STATIC:
                if not _same(getattr(s, attr), getattr(lead, attr)):
                    raise InputError(
                        "layer group '%s': '%s' has %s %s where '%s', the group's first object, "
                        "has %s; a layer group shares every setting but Stretch, Density, "
                        "Bending and the groups" % (self.group, o.name, label,
                                                   self._shown(getattr(s, attr)), objs[0].name,
                                                   self._shown(getattr(lead, attr))))
        self.kind = "CLOTH"
        self._timing(scene, lead, self.obj_name)
        self.sim, self.rig, self.colliders = None, None, None
        self.lambda_, self.settle_key = None, None
        self.response_group, self.response_key = None, None
        self.bend_weights = None
        inputs = [FrameInput(scene, o, depsgraph, groups=self._group_names(o, o.tauform),
                             topology=True) for o in objs]
        self.offsets, self.sizes = [], []
        pins, weights, excl, self.member_bend = [], [], [], []
        n = 0
        for o, inp in zip(objs, inputs):
            md = inp.mesh
            md.check_sheet("cloth mesh")
            self.offsets.append(n)
            self.sizes.append(md.vert_count)
            idx, w = self._pins(o, o.tauform, md)
            pins += [i + n for i in idx]
            weights += list(w)
            self.member_bend.append(self._bend_weights(o, o.tauform, md))
            if o.tauform.self_exclude_group:
                g = self._group(o, md, o.tauform.self_exclude_group, "self collision exclude group")
                excl += [i + n for i in g if g[i] > 0.0]
            n += md.vert_count
        self.n = n
        self.pins, self.pin_weights = array("I", pins), array("d", weights)
        self.self_exclude = excl or None
        # Session's start, with this class's _targets reading the members' inputs
        self._begin(lambda: self._create_group(objs, inputs), scene, depsgraph, objs, inputs,
                    inputs)

    @staticmethod
    def _shown(v):
        return "%g" % v if isinstance(v, float) else repr(v)

    def _create_group(self, objs, inputs):
        world, tris, masses = array("d"), array("I"), array("d")
        for o, inp, off in zip(objs, inputs, self.offsets):
            md, s = inp.mesh, o.tauform
            world.extend(md.world)
            tris.extend(t + off for t in md.triangles)
            # each member's own mass: density x area lumped to the corners (as the library does),
            # Total Mass spread by area
            w, m = md.world, array("d", bytes(8 * md.vert_count))
            area = 0.0
            areas = []
            for k in range(0, len(md.triangles), 3):
                a, b, c = (md.triangles[k + q] for q in range(3))
                u = [w[3 * b + j] - w[3 * a + j] for j in range(3)]
                v = [w[3 * c + j] - w[3 * a + j] for j in range(3)]
                x = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                     u[0] * v[1] - u[1] * v[0])
                areas.append(0.5 * (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) ** 0.5)
                area += areas[-1]
            rho = typed(s.total_mass) / area if s.total_mass > 0 and area > 0 else typed(s.density)
            for k, A in enumerate(areas):
                for q in range(3):
                    m[md.triangles[3 * k + q]] += rho * A / 3.0
            masses.extend(m)
        self._rest = (C.c_double * len(world)).from_buffer(world)
        self._tris = (C.c_uint32 * len(tris)).from_buffer(tris)
        self._masses = (C.c_double * len(masses)).from_buffer(masses)
        self._keep = (world, tris, masses)
        values = self._member_values(inputs, self.start)
        lead = objs[0].tauform
        d = self._cloth_def(lead, values[0], self.n, len(tris) // 3)
        d.vertex_masses = self._masses  # the stretch map follows in apply
        self._create_sim(d, lead, values[0], self.dll.tf_cloth_create, self.obj_name)

    def _member_values(self, inputs, frame):
        """Each member's panel values at frame; a shared one that differs from the first
        member's is refused naming both objects."""
        out = []
        for k, (name, inp) in enumerate(zip(self.names, inputs)):
            out.append(self._values(inp, frame, who=name,
                                    bend_group=self.member_bend[k] is not None))
            for p, vals in out[k].items():
                if k == 0 or p in OWN_VALUES or _same(vals, out[0].get(p)):
                    continue
                raise InputError(
                    "layer group '%s', frame %d: '%s' has %s %s where '%s', the group's first "
                    "object, has %s; a layer group shares every setting but Stretch, Density, "
                    "Bending and the groups" % (self.group, frame, name, self.fields.get(p, p),
                                               ", ".join("%g" % x for x in vals), self.names[0],
                                               ", ".join("%g" % x for x in out[0].get(p, ()))))
        return out

    # --- frames -------------------------------------------------------------------------------

    @property
    def members(self):
        return list(self.names)

    @property
    def counts(self):
        return list(self.sizes)

    def read_frame(self, scene, depsgraph, frame):
        out = []
        for name, size in zip(self.names, self.sizes):
            o = scene.objects.get(name)
            if o is None:
                raise InputError("frame %d: '%s' of layer group '%s' was deleted"
                                 % (frame, name, self.group))
            inp = FrameInput(scene, o, depsgraph, groups=self._group_names(o, o.tauform))
            if inp.mesh.vert_count != size:
                raise InputError("frame %d: '%s' has %d vertices, %d at the start frame (a "
                                 "modifier changes its topology)"
                                 % (frame, name, inp.mesh.vert_count, size))
            out.append(inp)
        return out

    def apply(self, frame, inputs):
        values = self._member_values(inputs, frame)
        shared = dict(values[0])
        tau = shared.pop("tau", None)
        for p in OWN_VALUES:
            shared.pop(p, None)
        shared["self_contact"] = (1.0,)  # the members must collide with each other
        for name, vals in shared.items():
            self._set(name, vals)
        stretch = (C.c_double * self.n)()
        bend = (C.c_double * self.n)()
        for k, (v, off, size) in enumerate(zip(values, self.offsets, self.sizes)):
            base = v["bend_stiffness"][0]
            for i in range(size):
                stretch[off + i] = v["stretch_stiffness"][0]
                bend[off + i] = base
            if self.member_bend[k] is not None:
                top = v["bend_max"][0]
                for i, w in self.member_bend[k].items():
                    bend[off + i] = base + typed(w) * (top - base)
        for pname, m in (("stretch_stiffness", stretch), ("bend_stiffness", bend)):
            if self.dll.tf_sim_set_param_map(self.sim, abi.PARAM[pname], m, self.n) != 0:
                raise InputError("%s, frame %d: %s" % (self.obj_name, frame, self._err()))
        if tau is not None:
            self._set("tau", tau)
        if inputs[0].settings.damping == "SETTLE":
            self._set("tau", (self._settle_tau(typed(inputs[0].settings.settle_time), frame),))
        if self.pins:
            t = self._targets(inputs)
            ct = (C.c_double * len(t)).from_buffer(t)
            if self.dll.tf_sim_set_pin_targets(self.sim, ct, len(t) // 3) != 0:
                raise InputError("%s, frame %d: pin targets: %s"
                                 % (self.obj_name, frame, self._err()))
        if self.colliders is not None and len(self.colliders) and frame != self.start:
            self.colliders.move(inputs[0].scene, inputs[0].depsgraph, frame)

    def _targets(self, inputs):
        """Each pinned vertex at its member's evaluated position (world space)."""
        out = array("d", bytes(8 * 3 * len(self.pins)))
        bounds = list(zip(self.offsets, self.sizes, inputs))
        for k, i in enumerate(self.pins):
            for off, size, inp in bounds:
                if off <= i < off + size:
                    out[3 * k:3 * k + 3] = inp.mesh.world[3 * (i - off):3 * (i - off) + 3]
                    break
        return out

    def outputs(self, inputs):
        """Each member's slice in its own local space; hard-pinned vertices as its evaluated
        mesh has them (Session.output)."""
        x = array("d", bytes(8 * 3 * self.n))
        cx = (C.c_double * len(x)).from_buffer(x)
        self.dll.tf_sim_get_positions(self.sim, cx, self.n)
        hard = self.hard_pins()
        return [local_shape(x[3 * off:3 * (off + size)], inp,
                            [i - off for i in hard if off <= i < off + size])
                for off, size, inp in zip(self.offsets, self.sizes, inputs)]
