# SPDX-License-Identifier: MIT
# Self Collision: a sheet held almost upright just above the ground (Ground on) is dropped and
# folds onto itself. With Self Collision on, no edge of the baked mesh crosses one of its own
# triangles at any frame (an independent segment-triangle test on the evaluated mesh, through
# mathutils); with it off the same drop folds through itself, and so it does with Self Collision
# on and the whole sheet in its Exclude Group (opted-out parts do not collide with each other).
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import check  # noqa: E402

import bpy  # noqa: E402

common.enable_addon()
N = 10


def scene(self_collision, exclude_all=False):
    common.reset()
    sheet = common.grid_sheet("Sheet", N, lambda u, v: (-0.3 + 0.6 * u, 0.15 * v, 0.01 + 0.6 * v),
                              30, 1, "self_on" if self_collision else "self_off")
    s = sheet.tauform
    s.stretch, s.thickness = 1000, 0.004
    s.use_ground, s.ground_height = True, 0.0
    s.use_self_collision = self_collision
    if exclude_all:
        sheet.vertex_groups.new(name="collar").add(list(range((N + 1) * (N + 1))), 1.0, "REPLACE")
        s.self_exclude_group = "collar"
        s.cache_dir += "_excluded"
    return sheet


def bake_and_count(self_collision, exclude_all=False):
    from mathutils import Vector
    sheet = scene(self_collision, exclude_all)
    check(bpy.ops.tauform.bake() == {"FINISHED"}, "bake failed")
    sheet.data.calc_loop_triangles()  # the add-on's triangles (Blender's own triangulation)
    tris = [tuple(t.vertices) for t in sheet.data.loop_triangles]
    most = 0
    for f in range(1, 31):
        bpy.context.scene.frame_set(f)
        x = common.evaluated(sheet)
        pts = [Vector(x[3 * i:3 * i + 3]) for i in range(len(x) // 3)]
        most = max(most, common.crossings(pts, tris))
    return most


def test_self_collision_keeps_the_layers_apart():
    on = bake_and_count(True)
    off = bake_and_count(False)
    print("sheet dropped into a fold, 30 frames: most crossings at a frame %d with Self "
          "Collision, %d without" % (on, off))
    check(on == 0, "%d crossings with Self Collision on" % on)
    check(off > 0, "the drop does not fold through itself without Self Collision")


def test_exclude_group_opts_out():
    excluded = bake_and_count(True, exclude_all=True)
    print("with the whole sheet in the Exclude Group: most crossings at a frame %d" % excluded)
    check(excluded > 0, "the Exclude Group changed nothing")


common.run([test_self_collision_keeps_the_layers_apart, test_exclude_group_opts_out])
