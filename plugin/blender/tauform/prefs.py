# SPDX-License-Identifier: MIT
# Add-on preferences: where libtauform is, and what was loaded.
import bpy

from . import library


def package():
    return __package__


def library_path(context=None):
    prefs = (context or bpy.context).preferences.addons.get(__package__)
    return prefs.preferences.library_path if prefs is not None else ""


def load_library(context=None):
    """The library for the preferences' path; raises library.LibraryError."""
    return library.load(bpy.path.abspath(library_path(context)) if library_path(context) else "")


def _path_changed(self, context):
    from . import activate  # the package's hook: register what needs the library
    activate(report=False)


class TauformPreferences(bpy.types.AddonPreferences):
    bl_idname = __package__

    library_path: bpy.props.StringProperty(
        name="Library", subtype="FILE_PATH", update=_path_changed,
        description="libtauform.so (or its directory). Empty: the add-on's lib/ directory, then "
                    "$TAUFORM_LIBRARY... see plugin/docs/blender.md")

    def draw(self, context):
        col = self.layout.column()
        col.prop(self, "library_path")
        try:
            lib = load_library(context)
            col.label(text="libtauform %s: %s" % (lib.version, lib.path), icon="CHECKMARK")
        except library.LibraryError as e:
            col.label(text=str(e), icon="ERROR")
