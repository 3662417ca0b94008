# SPDX-License-Identifier: MIT
# A tau keyframed in Blender (0.25 -> 2.25 over frames 1-17, linear) changes the result exactly as
# the same key in a Lua rig: the baked caches with and without the key equal, bit for bit, the
# caches examples/run.lua writes for fixtures/plane.lua with and without it, and the key moves the
# cloth by more than a centimetre (so the comparison can tell). A settle time (Damping: Settle
# Time, 1.5 s) gives the cache of a rig with settle = 1.5.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import check  # noqa: E402

import bpy  # noqa: E402

common.enable_addon()


def bake(keyed):
    common.reset()
    ob, rig_pc2 = common.plane_scene(tau_keyed=keyed)
    ob.tauform.preview = False
    ob.tauform.cache_dir = os.path.join(common.WORK, "keyed" if keyed else "const")
    check(bpy.ops.tauform.bake() == {"FINISHED"}, "bake failed")
    path = os.path.join(ob.tauform.cache_dir, "Plane.pc2")
    return common.read_pc2(path)["frames"], common.read_pc2(rig_pc2)["frames"]


def test_tau_key_as_in_a_rig():
    b_key, r_key = bake(True)
    b_const, r_const = bake(False)
    check(len(b_key) == len(r_key) == 48, "48 frames each")
    effect = max(common.max_diff(a, b) for a, b in zip(b_key, b_const))
    same_key = max(common.max_diff(a, b) for a, b in zip(b_key, r_key))
    same_const = max(common.max_diff(a, b) for a, b in zip(b_const, r_const))
    print("the tau key moves the cloth by up to %.4f m; Blender vs rig: keyed %.3g m, "
          "constant %.3g m" % (effect, same_key, same_const))
    check(effect > 0.01, "the key changed the result by only %.3g m" % effect)
    check(same_key == 0.0, "keyed tau: Blender differs from the rig by %.3g m" % same_key)
    check(same_const == 0.0, "constant tau: Blender differs from the rig by %.3g m" % same_const)


def test_settle_time_as_in_a_rig():
    ob, _ = common.plane_scene(tau_keyed=False)
    rig_pc2, _ = common.run_rig(os.path.join(common.OPT.root, "tests", "blender", "fixtures",
                                             "plane.lua"), os.path.join(common.WORK, "settle.pc2"),
                                env={"SETTLE": "1"})
    s = ob.tauform
    s.damping, s.settle_time, s.preview = "SETTLE", 1.5, False
    s.cache_dir = os.path.join(common.WORK, "settle")
    check(bpy.ops.tauform.bake() == {"FINISHED"}, "bake failed")
    got = common.read_pc2(os.path.join(s.cache_dir, "Plane.pc2"))["frames"]
    want = common.read_pc2(rig_pc2)["frames"]
    worst = max(common.max_diff(a, b) for a, b in zip(got, want))
    print("settle time 1.5 s: Blender vs rig over 48 frames: max |difference| %.3g m" % worst)
    check(len(got) == 48 and worst == 0.0, "differs by %.3g m" % worst)


common.run([test_tau_key_as_in_a_rig, test_settle_time_as_in_a_rig])
