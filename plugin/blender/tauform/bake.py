# SPDX-License-Identifier: MIT
# Bake and Free Bake. A bake steps the object's Session over its frame range and writes the PC2
# cache, then adds (or updates) the Mesh Cache modifier that plays it. Called from a script or in
# background mode (blender -b) the operator bakes synchronously, so a farm bakes with one command
# line; from the UI it runs modal, one frame per timer tick, with a progress bar and Esc to cancel
# (the frames baked so far stay cached and playable). An object in a layer group bakes the whole
# group: one simulation, one cache per object (layers.py).
#
# Everything is checked while building the session at the start frame, before anything is written
# or added: a bad input gives an error report and leaves the scene as it was (frame, modifiers,
# files, settings).
import os

import bpy

from . import cache, pc2, preview, prefs
from .library import LibraryError
from .meshread import InputError
from .layers import LayerSession, layer_members
from .session import Session, SimError, cache_path


def _target(context, name):
    obj = bpy.data.objects.get(name) if name else context.object
    if obj is None:
        raise InputError("no object %s" % ("named '%s'" % name if name else "is active"))
    if obj.type != "MESH":
        raise InputError("'%s' is not a mesh" % obj.name)
    if not obj.tauform.enabled:
        raise InputError("'%s' does not have tauform enabled (Physics > tauform)" % obj.name)
    return obj


class BakeJob:
    """One bake in progress: the object's, or its layer group's (every member's cache from one
    simulation). Raises InputError (nothing changed) from the constructor."""

    def __init__(self, context, obj):
        self.scene, self.obj = context.scene, obj
        group = obj.tauform.layer_group if obj.tauform.kind == "CLOTH" else ""
        self.objs = layer_members(self.scene, group) if group else [obj]
        self.frame0 = self.scene.frame_current
        self.writers, self.session = [], None
        try:
            lib = prefs.load_library(context)
        except LibraryError as e:
            raise InputError(str(e)) from None
        self.paths = [cache_path(o, bpy.data.filepath) for o in self.objs]
        self.path = ", ".join(p for p, _ in self.paths)
        for o in self.objs:
            preview.drop(o)
        self._pause = preview.paused()
        self._pause.__enter__()  # the bake moves the frame itself: no preview steps meanwhile
        self._hide = cache.hidden(*self.objs)
        self._hide.__enter__()
        try:
            self.scene.frame_set(obj.tauform.frame_start)
            dg = context.evaluated_depsgraph_get()
            base = os.path.dirname(bpy.data.filepath) if bpy.data.filepath else ""
            make = LayerSession if group else Session
            self.session = make(lib, self.scene, obj, dg, base)
            for (path, _), n in zip(self.paths, self.session.counts):
                self.writers.append(pc2.Writer(path, n, self.session.start))
            self._write(self.session.start_input)
        except BaseException:
            self._restore(keep=False)
            raise
        self.frame = self.session.start
        self.end = self.session.end

    def _write(self, inp):
        for w, x in zip(self.writers, self.session.outputs(inp)):
            w.write(x)

    def step(self, context):
        """Simulate and cache the next frame; False when the range is done."""
        if self.frame >= self.end:
            return False
        f = self.frame + 1
        self.scene.frame_set(f)
        dg = context.evaluated_depsgraph_get()
        inp = self.session.read_frame(self.scene, dg, f)
        self.session.apply(f, inp)
        self.session.advance(f)
        self._write(inp)
        self.frame = f
        return f < self.end

    def finish(self):
        """Publish what was baked and add the modifiers that play it."""
        first = self.session.start
        self._restore(keep=True)
        for o, (_, stored) in zip(self.objs, self.paths):
            s = o.tauform
            s.baked, s.cached_last = True, self.frame
            cache.ensure_modifier(o, stored, first)
        return first, self.frame

    def _restore(self, keep):
        for w in self.writers:
            if keep:
                w.close()
            else:
                w.discard()
        self.writers = []
        if self.session is not None:
            self.session.close()
            self.session = None
        self._hide.__exit__(None, None, None)
        self.scene.frame_set(self.frame0)
        self._pause.__exit__(None, None, None)

    def abandon(self):
        """A failure before any frame beyond the start: nothing is kept."""
        self._restore(keep=False)


def _start(op, context):
    try:
        obj = _target(context, op.object)
        return BakeJob(context, obj)
    except InputError as e:
        op.report({"ERROR"}, "tauform: %s" % e)
        return None


def _stop(op, job, error=None, cancelled=False):
    if error is not None and job.frame == job.session.start:
        job.abandon()
        op.report({"ERROR"}, "tauform: %s" % error)
        return {"CANCELLED"}
    first, last = job.finish()
    what = "frames %d-%d cached in %s" % (first, last, job.path)
    if error is not None:
        op.report({"ERROR"}, "tauform: %s; %s" % (error, what))
        return {"CANCELLED"}
    if cancelled:
        op.report({"WARNING"}, "tauform: bake cancelled; %s" % what)
        return {"CANCELLED"}
    op.report({"INFO"}, "tauform: %s" % what)
    return {"FINISHED"}


class TAUFORM_OT_bake(bpy.types.Operator):
    """Simulate the frame range and cache it (PC2 next to the .blend), played by a Mesh Cache
    modifier"""
    bl_idname = "tauform.bake"
    bl_label = "Bake"
    bl_options = {"REGISTER"}

    object: bpy.props.StringProperty(name="Object",
                                     description="Object to bake; empty: the active object")

    def execute(self, context):
        job = _start(self, context)
        if job is None:
            return {"CANCELLED"}
        try:
            while job.step(context):
                pass
        except (InputError, SimError) as e:
            return _stop(self, job, error=e)
        return _stop(self, job)

    def invoke(self, context, event):
        if bpy.app.background or context.window is None:
            return self.execute(context)
        self.job = _start(self, context)
        if self.job is None:
            return {"CANCELLED"}
        wm = context.window_manager
        self.total = max(1, self.job.end - self.job.session.start)
        wm.progress_begin(0, self.total)
        self.timer = wm.event_timer_add(0.001, window=context.window)
        wm.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def _end(self, context, **kw):
        wm = context.window_manager
        wm.event_timer_remove(self.timer)
        wm.progress_end()
        context.workspace.status_text_set(None)
        return _stop(self, self.job, **kw)

    def modal(self, context, event):
        if event.type == "ESC":
            return self._end(context, cancelled=True)
        if event.type != "TIMER":
            return {"RUNNING_MODAL"}
        try:
            more = self.job.step(context)
        except (InputError, SimError) as e:
            return self._end(context, error=e)
        done = self.job.frame - self.job.session.start
        context.window_manager.progress_update(done)
        context.workspace.status_text_set(
            "tauform: baking '%s' frame %d of %d-%d (Esc cancels, keeping what is baked)"
            % (self.job.obj.name, self.job.frame, self.job.session.start, self.job.end))
        return {"RUNNING_MODAL"} if more else self._end(context)


class TAUFORM_OT_free_bake(bpy.types.Operator):
    """Delete the object's cache file and its Mesh Cache modifier"""
    bl_idname = "tauform.free_bake"
    bl_label = "Free Bake"
    bl_options = {"REGISTER", "UNDO"}

    object: bpy.props.StringProperty(name="Object")

    def execute(self, context):
        try:
            obj = _target(context, self.object)
            path, _ = cache_path(obj, bpy.data.filepath)
        except InputError as e:
            self.report({"ERROR"}, "tauform: %s" % e)
            return {"CANCELLED"}
        preview.drop(obj)
        cache.remove(obj, path)
        obj.tauform.baked, obj.tauform.cached_last = False, 0
        self.report({"INFO"}, "tauform: freed the cache of '%s'" % obj.name)
        return {"FINISHED"}


classes = (TAUFORM_OT_bake, TAUFORM_OT_free_bake)
