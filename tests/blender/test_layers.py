# SPDX-License-Identifier: MIT
# Layer groups: cloth objects with the same Layer Group are one simulation (one piece per object,
# self-contact on), so they never pass through each other, while each keeps its own Stretch,
# Density and Bending. A small sheet ("Jacket") held at one edge above a larger one held at two
# edges ("Shirt") swings down onto it: in one layer group no edge of either crosses a triangle of
# the other at any frame (the independent segment-triangle count of common.crossings on both
# meshes together) and the jacket ends above the shirt; as two separate objects it swings through
# and hangs across it. Two strips hanging apart in one group, of other stiffness and density,
# move as each does baked alone. A shared setting that differs (Tau) is refused naming both
# objects, and nothing is baked. The group's live preview writes what its bake writes.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import check  # noqa: E402

import bpy  # noqa: E402

common.enable_addon()
FRAMES = 24


def pin_edges(ob, n, rows):
    idx = [j * (n + 1) + i for j in rows for i in range(n + 1)]
    ob.vertex_groups.new(name="pins").add(idx, 1.0, "REPLACE")
    ob.tauform.pin_group = "pins"


def outfit(group, cache):
    """The shirt held at two edges 0.3 m up; the jacket 0.12 m above its middle, held at one
    edge, so it swings down onto the shirt (as a separate object: through it, to hang across
    it)."""
    common.reset()
    shirt = common.grid_sheet("Shirt", 10, lambda u, v: (-0.3 + 0.6 * u, -0.3 + 0.6 * v, 0.3),
                              FRAMES, 1, cache)
    pin_edges(shirt, 10, (0, 10))
    jacket = common.grid_sheet("Jacket", 6, lambda u, v: (-0.15 + 0.3 * u, -0.15 + 0.3 * v, 0.42),
                               FRAMES, 1, cache)
    pin_edges(jacket, 6, (0,))
    for ob in (shirt, jacket):
        s = ob.tauform
        s.stretch, s.thickness, s.layer_group = 1000, 0.004, group
    jacket.tauform.stretch, jacket.tauform.density = 3000, 0.3
    return shirt, jacket


def world_frames(obs):
    """Every frame's positions of the objects together (mathutils vectors) and their triangles."""
    from mathutils import Vector
    tris, base = [], 0
    for ob in obs:
        ob.data.calc_loop_triangles()
        tris += [tuple(v + base for v in t.vertices) for t in ob.data.loop_triangles]
        base += len(ob.data.vertices)
    frames = []
    for f in range(1, FRAMES + 1):
        bpy.context.scene.frame_set(f)
        x = []
        for ob in obs:
            x += common.evaluated(ob)
        frames.append([Vector(x[3 * i:3 * i + 3]) for i in range(len(x) // 3)])
    return frames, tris


def test_layer_group_keeps_garments_apart():
    shirt, jacket = outfit("outfit", "layers_on")
    bpy.context.view_layer.objects.active = jacket  # baking one member bakes the group
    check(bpy.ops.tauform.bake() == {"FINISHED"}, "bake failed")
    check(shirt.tauform.baked and jacket.tauform.baked, "the group's other member was not baked")
    frames, tris = world_frames((shirt, jacket))
    on = max(common.crossings(x, tris) for x in frames)
    ns = len(shirt.data.vertices)
    last = frames[-1]
    centre = last[5 * 11 + 5].z  # the shirt's middle vertex
    low = min(p.z for p in last[ns:])
    shirt, jacket = outfit("", "layers_off")
    for ob in (shirt, jacket):
        bpy.context.view_layer.objects.active = ob
        check(bpy.ops.tauform.bake() == {"FINISHED"}, "bake of %s failed" % ob.name)
    frames, tris = world_frames((shirt, jacket))
    off = max(common.crossings(x, tris) for x in frames)
    print("jacket swung down onto a held shirt, %d frames: most crossings at a frame %d in a layer "
          "group, %d as separate objects; at the end the jacket's lowest point %.1f mm above the "
          "shirt's middle" % (FRAMES, on, off, 1e3 * (low - centre)))
    check(on == 0, "%d crossings in a layer group" % on)
    check(off > 0, "the jacket does not fall through the shirt as a separate object")
    check(low > centre, "the jacket ended below the shirt")


def strips(group, cache):
    """Two strips hanging 1 m apart from their top rows, 300 and 1200 N/m, densities 0.2, 0.35."""
    common.reset()
    obs = []
    for k, (name, stretch, rho) in enumerate((("Soft", 300, 0.2), ("Stiff", 1200, 0.35))):
        ob = common.grid_sheet(name, 4, lambda u, v, k=k: (k + 0.2 * u, 0.0, -0.5 * v), 12, 1,
                               cache)
        pin_edges(ob, 4, (0,))
        s = ob.tauform
        s.stretch, s.density, s.layer_group = stretch, rho, group
        s.tolerance, s.abs_tolerance = 1e-9, 1e-12
        obs.append(ob)
    return obs


def test_each_member_keeps_its_fabric():
    obs = strips("pair", "fabric_group")
    bpy.context.view_layer.objects.active = obs[0]
    check(bpy.ops.tauform.bake() == {"FINISHED"}, "group bake failed")
    grouped = [common.read_pc2(common.cache_file(ob))["frames"][-1] for ob in obs]
    alone = []
    for k in range(2):
        obs = strips("", "fabric_alone")
        bpy.context.view_layer.objects.active = obs[k]
        check(bpy.ops.tauform.bake() == {"FINISHED"}, "bake of %s failed" % obs[k].name)
        alone.append(common.read_pc2(common.cache_file(obs[k]))["frames"][-1])
    d = [common.max_diff(g, a) for g, a in zip(grouped, alone)]
    drop = [-(min(f[2::3]) + 0.5) for f in grouped]
    print("strips in one layer group against each baked alone: %.2e / %.2e m apart; they hang "
          "%.3f / %.3f mm below their rest length" % (d[0], d[1], 1e3 * drop[0], 1e3 * drop[1]))
    check(max(d) < 1e-5, "a member moved differently in its group")
    check(drop[0] > 2.0 * drop[1], "the stiff strip stretched as far as the soft one")


def test_shared_setting_that_differs_is_refused():
    shirt, jacket = outfit("outfit", "layers_bad")
    shirt.tauform.tau = 0.5
    bpy.context.view_layer.objects.active = shirt
    common.bake_error("Tau differing in a layer group", "'Shirt' has Tau 0.5",
                      "'Jacket', the group's first object, has 0.2", "layer group 'outfit'")
    check(not shirt.tauform.baked and not jacket.tauform.baked, "something was baked")


def test_group_previews_what_it_bakes():
    """Live preview of the group (the first object's Preview on) writes each member's cache as
    the bake does, to the last bit."""
    shirt, jacket = outfit("outfit", "layers_preview")
    for ob in (shirt, jacket):
        ob.tauform.frame_end = 8
    jacket.tauform.preview = True  # the group's first object by name
    for f in range(1, 9):
        bpy.context.scene.frame_set(f)
    check(shirt.tauform.cached_last == 8 and jacket.tauform.cached_last == 8,
          "the preview did not step both members: %d, %d" % (shirt.tauform.cached_last,
                                                             jacket.tauform.cached_last))
    previewed = [common.read_pc2(common.cache_file(ob))["frames"] for ob in (shirt, jacket)]
    bpy.context.scene.frame_set(1)
    bpy.context.view_layer.objects.active = shirt
    check(bpy.ops.tauform.bake() == {"FINISHED"}, "bake failed")
    baked = [common.read_pc2(common.cache_file(ob))["frames"] for ob in (shirt, jacket)]
    d = max(common.max_diff(a, b) for p, q in zip(previewed, baked) for a, b in zip(p, q))
    print("layer group previewed over 8 frames against its bake: largest difference %g m" % d)
    check(len(previewed[0]) == 8 and len(previewed[1]) == 8, "the preview cached %d / %d frames"
          % (len(previewed[0]), len(previewed[1])))
    check(d == 0.0, "the preview differs from the bake")


common.run([test_layer_group_keeps_garments_apart, test_each_member_keeps_its_fabric,
            test_shared_setting_that_differs_is_refused, test_group_previews_what_it_bakes])
