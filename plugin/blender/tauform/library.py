# SPDX-License-Identifier: MIT
# Finding and loading libtauform with ctypes. The library is looked for, in order: the path set in
# the add-on's preferences (a file, or a directory holding it), $TAUFORM_LIBRARY, the add-on's own
# lib/ directory (where the zip built by CMake puts it) and the system's library path. A loaded
# library is kept per resolved path (a shared library cannot be unloaded safely while simulations
# may live), and its version is checked against the ABI the add-on was written for. Errors name
# every place that was tried, so "library not found" says where to put it.
import ctypes as C
import ctypes.util
import os

from . import abi

ADDON_LIB_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib")
NAMES = ("libtauform.so.%d" % abi.ABI_MAJOR, "libtauform.so")


class LibraryError(Exception):
    pass


class Library:
    """A loaded libtauform: the ctypes handle, its version, its parameter table and defaults."""

    def __init__(self, path):
        try:
            self.dll = C.CDLL(path)
        except OSError as e:
            raise LibraryError("tauform library %s cannot be loaded: %s" % (path, e)) from None
        self.path = path
        try:
            abi.declare(self.dll)
        except AttributeError as e:
            raise LibraryError("%s is not libtauform %d.%d or newer (%s)"
                               % (path, abi.ABI_MAJOR, abi.MIN_MINOR, e)) from None
        v = self.dll.tf_version()
        major, minor = v >> 16, (v >> 8) & 0xFF
        if major != abi.ABI_MAJOR or minor < abi.MIN_MINOR:
            raise LibraryError("%s is libtauform %s; the add-on needs %d.%d or a later %d.x"
                               % (path, self.dll.tf_version_string().decode(), abi.ABI_MAJOR,
                                  abi.MIN_MINOR, abi.ABI_MAJOR))
        self.version = self.dll.tf_version_string().decode()
        self.params = [self._param_info(p) for p in range(abi.PARAM_COUNT)]
        self.cloth_defaults = abi.init_def(self.dll, abi.ClothDef, "tf_cloth_def_init_")
        self.flesh_defaults = abi.init_def(self.dll, abi.FleshDef, "tf_flesh_def_init_")
        self.collider_defaults = abi.init_def(self.dll, abi.ColliderDef,
                                              "tf_collider_def_init_")

    def _param_info(self, p):
        info = abi.ParamInfo()
        info.struct_size = C.sizeof(info)
        st = self.dll.tf_param_get_info(p, C.byref(info))
        if st != 0:
            raise LibraryError("%s: tf_param_get_info(%d) failed (%s)"
                               % (self.path, p, self.status_name(st)))
        return {
            "id": p, "name": info.name.decode(), "short_name": info.short_name.decode(),
            "unit": info.unit.decode(), "doc": info.doc.decode(), "count": info.count,
            "kinds": info.kinds, "lo": info.lo, "hi": info.hi, "lo_open": bool(info.lo_open),
            "hi_open": bool(info.hi_open), "integer": bool(info.integer),
            "keyable": bool(info.keyable),
            "default": tuple(info.default_values[:info.count]),
        }

    def param(self, name):
        return self.params[abi.PARAM[name]]

    def status_name(self, st):
        return self.dll.tf_status_name(st).decode()


_loaded = {}


def candidates(pref_path):
    """(path, where) pairs to try, in order."""
    out = []
    if pref_path:
        p = os.path.abspath(os.path.expanduser(pref_path))
        if os.path.isdir(p):
            out += [(os.path.join(p, n), "the preferences' directory") for n in NAMES]
        else:
            out.append((p, "the add-on preferences"))
        return out  # a path the user set is the only one tried: never silently another library
    env = os.environ.get("TAUFORM_LIBRARY")
    if env:
        return [(os.path.abspath(env), "$TAUFORM_LIBRARY")]
    out += [(os.path.join(ADDON_LIB_DIR, n), "the add-on's lib/ directory") for n in NAMES]
    found = ctypes.util.find_library("tauform")
    if found:
        out.append((found, "the system library path"))
    return out


def load(pref_path=""):
    """The Library for the preferences' path (or the default search); raises LibraryError."""
    tried = []
    for path, where in candidates(pref_path):
        if path in _loaded:
            return _loaded[path]
        if os.path.sep in path and not os.path.exists(path):
            tried.append("%s (%s): no such file" % (path, where))
            continue
        lib = Library(path)
        _loaded[path] = lib
        return lib
    raise LibraryError("tauform library not found; tried " + "; ".join(tried or ["nothing"])
                       + ". Set its path in Preferences > Add-ons > tauform")
