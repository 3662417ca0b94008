# SPDX-License-Identifier: MIT
# The add-on is a host of the same library, not another simulator: a plane with a pin group, a
# walking pin row (shape key), a tau key and a wind, baked over 48 frames and read back through
# the Mesh Cache modifier, equals the cache examples/run.lua writes for the equivalent rig
# (fixtures/plane.lua) to 1e-6 m on every frame. The live preview, stepped frame by frame, gives
# the same cache as the bake. A wind force field (strength 2 along its +Z, turned to +x) with the
# panel's wind (0, 1, 0) gives the rig's wind (2, 1, 0), as plugin/docs/blender.md maps it, to
# 1e-4 m: Blender turns the field in single precision (cos 90 deg = -4.4e-8), and the solver, which
# stops at a relative tolerance, turns that into differences of about 2e-5 m; a wrong axis, sign or
# scale moves the cloth by centimetres (the test checks that the field matters that much).
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import check  # noqa: E402

import bpy  # noqa: E402

common.enable_addon()
TOL = 1e-6  # m
FIELD_TOL = 1e-4  # m, see test_wind_field_as_the_rig_s_wind


def test_bake_equals_rig():
    ob, rig_pc2 = common.plane_scene(tau_keyed=True)
    ob.tauform.preview = False
    r = bpy.ops.tauform.bake()
    check(r == {"FINISHED"}, "bake: %s" % r)
    mod = ob.modifiers.get("tauform cache")
    check(mod is not None and mod.type == "MESH_CACHE", "no Mesh Cache modifier")
    rig = common.read_pc2(rig_pc2)
    check(len(rig["frames"]) == 48, "the rig cached %d frames" % len(rig["frames"]))
    worst, moved = 0.0, 0.0
    first = None
    for f in range(1, 49):
        bpy.context.scene.frame_set(f)
        x = common.evaluated(ob)
        if first is None:
            first = x
        worst = max(worst, common.max_diff(x, rig["frames"][f - 1]))
        moved = max(moved, common.max_diff(x, first))
    print("bake vs run.lua over 48 frames: max |difference| %.3g m (cloth moved up to %.3f m)"
          % (worst, moved))
    check(moved > 0.2, "the cloth barely moved (%.3g m): the test would not see a difference"
          % moved)
    check(worst <= TOL, "bake differs from the rig by %.3g m > %g m" % (worst, TOL))


def test_preview_equals_bake():
    ob, rig_pc2 = common.plane_scene(tau_keyed=True)
    ob.tauform.preview = True
    scene = bpy.context.scene
    rig = common.read_pc2(rig_pc2)
    worst = 0.0
    for f in range(1, 49):  # playing forward from the start frame: what the viewport shows
        scene.frame_set(f)
        worst = max(worst, common.max_diff(common.evaluated(ob), rig["frames"][f - 1]))
    check(ob.tauform.cached_last == 48, "preview cached up to %d" % ob.tauform.cached_last)
    print("live preview vs run.lua over 48 frames: max |difference| %.3g m" % worst)
    check(worst <= TOL, "preview differs from the rig by %.3g m" % worst)
    scene.frame_set(30)  # scrubbing back shows the cached frame
    back = common.max_diff(common.evaluated(ob), rig["frames"][29])
    check(back <= TOL, "frame 30 replayed from the preview cache differs by %.3g m" % back)
    # jumping back ends the run; the start frame restarts it and the cache with it
    scene.frame_set(5)
    scene.frame_set(1)
    check(ob.tauform.cached_last == 1, "after a reset the cache holds up to %d"
          % ob.tauform.cached_last)


def test_wind_field_as_the_rig_s_wind():
    import math
    ob, rig_pc2 = common.plane_scene(tau_keyed=True)
    s = ob.tauform
    s.preview, s.wind = False, (0, 1, 0)
    field = bpy.data.objects.new("Wind", None)
    bpy.context.scene.collection.objects.link(field)
    field.rotation_euler = (0, math.radians(90), 0)  # local +Z along world +x
    bpy.context.view_layer.objects.active = field
    bpy.ops.object.forcefield_toggle()
    field.field.type = "WIND"
    field.field.strength = 2.0
    field.field.noise = 0.0
    bpy.context.view_layer.objects.active = ob
    check(bpy.ops.tauform.bake() == {"FINISHED"}, "bake failed")
    got = common.read_pc2(os.path.join(s.cache_dir, "Plane.pc2"))["frames"]
    want = common.read_pc2(rig_pc2)["frames"]
    worst = max(common.max_diff(a, b) for a, b in zip(got, want))
    print("wind field + panel wind vs the rig's wind over 48 frames: max |difference| %.3g m"
          % worst)
    check(worst <= FIELD_TOL, "differs by %.3g m" % worst)
    s.use_wind_fields = False  # without the field the wind is (0, 1, 0): another result
    check(bpy.ops.tauform.bake() == {"FINISHED"}, "bake failed")
    got = common.read_pc2(os.path.join(s.cache_dir, "Plane.pc2"))["frames"]
    off = max(common.max_diff(a, b) for a, b in zip(got, want))
    print("without the field: %.3g m off" % off)
    check(off > 0.01, "the field made no difference (%.3g m)" % off)


common.run([test_bake_equals_rig, test_preview_equals_bake, test_wind_field_as_the_rig_s_wind])
