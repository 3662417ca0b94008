# SPDX-License-Identifier: MIT
# Pins follow an armature-deformed mesh: a cape pinned along its top row, skinned to a shoulder
# bone that rotates 60 degrees over 24 frames, on an object that is itself moved and turned. After
# the bake, on every frame, each pinned vertex of the cached mesh sits on the armature-deformed
# mesh within 1e-9 m, while the free vertices hang and swing (they leave the skinned shape), and
# the row below the pins stays within 10 % of its rest edge length of them: the simulated cloth was
# carried by the pins (hard-pinned vertices are written as the evaluated mesh has them, so this is
# what shows that the simulation itself followed).
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import check  # noqa: E402

import bpy  # noqa: E402

common.enable_addon()
TOL = 1e-9  # m
N = 10  # vertices per side


def cape():
    verts = [(i / (N - 1) - 0.5, 0.0, -j / (N - 1)) for j in range(N) for i in range(N)]
    faces = [(j * N + i, j * N + i + 1, (j + 1) * N + i + 1, (j + 1) * N + i)
             for j in range(N - 1) for i in range(N - 1)]
    ob = common.mesh_object("Cape", verts, faces)
    ob.location = (0.3, -0.2, 1.5)
    ob.rotation_euler = (0.0, 0.0, math.radians(30))
    top = list(range(N))
    ob.vertex_groups.new(name="shoulder").add(top, 1.0, "REPLACE")
    ob.vertex_groups.new(name="pins").add(top, 1.0, "REPLACE")
    arm = bpy.data.objects.new("Rig", bpy.data.armatures.new("Rig"))
    bpy.context.scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    b = arm.data.edit_bones.new("shoulder")
    b.head, b.tail = (0.3, -0.2, 1.5), (0.3, -0.2, 1.8)
    bpy.ops.object.mode_set(mode="OBJECT")
    pb = arm.pose.bones["shoulder"]
    pb.rotation_mode = "XYZ"
    pb.rotation_euler = (0, 0, 0)
    pb.keyframe_insert("rotation_euler", frame=1)
    pb.rotation_euler = (math.radians(60), 0, math.radians(20))
    pb.keyframe_insert("rotation_euler", frame=24)
    mod = ob.modifiers.new("Armature", "ARMATURE")
    mod.object = arm
    bpy.context.view_layer.objects.active = ob
    s = ob.tauform
    s.enabled, s.pin_group, s.preview = True, "pins", False
    s.frame_start, s.frame_end, s.substeps = 1, 24, 2
    s.stretch, s.tau = 2000, 0.3
    s.cache_dir = os.path.join(common.WORK, "armature")
    return ob, top


def local_positions(ob):
    dg = bpy.context.evaluated_depsgraph_get()
    me = ob.evaluated_get(dg).to_mesh()
    out = [tuple(v.co) for v in me.vertices]
    ob.evaluated_get(dg).to_mesh_clear()
    return out


def test_pins_follow_the_armature():
    ob, top = cape()
    check(bpy.ops.tauform.bake() == {"FINISHED"}, "bake failed")
    cache_mod = ob.modifiers["tauform cache"]
    scene = bpy.context.scene
    worst, travel, swing, stretch = 0.0, 0.0, 0.0, 0.0
    edge = 1.0 / (N - 1)
    first = None
    for f in range(1, 25):
        scene.frame_set(f)
        cached = local_positions(ob)
        cache_mod.show_viewport = False
        skinned = local_positions(ob)
        cache_mod.show_viewport = True
        first = first or skinned
        for i in top:
            worst = max(worst, max(abs(a - b) for a, b in zip(cached[i], skinned[i])))
            travel = max(travel, max(abs(a - b) for a, b in zip(skinned[i], first[i])))
            below = cached[i + N]
            stretch = max(stretch, math.dist(cached[i], below) / edge - 1)
        for i in range(N, N * N):
            swing = max(swing, max(abs(a - b) for a, b in zip(cached[i], skinned[i])))
    print("pinned vertices vs the armature-deformed mesh over 24 frames: max %.3g m (pins "
          "travel %.3f m; free vertices leave the skinned shape by up to %.3f m)"
          % (worst, travel, swing))
    print("the row below the pins is at most %.2f %% stretched from them" % (100 * stretch))
    check(stretch < 0.1, "the cloth tore from its pins: %.1f %% stretch" % (100 * stretch))
    check(travel > 0.1, "the bone barely moved the pins (%.3g m)" % travel)
    check(swing > 0.05, "the free vertices follow the skin: no simulation? (%.3g m)" % swing)
    check(worst <= TOL, "a pinned vertex is %.3g m off the deformed mesh" % worst)


common.run([test_pins_follow_the_armature])
