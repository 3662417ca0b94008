# SPDX-License-Identifier: MIT
# A Lua rig on top of the panel: a text datablock that gives only the tau key, on the plane scene
# whose panel says tau 0.25, bakes to exactly the cache of the full rig fixtures/plane.lua (the
# rig's key wins, the panel gives the rest). A rig that raises an error on frame 3 is reported
# with file:line and the frame, and the frames before it stay cached.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import check  # noqa: E402

import bpy  # noqa: E402

common.enable_addon()

TAU_RIG = """local tauform = require "tauform"
-- only tau: mesh, pins, material and wind come from the Blender panel
return { tau = tauform.key{ { 1, 0.25 }, { 17, 2.25 }, interp = "linear" } }
"""

BROKEN_RIG = """local tauform = require "tauform"
local function tau(frame)
  if frame >= 3 then error("the tau curve broke") end
  return 0.3
end
return { tau = tau }
"""


def test_rig_on_top_of_the_panel():
    ob, _ = common.plane_scene(tau_keyed=False)
    rig_pc2, _ = common.run_rig(os.path.join(common.OPT.root, "tests", "blender", "fixtures",
                                             "plane.lua"), os.path.join(common.WORK, "keyed.pc2"))
    text = bpy.data.texts.new("Tau.lua")
    text.write(TAU_RIG)
    s = ob.tauform
    s.rig, s.rig_text, s.preview = "TEXT", text, False
    check(bpy.ops.tauform.bake() == {"FINISHED"}, "bake failed")
    got = common.read_pc2(os.path.join(s.cache_dir, "Plane.pc2"))["frames"]
    want = common.read_pc2(rig_pc2)["frames"]
    worst = max(common.max_diff(a, b) for a, b in zip(got, want))
    print("panel + Tau.lua vs the full rig over 48 frames: max |difference| %.3g m" % worst)
    check(len(got) == 48 and worst == 0.0, "differs by %.3g m" % worst)


def test_rig_runtime_error():
    ob, _ = common.plane_scene(tau_keyed=False)
    text = bpy.data.texts.new("Broken.lua")
    text.write(BROKEN_RIG)
    s = ob.tauform
    s.rig, s.rig_text, s.preview, s.frame_end = "TEXT", text, False, 10
    common.bake_error("rig error", "Broken.lua:3:", "the tau curve broke", "frame 3")
    cached = common.read_pc2(os.path.join(s.cache_dir, "Plane.pc2"))["frames"]
    check(len(cached) == 2, "frames before the error: %d cached" % len(cached))


common.run([test_rig_on_top_of_the_panel, test_rig_runtime_error])
