# SPDX-License-Identifier: MIT
# One simulation driven by a Blender object, frame by frame, in world space.
#
# Session(lib, scene, obj, depsgraph) builds it at the start frame the way a rig does
# (lua/tauform/rig.lua, Rig:create): the evaluated mesh at that frame is the rest shape, the
# parameters are that frame's, pins are set, colliders added, the frame is applied, and pinned
# vertices start on their targets. Then, for each next frame f, after the scene is at f:
# read(depsgraph) -> apply(frame, inputs) -> advance() -> output(inputs). Every value read from
# Blender is checked with the library's own tf_param_check before any is applied, so a bad value
# (a keyed tau that dips below 0) is refused naming the frame and the panel field, and the
# simulation is left as it was. Evaluated (animated, driven) values are read every frame.
import ctypes as C
import math
import os
from array import array

from . import abi, rig as rigmod, wind
from .colliders import Colliders
from .meshread import InputError, MeshData, inverse_rows, transform
from .values import typed

# as lua/tauform/rig.lua: the slowest mode is found again when a load or stiffness it depends on
# changes by more than this
SETTLE_RECOMPUTE = 0.1
GROUND_UP = (0.0, 0.0, 1.0)  # the ground plane's normal: Blender's world up


class SimError(Exception):
    """The solver failed on a frame; the message names it."""


class FrameInput:
    """What one frame reads from the scene: the object's evaluated mesh and settings."""

    def __init__(self, scene, obj, depsgraph, groups=(), topology=False):
        self.scene, self.depsgraph = scene, depsgraph
        self.eval = obj.evaluated_get(depsgraph)
        self.settings = self.eval.tauform
        self.mesh = MeshData(self.eval, with_topology=topology, groups=groups, obj=obj)
        self.scene_eval = depsgraph.scene_eval


class Session:
    def _timing(self, scene, s, who):
        """frame range, frame rate and substeps from the settings s (who names them in errors)"""
        self.start, self.end = s.frame_start, s.frame_end
        if self.end < self.start:
            raise InputError("%s: the end frame %d is before the start frame %d"
                             % (who, self.end, self.start))
        self.fps = scene.render.fps / scene.render.fps_base
        self.substeps = s.substeps

    def __init__(self, lib, scene, obj, depsgraph, base_dir=""):
        self.lib, self.dll = lib, lib.dll
        self.obj_name = obj.name
        s = obj.tauform
        self.kind = s.kind
        self._timing(scene, s, "'%s'" % obj.name)
        self.lattice_cells = s.lattice_cells
        self.sim = None
        self.rig = None
        self.colliders = None
        self.lambda_, self.settle_key = None, None
        inp = FrameInput(scene, obj, depsgraph, groups=self._group_names(obj, s), topology=True)
        md = inp.mesh
        if self.kind == "FLESH":
            md.check_closed("flesh mesh")
        else:
            md.check_sheet("cloth mesh")
        self.n = md.vert_count
        self.pins, self.pin_weights = self._pins(obj, s, md)
        self.bend_weights = self._bend_weights(obj, s, md)
        self.response_group, self.response_key = None, None
        if s.response_group:
            if self.kind != "CLOTH":
                raise InputError("'%s': a response group is for cloth (flesh's vertices are the "
                                 "library's lattice, not the mesh's)" % obj.name)
            w = self._group(obj, md, s.response_group, "response group")
            self.response_group = array("I", sorted(i for i in w if w[i] > 0.0))
        self.self_exclude = None
        if s.self_exclude_group and self.kind == "CLOTH":
            w = self._group(obj, md, s.self_exclude_group, "self collision exclude group")
            self.self_exclude = [i for i in w if w[i] > 0.0]
        if s.rig != "NONE":
            self._begin(lambda: self._create_rig(s, md, base_dir), scene, depsgraph, obj, inp, md)
        else:
            self._begin(lambda: self._create(s, inp), scene, depsgraph, obj, inp, md)

    def _begin(self, create, scene, depsgraph, objs, inp, targets):
        """the simulation made (create), its pins, exclusions and colliders set and the start
        frame applied, targets (what _start_on_targets reads) at the start; closed on failure"""
        try:
            create()
            self._set_pins()
            self._set_self_exclude()
            self.colliders = Colliders(self.lib, self.sim, scene, depsgraph, objs)
            self.apply(self.start, inp)
            self._start_on_targets(targets)
            self.start_input = inp
        except Exception:
            self.close()
            raise
        self.frame = self.start

    # --- building -----------------------------------------------------------------------------

    @staticmethod
    def _group_names(obj, s):
        return tuple(g for g in (s.pin_group, s.bend_group, s.self_exclude_group,
                                 s.response_group) if g)

    @staticmethod
    def _group(obj, md, name, what):
        w = md.weights.get(name)
        if w is None:
            have = ", ".join("'%s'" % g.name for g in obj.vertex_groups) or "none"
            raise InputError("%s '%s' is not a vertex group of '%s' (its groups: %s)"
                             % (what, name, obj.name, have))
        return w

    def _pins(self, obj, s, md):
        if not s.pin_group:
            return array("I"), array("d")
        w = self._group(obj, md, s.pin_group, "pin group")
        if not w:
            raise InputError("pin group '%s' of '%s' has no vertex with a weight above 0"
                             % (s.pin_group, obj.name))
        idx = sorted(w)
        return array("I", idx), array("d", (min(1.0, typed(w[i])) for i in idx))

    def _bend_weights(self, obj, s, md):
        if not s.bend_group or self.kind != "CLOTH":
            return None
        return self._group(obj, md, s.bend_group, "bending group")

    def _solver(self, s, solver):
        solver.max_newton, solver.max_cg = s.max_newton, s.max_cg
        solver.tolerance, solver.abs_tolerance = typed(s.tolerance), typed(s.abs_tolerance)

    def _cloth_def(self, s, values, vert_count, tri_count):
        """A cloth def of self._rest and self._tris with the panel's material (s, values)."""
        d = abi.init_def(self.dll, abi.ClothDef, "tf_cloth_def_init_")
        d.rest_positions, d.vert_count = self._rest, vert_count
        d.triangles, d.tri_count = self._tris, tri_count
        d.stretch_stiffness = values["stretch_stiffness"][0]
        d.poisson = values["poisson"][0]
        d.bend_model = abi.BEND_SHELL if s.bend_model == "SHELL" else abi.BEND_HINGE
        d.bend_poisson = typed(s.bend_poisson)
        return d

    def _create_sim(self, d, s, values, create, who):
        """Finish a def with what every kind has (damping, gravity, pins, solver) and create
        the simulation; a refusal names who."""
        d.tau = values.get("tau", (d.tau,))[0]
        d.kappa = values["kappa"][0]
        d.gravity[:] = values["gravity"]
        d.pin_stiffness = values["pin_stiffness"][0]
        self._solver(s, d.solver)
        d.threads = s.threads
        err = C.create_string_buffer(1024)
        sim = C.c_void_p()
        if create(C.byref(d), C.byref(sim), err, len(err)) != 0:
            raise InputError("%s: %s" % (who, err.value.decode(errors="replace")))
        self.sim = sim

    def _create(self, s, inp):
        md = inp.mesh
        self._rest = (C.c_double * len(md.world)).from_buffer(md.world)
        self._tris = (C.c_uint32 * len(md.triangles)).from_buffer(md.triangles)
        values = self._values(inp, self.start)
        if self.kind == "CLOTH":
            d = self._cloth_def(s, values, md.vert_count, len(md.triangles) // 3)
            d.density, d.total_mass = typed(s.density), typed(s.total_mass)
            create = self.dll.tf_cloth_create
        else:
            d = abi.init_def(self.dll, abi.FleshDef, "tf_flesh_def_init_")
            d.surface_positions, d.surface_vert_count = self._rest, md.vert_count
            d.surface_triangles, d.surface_tri_count = self._tris, len(md.triangles) // 3
            d.lattice_cells = s.lattice_cells
            d.element = abi.TET_QUADRATIC if s.tet_element == "QUADRATIC" else abi.TET_LINEAR
            d.youngs_modulus = values["youngs_modulus"][0]
            d.poisson = values["poisson"][0]
            d.density = typed(s.flesh_density)
            create = self.dll.tf_flesh_create
        self._create_sim(d, s, values, create, "'%s'" % self.obj_name)
        if self.kind == "FLESH":
            self._flesh_pins()

    def _create_rig(self, s, md, base_dir):
        name, source = rigmod.source_of(s, base_dir)
        groups = {}
        for g in md.weights:
            groups[g] = md.weights[g] or {}
        material = self._material(s)
        solver = {"max_newton": s.max_newton, "max_cg": s.max_cg,
                  "tolerance": typed(s.tolerance), "abs_tolerance": typed(s.abs_tolerance)}
        table = rigmod.blender_table(md, groups, self.kind.lower(), material, solver,
                                     s.lattice_cells, s.tet_element.lower(),
                                     (self.start, self.end), self.fps,
                                     self.substeps, s.pin_group or None)
        self.rig = rigmod.Rig(self.lib, name, source, table)
        self.sim = C.c_void_p(self.rig.sim)
        n = (self.dll.tf_sim_surface_vert_count(self.sim) if self.kind == "FLESH"
             else self.dll.tf_sim_vert_count(self.sim))
        if n != md.vert_count:
            raise InputError("rig %s: its mesh has %d vertices, '%s' has %d (give no mesh to use "
                             "the object's)" % (name, n, self.obj_name, md.vert_count))
        if self.kind == "FLESH":
            self._flesh_pins()

    def _material(self, s):
        if self.kind == "CLOTH":
            m = {"density": typed(s.density), "stretch": typed(s.stretch),
                 "poisson": typed(s.poisson), "pin_stiffness": typed(s.pin_stiffness)}
            if s.total_mass > 0:
                m["total_mass"] = typed(s.total_mass)
            return m
        return {"youngs": typed(s.youngs), "poisson": typed(s.flesh_poisson),
                "density": typed(s.flesh_density), "pin_stiffness": typed(s.pin_stiffness)}

    def _flesh_pins(self):
        """Flesh pins tet nodes, not skin vertices: each node within one lattice cell of a pinned
        skin vertex is pinned, with that vertex's weight, and follows its displacement."""
        self.node_map = None
        if not self.pins:
            return
        nodes = self.dll.tf_sim_vert_count(self.sim)
        rest = (C.c_double * (3 * nodes))()
        self.dll.tf_sim_get_rest_positions(self.sim, rest, nodes)
        skin = self._rest
        lo = [min(rest[k::3]) for k in range(3)]
        hi = [max(rest[k::3]) for k in range(3)]
        h = max(hi[k] - lo[k] for k in range(3)) / self.lattice_cells
        idx, w, near = [], [], []
        for j in range(nodes):
            x, y, z = rest[3 * j], rest[3 * j + 1], rest[3 * j + 2]
            best, bi = None, -1
            for k, i in enumerate(self.pins):
                d = ((skin[3 * i] - x) ** 2 + (skin[3 * i + 1] - y) ** 2
                     + (skin[3 * i + 2] - z) ** 2)
                if best is None or d < best:
                    best, bi = d, k
            if best is not None and best <= h * h:
                idx.append(j)
                w.append(self.pin_weights[bi])
                near.append(bi)
        if not idx:
            raise InputError("pin group of '%s': no tet node lies within a lattice cell (%.3g m) "
                             "of its vertices" % (self.obj_name, h))
        self.node_map = (array("I", idx), array("d", w), near, [rest[3 * j + k] for j in idx
                                                                 for k in range(3)])

    def _set_pins(self):
        if not self.pins:
            return
        if self.kind == "FLESH":
            idx, w = self.node_map[0], self.node_map[1]
        else:
            idx, w = self.pins, self.pin_weights
        ci = (C.c_uint32 * len(idx)).from_buffer(idx)
        cw = (C.c_double * len(w)).from_buffer(w)
        if self.dll.tf_sim_set_pins(self.sim, ci, cw, len(idx)) != 0:
            raise InputError("'%s': pins: %s" % (self.obj_name, self._err()))

    def _start_on_targets(self, md):
        """As a rig: pinned vertices start on the first frame's targets, at rest."""
        if not self.pins:
            return
        x = (C.c_double * (3 * self.dll.tf_sim_vert_count(self.sim)))()
        n = len(x) // 3
        self.dll.tf_sim_get_positions(self.sim, x, n)
        t = self._targets(md)
        idx = self.node_map[0] if self.kind == "FLESH" else self.pins
        for k, i in enumerate(idx):
            x[3 * i:3 * i + 3] = t[3 * k:3 * k + 3]
        if self.dll.tf_sim_set_state(self.sim, x, None, n) != 0:
            raise InputError("'%s': %s" % (self.obj_name, self._err()))

    # --- frames -------------------------------------------------------------------------------

    def read(self, scene, obj, depsgraph, frame):
        inp = FrameInput(scene, obj, depsgraph)
        if inp.mesh.vert_count != self.n:
            raise InputError("frame %d: '%s' has %d vertices, %d at the start frame (a modifier "
                             "changes its topology)" % (frame, obj.name, inp.mesh.vert_count,
                                                         self.n))
        return inp

    def _values(self, inp, frame, who=None, bend_group=None):
        """{param name: values} of this frame from the panel, each checked by the library (who:
        the object named in messages; bend_group: whether a bending group's maximum is read;
        both the session's own by default)."""
        who = self.obj_name if who is None else who
        bend_group = self.bend_weights is not None if bend_group is None else bend_group
        se, sc = inp.settings, inp.scene_eval
        v = {}
        fields = {}  # param -> the panel field it came from, for messages

        def put(param, field, values):
            v[param] = tuple(typed(x) for x in values)
            fields[param] = field

        if se.damping == "TAU":
            put("tau", "Tau", (se.tau,))
        put("kappa", "Kappa", (se.kappa,))
        if se.use_scene_gravity:
            put("gravity", "Scene Gravity", sc.gravity if sc.use_gravity else (0, 0, 0))
        else:
            put("gravity", "Gravity", se.gravity)
        # with a rig, the material is the rig's (or the panel's at the start frame): a panel
        # value set every frame would override the rig's material
        material = self.rig is None
        if material:
            put("pin_stiffness", "Pin Stiffness", (se.pin_stiffness,))
        if self.kind == "CLOTH":
            if material:
                put("stretch_stiffness", "Stretch", (se.stretch,))
                put("poisson", "Poisson", (se.poisson,))
            put("bend_stiffness", "Bending", (se.bend,))
            if bend_group:
                put("bend_max", "Max Bending", (se.bend_max,))
        elif material:
            put("youngs_modulus", "Young's Modulus", (se.youngs,))
            put("poisson", "Poisson", (se.flesh_poisson,))
        if material and se.use_plastic:  # a rig's plastic table is the rig's
            put("plastic_yield", "Yield", (se.plastic_yield,))
            put("plastic_limit", "Plastic Limit", (se.plastic_limit,))
            put("plastic_time", "Flow Time", (se.plastic_time,))
            if self.kind == "CLOTH":
                put("bend_yield", "Bend Yield", (se.bend_yield,))
                put("bend_plastic_limit", "Bend Limit", (se.bend_plastic_limit,))
        if se.use_air:
            wv = list(se.wind)
            turb, seed = se.turbulence, se.turbulence_seed
            if se.use_wind_fields:
                fv, ft, fseed = wind.field_wind(inp.scene, inp.depsgraph, se.wind_collection)
                wv = [typed(a) + b for a, b in zip(wv, fv)]
                turb = typed(turb) + ft
                if fseed is not None:
                    seed = seed + fseed
            put("air_density", "Air Density", (se.air_density,))
            v["wind"], fields["wind"] = tuple(typed(x) for x in wv), "Wind (+ wind fields)"
            put("drag", "Drag", (se.drag,))
            put("lift", "Lift", (se.lift,))
            v["turbulence"], fields["turbulence"] = (typed(turb),), "Turbulence (+ fields)"
            put("turbulence_scale", "Eddy Size", (se.turbulence_scale,))
            put("turbulence_time", "Eddy Time", (se.turbulence_time,))
            v["turbulence_seed"], fields["turbulence_seed"] = (float(seed),), "Seed"
            put("gust", "Gusts", (se.gust,))
            put("gust_period", "Gust Period", (se.gust_period,))
        else:
            put("air_density", "Air", (0.0,))
        put("thickness", "Thickness", (se.thickness,))
        put("friction", "Friction", (se.friction,))
        v["self_contact"] = (1.0 if se.use_self_collision else 0.0,)
        fields["self_contact"] = "Self Collision"
        if se.use_ground:
            v["ground_normal"], fields["ground_normal"] = GROUND_UP, "Ground"
            put("ground_height", "Ground Height", (se.ground_height,))
            put("ground_friction", "Ground Friction", (se.ground_friction,))
        else:
            v["ground_normal"], fields["ground_normal"] = (0.0, 0.0, 0.0), "Ground"
        err = C.create_string_buffer(512)
        for name, vals in v.items():
            pid = abi.PARAM.get("bend_stiffness" if name == "bend_max" else name)
            arr = (C.c_double * len(vals))(*vals)
            if self.dll.tf_param_check(pid, arr, len(vals), err, len(err)) != 0:
                raise InputError("'%s', frame %d, panel field %s: %s"
                                 % (who, frame, fields[name],
                                    err.value.decode(errors="replace")))
        if se.damping == "SETTLE" and not (se.settle_time > 0):
            raise InputError("'%s', frame %d: Settle Time must be > 0 s, got %g"
                             % (who, frame, se.settle_time))
        self.fields = fields
        return v

    def apply(self, frame, inp):
        """Set frame's parameters, pin targets and collider poses (before advancing to it)."""
        values = self._values(inp, frame)
        bend_max = values.pop("bend_max", None)
        tau = values.pop("tau", None)
        for name, vals in values.items():
            self._set(name, vals)
        if self.bend_weights is not None:
            base, top = values["bend_stiffness"][0], bend_max[0]
            m = (C.c_double * self.n)(*([base] * self.n))
            for i, w in self.bend_weights.items():
                m[i] = base + typed(w) * (top - base)
            if self.dll.tf_sim_set_param_map(self.sim, abi.PARAM["bend_stiffness"], m,
                                             self.n) != 0:
                raise InputError("'%s', frame %d: bending group: %s"
                                 % (self.obj_name, frame, self._err()))
        if tau is not None:
            self._set("tau", tau)
        if self.rig is not None:
            self.rig.apply(frame)  # the rig's values win over the panel's
        if inp.settings.damping == "SETTLE":
            self._set("tau", (self._settle_tau(typed(inp.settings.settle_time), frame),))
        if self.pins:
            t = self._targets(inp.mesh)
            ct = (C.c_double * len(t)).from_buffer(t)
            if self.dll.tf_sim_set_pin_targets(self.sim, ct, len(t) // 3) != 0:
                raise InputError("'%s', frame %d: pin targets: %s"
                                 % (self.obj_name, frame, self._err()))
        if self.colliders is not None and len(self.colliders) and frame != self.start:
            self.colliders.move(inp.scene, inp.depsgraph, frame)
        if self.rig is None:  # a rig's response table is the rig's
            self._set_response(inp.settings, frame)

    def _set_response(self, se, frame):
        """The Response panel's global share for the whole body and the response group: on
        level 0 the rest (tf_sim_set_response), set when it changed."""
        glob = typed(se.response_global) if se.use_response else 0.0
        grp = typed(se.response_group_global) if se.use_response else 0.0
        key = (glob, grp if self.response_group else None)
        if key == self.response_key:
            return
        levels = self.dll.tf_sim_response_levels(self.sim, None, 0)
        sets = [(glob, None)]
        if self.response_group:
            sets.append((grp, self.response_group))
        for g, ids in sets:
            pct = (C.c_double * levels)(*([0.0] * levels))
            pct[0], pct[levels - 1] = 100.0 - g, g  # the vertices, and the body as one piece
            cids = (C.c_uint32 * len(ids)).from_buffer(ids) if ids else None
            if self.dll.tf_sim_set_response(self.sim, pct, levels, cids,
                                            len(ids) if ids else 0) != 0:
                raise InputError("'%s', frame %d: response: %s"
                                 % (self.obj_name, frame, self._err()))
        self.response_key = key

    def _set_self_exclude(self):
        """The exclude group's vertices (weight > 0) opt out of self collision with each other
        (tf_sim_set_param_map of self_contact: 0 opted out, 1 not)."""
        if self.self_exclude is None:
            return
        m = (C.c_double * self.n)(*([1.0] * self.n))
        for i in self.self_exclude:
            m[i] = 0.0
        if self.dll.tf_sim_set_param_map(self.sim, abi.PARAM["self_contact"], m, self.n) != 0:
            raise InputError("'%s': self collision exclude group: %s" % (self.obj_name, self._err()))

    def _set(self, name, vals):
        arr = (C.c_double * len(vals))(*vals)
        if self.dll.tf_sim_set_param(self.sim, abi.PARAM[name], arr, len(vals)) != 0:
            raise InputError("'%s': %s" % (self.obj_name, self._err()))

    def _settle_tau(self, T, frame):
        """tau for a settle time, as Rig:settle_tau: the decay law (1 + tau dt lambda)^(T/dt) =
        100 on the slowest mode, found again when gravity or a stiffness changed by > 10 %."""
        dt = 1.0 / (self.fps * self.substeps)
        if T <= dt:
            raise InputError("'%s', frame %d: Settle Time %g s must exceed the step %g s"
                             % (self.obj_name, frame, T, dt))
        key = []
        for name, count in (("gravity", 3), ("bend_stiffness", 1), ("stretch_stiffness", 1),
                            ("youngs_modulus", 1)):
            out = (C.c_double * count)()
            self.dll.tf_sim_get_param(self.sim, abi.PARAM[name], out, count)
            key.append(math.sqrt(sum(x * x for x in out)))
        changed = self.settle_key is None or any(
            abs(a - b) > SETTLE_RECOMPUTE * max(abs(a), abs(b), 1e-30)
            for a, b in zip(key, self.settle_key))
        if changed:
            tau, lam = C.c_double(), C.c_double()
            if self.dll.tf_sim_settle_tau(self.sim, T, dt, C.byref(tau), C.byref(lam)) != 0:
                raise InputError("'%s', frame %d: Settle Time: %s"
                                 % (self.obj_name, frame, self._err()))
            self.lambda_, self.settle_key = lam.value, key
        return (100 ** (dt / T) - 1) / (dt * self.lambda_)

    def _targets(self, md):
        w = md.world
        if self.kind == "FLESH":
            idx, _, near, rest_nodes = self.node_map
            out = array("d", bytes(8 * 3 * len(idx)))
            for k, bi in enumerate(near):
                i = self.pins[bi]
                for c in range(3):
                    out[3 * k + c] = rest_nodes[3 * k + c] + w[3 * i + c] - self._rest[3 * i + c]
            return out
        out = array("d", bytes(8 * 3 * len(self.pins)))
        for k, i in enumerate(self.pins):
            out[3 * k:3 * k + 3] = w[3 * i:3 * i + 3]
        return out

    # --- what a bake drives: the objects this session writes, one cache each -------------------

    @property
    def members(self):
        """The names of the objects whose caches this session fills, in order."""
        return [self.obj_name]

    @property
    def counts(self):
        return [self.n]

    def read_frame(self, scene, depsgraph, frame):
        return self.read(scene, scene.objects[self.obj_name], depsgraph, frame)

    def outputs(self, inp):
        """Each member's shape at this frame (local space, flat single precision)."""
        return [self.output(inp)]

    def advance(self, frame):
        st = self.dll.tf_sim_advance(self.sim, 1.0 / self.fps, self.substeps)
        if st != 0:
            raise SimError("'%s', frame %d: %s" % (self.obj_name, frame, self._err()))
        self.frame = frame

    def output(self, inp):
        """The current shape in the object's local space at this frame, flat single precision.
        Hard-pinned vertices are written as the evaluated mesh has them (they are on their
        targets), so the world-to-local round trip never shows a gap there."""
        x = array("d", bytes(8 * 3 * self.n))
        cx = (C.c_double * len(x)).from_buffer(x)
        if self.kind == "FLESH":
            self.dll.tf_sim_get_surface_positions(self.sim, cx, self.n)
            return local_shape(x, inp, ())
        self.dll.tf_sim_get_positions(self.sim, cx, self.n)
        return local_shape(x, inp, self.hard_pins())

    def hard_pins(self):
        """The hard-pinned vertices (weight 1)."""
        return [i for k, i in enumerate(self.pins) if self.pin_weights[k] >= 1.0]

    def _err(self):
        return self.dll.tf_sim_last_error(self.sim).decode(errors="replace")

    def close(self):
        if self.rig is not None:
            self.rig.close()
            self.rig = None
        elif self.sim:
            self.dll.tf_sim_destroy(self.sim)
        self.sim = None


def local_shape(world, inp, hard):
    """World positions (flat doubles) of inp's object in its local space at this frame, flat
    single precision; the vertices in hard as its evaluated mesh has them."""
    local = array("f", transform(world, inverse_rows(inp.mesh.rows)))
    co = inp.mesh.local
    for i in hard:
        local[3 * i:3 * i + 3] = co[3 * i:3 * i + 3]
    return local


def cache_path(obj, blend_path):
    """Absolute path of the object's PC2 cache, and the path to store in the modifier."""
    d = obj.tauform.cache_dir or "//tauform_cache/"
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in obj.name) + ".pc2"
    if d.startswith("//"):
        if not blend_path:
            raise InputError("the cache directory %s is relative to the .blend, which is not "
                             "saved: save the file or give an absolute directory" % d)
        base = os.path.dirname(blend_path)
        return os.path.join(base, d[2:], name), d.rstrip("/") + "/" + name
    p = os.path.join(os.path.abspath(d), name)
    return p, p
