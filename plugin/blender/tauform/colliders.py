# SPDX-License-Identifier: MIT
# Objects marked as tauform colliders, passed to a simulation: each one's evaluated mesh in world
# space (a skinned body deforms, a moving one moves) at the start frame becomes a collider
# (tf_sim_add_collider), and every later frame gives its new pose (tf_sim_move_collider) and its
# keyed thickness and friction (tf_sim_set_collider). A collider keeps its vertex count: a mesh
# whose topology changes over the shot is refused naming the frame.
import ctypes as C

from . import abi
from .meshread import InputError, MeshData
from .values import typed


def collider_objects(scene, me_obj):
    """The scene's colliders but the simulated object(s) (me_obj: one object or a list)."""
    me = me_obj if isinstance(me_obj, (list, tuple)) else [me_obj]
    return [ob for ob in scene.objects
            if ob.type == "MESH" and all(ob is not m for m in me) and ob.tauform_collider.enabled]


class Colliders:
    def __init__(self, lib, sim, scene, depsgraph, me_obj):
        self.lib, self.sim, self.items = lib, sim, []
        for ob in collider_objects(scene, me_obj):
            ev = ob.evaluated_get(depsgraph)
            md = MeshData(ev, with_topology=True)
            if len(md.triangles) == 0:
                raise InputError("collider '%s' has no faces" % ob.name)
            s = ev.tauform_collider
            d = abi.init_def(lib.dll, abi.ColliderDef, "tf_collider_def_init_")
            pos = (C.c_double * len(md.world)).from_buffer(md.world)
            tri = (C.c_uint32 * len(md.triangles)).from_buffer(md.triangles)
            d.vert_count, d.positions = md.vert_count, pos
            d.tri_count, d.triangles = len(md.triangles) // 3, tri
            d.thickness, d.friction = typed(s.thickness), typed(s.friction)
            d.one_sided = 1 if s.one_sided else 0
            cid = C.c_uint32()
            if lib.dll.tf_sim_add_collider(sim, C.byref(d), C.byref(cid)) != 0:
                raise InputError("collider '%s': %s" % (ob.name, self._err()))
            self.items.append((ob.name, cid.value, md.vert_count))

    def _err(self):
        return self.lib.dll.tf_sim_last_error(self.sim).decode()

    def move(self, scene, depsgraph, frame):
        for name, cid, n in self.items:
            ob = scene.objects.get(name)
            if ob is None:
                raise InputError("frame %d: collider '%s' was deleted" % (frame, name))
            ev = ob.evaluated_get(depsgraph)
            md = MeshData(ev)
            if md.vert_count != n:
                raise InputError("frame %d: collider '%s' has %d vertices, %d at the start frame "
                                 "(a collider keeps its topology)"
                                 % (frame, name, md.vert_count, n))
            pos = (C.c_double * len(md.world)).from_buffer(md.world)
            s = ev.tauform_collider
            dll = self.lib.dll
            if (dll.tf_sim_move_collider(self.sim, cid, pos, n) != 0
                    or dll.tf_sim_set_collider(self.sim, cid, typed(s.thickness),
                                               typed(s.friction)) != 0):
                raise InputError("frame %d: collider '%s': %s" % (frame, name, self._err()))

    def __len__(self):
        return len(self.items)
