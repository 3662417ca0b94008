# SPDX-License-Identifier: MIT
# Flesh: a closed sphere filled with tets by the library, its bottom cap pinned by a vertex group,
# sags under gravity: the skin's top moves down (by millimetres to centimetres, not metres), the
# pinned cap stays within a lattice cell of where it was, and the cache has the skin's vertex
# count, so the Mesh Cache modifier plays it on the object. On a coarse lattice quadratic tets
# (Tet Element) sag more than the locking linear ones; 1 and 3 Threads bake the same frames. An open
# mesh is refused as flesh.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import check  # noqa: E402

import bpy  # noqa: E402

common.enable_addon()


def ball():
    bpy.ops.mesh.primitive_ico_sphere_add(subdivisions=3, radius=0.2, location=(0, 0, 0.5))
    ob = bpy.context.object
    low = [v.index for v in ob.data.vertices if v.co.z < -0.15]
    ob.vertex_groups.new(name="base").add(low, 1.0, "REPLACE")
    s = ob.tauform
    s.enabled, s.kind, s.pin_group, s.preview = True, "FLESH", "base", False
    s.frame_start, s.frame_end = 1, 12
    s.youngs, s.lattice_cells, s.tau = 20000, 8, 0.1
    s.cache_dir = os.path.join(common.WORK, "flesh")
    return ob, low


def bake_sag(ob):
    """bake, go to the last frame: the skin's top drop and the evaluated positions (rest, now)"""
    rest = common.evaluated(ob)
    check(bpy.ops.tauform.bake() == {"FINISHED"}, "bake failed")
    bpy.context.scene.frame_set(12)
    x = common.evaluated(ob)
    top = max(range(len(x) // 3), key=lambda i: rest[3 * i + 2])
    return rest[3 * top + 2] - x[3 * top + 2], rest, x


def test_flesh_sags_on_its_pinned_base():
    ob, low = ball()
    sag, rest, x = bake_sag(ob)
    base = max(abs(x[3 * i + k] - rest[3 * i + k]) for i in low for k in range(3))
    print("flesh: the top sags %.4f m; the pinned base moves at most %.4f m" % (sag, base))
    check(0.0005 < sag < 0.1, "top sag %.4g m" % sag)
    check(base < 0.4 / 8, "the pinned base moved %.4g m" % base)


def test_quadratic_flesh_sags_more_than_linear():
    sags = {}
    for element in ("LINEAR", "QUADRATIC"):
        bpy.ops.object.select_all(action="SELECT")
        bpy.ops.object.delete()
        ob, low = ball()
        ob.tauform.tet_element, ob.tauform.lattice_cells = element, 4
        ob.tauform.cache_dir = os.path.join(common.WORK, "flesh_" + element.lower())
        sags[element] = bake_sag(ob)[0]
    print("flesh on a 4-cell lattice: the top sags %.4f m with linear tets, %.4f m with quadratic"
          % (sags["LINEAR"], sags["QUADRATIC"]))
    # the linear tets lock on so coarse a lattice: the quadratic ball is the softer one
    check(0.0005 < sags["QUADRATIC"] < 0.1, "quadratic top sag %.4g m" % sags["QUADRATIC"])
    check(sags["QUADRATIC"] > 1.2 * sags["LINEAR"], "quadratic %.4g m, linear %.4g m"
          % (sags["QUADRATIC"], sags["LINEAR"]))


def test_threads_bake_the_same_flesh():
    """Threads (0 = every core, the default) change nothing: 1 and 3 threads bake the same frames"""
    frames = {}
    for threads in (1, 3):
        bpy.ops.object.select_all(action="SELECT")
        bpy.ops.object.delete()
        ob, low = ball()
        check(ob.tauform.threads == 0, "default Threads %d, not 0" % ob.tauform.threads)
        ob.tauform.threads = threads
        ob.tauform.cache_dir = os.path.join(common.WORK, "flesh_threads_%d" % threads)
        frames[threads] = bake_sag(ob)[2]
    print("flesh on 1 and 3 threads: %d coordinates, equal: %s"
          % (len(frames[1]), frames[1] == frames[3]))
    check(frames[1] == frames[3], "the 3-thread bake differs from the 1-thread one")


def test_open_mesh_is_not_flesh():
    bpy.ops.mesh.primitive_grid_add(size=1)
    ob = bpy.context.object
    ob.tauform.enabled, ob.tauform.kind = True, "FLESH"
    ob.tauform.cache_dir = os.path.join(common.WORK, "open")
    common.bake_error("open mesh as flesh", "not closed")


common.run([test_flesh_sags_on_its_pinned_base, test_quadratic_flesh_sags_more_than_linear,
            test_threads_bake_the_same_flesh, test_open_mesh_is_not_flesh])
