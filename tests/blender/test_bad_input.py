# SPDX-License-Identifier: MIT
# Bad input from a scene gives a Blender error report naming the problem, and leaves the scene as
# it was (frame, objects, modifiers, mesh, settings, files): a pin group the object does not have,
# a pin group with no weighted vertex, a mesh with a non-manifold edge, a rig with a syntax error
# (reported as file:line), a library that cannot be found, and a keyed value out of the library's
# range.
import hashlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import check  # noqa: E402

import bpy  # noqa: E402

common.enable_addon()


def snapshot():
    scene = bpy.context.scene
    h = hashlib.sha256()
    for ob in sorted(bpy.data.objects, key=lambda o: o.name):
        h.update(ob.name.encode())
        h.update(repr([(m.name, m.type, m.show_viewport, m.show_render)
                       for m in ob.modifiers]).encode())
        if ob.type == "MESH":
            h.update(repr([tuple(v.co) for v in ob.data.vertices]).encode())
            s = ob.tauform
            h.update(repr((s.enabled, s.baked, s.cached_last, s.pin_group, s.tau)).encode())
    files = []
    for root, _, names in os.walk(common.WORK):
        files += [os.path.join(root, n) for n in names]
    return scene.frame_current, h.hexdigest(), sorted(files)


def expect_error(what, *needles):
    before = snapshot()
    common.bake_error(what, *needles)
    check(snapshot() == before, "%s: the scene changed" % what)


def plane(name="Sheet", faces=None, verts=None):
    verts = verts or [(x, y, 0.0) for y in (0, 1, 2) for x in (0, 1, 2)]
    faces = faces or [(0, 1, 4, 3), (1, 2, 5, 4), (3, 4, 7, 6), (4, 5, 8, 7)]
    ob = common.mesh_object(name, verts, faces)
    ob.vertex_groups.new(name="pins").add([6, 7, 8], 1.0, "REPLACE")
    s = ob.tauform
    s.enabled, s.pin_group, s.preview = True, "pins", False
    s.frame_start, s.frame_end = 1, 5
    s.cache_dir = os.path.join(common.WORK, "cache")
    bpy.context.scene.frame_set(3)
    return ob


def test_missing_pin_group():
    ob = plane()
    ob.tauform.pin_group = "shoulders"
    expect_error("pin group missing", "'shoulders'", "not a vertex group", "'Sheet'", "'pins'")


def test_empty_pin_group():
    ob = plane()
    ob.vertex_groups.new(name="empty")
    ob.tauform.pin_group = "empty"
    expect_error("pin group empty", "'empty'", "no vertex with a weight above 0")


def test_non_manifold_edge():
    # a fin: a third face on the edge 4-5
    verts = [(x, y, 0.0) for y in (0, 1, 2) for x in (0, 1, 2)] + [(1.5, 0.5, 1.0)]
    faces = [(0, 1, 4, 3), (1, 2, 5, 4), (3, 4, 7, 6), (4, 5, 8, 7), (4, 5, 9)]
    plane(verts=verts, faces=faces)
    expect_error("non-manifold", "non-manifold edge", "'Sheet'", "vertices 4-5", "3 faces")


def test_rig_syntax_error():
    ob = plane()
    text = bpy.data.texts.new("Cape.lua")
    text.write("local tauform = require 'tauform'\nreturn {\n  tau = 0.5,\n  kappa = = 0.2,\n}\n")
    ob.tauform.rig, ob.tauform.rig_text = "TEXT", text
    expect_error("rig syntax error", "Cape.lua:4:", "near '='")


def test_library_not_found():
    plane()
    prefs = bpy.context.preferences.addons["tauform"].preferences
    prefs.library_path = "/nonexistent/lib/libtauform.so"
    try:
        expect_error("library not found", "/nonexistent/lib/libtauform.so", "not found")
    finally:
        prefs.library_path = ""


def test_keyed_value_out_of_range():
    ob = plane()
    s = ob.tauform
    s.keyframe_insert("tau", frame=1)
    ob.animation_data.action.fcurves[0].keyframe_points[0].co.y = -0.5  # an F-curve dips below 0
    bpy.context.scene.frame_set(3)  # evaluated (Blender clamps the value to the property's 0)
    expect_error("tau < 0", "frame 1", "Tau", "tau")


common.run([test_missing_pin_group, test_empty_pin_group, test_non_manifold_edge,
            test_rig_syntax_error, test_library_not_found, test_keyed_value_out_of_range])
