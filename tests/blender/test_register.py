# SPDX-License-Identifier: MIT
# The add-on registers and unregisters cleanly, and its properties carry the library's defaults:
# every panel field that is a library parameter has the default, range and unit of
# tf_param_get_info (read here with ctypes on its own, not through the add-on), the def-only fields
# have the defaults of tf_cloth_def_init / tf_flesh_def_init / tf_collider_def_init, keyable
# parameters are animatable and create-time ones are not, and the add-on's ctypes structs have
# the field offsets tests/c/test_abi.c freezes.
import ctypes as C
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import check  # noqa: E402

import addon_utils  # noqa: E402
import bpy  # noqa: E402

# the add-on as the zip holds it: the library comes from its own lib/ directory
tauform = common.enable_addon(staged=bool(common.OPT.addon_dir))


class ParamInfo(C.Structure):  # tauform.h, tf_param_info
    _fields_ = [("struct_size", C.c_uint32), ("name", C.c_char_p), ("short_name", C.c_char_p),
                ("unit", C.c_char_p), ("doc", C.c_char_p), ("count", C.c_uint32),
                ("kinds", C.c_uint32), ("lo", C.c_double), ("hi", C.c_double),
                ("lo_open", C.c_uint32), ("hi_open", C.c_uint32), ("integer", C.c_uint32),
                ("keyable", C.c_uint32), ("default_values", C.c_double * 3)]


def library_params():
    lib = C.CDLL(common.OPT.lib)
    out = {}
    for p in range(28):
        i = ParamInfo()
        i.struct_size = C.sizeof(i)
        check(lib.tf_param_get_info(p, C.byref(i)) == 0, "tf_param_get_info(%d)" % p)
        out[i.name.decode()] = i
    return out


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


# panel field -> library parameter
PARAM_FIELDS = {
    "tau": "tau", "kappa": "kappa", "gravity": "gravity", "stretch": "stretch_stiffness",
    "bend": "bend_stiffness", "pin_stiffness": "pin_stiffness", "wind": "wind", "drag": "drag",
    "lift": "lift", "turbulence": "turbulence", "turbulence_scale": "turbulence_scale",
    "turbulence_time": "turbulence_time", "turbulence_seed": "turbulence_seed", "gust": "gust",
    "gust_period": "gust_period", "youngs": "youngs_modulus", "thickness": "thickness",
    "friction": "friction", "ground_height": "ground_height",
    "ground_friction": "ground_friction",
}
# def fields without a parameter id: values of tf_*_def_init, as tauform.h documents them
DEF_FIELDS = {"density": 0.1, "total_mass": 0.0, "flesh_density": 1000.0, "lattice_cells": 12, "max_newton": 20, "max_cg": 500,
              "tolerance": 1e-3, "abs_tolerance": 1e-7, "bend_poisson": 0.0, "bend_model": "SHELL"}
# keyable parameters whose default differs by kind: the cloth and flesh defs'
KIND_FIELDS = {"poisson": 0.3, "flesh_poisson": 0.45}
COLLIDER_FIELDS = {"thickness": 0.001, "friction": 0.5, "one_sided": False}


def test_defaults_are_the_library_s():
    params = library_params()
    ob = common.mesh_object("M", [(0, 0, 0), (1, 0, 0), (0, 1, 0)], [(0, 1, 2)])
    s = ob.tauform
    rna = s.bl_rna.properties
    checked = 0
    for field, name in PARAM_FIELDS.items():
        info = params[name]
        want = [f32(info.default_values[k]) for k in range(info.count)]
        got = list(getattr(s, field)) if info.count == 3 else [getattr(s, field)]
        check(got == want, "%s: default %r, the library's %s is %r" % (field, got, name, want))
        prop = rna[field]
        if not info.integer:
            check(prop.hard_min <= f32(info.lo) + 1e-30 and prop.hard_max >= f32(min(info.hi, 3e38)),
                  "%s: range [%g, %g], the library's [%g, %g]" % (field, prop.hard_min,
                                                                prop.hard_max, info.lo, info.hi))
        unit = info.unit.decode()
        if unit:
            check(unit in prop.description, "%s: the description does not give the unit %s: %s"
                  % (field, unit, prop.description))
        check(prop.is_animatable == bool(info.keyable), "%s: animatable %s" % (field,
                                                                            prop.is_animatable))
        checked += 1
    for field, want in DEF_FIELDS.items():
        got = getattr(s, field)
        check(got == (f32(want) if isinstance(want, float) else want),
              "%s: default %r, the def's is %r" % (field, got, want))
        check(not rna[field].is_animatable, "%s is fixed at creation: not animatable" % field)
        checked += 1
    for field, want in KIND_FIELDS.items():
        check(getattr(s, field) == f32(want), "%s: default %r, the def's is %r"
              % (field, getattr(s, field), want))
        check(rna[field].is_animatable, "%s is keyable: animatable" % field)
        checked += 1
    for field, want in COLLIDER_FIELDS.items():
        got = getattr(ob.tauform_collider, field)
        check(got == (f32(want) if isinstance(want, float) else want),
              "collider %s: default %r, the def's is %r" % (field, got, want))
        checked += 1
    print("%d panel defaults equal the library's" % checked)
    # the air density default is the rig's wind default, documented as such
    check(abs(s.air_density - 1.225) < 1e-6, "air density default %g" % s.air_density)
    s.tau = 0.5
    check(s.keyframe_insert("tau", frame=3), "tau is keyable")


def test_abi_offsets_match_the_frozen_ones():
    from tauform import abi
    text = open(os.path.join(common.OPT.root, "tests", "c", "test_abi.c")).read()
    types = {"tf_cloth_def": abi.ClothDef, "tf_flesh_def": abi.FleshDef}
    n = 0
    for struct_name, field, off in re.findall(
            r'\{"(tf_cloth_def|tf_flesh_def)\.(\w+)", offsetof\(\w+, \w+\), (\d+)\}', text):
        got = getattr(types[struct_name], field).offset
        check(got == int(off), "%s.%s at %d, the header's at %s" % (struct_name, field, got, off))
        n += 1
    check(n > 40, "found only %d frozen offsets in test_abi.c" % n)
    print("%d ctypes field offsets equal tests/c/test_abi.c's" % n)


def test_library_found_next_to_the_addon():
    if not common.OPT.addon_dir:
        print("skipped: no --addon-dir")
        return
    lib = tauform.prefs.load_library()
    where = os.path.join(common.OPT.addon_dir, "tauform", "lib")
    print("library: %s (%s)" % (lib.path, lib.version))
    check(lib.path.startswith(where), "the add-on loaded %s, not the one in %s" % (lib.path, where))


def test_unregister_and_register_again():
    ob = common.mesh_object("M", [(0, 0, 0), (1, 0, 0), (0, 1, 0)], [(0, 1, 2)])
    ob.tauform.enabled, ob.tauform.tau = True, 0.75
    handlers = len(bpy.app.handlers.frame_change_post)
    addon_utils.disable("tauform", default_set=True)
    check(not hasattr(bpy.types.Object, "tauform"), "Object.tauform left registered")
    check(not hasattr(bpy.types, "TAUFORM_OT_bake"), "the bake operator left registered")
    check(not hasattr(bpy.types, "TAUFORM_PT_main"), "the panel left registered")
    check(len(bpy.app.handlers.frame_change_post) == handlers - 1,
          "the preview handler left registered")
    addon_utils.enable("tauform", default_set=True, handle_error=None)
    check(hasattr(bpy.types.Object, "tauform"), "not registered again")
    check(ob.tauform.enabled and abs(ob.tauform.tau - 0.75) < 1e-7,
          "settings saved with the object were lost: tau %g" % ob.tauform.tau)
    check(len(bpy.app.handlers.frame_change_post) == handlers, "handler registered twice")


common.run([test_defaults_are_the_library_s, test_abi_offsets_match_the_frozen_ones,
            test_library_found_next_to_the_addon, test_unregister_and_register_again])
