# SPDX-License-Identifier: MIT
# tauform for Blender: cloth and flesh with Young's tau damping, simulated by libtauform (loaded
# with ctypes through its C ABI) as a physics option of mesh objects. register() installs the
# preferences and, once the library loads, the properties (built from the library's parameter
# table), panels, operators and the live-preview handler; until then a panel says why it cannot
# load. Details: plugin/docs/blender.md.
bl_info = {
    "name": "tauform",
    "author": "tauform",
    "version": (1, 10, 0),
    "blender": (3, 4, 0),
    "location": "Properties > Physics > tauform",
    "description": "Cloth and flesh with tau damping (libtauform), baked to PC2 caches",
    "category": "Physics",
}

import bpy  # noqa: E402

from . import bake, library, prefs, preview, props, ui  # noqa: E402

_state = {"active": False, "error": ""}


def activate(report=True):
    """Register what needs the library; True if active. A failure is kept for the panel."""
    if _state["active"]:
        return True
    try:
        lib = prefs.load_library()
    except library.LibraryError as e:
        _state["error"] = str(e)
        ui.TAUFORM_PT_missing.error = str(e)
        if report:
            print("tauform: %s" % e)
        return False
    props.register(lib)
    for c in ui.classes + bake.classes:
        bpy.utils.register_class(c)
    preview.register()
    _state.update(active=True, error="")
    return True


def error():
    return _state["error"]


def register():
    bpy.utils.register_class(prefs.TauformPreferences)
    bpy.utils.register_class(ui.TAUFORM_PT_missing)
    activate()


def unregister():
    if _state["active"]:
        preview.unregister()
        for c in reversed(ui.classes + bake.classes):
            bpy.utils.unregister_class(c)
        props.unregister()
        _state["active"] = False
    bpy.utils.unregister_class(ui.TAUFORM_PT_missing)
    bpy.utils.unregister_class(prefs.TauformPreferences)
