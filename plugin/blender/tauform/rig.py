# SPDX-License-Identifier: MIT
# A Lua rig on a Blender object, run through the library's rig API (tf_rig_load, tf_rig_apply).
# The rig sees a global table `blender` with the object's mesh (world space at the start frame,
# 1-based triangles, its vertex groups as groups), the panel's material, the frame range, fps and
# substeps; whatever the rig leaves out comes from there, so a rig may give only `tau = key{...}`
# on top of the panel, or a whole shot. The frame range and fps are always Blender's.
#
# The wrapper keeps the rig's line numbers: everything before the rig's first line sits on that
# line, so an error reads "Rig.lua:12: ..." as in the text editor.
import ctypes as C
import os

from . import abi
from .meshread import InputError

# merges the rig's table over the panel's (on the rig's first line: no newline in it)
PRELUDE = (
    "local blender = {b}; "
    "local function __tauform_merge(spec) "
    "if type(spec) ~= 'table' then return spec end "
    "if spec.mesh == nil and spec.flesh == nil then "
    "if blender.kind == 'flesh' then spec.flesh = {{ surface = blender.mesh, cells = blender.cells, "
    "element = blender.element }} "
    "else spec.mesh = blender.mesh end end "
    "if spec.pins ~= nil and blender.pin_group then error(\"{name}: give pins in the rig or the "
    "panel's Pin Group '\" .. blender.pin_group .. \"', not both\", 0) end "
    "spec.material = spec.material or {{}} "
    "for k, v in pairs(blender.material) do if spec.material[k] == nil then spec.material[k] = v end end "
    "spec.solver = spec.solver or blender.solver "
    "spec.substeps = spec.substeps or blender.substeps "
    "spec.frames, spec.fps = blender.frames, blender.fps "
    "return spec end; "
    "return __tauform_merge((function(...) ")
POSTLUDE = "\nend)(...))\n"


def lua_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(float(v)) if isinstance(v, float) else str(v)
    if isinstance(v, str):
        return '"%s"' % v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    if isinstance(v, dict):
        return "{" + ", ".join("[%s] = %s" % (lua_value(k), lua_value(x))
                               for k, x in v.items()) + "}"
    return "{" + ",".join(lua_value(x) for x in v) + "}"


def blender_table(md, groups, kind, material, solver, cells, element, frames, fps, substeps,
                  pin_group):
    mesh = {"vertices": [float(x) for x in md.world],
            "triangles": [t + 1 for t in md.triangles],
            "groups": {name: [i + 1 for i in sorted(w)] for name, w in groups.items()}}
    t = {"mesh": mesh, "kind": kind, "material": material, "solver": solver, "cells": cells,
         "element": element, "frames": list(frames), "fps": fps, "substeps": substeps}
    if pin_group:
        t["pin_group"] = pin_group
    return lua_value(t)


def source_of(settings, base_dir):
    """(name, source text) of the object's rig; InputError when it cannot be read."""
    if settings.rig == "TEXT":
        if settings.rig_text is None:
            raise InputError("the rig is set to Text but no text datablock is chosen")
        return settings.rig_text.name, settings.rig_text.as_string()
    path = settings.rig_file
    if not path:
        raise InputError("the rig is set to File but no file is chosen")
    if path.startswith("//"):
        if not base_dir:
            raise InputError("rig file %s is relative to the .blend, which is not saved" % path)
        path = os.path.join(base_dir, path[2:])
    try:
        with open(path, encoding="utf-8") as f:
            return path, f.read()
    except OSError as e:
        raise InputError("rig file %s cannot be read: %s" % (path, e.strerror)) from None


class Rig:
    """A loaded rig and its simulation (owned by the rig)."""

    def __init__(self, lib, name, source, table):
        self.lib = lib
        self.name = name
        text = PRELUDE.format(b=table, name=name.replace('"', "'")) + source + POSTLUDE
        d = abi.init_def(lib.dll, abi.RigDef, "tf_rig_def_init_")
        self._source = text.encode()
        self._name = name.encode()
        d.source, d.name = self._source, self._name
        rig = C.c_void_p()
        err = C.create_string_buffer(2048)
        st = lib.dll.tf_rig_load(C.byref(d), C.byref(rig), err, len(err))
        if st != 0:
            raise InputError("rig %s" % _strip(err.value.decode(errors="replace"), name))
        self.handle = rig
        self.sim = lib.dll.tf_rig_sim(rig)

    def apply(self, frame):
        if self.lib.dll.tf_rig_apply(self.handle, float(frame)) != 0:
            msg = self.lib.dll.tf_rig_last_error(self.handle).decode(errors="replace")
            raise InputError("frame %g: rig %s" % (frame, _strip(msg, self.name)))

    def close(self):
        if self.handle:
            self.lib.dll.tf_rig_destroy(self.handle)
            self.handle = None
            self.sim = None


def _strip(msg, name):
    """"Rig.lua:3: ..." as is; other messages get the rig's name in front."""
    return msg if msg.startswith(name) else "%s: %s" % (name, msg)
