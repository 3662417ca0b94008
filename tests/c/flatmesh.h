/* SPDX-License-Identifier: MIT
 * Flat test meshes in the plane, counter-clockwise (normals +z): square grids with uniform or
 * alternating diagonals, equilateral triangles, and an irregular Delaunay mesh (a jittered grid,
 * edges flipped until every one is locally Delaunay), for tests that must hold on any
 * triangulation. */
#ifndef TF_TEST_FLATMESH_H
#define TF_TEST_FLATMESH_H

#include <stdint.h>

typedef struct flatmesh {
  uint32_t vert_count, tri_count;
  double *uv;    /* (vert_count x 2) */
  uint32_t *tri; /* (tri_count x 3) */
} flatmesh;

typedef enum flatmesh_kind {
  FLATMESH_GRID,      /* diagonals (i, j)-(i+1, j+1) */
  FLATMESH_ALTERNATE, /* diagonals alternating cell by cell */
  FLATMESH_IRREGULAR  /* interior vertices jittered by up to 0.25 cell, then Delaunay flips */
} flatmesh_kind;

/* nx x ny cells on [x0, x0 + w] x [0, h]; vertex (i, j) = j (nx + 1) + i (flips keep the
 * vertices); FLATMESH_IRREGULAR jitters with seed, and columns i <= keep_cols keep their x (a
 * straight clamp line) */
void flatmesh_rect(flatmesh *m, flatmesh_kind kind, uint32_t nx, uint32_t ny, double x0, double w,
                   double h, uint32_t keep_cols, uint32_t seed);
/* rows of equilateral triangles of side s, n rows of 2 n triangles (odd rows shifted by s/2) */
void flatmesh_equilateral(flatmesh *m, uint32_t n, double s);
/* the mesh's triangles' total area */
double flatmesh_area(const flatmesh *m);
void flatmesh_free(flatmesh *m);

#endif
