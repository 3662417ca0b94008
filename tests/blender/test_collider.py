# SPDX-License-Identifier: MIT
# A sheet dropped on a sphere object marked as a tauform collider (Blender's UV sphere, moved by
# its object transform, so the collider is the evaluated mesh in world space): over the bake no
# cloth vertex is ever inside the sphere's triangle mesh, the sheet drapes (its corners fall well
# below the top of the sphere) and rests on it (the centre stays above the top). Without the
# collider flag the same sheet falls through.
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import check  # noqa: E402

import bpy  # noqa: E402

common.enable_addon()
R = 0.3  # m
CENTER = (0.1, -0.05, 0.5)


def scene(collide=True):
    bpy.ops.mesh.primitive_uv_sphere_add(segments=32, ring_count=16, radius=R, location=CENTER)
    ball = bpy.context.object
    ball.name = "Ball"
    ball.tauform_collider.enabled = collide
    ball.tauform_collider.one_sided = True
    sheet = common.grid_sheet(
        "Sheet", 16, lambda u, v: (u - 0.5 + CENTER[0], v - 0.5 + CENTER[1], CENTER[2] + R + 0.05),
        24, 2, "collide" if collide else "free")
    sheet.tauform.stretch = 500
    return ball, sheet


def inside_count(ball, points):
    """Points inside the sphere's triangle mesh: behind every face plane (the UV sphere is
    convex, so this is exact)."""
    m = ball.matrix_world
    planes = []
    for poly in ball.data.polygons:
        c = m @ poly.center
        nrm = (m.to_3x3() @ poly.normal).normalized()
        planes.append((c, nrm))
    return sum(1 for p in points if all((p - c).dot(nrm) < 0 for c, nrm in planes))


def test_sheet_on_sphere():
    ball, sheet = scene(True)
    check(bpy.ops.tauform.bake() == {"FINISHED"}, "bake failed")
    from mathutils import Vector
    worst_inside, centre_z, corner_z = 0, None, None
    top = CENTER[2] + R
    for f in range(1, 25):
        bpy.context.scene.frame_set(f)
        x = common.evaluated(sheet)
        pts = [Vector(x[3 * i:3 * i + 3]) for i in range(len(x) // 3)]
        worst_inside = max(worst_inside, inside_count(ball, pts))
        centre_z = pts[len(pts) // 2].z
        corner_z = pts[0].z
    print("sheet on a sphere, 24 frames: vertices inside at worst %d; at the end the centre is "
          "%.4f m above the sphere's top, a corner %.3f m below it"
          % (worst_inside, centre_z - top, top - corner_z))
    check(worst_inside == 0, "%d vertices inside the sphere" % worst_inside)
    check(centre_z > top - 0.01, "the centre sank into the sphere: %.4f m" % (centre_z - top))
    check(top - corner_z > 0.1, "the sheet did not drape (corner %.3f m below the top)"
          % (top - corner_z))


def test_without_the_flag_it_falls_through():
    ball, sheet = scene(False)
    check(bpy.ops.tauform.bake() == {"FINISHED"}, "bake failed")
    from mathutils import Vector
    most = 0
    for f in range(1, 25):  # the inside check sees a sheet that passes through
        bpy.context.scene.frame_set(f)
        x = common.evaluated(sheet)
        most = max(most, inside_count(ball, [Vector(x[3 * i:3 * i + 3])
                                             for i in range(len(x) // 3)]))
    centre_z = x[3 * (len(x) // 6) + 2]
    print("without the collider flag: up to %d vertices inside, the centre ends at %.3f m"
          % (most, centre_z))
    check(most > 10, "the inside check saw only %d vertices inside" % most)
    check(centre_z < CENTER[2], "the sheet stopped without a collider (centre at %.3f m)"
          % centre_z)


common.run([test_sheet_on_sphere, test_without_the_flag_it_falls_through])
