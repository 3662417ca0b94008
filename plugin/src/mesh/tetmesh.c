/* SPDX-License-Identifier: MIT
 * See tetmesh.h. Faces are matched by sorting (sorted vertex triple, tet, local face) records:
 * O(T log T) at set-up, no hashing. */
#include "mesh/tetmesh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vec3.h"

/* outward faces of a positively oriented tet, the face opposite vertex k first */
static const int FACE[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};

double tetmesh_volume(const double *pos, const uint32_t *t) {
  double a[3], b[3], c[3], n[3];
  v3_sub(a, pos + 3 * (size_t)t[1], pos + 3 * (size_t)t[0]);
  v3_sub(b, pos + 3 * (size_t)t[2], pos + 3 * (size_t)t[0]);
  v3_sub(c, pos + 3 * (size_t)t[3], pos + 3 * (size_t)t[0]);
  v3_cross(n, a, b);
  return v3_dot(n, c) / 6.0;
}

typedef struct face_rec {
  uint32_t key[3]; /* sorted vertices */
  uint32_t tet, local;
} face_rec;

static int face_cmp(const void *pa, const void *pb) {
  const face_rec *a = pa, *b = pb;
  for (int k = 0; k < 3; ++k)
    if (a->key[k] != b->key[k]) return a->key[k] < b->key[k] ? -1 : 1;
  return a->tet < b->tet ? -1 : a->tet > b->tet;
}

static int u32_cmp(const void *pa, const void *pb) {
  uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
  return a < b ? -1 : a > b;
}

static int pair_cmp(const void *pa, const void *pb) {
  const uint32_t *a = pa, *b = pb;
  if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1];
}

static uint32_t find_root(uint32_t *parent, uint32_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

void tetmesh_free(tf_mem *m, tetmesh *t) {
  MEM_FREE_ARRAY(m, t->tets, 4 * (size_t)t->tet_count);
  MEM_FREE_ARRAY(m, t->faces, 3 * (size_t)(t->face_count ? t->face_count : 1));
  MEM_FREE_ARRAY(m, t->comp, t->vert_count);
  MEM_FREE_ARRAY(m, t->adj_ptr, t->vert_count + 1);
  MEM_FREE_ARRAY(m, t->adj, t->adj_count ? t->adj_count : 1);
  memset(t, 0, sizeof *t);
}

tf_status mesh_adjacency(tf_mem *m, const uint32_t *elems, uint32_t count, int k,
                         uint32_t vert_count, uint32_t **adj_ptr, uint32_t **adj,
                         uint32_t *adj_count) {
  /* all (a, b) pairs within an element plus the diagonal, sorted and deduplicated */
  size_t pair_count = (size_t)k * (k - 1) * count + vert_count, np = 0, nu = 0;
  uint32_t *pairs = mem_array(m, 2 * pair_count, sizeof(uint32_t));
  *adj_ptr = mem_array(m, vert_count + 1, sizeof(uint32_t));
  *adj = NULL;
  if (!pairs || !*adj_ptr) goto fail;
  for (uint32_t i = 0; i < vert_count; ++i) pairs[2 * np] = pairs[2 * np + 1] = i, ++np;
  for (uint32_t e = 0; e < count; ++e) {
    const uint32_t *v = elems + (size_t)k * e;
    for (int a = 0; a < k; ++a)
      for (int b = 0; b < k; ++b)
        if (a != b) pairs[2 * np] = v[a], pairs[2 * np + 1] = v[b], ++np;
  }
  qsort(pairs, np, 2 * sizeof(uint32_t), pair_cmp);
  for (size_t q = 0; q < np; ++q)
    if (nu == 0 || pairs[2 * q] != pairs[2 * (nu - 1)] ||
        pairs[2 * q + 1] != pairs[2 * (nu - 1) + 1]) {
      pairs[2 * nu] = pairs[2 * q];
      pairs[2 * nu + 1] = pairs[2 * q + 1];
      ++nu;
    }
  *adj_count = (uint32_t)nu;
  if (!(*adj = mem_array(m, nu, sizeof(uint32_t)))) goto fail;
  for (size_t q = 0; q < nu; ++q) {
    (*adj)[q] = pairs[2 * q + 1];
    ++(*adj_ptr)[pairs[2 * q] + 1];
  }
  for (uint32_t i = 0; i < vert_count; ++i) (*adj_ptr)[i + 1] += (*adj_ptr)[i];
  MEM_FREE_ARRAY(m, pairs, 2 * pair_count);
  return TF_OK;
fail:
  if (pairs) MEM_FREE_ARRAY(m, pairs, 2 * pair_count);
  if (*adj_ptr) MEM_FREE_ARRAY(m, *adj_ptr, vert_count + 1);
  *adj_ptr = NULL;
  return TF_E_NOMEM;
}

tf_status tetmesh_build(tf_mem *m, tetmesh *t, const double *pos, uint32_t vert_count,
                        const uint32_t *tets, uint32_t tet_count, uint32_t base,
                        const uint32_t *names, char *err, size_t err_size) {
#define NAME(v) ((names ? names[v] : (v)) + base)
  memset(t, 0, sizeof *t);
  if (vert_count < 4 || tet_count == 0) {
    snprintf(err, err_size, "a tet mesh needs at least 4 vertices and 1 tet (got %u and %u)",
             vert_count, tet_count);
    return TF_E_BAD_MESH;
  }
  for (uint32_t i = 0; i < vert_count; ++i)
    if (!tf_isfinite3(pos + 3 * (size_t)i)) {
      snprintf(err, err_size, "vertex %u has a non-finite position", NAME(i));
      return TF_E_BAD_MESH;
    }
  for (uint32_t e = 0; e < tet_count; ++e) {
    const uint32_t *v = tets + 4 * (size_t)e;
    for (int a = 0; a < 4; ++a) {
      if (v[a] >= vert_count) {
        snprintf(err, err_size, "tet %u: vertex index %u out of range %u..%u", e + base,
                 v[a] + base, base, vert_count - 1 + base);
        return TF_E_BAD_MESH;
      }
      for (int b = 0; b < a; ++b)
        if (v[a] == v[b]) {
          snprintf(err, err_size, "tet %u repeats vertex %u", e + base, NAME(v[a]));
          return TF_E_BAD_MESH;
        }
    }
    /* flat relative to its size: |6V| against the cube of its longest edge */
    double L = 0.0;
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b) {
        double d[3];
        v3_sub(d, pos + 3 * (size_t)v[a], pos + 3 * (size_t)v[b]);
        L = fmax(L, v3_norm(d));
      }
    if (!(fabs(6.0 * tetmesh_volume(pos, v)) > 1e-9 * L * L * L)) {
      snprintf(err, err_size, "tet %u (vertices %u %u %u %u) is flat at rest", e + base, NAME(v[0]),
               NAME(v[1]), NAME(v[2]), NAME(v[3]));
      return TF_E_BAD_MESH;
    }
  }
  tf_status st = TF_E_NOMEM;
  face_rec *rec = mem_array(m, 4 * (size_t)tet_count, sizeof *rec);
  t->vert_count = vert_count;
  t->tet_count = tet_count;
  t->tets = mem_array(m, 4 * (size_t)tet_count, sizeof(uint32_t));
  t->comp = mem_array(m, vert_count, sizeof(uint32_t));
  uint32_t *parent = t->comp; /* union-find in place, relabelled at the end */
  uint32_t *label = NULL;
  size_t label_count = vert_count;
  if (!rec || !t->tets || !t->comp) goto fail;
  for (uint32_t e = 0; e < tet_count; ++e) {
    uint32_t *v = t->tets + 4 * (size_t)e;
    memcpy(v, tets + 4 * (size_t)e, 4 * sizeof(uint32_t));
    if (tetmesh_volume(pos, v) < 0.0) {
      uint32_t s = v[2];
      v[2] = v[3];
      v[3] = s;
    }
    for (int f = 0; f < 4; ++f) {
      face_rec *r = rec + 4 * (size_t)e + f;
      for (int k = 0; k < 3; ++k) r->key[k] = v[FACE[f][k]];
      qsort(r->key, 3, sizeof(uint32_t), u32_cmp);
      r->tet = e;
      r->local = (uint32_t)f;
    }
  }
  qsort(rec, 4 * (size_t)tet_count, sizeof *rec, face_cmp);
  uint32_t boundary = 0;
  for (size_t i = 0; i < 4 * (size_t)tet_count;) {
    size_t j = i + 1;
    while (j < 4 * (size_t)tet_count && !memcmp(rec[j].key, rec[i].key, sizeof rec[i].key)) ++j;
    if (j - i > 2) {
      snprintf(err, err_size,
               "face (%u %u %u) is shared by %zu tets (%u, %u, %u...): not a manifold volume",
               NAME(rec[i].key[0]), NAME(rec[i].key[1]), NAME(rec[i].key[2]), j - i,
               rec[i].tet + base, rec[i + 1].tet + base, rec[i + 2].tet + base);
      st = TF_E_BAD_MESH;
      goto fail;
    }
    boundary += (j - i == 1);
    i = j;
  }
  t->face_count = boundary;
  t->faces = mem_array(m, 3 * (size_t)(boundary ? boundary : 1), sizeof(uint32_t));
  if (!t->faces) goto fail;
  boundary = 0;
  for (size_t i = 0; i < 4 * (size_t)tet_count;) {
    size_t j = i + 1;
    while (j < 4 * (size_t)tet_count && !memcmp(rec[j].key, rec[i].key, sizeof rec[i].key)) ++j;
    if (j - i == 1) {
      const uint32_t *v = t->tets + 4 * (size_t)rec[i].tet;
      for (int k = 0; k < 3; ++k) t->faces[3 * (size_t)boundary + k] = v[FACE[rec[i].local][k]];
      ++boundary;
    }
    i = j;
  }
  if ((st = mesh_adjacency(m, t->tets, tet_count, 4, vert_count, &t->adj_ptr, &t->adj,
                           &t->adj_count)) != TF_OK)
    goto fail;
  label = mem_array(m, 2 * label_count, sizeof(uint32_t)); /* root -> label, then per vertex */
  if (!label) {
    st = TF_E_NOMEM;
    goto fail;
  }
  /* components: union-find over tet edges, then labels 0..comp_count-1 in vertex order */
  for (uint32_t i = 0; i < vert_count; ++i) parent[i] = i;
  for (uint32_t e = 0; e < tet_count; ++e) {
    const uint32_t *v = t->tets + 4 * (size_t)e;
    uint32_t r0 = find_root(parent, v[0]);
    for (int a = 1; a < 4; ++a) {
      uint32_t ra = find_root(parent, v[a]);
      if (ra != r0) parent[ra] = r0;
    }
  }
  for (uint32_t i = 0; i < vert_count; ++i) label[i] = UINT32_MAX;
  for (uint32_t i = 0; i < vert_count; ++i) {
    uint32_t r = find_root(parent, i);
    if (label[r] == UINT32_MAX) label[r] = t->comp_count++;
  }
  for (uint32_t i = 0; i < vert_count; ++i) label[vert_count + i] = label[find_root(parent, i)];
  memcpy(t->comp, label + vert_count, vert_count * sizeof(uint32_t));
  MEM_FREE_ARRAY(m, rec, 4 * (size_t)tet_count);
  MEM_FREE_ARRAY(m, label, 2 * label_count);
  return TF_OK;
fail:
  if (st == TF_E_NOMEM)
    snprintf(err, err_size, "out of memory building the topology of %u tets", tet_count);
  if (rec) MEM_FREE_ARRAY(m, rec, 4 * (size_t)tet_count);
  if (label) MEM_FREE_ARRAY(m, label, 2 * label_count);
  tetmesh_free(m, t);
  return st;
#undef NAME
}

void tetmesh_lumped_mass(const tetmesh *t, const double *pos, const double *density,
                         double uniform_density, double *mass) {
  memset(mass, 0, sizeof(double) * t->vert_count);
  for (uint32_t e = 0; e < t->tet_count; ++e) {
    const uint32_t *v = t->tets + 4 * (size_t)e;
    double share = 0.25 * (density ? density[e] : uniform_density) * tetmesh_volume(pos, v);
    for (int a = 0; a < 4; ++a) mass[v[a]] += share;
  }
}

void tetmesh_measure(const double *pos, const uint32_t *tets, uint32_t tet_count,
                     tetmesh_quality *q) {
  q->min_dihedral = 180.0;
  q->max_dihedral = 0.0;
  q->min_volume = INFINITY;
  q->max_volume = -INFINITY;
  q->inverted = 0;
  for (uint32_t e = 0; e < tet_count; ++e) {
    const uint32_t *v = tets + 4 * (size_t)e;
    double vol = tetmesh_volume(pos, v);
    q->min_volume = fmin(q->min_volume, vol);
    q->max_volume = fmax(q->max_volume, vol);
    if (!(vol > 0.0)) ++q->inverted;
    /* unit normals of the faces opposite each vertex; the dihedral angle at the edge shared by
     * the faces opposite k and l is pi minus the angle between their outward normals */
    double n[4][3];
    const double sgn = vol < 0.0 ? -1.0 : 1.0;
    for (int k = 0; k < 4; ++k) {
      double a[3], b[3];
      const double *p0 = pos + 3 * (size_t)v[FACE[k][0]];
      v3_sub(a, pos + 3 * (size_t)v[FACE[k][1]], p0);
      v3_sub(b, pos + 3 * (size_t)v[FACE[k][2]], p0);
      v3_cross(n[k], a, b);
      double len = v3_norm(n[k]);
      v3_scale(n[k], n[k], len > 0.0 ? sgn / len : 0.0);
    }
    for (int k = 0; k < 4; ++k)
      for (int l = k + 1; l < 4; ++l) {
        double c = fmax(-1.0, fmin(1.0, v3_dot(n[k], n[l])));
        double ang = 180.0 - acos(c) * 180.0 / TF_PI;
        q->min_dihedral = fmin(q->min_dihedral, ang);
        q->max_dihedral = fmax(q->max_dihedral, ang);
      }
  }
}
