/* SPDX-License-Identifier: MIT
 * Collider bodies for the contact tests: a UV sphere and a box (a 1 mm plate is a thin box) as
 * triangle meshes, added to a simulation through the C API, moved by a row-major 4 x 4 matrix
 * as tf_sim_transform_collider does, and checked with the independent crossing count of
 * intersect_check.c. */
#ifndef TF_CONTACT_SCENES_H
#define TF_CONTACT_SCENES_H

#include <stdint.h>

#include "scenes.h"
#include "tauform.h"

typedef struct body {
  uint32_t nv, nt;
  double *pos;   /* (nv x 3) the pose it was built in */
  uint32_t *tri; /* (nt x 3) outward */
  int *itri;     /* the same as int, for intersect_check */
  double inner;  /* radius of the largest ball about the centre inside it */
} body;

/* a UV sphere of radius r about c: rings x segs */
void body_sphere(body *b, const double c[3], double r, int rings, int segs);
/* an axis-aligned box about c with half extents half[3] */
void body_box(body *b, const double c[3], const double half[3]);
/* a flat plate, an open grid of nu x nv quads spanning w along u and h along v from origin (as
 * scene_grid); meant two-sided (inner 0) */
void body_plate(body *b, const double origin[3], const double u[3], const double v[3], double w,
                double h, uint32_t nu, uint32_t nv);
void body_free(body *b);
/* add it as a collider (two-sided) of that thickness (m) and friction */
tf_status body_add(tf_sim *sim, const body *b, double thickness, double friction, uint32_t *id);
/* out (nv x 3) = M p for every vertex p of the built pose, M row-major with the translation in
 * M[3], M[7], M[11] (the layout tf_sim_transform_collider takes) */
void body_transform(const body *b, const double M[16], double *out);
/* M = translation t times a rotation by angle (rad) about the axis through c along unit axis */
void rigid_matrix(const double axis[3], double angle, const double c[3], const double t[3],
                  double M[16]);
/* edge-triangle crossings between the scene's cloth at x and the body at bx (NULL: as built) */
long cloth_body_crossings(const scene *sc, const double *x, const body *b, const double *bx);

#endif
