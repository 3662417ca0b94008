/* SPDX-License-Identifier: MIT
 * See tetrahedralize.h. */
#include "mesh/tetrahedralize.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/vec3.h"

double enclosed_volume(const double *pos, const uint32_t *tris, uint32_t tri_count) {
  if (tri_count == 0) return 0.0;
  const double *o = pos + 3 * (size_t)tris[0];
  double vol = 0.0;
  for (uint32_t t = 0; t < tri_count; ++t) {
    double a[3], b[3], c[3], bc[3];
    v3_sub(a, pos + 3 * (size_t)tris[3 * t], o);
    v3_sub(b, pos + 3 * (size_t)tris[3 * t + 1], o);
    v3_sub(c, pos + 3 * (size_t)tris[3 * t + 2], o);
    v3_cross(bc, b, c);
    vol += v3_dot(a, bc);
  }
  return vol / 6.0;
}

double winding_number(const double *pos, const uint32_t *tris, uint32_t tri_count,
                      const double p[3]) {
  /* sum of the signed solid angles of the triangles seen from p (Van Oosterom & Strackee 1983) */
  double total = 0.0;
  for (uint32_t t = 0; t < tri_count; ++t) {
    double a[3], b[3], c[3], bc[3];
    v3_sub(a, pos + 3 * (size_t)tris[3 * t], p);
    v3_sub(b, pos + 3 * (size_t)tris[3 * t + 1], p);
    v3_sub(c, pos + 3 * (size_t)tris[3 * t + 2], p);
    double la = v3_norm(a), lb = v3_norm(b), lc = v3_norm(c);
    v3_cross(bc, b, c);
    double num = v3_dot(a, bc);
    double den = la * lb * lc + v3_dot(a, b) * lc + v3_dot(b, c) * la + v3_dot(c, a) * lb;
    total += 2.0 * atan2(num, den);
  }
  return total / (4.0 * TF_PI);
}

/* Does the triangle (a, b, c) touch the cube of centre o and half-size r? Separating axis test
 * on the 13 candidate axes: the 3 cube normals, the triangle normal and the 9 edge cross products
 * (Akenine-Moller 2001). */
static int tri_cube_overlap(const double *a, const double *b, const double *c, const double o[3],
                            double r) {
  double v[3][3], e[3][3], axes[13][3];
  v3_sub(v[0], a, o);
  v3_sub(v[1], b, o);
  v3_sub(v[2], c, o);
  for (int k = 0; k < 3; ++k) v3_sub(e[k], v[(k + 1) % 3], v[k]);
  int n = 0;
  for (int k = 0; k < 3; ++k, ++n) v3_set(axes[n], k == 0, k == 1, k == 2);
  v3_cross(axes[n++], e[0], e[1]);
  for (int k = 0; k < 3; ++k)
    for (int j = 0; j < 3; ++j, ++n) {
      double u[3] = {j == 0, j == 1, j == 2};
      v3_cross(axes[n], u, e[k]);
    }
  for (int q = 0; q < n; ++q) {
    const double *ax = axes[q];
    double p0 = v3_dot(ax, v[0]), p1 = v3_dot(ax, v[1]), p2 = v3_dot(ax, v[2]);
    double rad = r * (fabs(ax[0]) + fabs(ax[1]) + fabs(ax[2]));
    if (fmin(p0, fmin(p1, p2)) > rad || fmax(p0, fmax(p1, p2)) < -rad) return 0;
  }
  return 1;
}

/* Kuhn's six tets of a cube, corners numbered x + 2y + 4z, all positively oriented */
static const int KUHN[6][4] = {{0, 1, 3, 7}, {0, 5, 1, 7}, {0, 3, 2, 7},
                               {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 6, 4, 7}};

int tetrahedralize_lattice(const double *pos, uint32_t vert_count, int cells, int dim[3],
                           double origin[3], double *h) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (uint32_t i = 0; i < vert_count; ++i)
    for (int k = 0; k < 3; ++k)
      lo[k] = fmin(lo[k], pos[3 * (size_t)i + k]), hi[k] = fmax(hi[k], pos[3 * (size_t)i + k]);
  double ext = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
  /* an extent that overflows (corners near +-DBL_MAX) or a cell that underflows to 0 would make
   * the cell counts below inf or NaN, which do not convert to int */
  if (cells < 1 || !(ext > 0.0) || !(ext <= DBL_MAX)) return 0;
  *h = ext / cells;
  if (!(*h > 0.0)) return 0;
  /* the lattice: cell h, one cell of margin on every side */
  for (int k = 0; k < 3; ++k) {
    double n = ceil((hi[k] - lo[k]) / *h - 1e-9);
    if (!(n >= 0.0 && n <= cells + 1.0)) return 0;
    dim[k] = (int)n + 2;
    origin[k] = (0.5 * lo[k] + 0.5 * hi[k]) - 0.5 * dim[k] * *h; /* no lo + hi: it may overflow */
  }
  return 1;
}

double tetrahedralize_bytes(const int dim[3]) {
  return (double)dim[0] * dim[1] * dim[2] * 6.0 * TETRAHEDRALIZE_BYTES_PER_TET;
}

tf_status tetrahedralize_surface(tf_mem *m, const double *pos, uint32_t vert_count,
                                 const uint32_t *tris, uint32_t tri_count, int cells,
                                 tetmesh_data *out, char *err, size_t err_size) {
  memset(out, 0, sizeof *out);
  if (cells < 2 || cells > 512) {
    snprintf(err, err_size, "lattice resolution %d out of range [2, 512]", cells);
    return TF_E_INVALID_ARG;
  }
  if (vert_count < 4 || tri_count < 4) {
    snprintf(err, err_size,
             "a closed surface needs at least 4 vertices and 4 triangles (got %u, %u)", vert_count,
             tri_count);
    return TF_E_BAD_MESH;
  }
  for (uint32_t i = 0; i < vert_count; ++i)
    if (!tf_isfinite3(pos + 3 * (size_t)i)) {
      snprintf(err, err_size, "surface vertex %u is not finite", i);
      return TF_E_BAD_MESH;
    }
  for (uint32_t t = 0; t < 3 * (size_t)tri_count; ++t)
    if (tris[t] >= vert_count) {
      snprintf(err, err_size, "surface triangle %u: vertex index %u out of range", t / 3, tris[t]);
      return TF_E_BAD_MESH;
    }
  int dim[3];
  double origin[3], h;
  if (!tetrahedralize_lattice(pos, vert_count, cells, dim, origin, &h)) {
    snprintf(err, err_size, "the surface has no extent, or one too large for a double");
    return TF_E_BAD_MESH;
  }
  const size_t nc = (size_t)dim[0] * dim[1] * dim[2];
  const size_t nv = (size_t)(dim[0] + 1) * (dim[1] + 1) * (dim[2] + 1);
  uint8_t *inside = mem_array(m, nv, 1), *keep = mem_array(m, nc, 1);
  uint32_t *vid = mem_array(m, nv, sizeof(uint32_t));
  tf_status st = TF_E_NOMEM;
  if (!inside || !keep || !vid) goto done;
#define VIDX(x, y, z) (((size_t)(z) * (dim[1] + 1) + (size_t)(y)) * (dim[0] + 1) + (size_t)(x))
#define CIDX(x, y, z) (((size_t)(z)*dim[1] + (size_t)(y)) * dim[0] + (size_t)(x))
  for (int z = 0; z <= dim[2]; ++z)
    for (int y = 0; y <= dim[1]; ++y)
      for (int x = 0; x <= dim[0]; ++x) {
        double p[3] = {origin[0] + x * h, origin[1] + y * h, origin[2] + z * h};
        inside[VIDX(x, y, z)] = winding_number(pos, tris, tri_count, p) > 0.5;
      }
  for (int z = 0; z < dim[2]; ++z)
    for (int y = 0; y < dim[1]; ++y)
      for (int x = 0; x < dim[0]; ++x)
        for (int c = 0; c < 8; ++c)
          if (inside[VIDX(x + (c & 1), y + (c >> 1 & 1), z + (c >> 2 & 1))])
            keep[CIDX(x, y, z)] = 1;
  /* cubes touching a triangle (padded by a hair so points on a cube face are covered) */
  for (uint32_t t = 0; t < tri_count; ++t) {
    int a[3], b[3];
    for (int k = 0; k < 3; ++k) {
      double tlo = INFINITY, thi = -INFINITY;
      for (int q = 0; q < 3; ++q) {
        double v = pos[3 * (size_t)tris[3 * t + q] + k];
        tlo = fmin(tlo, v), thi = fmax(thi, v);
      }
      /* clamped as doubles: only in-range values convert to int */
      double fa = floor((tlo - origin[k]) / h - 1e-6), fb = floor((thi - origin[k]) / h + 1e-6);
      a[k] = fa > 0.0 ? (int)fmin(fa, dim[k] - 1.0) : 0;
      b[k] = fb < dim[k] - 1.0 ? (fb > 0.0 ? (int)fb : 0) : dim[k] - 1;
    }
    const double *p0 = pos + 3 * (size_t)tris[3 * t], *p1 = pos + 3 * (size_t)tris[3 * t + 1],
                 *p2 = pos + 3 * (size_t)tris[3 * t + 2];
    for (int z = a[2]; z <= b[2]; ++z)
      for (int y = a[1]; y <= b[1]; ++y)
        for (int x = a[0]; x <= b[0]; ++x) {
          if (keep[CIDX(x, y, z)]) continue;
          double o[3] = {origin[0] + (x + 0.5) * h, origin[1] + (y + 0.5) * h,
                         origin[2] + (z + 0.5) * h};
          if (tri_cube_overlap(p0, p1, p2, o, 0.5 * h * (1.0 + 1e-6))) keep[CIDX(x, y, z)] = 1;
        }
  }
  /* number the used lattice vertices, then emit */
  size_t tet_count = 0;
  uint32_t used = 0;
  memset(vid, 0xff, nv * sizeof(uint32_t));
  for (int z = 0; z < dim[2]; ++z)
    for (int y = 0; y < dim[1]; ++y)
      for (int x = 0; x < dim[0]; ++x) {
        if (!keep[CIDX(x, y, z)]) continue;
        tet_count += 6;
        for (int c = 0; c < 8; ++c) {
          size_t v = VIDX(x + (c & 1), y + (c >> 1 & 1), z + (c >> 2 & 1));
          if (vid[v] == UINT32_MAX) vid[v] = used++;
        }
      }
  if (tet_count > 0x3fffffff) {
    snprintf(err, err_size, "%zu tets is too many; lower the resolution", tet_count);
    st = TF_E_INVALID_ARG;
    goto done;
  }
  out->vert_count = used;
  out->tet_count = (uint32_t)tet_count;
  out->pos = mem_array(m, used, 3 * sizeof(double));
  out->tets = mem_array(m, tet_count, 4 * sizeof(uint32_t));
  out->region = mem_array(m, tet_count, sizeof(int32_t));
  if (!out->pos || !out->tets || !out->region) {
    tetmesh_data_free(m, out);
    goto done;
  }
  for (int z = 0; z <= dim[2]; ++z)
    for (int y = 0; y <= dim[1]; ++y)
      for (int x = 0; x <= dim[0]; ++x) {
        uint32_t v = vid[VIDX(x, y, z)];
        if (v != UINT32_MAX)
          v3_set(out->pos + 3 * (size_t)v, origin[0] + x * h, origin[1] + y * h, origin[2] + z * h);
      }
  size_t e = 0;
  for (int z = 0; z < dim[2]; ++z)
    for (int y = 0; y < dim[1]; ++y)
      for (int x = 0; x < dim[0]; ++x) {
        if (!keep[CIDX(x, y, z)]) continue;
        for (int k = 0; k < 6; ++k, ++e)
          for (int a = 0; a < 4; ++a) {
            int c = KUHN[k][a];
            out->tets[4 * e + a] = vid[VIDX(x + (c & 1), y + (c >> 1 & 1), z + (c >> 2 & 1))];
          }
      }
#undef VIDX
#undef CIDX
  st = TF_OK;
done:
  if (st == TF_E_NOMEM)
    snprintf(err, err_size, "out of memory for the lattice (%d x %d x %d cells)", dim[0], dim[1],
             dim[2]);
  if (inside) mem_free(m, inside, nv);
  if (keep) mem_free(m, keep, nc);
  if (vid) MEM_FREE_ARRAY(m, vid, nv);
  return st;
}
