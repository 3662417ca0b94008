# SPDX-License-Identifier: MIT
# Live preview, as Blender's cloth: at the start frame the simulation (re)starts, and each time the
# frame advances by exactly one it steps once and appends the frame to the object's cache, which
# the Mesh Cache modifier shows. Jumping back ends the run (it restarts when the start frame comes
# again); jumping ahead shows what is cached. A baked object is not touched. Errors cannot be
# reported from a frame handler: they go to the panel (errors[name]) and the console.
import os

import bpy
from bpy.app.handlers import persistent

from . import cache, pc2, prefs
from .library import LibraryError
from .meshread import InputError
from .session import Session, SimError, cache_path

_runs = {}  # object name -> (Session, pc2.Writer)
errors = {}  # object name -> the last preview error
_paused = [0]  # > 0 while a bake moves the frame itself


class paused:
    def __enter__(self):
        _paused[0] += 1

    def __exit__(self, *exc):
        _paused[0] -= 1


def drop(obj_or_name):
    name = getattr(obj_or_name, "name", obj_or_name)
    run = _runs.pop(name, None)
    if run is not None:
        run[0].close()
        run[1].close()


def drop_all():
    for name in list(_runs):
        drop(name)


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


def _start(scene, obj):
    drop(obj)
    lib = prefs.load_library()
    path, stored = _preview_path(obj)
    base = os.path.dirname(bpy.data.filepath) if bpy.data.filepath else ""
    with cache.hidden(obj):
        session = Session(lib, scene, obj, _evaluated(obj), base)
    try:
        writer = pc2.Writer(path, session.n, session.start, direct=True)
        writer.write(session.output(session.start_input))
    except OSError as e:
        session.close()
        raise InputError("cannot write the preview cache %s: %s" % (path, e.strerror)) from None
    _runs[obj.name] = (session, writer)
    cache.ensure_modifier(obj, stored, session.start)
    obj.tauform.cached_last = session.start


def _step(scene, obj, f):
    session, writer = _runs[obj.name]
    with cache.hidden(obj):
        dg = _evaluated(obj)
        inp = session.read(scene, obj, dg, f)
        session.apply(f, inp)
        session.advance(f)
        writer.write(session.output(inp))
    obj.tauform.cached_last = f


def update(scene, obj):
    s = obj.tauform
    f = scene.frame_current
    run = _runs.get(obj.name)
    if f == s.frame_start:
        _start(scene, obj)
    elif run is not None and f == run[0].frame + 1 and f <= run[0].end:
        _step(scene, obj, f)
    elif run is not None and f <= run[0].frame:
        drop(obj)


@persistent
def on_frame_change(scene, depsgraph=None):
    if _paused[0]:
        return
    with paused():  # the view layer updates below must not re-enter
        for obj in scene.objects:
            s = getattr(obj, "tauform", None)
            if obj.type != "MESH" or s is None or not s.enabled or not s.preview or s.baked:
                continue
            if s.layer_group and s.kind == "CLOTH":  # a layer group is baked, not previewed
                continue
            try:
                update(scene, obj)
                errors.pop(obj.name, None)
            except (InputError, SimError, LibraryError) as e:
                drop(obj)
                errors[obj.name] = str(e)
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
