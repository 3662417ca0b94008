# SPDX-License-Identifier: MIT
# Plasticity from the panel: a 0.5 m sheet hangs from its top row under its own weight. Elastic, it
# stretches a little and stops; with Plasticity on and a small yield its stretch past the yield
# becomes its rest shape, so it hangs lower (by what the yield lets go), and a plastic limit of 0
# (the library's "elastic") hangs exactly as the elastic run: the panel's values reach the library.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import check  # noqa: E402

import bpy  # noqa: E402

common.enable_addon()
N, SIZE = 10, 0.5


def bottom(use_plastic, limit):
    common.reset()
    h = SIZE / N
    verts = [(i * h, 0.0, 1.0 - j * h) for j in range(N + 1) for i in range(N + 1)]
    faces = [(j * (N + 1) + i, j * (N + 1) + i + 1, (j + 1) * (N + 1) + i + 1,
              (j + 1) * (N + 1) + i) for j in range(N) for i in range(N)]
    sheet = common.mesh_object("Sheet", verts, faces)
    sheet.vertex_groups.new(name="top").add(list(range(N + 1)), 1.0, "REPLACE")
    s = sheet.tauform
    s.enabled, s.preview = True, False
    s.frame_start, s.frame_end, s.substeps = 1, 36, 1
    s.tau, s.density, s.stretch = 0.5, 0.2, 50
    s.use_scene_gravity = False
    s.gravity = (0, 0, -9.81)
    s.pin_group = "top"
    s.use_plastic = use_plastic
    s.plastic_yield, s.plastic_limit = 0.002, limit
    s.cache_dir = os.path.join(common.WORK, "plastic_%d_%g" % (use_plastic, limit))
    check(bpy.ops.tauform.bake() == {"FINISHED"}, "bake failed")
    bpy.context.scene.frame_set(36)
    x = common.evaluated(sheet)
    row = range(N * (N + 1), (N + 1) * (N + 1))
    return sum(x[3 * k + 2] for k in row) / (N + 1)


def test_a_yielding_sheet_hangs_lower():
    elastic, plastic, capped = bottom(False, 0.5), bottom(True, 0.5), bottom(True, 0.0)
    print("bottom edge after 1.5 s: %.4f m elastic, %.4f m plastic (yield 0.2 %%), %.4f m with a "
          "plastic limit of 0" % (elastic, plastic, capped))
    check(plastic < elastic - 0.002, "plastic %.4f not below elastic %.4f" % (plastic, elastic))
    check(capped == elastic, "limit 0: %.6f, elastic %.6f" % (capped, elastic))


common.run([test_a_yielding_sheet_hangs_lower])
