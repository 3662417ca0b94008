# SPDX-License-Identifier: MIT
# Shared by the Blender tests (run as blender -b --factory-startup --python-exit-code 1 --python
# tests/blender/test_x.py -- --root SRC --lib LIBTAUFORM [--lua LUA5.4 --lua-cpath DIR/?.so]
# [--work DIR]): enabling the add-on from the source tree, building test scenes, running a rig with
# examples/run.lua, reading caches, and a tiny runner that fails the process on the first failed
# check. A test prints what it measured, so a passing run still shows its numbers.
import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import traceback

import bpy


def options():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    p = argparse.ArgumentParser()
    p.add_argument("--root", required=True)
    p.add_argument("--lib", required=True)
    p.add_argument("--lua", default="lua5.4")
    p.add_argument("--lua-cpath", default="")
    p.add_argument("--work", default="")
    p.add_argument("--addon-dir", default="", help="the staged add-on (build/blender)")
    return p.parse_args(argv)


OPT = options()
WORK = OPT.work or tempfile.mkdtemp(prefix="tauform_blender_")
os.makedirs(WORK, exist_ok=True)


def enable_addon(staged=False):
    """Enable the add-on: plugin/blender/tauform loading the library given by --lib, or (staged)
    the add-on as the zip holds it, which finds the library in its own lib/ directory."""
    import addon_utils
    if staged:
        check(OPT.addon_dir, "--addon-dir is needed")
        sys.path.insert(0, OPT.addon_dir)
        os.environ.pop("TAUFORM_LIBRARY", None)
    else:
        sys.path.insert(0, os.path.join(OPT.root, "plugin", "blender"))
        os.environ["TAUFORM_LIBRARY"] = OPT.lib
    mod = addon_utils.enable("tauform", default_set=True, handle_error=None)
    check(mod is not None, "the add-on did not enable")
    import tauform
    check(tauform._state["active"], "the add-on did not load the library: %s" % tauform.error())
    return tauform


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def run(tests):
    """Run test functions in order; any failure exits Blender with status 1."""
    failed = 0
    for t in tests:
        reset()
        try:
            t()
            print("PASS %s" % t.__name__)
        except Exception:
            failed += 1
            print("FAIL %s" % t.__name__)
            traceback.print_exc()
    if failed:
        print("%d of %d failed" % (failed, len(tests)))
        sys.exit(1)


def reset():
    """An empty scene at frame 1 (the add-on stays enabled)."""
    for coll in (bpy.data.objects, bpy.data.meshes, bpy.data.armatures, bpy.data.actions,
                 bpy.data.texts, bpy.data.shape_keys):
        for x in list(coll):
            if coll is not bpy.data.shape_keys:
                coll.remove(x)
    bpy.context.scene.frame_set(1)


def read_pc2(path):
    with open(path, "rb") as f:
        data = f.read()
    magic, version, n, start, rate, count = struct.unpack_from("<12siiffi", data)
    check(magic == b"POINTCACHE2\0" and version == 1, "%s is not PC2" % path)
    frames, off = [], 32
    for _ in range(count):
        frames.append(struct.unpack_from("<%df" % (3 * n), data, off))
        off += 12 * n
    return {"points": n, "start": start, "frames": frames}


def run_rig(rig, out, env=None):
    """examples/run.lua on a rig; returns the PC2 path and the rest-mesh OBJ beside it."""
    e = dict(os.environ)
    if OPT.lua_cpath:
        e["LUA_CPATH"] = OPT.lua_cpath + ";;"
    e.update(env or {})
    cmd = [OPT.lua, os.path.join(OPT.root, "examples", "run.lua"), rig, "--out", out, "--quiet"]
    r = subprocess.run(cmd, env=e, capture_output=True, text=True)
    check(r.returncode == 0, "run.lua failed: %s %s" % (r.stdout, r.stderr))
    return out, os.path.splitext(out)[0] + ".obj"


def read_obj(path):
    verts, tris = [], []
    with open(path) as f:
        for line in f:
            w = line.split()
            if w and w[0] == "v":
                verts.append(tuple(float(x) for x in w[1:4]))
            elif w and w[0] == "f":
                tris.append(tuple(int(x.split("/")[0]) - 1 for x in w[1:4]))
    return verts, tris


def mesh_object(name, verts, faces):
    me = bpy.data.meshes.new(name)
    me.from_pydata(verts, [], faces)
    me.update()
    ob = bpy.data.objects.new(name, me)
    bpy.context.scene.collection.objects.link(ob)
    bpy.context.view_layer.objects.active = ob
    return ob


def grid_sheet(name, n, point, frames, substeps, cache):
    """An n x n quad sheet object, vertex (i, j) at point(i / n, j / n), simulated by tauform
    (tau 0.2 s, stretch, density as the tests use) over frames 1..frames, cached in WORK/cache."""
    verts = [point(i / n, j / n) for j in range(n + 1) for i in range(n + 1)]
    faces = [(j * (n + 1) + i, j * (n + 1) + i + 1, (j + 1) * (n + 1) + i + 1,
              (j + 1) * (n + 1) + i) for j in range(n) for i in range(n)]
    sheet = mesh_object(name, verts, faces)
    s = sheet.tauform
    s.enabled, s.preview = True, False
    s.frame_start, s.frame_end, s.substeps = 1, frames, substeps
    s.tau, s.density = 0.2, 0.2
    s.cache_dir = os.path.join(WORK, cache)
    return sheet


def plane_scene(tau_keyed=True):
    """The scene equivalent to fixtures/plane.lua, built from the rest mesh run.lua wrote."""
    pc2, obj = run_rig(os.path.join(OPT.root, "tests", "blender", "fixtures", "plane.lua"),
                       os.path.join(WORK, "plane_rig%s.pc2" % ("" if tau_keyed else "_const")),
                       env={"TAU_CONSTANT": "0" if tau_keyed else "1"})
    verts, tris = read_obj(obj)
    for v in verts:  # the numbers Blender stores must be the rig's
        check(all(struct.unpack("<f", struct.pack("<f", c))[0] == c for c in v),
              "rest vertex %r is not exact in single precision" % (v,))
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = 24, 1.0
    ob = mesh_object("Plane", verts, tris)
    top = max(v[2] for v in verts)
    pinned = [i for i, v in enumerate(verts) if v[2] == top]
    check(len(pinned) == 9, "expected 9 top-row vertices, got %d" % len(pinned))
    ob.vertex_groups.new(name="pins").add(pinned, 1.0, "REPLACE")
    # the pins walk: a shape key moving the top row 0.5 m along y, keyed 0 -> 1 over 1-33
    ob.shape_key_add(name="Basis")
    walk = ob.shape_key_add(name="walk")
    for i in pinned:
        walk.data[i].co.y += 0.5
    walk.value = 0.0
    walk.keyframe_insert("value", frame=1)
    walk.value = 1.0
    walk.keyframe_insert("value", frame=33)
    linear(ob.data.shape_keys)
    s = ob.tauform
    s.enabled = True
    s.pin_group = "pins"
    s.frame_start, s.frame_end, s.substeps = 1, 48, 2
    s.density, s.stretch, s.kappa = 0.2, 2000, 0.3
    s.use_air = True
    s.wind = (2, 1, 0)
    s.cache_dir = os.path.join(WORK, "cache")
    s.tau = 0.25
    if tau_keyed:
        s.keyframe_insert("tau", frame=1)
        s.tau = 2.25
        s.keyframe_insert("tau", frame=17)
        linear(ob)
    return ob, pc2


def linear(idblock):
    for fc in idblock.animation_data.action.fcurves:
        for k in fc.keyframe_points:
            k.interpolation = "LINEAR"


def evaluated(ob):
    """World-space positions of the evaluated object (flat, doubles)."""
    dg = bpy.context.evaluated_depsgraph_get()
    ev = ob.evaluated_get(dg)
    me = ev.to_mesh()
    m = ev.matrix_world
    out = []
    for v in me.vertices:
        w = m @ v.co if m != m.Identity(4) else v.co
        out += [w.x, w.y, w.z]
    ev.to_mesh_clear()
    return out


def max_diff(a, b):
    check(len(a) == len(b), "sizes differ: %d and %d" % (len(a), len(b)))
    return max(abs(x - y) for x, y in zip(a, b))


def clean(path):
    shutil.rmtree(path, ignore_errors=True)


def crossings(points, tris):
    """Edges crossing a triangle that shares no vertex with them (segment-triangle test of
    mathutils.geometry.intersect_ray_tri, clipped to the segment)."""
    from mathutils.geometry import intersect_ray_tri
    edges = set()
    for t in tris:
        for k in range(3):
            a, b = t[k], t[(k + 1) % 3]
            edges.add((min(a, b), max(a, b)))
    count = 0
    for a, b in edges:
        p, q = points[a], points[b]
        d = q - p
        lo = [min(p[k], q[k]) for k in range(3)]
        hi = [max(p[k], q[k]) for k in range(3)]
        for t in tris:
            if a in t or b in t:
                continue
            u, v, w = points[t[0]], points[t[1]], points[t[2]]
            if any(min(u[k], v[k], w[k]) > hi[k] or max(u[k], v[k], w[k]) < lo[k] for k in range(3)):
                continue
            hit = intersect_ray_tri(u, v, w, d, p, True)
            if hit is not None and (hit - p).length <= d.length:
                count += 1
    return count


def cache_file(ob):
    """The PC2 file a bake of ob writes (its Cache Directory is absolute in these tests)."""
    return os.path.join(ob.tauform.cache_dir, ob.name + ".pc2")


def bake_error(what, *needles):
    """Bake the active object, which must fail: the error report, printed, naming each needle."""
    try:
        bpy.ops.tauform.bake()
    except RuntimeError as e:
        msg = str(e)
    else:
        raise AssertionError("%s: the bake did not report an error" % what)
    print("%s -> %s" % (what, msg.strip()))
    for n in needles:
        check(n in msg, "%s: the report does not name %r: %s" % (what, n, msg))
    return msg
