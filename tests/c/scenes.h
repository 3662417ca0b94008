/* SPDX-License-Identifier: MIT
 * Test scenes: regular cloth grids and the thesis's Example 1 trapezoid, plus small measures
 * (distance from rest, momenta) that the physics tests share. */
#ifndef TF_TEST_SCENES_H
#define TF_TEST_SCENES_H

#include <stdint.h>

#include "tauform.h"

typedef struct scene {
  uint32_t vert_count, tri_count;
  double *pos;   /* (vert_count x 3) */
  uint32_t *tri; /* (tri_count x 3) */
  uint32_t pin_count;
  uint32_t *pins;
} scene;

/* (nx+1) x (ny+1) grid of a w x h sheet. Vertex (i, j) = j*(nx+1)+i at
 * origin + i*w/nx * u + j*h/ny * v; pins: row j = 0 when pin_row0. With TF_PERTURB_SEED=k
 * (k > 0) in the environment, every coordinate moves by up to 1e-12 m, a pseudo-random amount of
 * k, the vertex and the axis: the same scene on a neighbouring path (tests/ensemble.sh), as a
 * user's own mesh or a change that only rounds differently would put it. */
void scene_grid(scene *s, uint32_t nx, uint32_t ny, double w, double h, const double origin[3],
                const double u[3], const double v[3], int pin_row0);
/* the path of the next grids: 0 (the default) is the shipped one (or TF_PERTURB_SEED's); k > 0
 * moves every coordinate by up to 1e-12 m as TF_PERTURB_SEED does, on a path of its own. A test
 * whose scene folds or snaps (a chaotic path: which fold forms first is decided by rounding) runs
 * a few paths and asks its claim of most of them, where one path would pass or fail by luck */
void scene_path(int k);
/* Young 2007 Example 1: 12 unit equilateral triangles in rows of 5, 4, 3 vertices in the x-y
 * plane; the bottom row pinned. The top-middle vertex is vertex 10. */
void scene_young1(scene *s);
void scene_free(scene *s);

/* an nx x ny x nz lattice of sx x sy x sz boxes from the origin, each cut into Kuhn's six tets;
 * vertex (i, j, k) = (k (ny+1) + j) (nx+1) + i */
typedef struct tet_scene {
  uint32_t vert_count, tet_count;
  double *pos;    /* (vert_count x 3) */
  uint32_t *tets; /* (tet_count x 4) */
} tet_scene;
void scene_block(tet_scene *s, uint32_t nx, uint32_t ny, uint32_t nz, double sx, double sy,
                 double sz);
void tet_scene_free(tet_scene *s);
/* a flesh def with the block's tets and defaults */
void scene_flesh_def(const tet_scene *s, tf_flesh_def *def);

/* d1 = |x - p|_2 and d2 = max_i |x_i - p_i| (thesis eqs. 4.1, 4.2) */
double dist_d1(const double *x, const double *p, uint32_t n);
double dist_d2(const double *x, const double *p, uint32_t n);
/* advance sim by steps of dt (at most max_time) until its distance d1 from rest is below 1 % of
 * where it started; returns that time, or -1. *monotone: the distance never grew */
double scene_rest_time(tf_sim *sim, const double *rest, uint32_t n, double dt, double max_time,
                       int *monotone);
/* the largest vertex speed of a simulation, m/s; v: scratch of 3n doubles */
double largest_speed(const tf_sim *sim, double *v, uint32_t n);
/* jitter between two frames' velocities v and vp (3n each), m/s: the largest reversed part of a
 * vertex's slower velocity, -v.vp / max(|v|, |vp|) where v.vp < 0 (0 when none reverses). The
 * speed itself for a back-and-forth, only the creep for a creeping vertex that a snap carries off
 * the other way */
double largest_reversal(const double *v, const double *vp, uint32_t n);
/* back and forth over three frames' velocities v, vp, vpp (3n each), m/s: the largest over the
 * vertices of the smaller of the two successive reversals (vpp -> vp, vp -> v) */
double largest_oscillation(const double *v, const double *vp, const double *vpp, uint32_t n);

/* a def with the scene's mesh and defaults */
void scene_def(const scene *s, tf_cloth_def *def);

/* FNV-1a 64 of a snapshot's payload into its header's last field (snapshot.c's layout: header
 * bytes, the checksum last), so a changed value reaches the checks behind the checksum */
void snapshot_reseal(unsigned char *b, size_t size, size_t header);

/* A 1 m x 0.1 m strip (10 x 1 cells, no gravity, 100 N/m) of spring cloth with structural
 * springs only (springs 1) or of a membrane with Poisson 0 (0), with plasticity (yield, limit,
 * time), held stretched to `stretch` between its end columns for `hold` s, then let go at one end
 * for 3 s: its length (the free end's mean x less the held one's), NAN on a failure; positions
 * (Nullable, 22 x 3) the final ones */
double plastic_strip(int springs, double stretch, double yield, double limit, double time,
                     double hold, unsigned substeps, double *positions);

#endif
