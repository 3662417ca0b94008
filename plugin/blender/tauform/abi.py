# SPDX-License-Identifier: MIT
# The C ABI of libtauform (plugin/include/tauform.h) as ctypes declarations: the def, info and
# stats structs the add-on fills or reads, and the prototypes of the tf_* functions it calls.
# Field order and types follow the header exactly; the header's promise (structs only grow at the
# end, the library reads min(struct_size, its size) bytes) lets these mirrors stay at ABI 1.5
# while the library grows. tests/blender/test_register.py checks the offsets against the ones
# tests/c/test_abi.c freezes.
import ctypes as C

ABI_MAJOR = 1
# colliders (tf_collider_def) in 1.5, self_contact 1.6, bend_model 1.7, element 1.9, threads 1.10,
# the response 1.14, a per-vertex stretch map (layer groups) 1.15
MIN_MINOR = 15

P_DOUBLE = C.POINTER(C.c_double)
P_UINT32 = C.POINTER(C.c_uint32)


class SolverSettings(C.Structure):
    _fields_ = [("max_newton", C.c_uint32), ("max_cg", C.c_uint32),
                ("tolerance", C.c_double), ("abs_tolerance", C.c_double)]


class Allocator(C.Structure):
    _fields_ = [("alloc", C.c_void_p), ("free", C.c_void_p), ("ud", C.c_void_p)]


class Logger(C.Structure):
    _fields_ = [("fn", C.c_void_p), ("ud", C.c_void_p), ("min_level", C.c_int)]


class ClothDef(C.Structure):
    _fields_ = [
        ("struct_size", C.c_uint32),
        ("rest_positions", P_DOUBLE), ("vert_count", C.c_uint32),
        ("triangles", P_UINT32), ("tri_count", C.c_uint32),
        ("initial_positions", P_DOUBLE),
        ("density", C.c_double), ("total_mass", C.c_double), ("vertex_masses", P_DOUBLE),
        ("stretch_stiffness", C.c_double), ("poisson", C.c_double),
        ("bend_stiffness", C.c_double),
        ("gravity", C.c_double * 3),
        ("integrator", C.c_int),
        ("tau", C.c_double), ("kappa", C.c_double), ("phi", C.c_double), ("psi", C.c_double),
        ("pin_stiffness", C.c_double),
        ("solver", SolverSettings), ("allocator", Allocator), ("logger", Logger),
        ("index_base", C.c_uint32),
        ("bend_model", C.c_int),  # 1.7
        ("bend_poisson", C.c_double),
        ("threads", C.c_uint32),  # 1.10
    ]


class FleshDef(C.Structure):
    _fields_ = [
        ("struct_size", C.c_uint32),
        ("rest_positions", P_DOUBLE), ("vert_count", C.c_uint32),
        ("tets", P_UINT32), ("tet_count", C.c_uint32),
        ("initial_positions", P_DOUBLE),
        ("surface_positions", P_DOUBLE), ("surface_vert_count", C.c_uint32),
        ("surface_triangles", P_UINT32), ("surface_tri_count", C.c_uint32),
        ("lattice_cells", C.c_uint32),
        ("youngs_modulus", C.c_double), ("poisson", C.c_double), ("density", C.c_double),
        ("tet_materials", P_UINT32), ("materials", C.c_void_p), ("material_count", C.c_uint32),
        ("gravity", C.c_double * 3),
        ("tau", C.c_double), ("kappa", C.c_double), ("pin_stiffness", C.c_double),
        ("solver", SolverSettings), ("allocator", Allocator), ("logger", Logger),
        ("index_base", C.c_uint32),
        ("element", C.c_int),  # 1.9
        ("threads", C.c_uint32),  # 1.10
    ]


class ParamInfo(C.Structure):
    _fields_ = [
        ("struct_size", C.c_uint32),
        ("name", C.c_char_p), ("short_name", C.c_char_p), ("unit", C.c_char_p),
        ("doc", C.c_char_p),
        ("count", C.c_uint32), ("kinds", C.c_uint32),
        ("lo", C.c_double), ("hi", C.c_double),
        ("lo_open", C.c_uint32), ("hi_open", C.c_uint32),
        ("integer", C.c_uint32), ("keyable", C.c_uint32),
        ("default_values", C.c_double * 3),
    ]


class Stats(C.Structure):
    _fields_ = [
        ("struct_size", C.c_uint32), ("steps", C.c_uint32),
        ("newton_iterations", C.c_uint32), ("cg_iterations", C.c_uint32),
        ("max_newton_per_step", C.c_uint32), ("unconverged_steps", C.c_uint32),
        ("residual", C.c_double), ("seconds", C.c_double), ("total_steps", C.c_uint64),
        ("contacts", C.c_uint32), ("broad_pairs", C.c_uint32), ("ccd_cuts", C.c_uint32),
        ("intersecting", C.c_uint32), ("contact_growths", C.c_uint32),
        ("collider_substeps", C.c_uint32),
        ("min_distance", C.c_double), ("contact_seconds", C.c_double),
    ]


class ColliderDef(C.Structure):
    _fields_ = [
        ("struct_size", C.c_uint32), ("vert_count", C.c_uint32), ("positions", P_DOUBLE),
        ("tri_count", C.c_uint32), ("triangles", P_UINT32),
        ("thickness", C.c_double), ("friction", C.c_double), ("one_sided", C.c_uint32),
    ]


class RigDef(C.Structure):
    _fields_ = [("struct_size", C.c_uint32), ("path", C.c_char_p), ("source", C.c_char_p),
                ("name", C.c_char_p)]


BEND_SHELL, BEND_HINGE = 0, 1  # tf_bend_model
TET_LINEAR, TET_QUADRATIC = 0, 1  # tf_tet_element

# tf_param ids the add-on names (values are part of the ABI)
PARAM = {
    "tau": 0, "kappa": 1, "bend_stiffness": 2, "gravity": 3, "stretch_stiffness": 4,
    "poisson": 5, "pin_stiffness": 6, "phi": 7, "psi": 8, "wind": 9, "air_density": 10,
    "drag": 11, "lift": 12, "turbulence": 13, "turbulence_scale": 14, "turbulence_time": 15,
    "turbulence_seed": 16, "gust": 17, "gust_period": 18, "youngs_modulus": 19, "time": 20,
    "thickness": 21, "friction": 22, "ground_normal": 23, "ground_height": 24,
    "ground_friction": 25, "self_contact": 26, "bend_poisson": 27,
    "shear_stiffness": 28, "bend_spring_stiffness": 29,  # 1.11
    "plastic_yield": 30, "plastic_limit": 31, "plastic_time": 32,
    "bend_yield": 33, "bend_plastic_limit": 34,
    "tear_strain": 35,  # 1.13
}
PARAM_COUNT = 36
FOR_CLOTH, FOR_FLESH = 1, 2
E_SCRIPT = 9

_VP, _U32, _D, _I = C.c_void_p, C.c_uint32, C.c_double, C.c_int
_ERR = (C.c_char_p, C.c_size_t)

# name: (restype, argtypes)
PROTOTYPES = {
    "tf_version": (_U32, ()),
    "tf_abi_version": (_U32, ()),
    "tf_version_string": (C.c_char_p, ()),
    "tf_status_name": (C.c_char_p, (_I,)),
    "tf_cloth_def_init_": (None, (C.POINTER(ClothDef), _U32)),
    "tf_flesh_def_init_": (None, (C.POINTER(FleshDef), _U32)),
    "tf_collider_def_init_": (None, (C.POINTER(ColliderDef), _U32)),
    "tf_rig_def_init_": (None, (C.POINTER(RigDef), _U32)),
    "tf_cloth_create": (_I, (C.POINTER(ClothDef), C.POINTER(_VP)) + _ERR),
    "tf_flesh_create": (_I, (C.POINTER(FleshDef), C.POINTER(_VP)) + _ERR),
    "tf_sim_destroy": (None, (_VP,)),
    "tf_sim_last_error": (C.c_char_p, (_VP,)),
    "tf_param_get_info": (_I, (_I, C.POINTER(ParamInfo))),
    "tf_param_check": (_I, (_I, P_DOUBLE, _U32) + _ERR),
    "tf_sim_set_param": (_I, (_VP, _I, P_DOUBLE, _U32)),
    "tf_sim_get_param": (_I, (_VP, _I, P_DOUBLE, _U32)),
    "tf_sim_set_param_map": (_I, (_VP, _I, P_DOUBLE, _U32)),
    "tf_sim_set_pins": (_I, (_VP, P_UINT32, P_DOUBLE, _U32)),
    "tf_sim_set_pin_targets": (_I, (_VP, P_DOUBLE, _U32)),
    "tf_sim_advance": (_I, (_VP, _D, _U32)),
    "tf_sim_set_state": (_I, (_VP, P_DOUBLE, P_DOUBLE, _U32)),
    "tf_sim_vert_count": (_U32, (_VP,)),
    "tf_sim_get_positions": (_I, (_VP, P_DOUBLE, _U32)),
    "tf_sim_get_stats": (_I, (_VP, C.POINTER(Stats))),
    "tf_sim_settle_tau": (_I, (_VP, _D, _D, P_DOUBLE, P_DOUBLE)),
    "tf_sim_get_rest_positions": (_I, (_VP, P_DOUBLE, _U32)),
    "tf_sim_surface_vert_count": (_U32, (_VP,)),
    "tf_sim_get_surface_positions": (_I, (_VP, P_DOUBLE, _U32)),
    "tf_sim_add_collider": (_I, (_VP, C.POINTER(ColliderDef), P_UINT32)),
    "tf_sim_move_collider": (_I, (_VP, _U32, P_DOUBLE, _U32)),
    "tf_sim_set_collider": (_I, (_VP, _U32, _D, _D)),
    "tf_sim_response_levels": (_U32, (_VP, P_DOUBLE, _U32)),
    "tf_sim_set_response": (_I, (_VP, P_DOUBLE, _U32, P_UINT32, _U32)),
    "tf_rig_load": (_I, (C.POINTER(RigDef), C.POINTER(_VP)) + _ERR),
    "tf_rig_destroy": (None, (_VP,)),
    "tf_rig_sim": (_VP, (_VP,)),
    "tf_rig_apply": (_I, (_VP, _D)),
    "tf_rig_timing": (_I, (_VP, P_DOUBLE, P_DOUBLE, P_DOUBLE, P_UINT32)),
    "tf_rig_last_error": (C.c_char_p, (_VP,)),
}


def declare(lib):
    """Set restype/argtypes of every prototype on a ctypes.CDLL; raises AttributeError naming a
    missing symbol (a library older than ABI 1.6)."""
    for name, (res, args) in PROTOTYPES.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = list(args)


def init_def(lib, struct_type, init_name):
    """A def struct filled with the library's defaults by its tf_*_def_init_ function."""
    d = struct_type()
    getattr(lib, init_name)(C.byref(d), C.sizeof(d))
    return d
