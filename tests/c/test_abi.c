/* SPDX-License-Identifier: MIT
 * ABI: the size and field offsets of every public struct on LP64 are frozen here. A change that
 * moves a field breaks every compiled host: append new fields at the end and update this list in
 * the same reviewed change. Also: defaults, the old-host path (a smaller struct_size), versions,
 * status names and the plugin table. */
#include <stddef.h>
#include <math.h>
#include <string.h>

#include "tauform.h"
#include "api/api_table.h"
#include "tf_test.h"

typedef struct layout {
  const char *what;
  size_t got, want;
} layout;

TF_TEST(abi_struct_layout) {
#if UINTPTR_MAX == 0xffffffffffffffffu
  const layout L[] = {
      {"tf_cloth_def.struct_size", offsetof(tf_cloth_def, struct_size), 0},
      {"tf_cloth_def.rest_positions", offsetof(tf_cloth_def, rest_positions), 8},
      {"tf_cloth_def.vert_count", offsetof(tf_cloth_def, vert_count), 16},
      {"tf_cloth_def.triangles", offsetof(tf_cloth_def, triangles), 24},
      {"tf_cloth_def.tri_count", offsetof(tf_cloth_def, tri_count), 32},
      {"tf_cloth_def.initial_positions", offsetof(tf_cloth_def, initial_positions), 40},
      {"tf_cloth_def.density", offsetof(tf_cloth_def, density), 48},
      {"tf_cloth_def.total_mass", offsetof(tf_cloth_def, total_mass), 56},
      {"tf_cloth_def.vertex_masses", offsetof(tf_cloth_def, vertex_masses), 64},
      {"tf_cloth_def.stretch_stiffness", offsetof(tf_cloth_def, stretch_stiffness), 72},
      {"tf_cloth_def.poisson", offsetof(tf_cloth_def, poisson), 80},
      {"tf_cloth_def.bend_stiffness", offsetof(tf_cloth_def, bend_stiffness), 88},
      {"tf_cloth_def.gravity", offsetof(tf_cloth_def, gravity), 96},
      {"tf_cloth_def.integrator", offsetof(tf_cloth_def, integrator), 120},
      {"tf_cloth_def.tau", offsetof(tf_cloth_def, tau), 128},
      {"tf_cloth_def.kappa", offsetof(tf_cloth_def, kappa), 136},
      {"tf_cloth_def.phi", offsetof(tf_cloth_def, phi), 144},
      {"tf_cloth_def.psi", offsetof(tf_cloth_def, psi), 152},
      {"tf_cloth_def.pin_stiffness", offsetof(tf_cloth_def, pin_stiffness), 160},
      {"tf_cloth_def.solver", offsetof(tf_cloth_def, solver), 168},
      {"tf_cloth_def.allocator", offsetof(tf_cloth_def, allocator), 192},
      {"tf_cloth_def.logger", offsetof(tf_cloth_def, logger), 216},
      {"tf_cloth_def.index_base", offsetof(tf_cloth_def, index_base), 240},
      {"tf_cloth_def.bend_model", offsetof(tf_cloth_def, bend_model), 244},
      {"tf_cloth_def.bend_poisson", offsetof(tf_cloth_def, bend_poisson), 248},
      {"tf_cloth_def.threads (1.10)", offsetof(tf_cloth_def, threads), 256},
      {"tf_cloth_def.cloth_model (1.11)", offsetof(tf_cloth_def, cloth_model), 260},
      {"tf_cloth_def.shear_stiffness (1.11)", offsetof(tf_cloth_def, shear_stiffness), 264},
      {"tf_cloth_def.bend_spring_stiffness (1.11)", offsetof(tf_cloth_def, bend_spring_stiffness),
       272},
      {"tf_flesh_material.youngs_modulus", offsetof(tf_flesh_material, youngs_modulus), 0},
      {"tf_flesh_material.poisson", offsetof(tf_flesh_material, poisson), 8},
      {"tf_flesh_material.density", offsetof(tf_flesh_material, density), 16},
      {"tf_flesh_def.struct_size", offsetof(tf_flesh_def, struct_size), 0},
      {"tf_flesh_def.rest_positions", offsetof(tf_flesh_def, rest_positions), 8},
      {"tf_flesh_def.vert_count", offsetof(tf_flesh_def, vert_count), 16},
      {"tf_flesh_def.tets", offsetof(tf_flesh_def, tets), 24},
      {"tf_flesh_def.tet_count", offsetof(tf_flesh_def, tet_count), 32},
      {"tf_flesh_def.initial_positions", offsetof(tf_flesh_def, initial_positions), 40},
      {"tf_flesh_def.surface_positions", offsetof(tf_flesh_def, surface_positions), 48},
      {"tf_flesh_def.surface_vert_count", offsetof(tf_flesh_def, surface_vert_count), 56},
      {"tf_flesh_def.surface_triangles", offsetof(tf_flesh_def, surface_triangles), 64},
      {"tf_flesh_def.surface_tri_count", offsetof(tf_flesh_def, surface_tri_count), 72},
      {"tf_flesh_def.lattice_cells", offsetof(tf_flesh_def, lattice_cells), 76},
      {"tf_flesh_def.youngs_modulus", offsetof(tf_flesh_def, youngs_modulus), 80},
      {"tf_flesh_def.poisson", offsetof(tf_flesh_def, poisson), 88},
      {"tf_flesh_def.density", offsetof(tf_flesh_def, density), 96},
      {"tf_flesh_def.tet_materials", offsetof(tf_flesh_def, tet_materials), 104},
      {"tf_flesh_def.materials", offsetof(tf_flesh_def, materials), 112},
      {"tf_flesh_def.material_count", offsetof(tf_flesh_def, material_count), 120},
      {"tf_flesh_def.gravity", offsetof(tf_flesh_def, gravity), 128},
      {"tf_flesh_def.tau", offsetof(tf_flesh_def, tau), 152},
      {"tf_flesh_def.kappa", offsetof(tf_flesh_def, kappa), 160},
      {"tf_flesh_def.pin_stiffness", offsetof(tf_flesh_def, pin_stiffness), 168},
      {"tf_flesh_def.solver", offsetof(tf_flesh_def, solver), 176},
      {"tf_flesh_def.allocator", offsetof(tf_flesh_def, allocator), 200},
      {"tf_flesh_def.logger", offsetof(tf_flesh_def, logger), 224},
      {"tf_flesh_def.index_base", offsetof(tf_flesh_def, index_base), 248},
      {"tf_flesh_def.element (1.9)", offsetof(tf_flesh_def, element), 252},
      {"tf_flesh_def.threads (1.10)", offsetof(tf_flesh_def, threads), 256},
      {"tf_tetmesh_view.struct_size", offsetof(tf_tetmesh_view, struct_size), 0},
      {"tf_tetmesh_view.vert_count", offsetof(tf_tetmesh_view, vert_count), 4},
      {"tf_tetmesh_view.tet_count", offsetof(tf_tetmesh_view, tet_count), 8},
      {"tf_tetmesh_view.positions", offsetof(tf_tetmesh_view, positions), 16},
      {"tf_tetmesh_view.tets", offsetof(tf_tetmesh_view, tets), 24},
      {"tf_tetmesh_view.regions", offsetof(tf_tetmesh_view, regions), 32},
      {"tf_flesh_info.struct_size", offsetof(tf_flesh_info, struct_size), 0},
      {"tf_flesh_info.tet_count", offsetof(tf_flesh_info, tet_count), 4},
      {"tf_flesh_info.vert_count", offsetof(tf_flesh_info, vert_count), 8},
      {"tf_flesh_info.boundary_face_count", offsetof(tf_flesh_info, boundary_face_count), 12},
      {"tf_flesh_info.min_dihedral_deg", offsetof(tf_flesh_info, min_dihedral_deg), 16},
      {"tf_flesh_info.max_dihedral_deg", offsetof(tf_flesh_info, max_dihedral_deg), 24},
      {"tf_flesh_info.inverted_rest", offsetof(tf_flesh_info, inverted_rest), 32},
      {"tf_flesh_info.inverted_now", offsetof(tf_flesh_info, inverted_now), 36},
      {"tf_flesh_info.rest_volume", offsetof(tf_flesh_info, rest_volume), 40},
      {"tf_flesh_info.volume", offsetof(tf_flesh_info, volume), 48},
      {"tf_flesh_info.mass", offsetof(tf_flesh_info, mass), 56},
      {"tf_flesh_info.surface_outside", offsetof(tf_flesh_info, surface_outside), 64},
      {"tf_flesh_info.surface_worst_weight", offsetof(tf_flesh_info, surface_worst_weight), 72},
      {"tf_flesh_info.node_count (1.9)", offsetof(tf_flesh_info, node_count), 80},
      {"tf_flesh_info.element (1.9)", offsetof(tf_flesh_info, element), 84},
      {"tf_rig_def.struct_size", offsetof(tf_rig_def, struct_size), 0},
      {"tf_rig_def.path", offsetof(tf_rig_def, path), 8},
      {"tf_rig_def.source", offsetof(tf_rig_def, source), 16},
      {"tf_rig_def.name", offsetof(tf_rig_def, name), 24},
      {"tf_settle_report.settle_time", offsetof(tf_settle_report, settle_time), 0},
      {"tf_settle_report.rate", offsetof(tf_settle_report, rate), 8},
      {"tf_settle_report.tau", offsetof(tf_settle_report, tau), 16},
      {"tf_render_def.struct_size", offsetof(tf_render_def, struct_size), 0},
      {"tf_render_def.width", offsetof(tf_render_def, width), 4},
      {"tf_render_def.height", offsetof(tf_render_def, height), 8},
      {"tf_render_def.view", offsetof(tf_render_def, view), 16},
      {"tf_render_def.eye", offsetof(tf_render_def, eye), 40},
      {"tf_render_def.target", offsetof(tf_render_def, target), 64},
      {"tf_render_def.up", offsetof(tf_render_def, up), 88},
      {"tf_render_def.fov_deg", offsetof(tf_render_def, fov_deg), 112},
      {"tf_render_def.wireframe", offsetof(tf_render_def, wireframe), 120},
      {"tf_render_def.show_pins", offsetof(tf_render_def, show_pins), 124},
      {"tf_stats.struct_size", offsetof(tf_stats, struct_size), 0},
      {"tf_stats.steps", offsetof(tf_stats, steps), 4},
      {"tf_stats.newton_iterations", offsetof(tf_stats, newton_iterations), 8},
      {"tf_stats.cg_iterations", offsetof(tf_stats, cg_iterations), 12},
      {"tf_stats.max_newton_per_step", offsetof(tf_stats, max_newton_per_step), 16},
      {"tf_stats.unconverged_steps", offsetof(tf_stats, unconverged_steps), 20},
      {"tf_stats.residual", offsetof(tf_stats, residual), 24},
      {"tf_stats.seconds", offsetof(tf_stats, seconds), 32},
      {"tf_stats.total_steps", offsetof(tf_stats, total_steps), 40},
      {"tf_stats.contacts", offsetof(tf_stats, contacts), 48},
      {"tf_stats.broad_pairs", offsetof(tf_stats, broad_pairs), 52},
      {"tf_stats.ccd_cuts", offsetof(tf_stats, ccd_cuts), 56},
      {"tf_stats.intersecting", offsetof(tf_stats, intersecting), 60},
      {"tf_stats.contact_growths", offsetof(tf_stats, contact_growths), 64},
      {"tf_stats.collider_substeps", offsetof(tf_stats, collider_substeps), 68},
      {"tf_stats.min_distance", offsetof(tf_stats, min_distance), 72},
      {"tf_stats.contact_seconds", offsetof(tf_stats, contact_seconds), 80},
      {"tf_stats.self_pairs", offsetof(tf_stats, self_pairs), 88},
      {"tf_stats.self_excluded", offsetof(tf_stats, self_excluded), 92},
      {"tf_stats.self_seconds", offsetof(tf_stats, self_seconds), 96},
      {"tf_stats.threads (1.10)", offsetof(tf_stats, threads), 104},
      {"tf_collider_def.struct_size", offsetof(tf_collider_def, struct_size), 0},
      {"tf_collider_def.vert_count", offsetof(tf_collider_def, vert_count), 4},
      {"tf_collider_def.positions", offsetof(tf_collider_def, positions), 8},
      {"tf_collider_def.tri_count", offsetof(tf_collider_def, tri_count), 16},
      {"tf_collider_def.triangles", offsetof(tf_collider_def, triangles), 24},
      {"tf_collider_def.thickness", offsetof(tf_collider_def, thickness), 32},
      {"tf_collider_def.friction", offsetof(tf_collider_def, friction), 40},
      {"tf_collider_def.one_sided", offsetof(tf_collider_def, one_sided), 48},
      {"tf_solver_settings.max_newton", offsetof(tf_solver_settings, max_newton), 0},
      {"tf_solver_settings.max_cg", offsetof(tf_solver_settings, max_cg), 4},
      {"tf_solver_settings.tolerance", offsetof(tf_solver_settings, tolerance), 8},
      {"tf_solver_settings.abs_tolerance", offsetof(tf_solver_settings, abs_tolerance), 16},
      {"tf_allocator.alloc", offsetof(tf_allocator, alloc), 0},
      {"tf_allocator.free", offsetof(tf_allocator, free), 8},
      {"tf_allocator.ud", offsetof(tf_allocator, ud), 16},
      {"tf_logger.fn", offsetof(tf_logger, fn), 0},
      {"tf_logger.ud", offsetof(tf_logger, ud), 8},
      {"tf_logger.min_level", offsetof(tf_logger, min_level), 16},
      {"tf_api.struct_size", offsetof(tf_api, struct_size), 0},
      {"tf_api.version", offsetof(tf_api, version), 4},
      {"tf_api.cloth_create", offsetof(tf_api, cloth_create), 32},
      {"tf_api.critical_damping", offsetof(tf_api, critical_damping), 176},
      {"tf_param_info.name", offsetof(tf_param_info, name), 8},
      {"tf_param_info.short_name", offsetof(tf_param_info, short_name), 16},
      {"tf_param_info.unit", offsetof(tf_param_info, unit), 24},
      {"tf_param_info.doc", offsetof(tf_param_info, doc), 32},
      {"tf_param_info.count", offsetof(tf_param_info, count), 40},
      {"tf_param_info.kinds", offsetof(tf_param_info, kinds), 44},
      {"tf_param_info.lo", offsetof(tf_param_info, lo), 48},
      {"tf_param_info.hi", offsetof(tf_param_info, hi), 56},
      {"tf_param_info.lo_open", offsetof(tf_param_info, lo_open), 64},
      {"tf_param_info.hi_open", offsetof(tf_param_info, hi_open), 68},
      {"tf_param_info.integer", offsetof(tf_param_info, integer), 72},
      {"tf_param_info.keyable", offsetof(tf_param_info, keyable), 76},
      {"tf_param_info.default_values", offsetof(tf_param_info, default_values), 80},
      {"sizeof tf_cloth_def", sizeof(tf_cloth_def), 280},
      {"sizeof tf_flesh_material", sizeof(tf_flesh_material), 24},
      {"sizeof tf_flesh_def", sizeof(tf_flesh_def), 264},
      {"sizeof tf_tetmesh_view", sizeof(tf_tetmesh_view), 40},
      {"sizeof tf_flesh_info", sizeof(tf_flesh_info), 88},
      {"sizeof tf_rig_def", sizeof(tf_rig_def), 32},
      {"sizeof tf_settle_report", sizeof(tf_settle_report), 24},
      {"sizeof tf_render_def", sizeof(tf_render_def), 128},
      {"sizeof tf_stats", sizeof(tf_stats), 112},
      {"sizeof tf_collider_def", sizeof(tf_collider_def), 56},
      {"sizeof tf_solver_settings", sizeof(tf_solver_settings), 24},
      {"sizeof tf_allocator", sizeof(tf_allocator), 24},
      {"sizeof tf_logger", sizeof(tf_logger), 24},
      {"sizeof tf_param_info", sizeof(tf_param_info), 104},
  };
  for (size_t i = 0; i < sizeof L / sizeof L[0]; ++i)
    ENSURE_MSG(L[i].got == L[i].want, "%s is %zu, frozen at %zu", L[i].what, L[i].got, L[i].want);
  /* the plugin table only grows: its first 184 bytes are frozen */
  ENSURE(sizeof(tf_api) >= 184);
#endif
  /* enum values are part of the ABI */
  ENSURE(TF_OK == 0 && TF_E_INVALID_ARG == 1 && TF_E_NOMEM == 2 && TF_E_DEF_INIT == 3 &&
         TF_E_BAD_MESH == 4 && TF_E_NOT_CONVERGED == 5 && TF_E_VERSION == 6 &&
         TF_E_UNSUPPORTED == 7 && TF_E_IO == 8 && TF_E_SCRIPT == 9);
  ENSURE(TF_PARAM_TAU == 0 && TF_PARAM_KAPPA == 1 && TF_PARAM_BEND_STIFFNESS == 2 &&
         TF_PARAM_GRAVITY == 3 && TF_PARAM_PSI == 8);
  ENSURE(TF_PARAM_WIND == 9 && TF_PARAM_AIR_DENSITY == 10 && TF_PARAM_GUST_PERIOD == 18);
  ENSURE(TF_INTEGRATOR_TAU == 0 && TF_INTEGRATOR_STRAIN_RATE == 1);
  ENSURE(TF_PARAM_SELF_CONTACT == 26 && TF_PARAM_BEND_POISSON == 27);
  ENSURE(TF_BEND_SHELL == 0 && TF_BEND_HINGE == 1);
}

TF_TEST(abi_versions_and_names) {
  ENSURE(tf_version() == TF_VERSION);
  ENSURE(tf_abi_version() == TF_VERSION_MAJOR);
  ENSURE(strcmp(tf_status_name(TF_E_NOMEM), "TF_E_NOMEM") == 0);
  ENSURE(strcmp(tf_status_name((tf_status)1234), "TF_UNKNOWN") == 0);
  ENSURE(strcmp(tf_status_message(TF_E_BAD_MESH), "bad mesh") == 0);
  const tf_api *api = tf_get_api(TF_VERSION_MAJOR);
  ENSURE(api && api->struct_size == sizeof(tf_api) && api->version == TF_VERSION);
  /* every entry: abi_plugin_table_is_complete_and_named */
  ENSURE(tf_get_api(TF_VERSION_MAJOR + 1) == NULL);
  ENSURE(tf_get_api(0) == NULL || TF_VERSION_MAJOR == 0);
}

TF_TEST(abi_def_defaults_and_old_hosts) {
  tf_cloth_def d;
  memset(&d, 0xab, sizeof d);
  tf_cloth_def_init(&d);
  ENSURE(d.struct_size == sizeof d);
  ENSURE(d.tau == 0.1 && d.kappa == 0.0 && d.density == 0.1 && d.gravity[2] == -9.81);
  ENSURE(d.rest_positions == NULL && d.vertex_masses == NULL && d.allocator.alloc == NULL);
  ENSURE(d.solver.max_newton == 20);
  /* an old host knows only the fields up to `tau`: the rest must not be touched by init */
  unsigned char buf[sizeof(tf_cloth_def)];
  memset(buf, 0xcd, sizeof buf);
  uint32_t old_size = (uint32_t)offsetof(tf_cloth_def, kappa);
  tf_cloth_def_init_((tf_cloth_def *)buf, old_size);
  ENSURE(((tf_cloth_def *)buf)->struct_size == old_size);
  for (size_t i = old_size; i < sizeof buf; ++i) ENSURE(buf[i] == 0xcd);
  /* and create accepts such a def, defaulting the rest (here kappa 0 even though the bytes
   * behind the old struct are garbage) */
  double pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  uint32_t tri[3] = {0, 1, 2};
  tf_cloth_def *od = (tf_cloth_def *)buf;
  od->rest_positions = pos;
  od->vert_count = 3;
  od->triangles = tri;
  od->tri_count = 1;
  tf_sim *sim = NULL;
  char err[128];
  ENSURE_MSG(tf_cloth_create(od, &sim, err, sizeof err) == TF_OK, "%s", err);
  double kappa = -1;
  tf_sim_get_param(sim, TF_PARAM_KAPPA, &kappa, 1);
  ENSURE(kappa == 0.0);
  tf_sim_destroy(sim);
  tf_sim_destroy(NULL);
  /* a 1.10 host's def ends with 4 bytes of tail padding where 1.11 put cloth_model: whatever is
   * there, it is a membrane (garbage there would otherwise be refused, or make springs) */
  memset(buf, 0, sizeof buf);
  tf_cloth_def_init_((tf_cloth_def *)buf, (uint32_t)offsetof(tf_cloth_def, shear_stiffness));
  od->rest_positions = pos, od->vert_count = 3, od->triangles = tri, od->tri_count = 1;
  od->cloth_model = TF_CLOTH_SPRINGS;
  ENSURE_MSG(tf_cloth_create(od, &sim, err, sizeof err) == TF_OK, "%s", err);
  double poisson = 0.25;
  ENSURE(tf_sim_set_param(sim, TF_PARAM_POISSON, &poisson, 1) == TF_OK); /* a membrane's */
  tf_sim_destroy(sim);
}

/* The parameter table read through tf_param_get_info is the one tf_param_check and the defs use:
 * every name is unique, every default is admissible and is what the def initializers set, and a
 * value just past each finite bound is refused. */
TF_TEST(abi_param_info_is_the_checked_table) {
  tf_param_info none = {0};
  ENSURE(tf_param_get_info(TF_PARAM_TAU, &none) == TF_E_DEF_INIT);
  tf_param_info bad = {.struct_size = sizeof bad};
  ENSURE(tf_param_get_info(TF_PARAM_COUNT_, &bad) == TF_E_INVALID_ARG);
  ENSURE(tf_param_get_info((tf_param)-1, &bad) == TF_E_INVALID_ARG);
  /* an old host's smaller struct is filled up to its size only */
  unsigned char old[sizeof(tf_param_info)];
  memset(old, 0xcd, sizeof old);
  tf_param_info *op = (tf_param_info *)(void *)old;
  op->struct_size = (uint32_t)offsetof(tf_param_info, count);
  ENSURE(tf_param_get_info(TF_PARAM_WIND, op) == TF_OK && strcmp(op->name, "wind") == 0);
  for (size_t i = offsetof(tf_param_info, count); i < sizeof old; ++i) ENSURE(old[i] == 0xcd);

  tf_cloth_def cd;
  tf_cloth_def_init(&cd);
  tf_flesh_def fd;
  tf_flesh_def_init(&fd);
  tf_param_info info[TF_PARAM_COUNT_];
  for (int p = 0; p < TF_PARAM_COUNT_; ++p) {
    info[p].struct_size = sizeof info[p];
    ENSURE(tf_param_get_info((tf_param)p, &info[p]) == TF_OK);
    const tf_param_info *in = &info[p];
    ENSURE_MSG(in->name && in->short_name && in->unit && in->doc && in->doc[0], "param %d", p);
    ENSURE_MSG(in->count == 1 || in->count == 3, "%s", in->name);
    ENSURE_MSG(in->kinds != 0 && (in->kinds & ~(TF_PARAM_FOR_CLOTH | TF_PARAM_FOR_FLESH)) == 0,
               "%s", in->name);
    for (int q = 0; q < p; ++q) {
      ENSURE_MSG(strcmp(info[q].name, in->name) != 0, "%s twice", in->name);
      ENSURE_MSG(strcmp(info[q].short_name, in->short_name) != 0, "%s twice", in->short_name);
    }
    char err[256];
    ENSURE_MSG(tf_param_check((tf_param)p, in->default_values, in->count, err, sizeof err) == TF_OK,
               "%s", err);
    double v[3] = {0, 0, 0};
    if (isfinite(in->lo)) {
      v[0] = v[1] = v[2] = in->lo_open ? in->lo : in->lo - 1e-9 * (1 + fabs(in->lo));
      ENSURE_MSG(tf_param_check((tf_param)p, v, in->count, err, sizeof err) == TF_E_INVALID_ARG,
                 "%s below lo", in->name);
      ENSURE_MSG(strstr(err, in->name) != NULL, "%s", err);
    }
    if (isfinite(in->hi)) {
      v[0] = v[1] = v[2] = in->hi_open ? in->hi : in->hi + 1e-9 * (1 + fabs(in->hi));
      ENSURE_MSG(tf_param_check((tf_param)p, v, in->count, err, sizeof err) == TF_E_INVALID_ARG,
                 "%s above hi", in->name);
    }
  }
  /* defaults are the defs' */
  ENSURE(info[TF_PARAM_TAU].default_values[0] == cd.tau && cd.tau == fd.tau);
  ENSURE(info[TF_PARAM_KAPPA].default_values[0] == cd.kappa);
  ENSURE(info[TF_PARAM_BEND_STIFFNESS].default_values[0] == cd.bend_stiffness);
  ENSURE(info[TF_PARAM_STRETCH_STIFFNESS].default_values[0] == cd.stretch_stiffness);
  ENSURE(info[TF_PARAM_POISSON].default_values[0] == cd.poisson);
  ENSURE(info[TF_PARAM_PIN_STIFFNESS].default_values[0] == cd.pin_stiffness &&
         cd.pin_stiffness == fd.pin_stiffness);
  ENSURE(info[TF_PARAM_YOUNGS_MODULUS].default_values[0] == fd.youngs_modulus);
  for (int k = 0; k < 3; ++k) ENSURE(info[TF_PARAM_GRAVITY].default_values[k] == cd.gravity[k]);
  ENSURE(info[TF_PARAM_STRETCH_STIFFNESS].kinds == TF_PARAM_FOR_CLOTH);
  ENSURE(info[TF_PARAM_YOUNGS_MODULUS].kinds == TF_PARAM_FOR_FLESH);
  ENSURE(strcmp(info[TF_PARAM_STRETCH_STIFFNESS].short_name, "stretch") == 0);
  ENSURE(!info[TF_PARAM_TIME].keyable && info[TF_PARAM_TAU].keyable);
}

/* The plugin table is built from one list (api/api_table.h): every entry holds the function of
 * its name (tf_ + the field; version_fn is tf_version), and the list covers the whole struct, so
 * a host calling any entry calls what it names. */
static int entry_named(const char *field, const char *fn) {
  if (strcmp(field, "version_fn") == 0) return strcmp(fn, "tf_version") == 0;
  return strncmp(fn, "tf_", 3) == 0 && strcmp(fn + 3, field) == 0;
}

TF_TEST(abi_plugin_table_is_complete_and_named) {
  const tf_api *api = tf_get_api(TF_VERSION_MAJOR);
  ENSURE(api != NULL);
  size_t entries = 0;
#define TF_CHECK_ENTRY(field, fn)                                          \
  ++entries;                                                               \
  ENSURE_MSG(api->field == fn, "tf_api.%s does not hold %s", #field, #fn); \
  ENSURE_MSG(entry_named(#field, #fn), "tf_api.%s is filled with %s", #field, #fn);
  TF_API_TABLE(TF_CHECK_ENTRY)
#undef TF_CHECK_ENTRY
  /* after struct_size and version, the table is nothing but these entries */
  ENSURE_MSG(offsetof(tf_api, version_fn) + entries * sizeof(void (*)(void)) == sizeof(tf_api),
             "%zu entries listed, tf_api has room for %zu", entries,
             (sizeof(tf_api) - offsetof(tf_api, version_fn)) / sizeof(void (*)(void)));
}
