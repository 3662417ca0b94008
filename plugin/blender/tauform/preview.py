# SPDX-License-Identifier: MIT
# Live preview, as Blender's cloth: at the start frame the simulation (re)starts, and each time the
# frame advances by exactly one it steps once and appends the frame to the object's cache, which
# the Mesh Cache modifier shows. Jumping back ends the run (it restarts when the start frame comes
# again); jumping ahead shows what is cached. A baked object is not touched. Errors cannot be
# reported from a frame handler: they go to the panel (errors[name]) and the console. A layer
# group previews as one run (layers.py) when its first object has Preview on and none is baked;
# each member's cache and modifier show its part.
import os

import bpy
from bpy.app.handlers import persistent

from . import cache, pc2, prefs
from .library import LibraryError
from .meshread import InputError
from .layers import LayerSession, layer_members
from .session import Session, SimError, cache_path

# run key (the object's name, or "layer group: NAME") -> (Session, [pc2.Writer], [object names])
_runs = {}
errors = {}  # object name -> the last preview error
_paused = [0]  # > 0 while a bake moves the frame itself


class paused:
    def __enter__(self):
        _paused[0] += 1

    def __exit__(self, *exc):
        _paused[0] -= 1


def _close(key):
    run = _runs.pop(key, None)
    if run is not None:
        run[0].close()
        for w in run[1]:
            w.close()


def drop(obj_or_name):
    """End the run that writes this object's cache (its own, or its layer group's)."""
    name = getattr(obj_or_name, "name", obj_or_name)
    for key in [k for k, run in _runs.items() if name in run[2]]:
        _close(key)


def drop_all():
    for key in list(_runs):
        _close(key)


def _preview_path(obj):
    try:
        return cache_path(obj, bpy.data.filepath)
    except InputError:  # an unsaved file: the session's temporary directory
        p = os.path.join(bpy.app.tempdir, "tauform_preview_%s.pc2" % obj.name)
        return p, p


def _evaluated(obj):
    """The depsgraph evaluated with the object's cache modifier off (inside cache.hidden)."""
    ctx = bpy.context
    ctx.view_layer.update()
    return ctx.evaluated_depsgraph_get()


def _start(scene, key, objs, make):
    """(Re)start the run of objs (one object, or a layer group's members; objs[0] leads)."""
    _close(key)
    lib = prefs.load_library()
    base = os.path.dirname(bpy.data.filepath) if bpy.data.filepath else ""
    with cache.hidden(*objs):
        session = make(lib, scene, objs[0], _evaluated(objs[0]), base)
    writers, paths = [], [_preview_path(o) for o in objs]
    try:
        for (path, _), n in zip(paths, session.counts):
            writers.append(pc2.Writer(path, n, session.start, direct=True))
        for w, x in zip(writers, session.outputs(session.start_input)):
            w.write(x)
    except OSError as e:
        session.close()
        for w in writers:
            w.close()
        raise InputError("cannot write the preview cache %s: %s"
                         % (e.filename, e.strerror)) from None
    _runs[key] = (session, writers, [o.name for o in objs])
    for o, (_, stored) in zip(objs, paths):
        cache.ensure_modifier(o, stored, session.start)
        o.tauform.cached_last = session.start


def _step(scene, key, objs, f):
    session, writers, _ = _runs[key]
    with cache.hidden(*objs):
        dg = _evaluated(objs[0])
        inp = session.read_frame(scene, dg, f)
        session.apply(f, inp)
        session.advance(f)
        for w, x in zip(writers, session.outputs(inp)):
            w.write(x)
    for o in objs:
        o.tauform.cached_last = f


def update(scene, key, objs, make):
    s = objs[0].tauform
    f = scene.frame_current
    run = _runs.get(key)
    if f == s.frame_start:
        _start(scene, key, objs, make)
    elif run is not None and f == run[0].frame + 1 and f <= run[0].end:
        _step(scene, key, objs, f)
    elif run is not None and f <= run[0].frame:
        _close(key)


def _jobs(scene):
    """(key, objects, session class) of every run this frame drives: each previewed object, and
    each layer group once, led by its first object (Preview on, no member baked)."""
    seen = set()
    for obj in scene.objects:
        s = getattr(obj, "tauform", None)
        if obj.type != "MESH" or s is None or not s.enabled:
            continue
        group = s.layer_group if s.kind == "CLOTH" else ""
        if not group:
            if s.preview and not s.baked:
                yield obj.name, [obj], Session
            continue
        if group in seen:
            continue
        seen.add(group)
        objs = layer_members(scene, group)
        if objs[0].tauform.preview and not any(o.tauform.baked for o in objs):
            yield "layer group: " + group, objs, LayerSession


@persistent
def on_frame_change(scene, depsgraph=None):
    if _paused[0]:
        return
    with paused():  # the view layer updates below must not re-enter
        for key, objs, make in list(_jobs(scene)):
            try:
                update(scene, key, objs, make)
                for o in objs:
                    errors.pop(o.name, None)
            except (InputError, SimError, LibraryError) as e:
                _close(key)
                for o in objs:
                    errors[o.name] = str(e)
                print("tauform preview: %s" % e)


@persistent
def on_load(_dummy=None):
    drop_all()
    errors.clear()


def register():
    bpy.app.handlers.frame_change_post.append(on_frame_change)
    bpy.app.handlers.load_pre.append(on_load)


def unregister():
    for lst, fn in ((bpy.app.handlers.frame_change_post, on_frame_change),
                    (bpy.app.handlers.load_pre, on_load)):
        while fn in lst:
            lst.remove(fn)
    drop_all()
