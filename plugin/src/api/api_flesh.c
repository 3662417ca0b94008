/* SPDX-License-Identifier: MIT
 * Flesh entry points: def defaults and validation (every message names the field), creation, tet
 * files, the embedded render surface and the body's report. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api/api_common.h"
#include "api/api_params.h"
#include "mesh/tet_embed.h"
#include "mesh/tetmesh_io.h"
#include "mesh/tetrahedralize.h"

#define ERR(...) (snprintf(err, errn, __VA_ARGS__))

static const uint32_t DEFAULT_LATTICE_CELLS = 12;
/* lattice_cells is refused when its lattice could need more memory than this (tauform.h): 2 GiB
 * is about 2.1 million tets, lattice_cells 69 for a cube (a cube keeps every cell) */
static const double LATTICE_MAX_BYTES = 2147483648.0;
/* a triangle is degenerate below this area relative to its longest edge squared (as for cloth) */
static const double SURFACE_DEGENERATE_AREA_REL = 1e-10;

void tf_flesh_def_init_(tf_flesh_def *def, uint32_t struct_size) {
  if (!def) return;
  tf_flesh_def d;
  memset(&d, 0, sizeof d);
  d.struct_size = (uint32_t)sizeof d;
  d.lattice_cells = DEFAULT_LATTICE_CELLS;
  d.youngs_modulus = 50e3;
  d.poisson = 0.45;
  d.density = 1000.0;
  d.gravity[2] = -9.81;
  d.tau = 0.1;
  d.kappa = 0.0;
  d.pin_stiffness = 1000.0;
  d.solver.max_newton = 20;
  d.solver.max_cg = 500;
  d.solver.tolerance = 1e-3;
  d.solver.abs_tolerance = 1e-7;
  d.logger.min_level = TF_LOG_WARN;
  d.element = TF_TET_LINEAR;
  api_def_init(def, &d, sizeof d, struct_size);
}

/* a material's modulus takes the parameter table's range (youngs_modulus), like the base's
 * TF_PARAM_YOUNGS_MODULUS, so a region cannot hold what set_param would refuse */
static int check_material(const char *what, double E, double nu, double rho, char *err,
                          size_t errn) {
  char why[256];
  if (!param_check(TF_PARAM_YOUNGS_MODULUS, &E, 1, why, sizeof why))
    return ERR("%s: %s", what, why), 0;
  if (!(nu > -1.0 && nu < 0.5))
    return ERR("%s: poisson must be in (-1, 0.5) for a solid (0.49 is nearly incompressible), got "
               "%g",
               what, nu),
           0;
  if (!(rho > 0.0) || !api_finite(rho))
    return ERR("%s: density must be > 0 kg/m^3, got %g", what, rho), 0;
  return 1;
}

static tf_status check_surface(const tf_flesh_def *d, int required, uint32_t b, char *err,
                               size_t errn) {
  if (!d->surface_positions) {
    if (required)
      return ERR("give tets (rest_positions and tets) or a closed surface to fill "
                 "(surface_positions and "
                 "surface_triangles)"),
             TF_E_INVALID_ARG;
    return TF_OK;
  }
  if (d->surface_vert_count == 0)
    return ERR("surface_positions given but surface_vert_count is 0"), TF_E_INVALID_ARG;
  if (!api_all_finite(d->surface_positions, 3 * (size_t)d->surface_vert_count))
    return ERR("surface_positions: not all finite"), TF_E_INVALID_ARG;
  if (required && (!d->surface_triangles || d->surface_tri_count < 4))
    return ERR("filling a surface with tets needs its triangles (surface_triangles, at least 4)"),
           TF_E_INVALID_ARG;
  if (d->surface_tri_count && !d->surface_triangles)
    return ERR("surface_tri_count is %u but surface_triangles is NULL", d->surface_tri_count),
           TF_E_INVALID_ARG;
  for (size_t k = 0; k < 3 * (size_t)d->surface_tri_count; ++k)
    if (d->surface_triangles[k] >= d->surface_vert_count)
      return ERR("surface triangle %zu: vertex index %u out of range %u..%u", k / 3 + b,
                 d->surface_triangles[k] + b, b, d->surface_vert_count - 1 + b),
             TF_E_BAD_MESH;
  /* as for cloth: a triangle that repeats a vertex or has no area is no surface */
  for (uint32_t t = 0; t < d->surface_tri_count; ++t) {
    const uint32_t *v = d->surface_triangles + 3 * (size_t)t;
    if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2])
      return ERR("surface triangle %u repeats a vertex (%u %u %u)", t + b, v[0] + b, v[1] + b,
                 v[2] + b),
             TF_E_BAD_MESH;
    const double *p0 = d->surface_positions + 3 * (size_t)v[0],
                 *p1 = d->surface_positions + 3 * (size_t)v[1],
                 *p2 = d->surface_positions + 3 * (size_t)v[2];
    double e1[3], e2[3], e3[3], c[3];
    for (int k = 0; k < 3; ++k) e1[k] = p1[k] - p0[k], e2[k] = p2[k] - p0[k], e3[k] = p2[k] - p1[k];
    c[0] = e1[1] * e2[2] - e1[2] * e2[1];
    c[1] = e1[2] * e2[0] - e1[0] * e2[2];
    c[2] = e1[0] * e2[1] - e1[1] * e2[0];
    double l2[3] = {e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2],
                    e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2],
                    e3[0] * e3[0] + e3[1] * e3[1] + e3[2] * e3[2]};
    double area = 0.5 * sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    if (!(area > SURFACE_DEGENERATE_AREA_REL * fmax(l2[0], fmax(l2[1], l2[2]))))
      return ERR("surface triangle %u (%u %u %u) is degenerate (zero area)", t + b, v[0] + b,
                 v[1] + b, v[2] + b),
             TF_E_BAD_MESH;
  }
  if (required) {
    /* The lattice keeps the cells the surface encloses; an inward-wound surface encloses negative
     * volume and would be filled as a hollow shell with the wrong mass. */
    double vol = enclosed_volume(d->surface_positions, d->surface_triangles, d->surface_tri_count);
    if (!(vol > 0.0))
      return ERR("surface_triangles enclose a volume of %g m^3: %s", vol,
                 vol < 0.0 ? "the surface is wound inward; flip its triangles (counter-clockwise "
                             "seen from outside)"
                           : "it encloses nothing (a flat surface?)"),
             TF_E_BAD_MESH;
  }
  return TF_OK;
}

/* The lattice's memory, estimated before building it (every cell kept): refused above
 * LATTICE_MAX_BYTES with the largest lattice_cells that fits. */
static tf_status check_lattice(const tf_flesh_def *d, char *err, size_t errn) {
  int dim[3];
  double origin[3], h;
  if (!tetrahedralize_lattice(d->surface_positions, d->surface_vert_count, (int)d->lattice_cells,
                              dim, origin, &h))
    return ERR("surface_positions: the surface has no extent, or one too large for a double"),
           TF_E_BAD_MESH;
  double bytes = tetrahedralize_bytes(dim);
  if (bytes <= LATTICE_MAX_BYTES) return TF_OK;
  int lo = 1, hi = (int)d->lattice_cells; /* lo fits (or is below the minimum), hi does not */
  while (hi - lo > 1) {
    int mid = lo + (hi - lo) / 2;
    if (tetrahedralize_lattice(d->surface_positions, d->surface_vert_count, mid, dim, origin, &h) &&
        tetrahedralize_bytes(dim) <= LATTICE_MAX_BYTES)
      lo = mid;
    else
      hi = mid;
  }
  return ERR("lattice_cells %u would need ~%.3g GB for up to %.3g million tets (limit %.3g GB); "
             "use <= %d",
             d->lattice_cells, bytes / 1e9, bytes / TETRAHEDRALIZE_BYTES_PER_TET / 1e6,
             LATTICE_MAX_BYTES / 1e9, lo),
         TF_E_INVALID_ARG;
}

static tf_status validate_def(const tf_flesh_def *d, char *err, size_t errn) {
  if (d->index_base > 1)
    return ERR("index_base must be 0 or 1, got %u", d->index_base), TF_E_INVALID_ARG;
  const uint32_t b = d->index_base;
  if (d->tets) {
    if (!d->rest_positions) return ERR("rest_positions is NULL"), TF_E_INVALID_ARG;
    if (d->tet_count == 0) return ERR("tet_count is 0"), TF_E_BAD_MESH;
    if (d->vert_count < 4)
      return ERR("vert_count is %u, need at least 4", d->vert_count), TF_E_BAD_MESH;
    /* indices, finiteness and degenerate tets are checked by the topology build */
    if (d->initial_positions && !api_all_finite(d->initial_positions, 3 * (size_t)d->vert_count))
      return ERR("initial_positions: not all finite"), TF_E_INVALID_ARG;
    if (d->material_count && !d->materials)
      return ERR("material_count is %u but materials is NULL", d->material_count), TF_E_INVALID_ARG;
    if (d->tet_materials) {
      for (uint32_t t = 0; t < d->tet_count; ++t)
        if (d->tet_materials[t] > d->material_count)
          return ERR("tet_materials[%u] = %u but there are %u materials (0 is the base material)",
                     t + b, d->tet_materials[t], d->material_count),
                 TF_E_INVALID_ARG;
    }
    for (uint32_t k = 0; k < d->material_count && d->materials; ++k) {
      char what[64];
      snprintf(what, sizeof what, "region material %u (materials[%u])", k + 1, k + b);
      if (!check_material(what, d->materials[k].youngs_modulus, d->materials[k].poisson,
                          d->materials[k].density, err, errn))
        return TF_E_INVALID_ARG;
    }
  } else {
    if (d->lattice_cells < 2 || d->lattice_cells > 512)
      return ERR("lattice_cells must be in [2, 512], got %u", d->lattice_cells), TF_E_INVALID_ARG;
    if (d->initial_positions)
      return ERR("initial_positions cannot be given for tets built from a surface"),
             TF_E_INVALID_ARG;
    if (d->tet_materials)
      return ERR("tet_materials cannot be given for tets built from a surface"), TF_E_INVALID_ARG;
  }
  tf_status st = check_surface(d, !d->tets, b, err, errn);
  if (st != TF_OK) return st;
  if (!d->tets && (st = check_lattice(d, err, errn)) != TF_OK) return st;
  if (!check_material("material", d->youngs_modulus, d->poisson, d->density, err, errn))
    return TF_E_INVALID_ARG;
  struct {
    tf_param p;
    const double *v;
    uint32_t c;
  } ps[] = {{TF_PARAM_TAU, &d->tau, 1},
            {TF_PARAM_KAPPA, &d->kappa, 1},
            {TF_PARAM_GRAVITY, d->gravity, 3},
            {TF_PARAM_PIN_STIFFNESS, &d->pin_stiffness, 1}};
  for (size_t k = 0; k < sizeof ps / sizeof ps[0]; ++k)
    if (!param_check(ps[k].p, ps[k].v, ps[k].c, err, errn)) return TF_E_INVALID_ARG;
  if (!api_check_solver(&d->solver, err, errn)) return TF_E_INVALID_ARG;
  if (!api_check_threads(d->threads, err, errn)) return TF_E_INVALID_ARG;
  if (d->element != TF_TET_QUADRATIC && d->element != TF_TET_LINEAR)
    return ERR("element must be TF_TET_QUADRATIC (%d) or TF_TET_LINEAR (%d), got %d",
               (int)TF_TET_QUADRATIC, (int)TF_TET_LINEAR, (int)d->element),
           TF_E_INVALID_ARG;
  if ((d->allocator.alloc == NULL) != (d->allocator.free == NULL))
    return ERR("allocator: give both alloc and free, or neither"), TF_E_INVALID_ARG;
  return TF_OK;
}

tf_status tf_flesh_create(const tf_flesh_def *def, tf_sim **out_sim, char *errbuf,
                          size_t errbuf_size) {
  char local[SIM_ERR_SIZE];
  char *err = errbuf && errbuf_size ? errbuf : local;
  size_t errn = errbuf && errbuf_size ? errbuf_size : sizeof local;
  err[0] = '\0';
  if (out_sim) *out_sim = NULL;
  if (!out_sim) return ERR("tf_flesh_create: out_sim is NULL"), TF_E_INVALID_ARG;
  tf_flesh_def d;
  tf_flesh_def_init(&d);
  tf_status st;
  size_t n =
      api_def_take("tf_flesh_create", "tf_flesh_def_init", def, &d, sizeof d, err, errn, &st);
  if (!n) return st;
  /* a def from before 1.9 knows no element: it keeps the linear tet it was written for */
  if (n < offsetof(tf_flesh_def, element) + sizeof d.element) d.element = TF_TET_LINEAR;
  /* and one thread */
  if (n < offsetof(tf_flesh_def, threads) + sizeof d.threads) d.threads = 1;
  d.struct_size = sizeof d;
  st = validate_def(&d, err, errn);
  if (st != TF_OK) return st;
  return sim_create_flesh(&d, out_sim, err, errn);
}

/* ---- render surface and report ---- */

uint32_t tf_sim_surface_vert_count(const tf_sim *sim) {
  return sim && sim->flesh ? sim->flesh->surf_n : 0;
}

tf_status tf_sim_get_surface_positions(const tf_sim *sim, double *out, uint32_t count) {
  if (!sim) return TF_E_INVALID_ARG;
  tf_sim *s = (tf_sim *)sim;
  FAIL_IF(s, !sim->flesh || sim->flesh->surf_n == 0, TF_E_UNSUPPORTED,
          "tf_sim_get_surface_positions: this simulation has no embedded surface");
  FAIL_IF(s, !out || count != sim->flesh->surf_n, TF_E_INVALID_ARG,
          "tf_sim_get_surface_positions: %s (count %u, surface has %u vertices)",
          out ? "wrong count" : "output array is NULL", count, sim->flesh->surf_n);
  tet_embed_apply(sim->state.x, sim->flesh->nodes, (int)sim->flesh->npt, sim->flesh->surf_tet,
                  sim->flesh->surf_w, count, out);
  return TF_OK;
}

tf_status tf_sim_flesh_info(const tf_sim *sim, tf_flesh_info *out) {
  if (!sim || !out) return TF_E_INVALID_ARG;
  if (out->struct_size == 0) return TF_E_DEF_INIT;
  FAIL_IF((tf_sim *)sim, !sim->flesh, TF_E_UNSUPPORTED,
          "tf_sim_flesh_info: not a flesh simulation");
  const sim_flesh *F = sim->flesh;
  tf_flesh_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  info.tet_count = F->tet.tet_count;
  info.vert_count = sim->model.host_n;
  info.node_count = sim->model.n;
  info.element = F->element;
  info.boundary_face_count = F->tet.face_count;
  tetmesh_quality q;
  tetmesh_measure(sim->model.rest, F->tet.tets, F->tet.tet_count, &q);
  info.min_dihedral_deg = q.min_dihedral;
  info.max_dihedral_deg = q.max_dihedral;
  info.inverted_rest = q.inverted;
  info.inverted_now = sim_flesh_inverted(F, sim->state.x);
  info.rest_volume = F->rest_volume;
  info.volume = sim_flesh_volume(F, sim->state.x);
  for (uint32_t i = 0; i < sim->model.n; ++i) info.mass += sim->model.mass[i];
  info.surface_outside = F->surf_outside;
  info.surface_worst_weight = F->surf_worst;
  uint32_t size = out->struct_size;
  memcpy(out, &info, size < sizeof info ? size : sizeof info);
  out->struct_size = size;
  return TF_OK;
}

/* ---- tet files ---- */

struct tf_tetmesh {
  tf_mem mem;
  tetmesh_data d;
};

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

tf_status tf_tetmesh_load(const char *path, tf_tetmesh **out, char *errbuf, size_t errbuf_size) {
  char local[SIM_ERR_SIZE];
  char *err = errbuf && errbuf_size ? errbuf : local;
  size_t errn = errbuf && errbuf_size ? errbuf_size : sizeof local;
  err[0] = '\0';
  if (out) *out = NULL;
  if (!out || !path)
    return ERR("tf_tetmesh_load: %s is NULL", out ? "path" : "out_mesh"), TF_E_INVALID_ARG;
  tf_mem mem;
  mem_init(&mem, NULL);
  tf_tetmesh *m = mem_alloc(&mem, sizeof *m);
  if (!m) return ERR("out of memory"), TF_E_NOMEM;
  m->mem = mem;
  tf_status st;
  if (ends_with(path, ".msh")) {
    st = tetmesh_load_gmsh(&m->mem, path, &m->d, err, errn);
  } else if (ends_with(path, ".node") || ends_with(path, ".ele") || ends_with(path, ".face")) {
    /* TetGen: the same stem with both extensions (a .face file adds nothing: the boundary is
     * recomputed from the tets) */
    size_t stem = strlen(path) - (ends_with(path, ".ele") ? 4 : 5);
    char node[4096], ele[4096];
    if (stem + 6 > sizeof node) {
      st = TF_E_INVALID_ARG;
      ERR("tf_tetmesh_load: path too long");
    } else {
      snprintf(node, sizeof node, "%.*s.node", (int)stem, path);
      snprintf(ele, sizeof ele, "%.*s.ele", (int)stem, path);
      st = tetmesh_load_tetgen(&m->mem, node, ele, &m->d, err, errn);
    }
  } else {
    st = TF_E_INVALID_ARG;
    ERR("%s: unknown tet mesh format: expected .msh (Gmsh) or .node/.ele/.face (TetGen)", path);
  }
  if (st != TF_OK) {
    tf_tetmesh_destroy(m);
    return st;
  }
  *out = m;
  return TF_OK;
}

tf_status tf_tetmesh_get(const tf_tetmesh *m, tf_tetmesh_view *out) {
  if (!m || !out) return TF_E_INVALID_ARG;
  if (out->struct_size == 0) return TF_E_DEF_INIT;
  tf_tetmesh_view v = {sizeof v, m->d.vert_count, m->d.tet_count, m->d.pos, m->d.tets, m->d.region};
  uint32_t size = out->struct_size;
  memcpy(out, &v, size < sizeof v ? size : sizeof v);
  out->struct_size = size;
  return TF_OK;
}

const char *tf_tetmesh_region_name(const tf_tetmesh *m, int32_t region) {
  if (!m) return NULL;
  for (uint32_t k = 0; k < m->d.name_count; ++k)
    if (m->d.names[k].region == region) return m->d.names[k].name;
  return NULL;
}

void tf_tetmesh_destroy(tf_tetmesh *m) {
  if (!m) return;
  tetmesh_data_free(&m->mem, &m->d);
  tf_mem mem = m->mem;
  mem_free(&mem, m, sizeof *m);
}
