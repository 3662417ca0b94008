# SPDX-License-Identifier: MIT
# The Response panel (Palazzi's multilevel force distribution, ABI 1.14): a 1 m sheet falls through
# a turbulent updraft. Each panel's drag acts where it is: the eddies crumple the sheet, its middle
# leaving the plane of its corners. With Response on and Global at 100 % the same total push (and
# torque) moves the sheet as one piece and it stays much flatter (the drag's damping of each
# panel's own motion stays local: not perfectly flat). Global at 0 % is the panel off, bit for
# bit, and a response group keeps its own share: the panel's values reach the library.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import check  # noqa: E402

import bpy  # noqa: E402

common.enable_addon()
N, SIZE = 10, 1.0


def run(use_response, glob, group=None, group_global=0.0):
    common.reset()
    h = SIZE / N
    verts = [(i * h, j * h, 1.0) for j in range(N + 1) for i in range(N + 1)]
    faces = [(j * (N + 1) + i, j * (N + 1) + i + 1, (j + 1) * (N + 1) + i + 1,
              (j + 1) * (N + 1) + i) for j in range(N) for i in range(N)]
    sheet = common.mesh_object("Sheet", verts, faces)
    sheet.vertex_groups.new(name="left").add([j * (N + 1) + i for j in range(N + 1)
                                              for i in range(N // 2)], 1.0, "REPLACE")
    s = sheet.tauform
    s.enabled, s.preview = True, False
    s.frame_start, s.frame_end, s.substeps = 1, 24, 1
    s.tau, s.density, s.stretch = 0.2, 0.1, 200
    s.use_air, s.wind = True, (1, 0, 2)
    s.turbulence, s.turbulence_scale = 3.0, 0.3
    s.use_response, s.response_global = use_response, glob
    if group:
        s.response_group, s.response_group_global = group, group_global
    s.cache_dir = os.path.join(common.WORK, "response_%d_%g_%s" % (use_response, glob, group))
    check(bpy.ops.tauform.bake() == {"FINISHED"}, "bake failed")
    frames = []
    for f in range(1, 25):
        bpy.context.scene.frame_set(f)
        frames.append(common.evaluated(sheet))
    return frames


def bulge(x):
    """How far the middle vertex is out of the plane of three corners."""
    def p(k):
        return x[3 * k:3 * k + 3]
    a, b, c, m = p(0), p(N), p(N * (N + 1)), p((N // 2) * (N + 2))
    u = [b[i] - a[i] for i in range(3)]
    v = [c[i] - a[i] for i in range(3)]
    n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
    ln = sum(q * q for q in n) ** 0.5
    return abs(sum((m[i] - a[i]) * n[i] for i in range(3))) / ln


def test_a_global_response_keeps_the_sheet_whole_in_turbulence():
    off, zero, glob = run(False, 100.0), run(True, 0.0), run(True, 100.0)
    worst_off, worst_glob = max(map(bulge, off)), max(map(bulge, glob))
    print("middle out of the corners' plane over 1 s of turbulent updraft: %.4f m local, %.4f m "
          "global" % (worst_off, worst_glob))
    check(off == zero, "Global 0 %% differs from the panel off by %.3g m"
          % max(common.max_diff(a, b) for a, b in zip(off, zero)))
    check(worst_glob < 0.5 * worst_off, "global %.4f m, local %.4f m" % (worst_glob, worst_off))
    # the left half in its own group at 0 %: neither the local run nor the global one
    mixed = run(True, 100.0, "left", 0.0)
    apart = min(common.max_diff(mixed[-1], glob[-1]), common.max_diff(mixed[-1], off[-1]))
    check(apart > 1e-4, "the group's own share made no difference (%.3g m)" % apart)


common.run([test_a_global_response_keeps_the_sheet_whole_in_turbulence])
