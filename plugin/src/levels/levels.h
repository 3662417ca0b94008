/* SPDX-License-Identifier: MIT
 * Palazzi's multilevel force distribution (Palazzi 1993, ch. 4): the external forces a host or a
 * rig applies are shared among levels of a hierarchy over the body, from the vertices (a local
 * dent) through ever coarser patches to the rigid level (the body moved as a whole), in
 * percentages the animator keys. A level receives its share of the force on each patch
 * (restriction: the patch's total force and torque) and spreads it back over the patch as a rigid
 * push, by mass with the torque as a rotation (prolongation), so the total force and torque on
 * the body are conserved exactly, whatever the percentages.
 *
 * The hierarchy is Palazzi's 2^j + 1 grid coarsening laid over the rest shape: level k (1 ..
 * count - 2) is a grid of spacing S / 2^j over the rest bounding box (S its longest side), whose
 * nodes are the patches, each vertex belonging to the 8 nodes of its cell with trilinear weights
 * (a partition of unity: the patches overlap smoothly, as Palazzi's even split of a force between
 * the neighbouring coarse points, so a poke moves no seam). Levels are fixed in metres, not in
 * mesh rings: a finer mesh of the same shape adds levels below, the coarse ones stay where they
 * were. A patch is a node within one connected piece: no force crosses between pieces. The last
 * level is each piece as one patch (rigid); level 0 the vertices themselves. */
#ifndef TF_LEVELS_LEVELS_H
#define TF_LEVELS_LEVELS_H

#include "core/common.h"
#include "core/mem.h"

#define LEVELS_MAX 16
/* N: the largest external force on one vertex (the weight of 100 000 t; far above any shot's
 * and far below where a step's arithmetic loses meaning) */
#define LEVELS_MAX_FORCE 1e9

struct tf_sim;

/* one patch's sums for one step (levels/distribute.c) */
typedef struct level_patch {
  double m, mx[3];       /* kg, kg m: mass and first moment, weights included */
  double F[3], T[3];     /* N, N m: its share of the force, and the torque about its centre */
  double I[9];           /* kg m^2: inertia about its centre */
  double a[3], alpha[3]; /* the rigid push: m/s^2, rad/s^2 */
} level_patch;

typedef struct sim_levels {
  uint32_t n;                    /* vertices */
  uint32_t count;                /* levels: 0 the vertices .. count - 1 the rigid level */
  double size[LEVELS_MAX];       /* m: 0 for the vertices, the grid's spacing, the box's side */
  double origin[3];              /* the rest bounding box's low corner */
  uint32_t cells[LEVELS_MAX][3]; /* grid levels: cells per axis */
  /* the hierarchy (built on the first share off level 0) */
  uint32_t *patch;                /* (n x (count - 2) x 8) each vertex's corners' patches */
  uint32_t first[LEVELS_MAX + 1]; /* level k's patches are acc[first[k] .. first[k + 1]) */
  level_patch *acc;
  double *w; /* (n x 8) the grid level in hand's weights, computed once per distribution */
  /* the response */
  double *share;            /* (n x count) the fraction of a force at vertex i level k receives */
  double *force;            /* (n x 3) N: the host's external forces (tf_sim_set_forces) */
  double *dist;             /* (n x 3) N: the step's forces to distribute (scratch) */
  uint8_t used[LEVELS_MAX]; /* some vertex gives level k a share */
  int any_force;            /* some host force is not zero */
} sim_levels;

/* the levels a simulation's rest shape has (no storage): their count, and their sizes into
 * size (Nullable, LEVELS_MAX) */
TF_LOCAL uint32_t levels_count(const struct tf_sim *s, double *size);
/* s->levels with every share on level 0 and no forces; TF_E_NOMEM (nothing changed) */
TF_LOCAL tf_status levels_enable(struct tf_sim *s);
TF_LOCAL void levels_free(tf_mem *m, sim_levels *lv);
/* the patches of every grid level (once); TF_E_NOMEM (nothing changed) */
TF_LOCAL tf_status levels_build(struct tf_sim *s);
/* grid level k's 8 nodes around rest position X (Nullable) and their trilinear weights */
TF_LOCAL void levels_corners(const sim_levels *lv, uint32_t k, const double *X, uint32_t *node,
                             double w[8]);
/* after a share changed: which levels are used */
TF_LOCAL void levels_refresh(sim_levels *lv);
/* no share off level 0: the distribution is the identity and is skipped (bit for bit) */
TF_LOCAL int levels_local(const sim_levels *lv);
/* out += the distribution of the forces in (n x 3) at positions x: each level's share restricted
 * to its patches and prolonged as their rigid pushes. Hard-pinned vertices take no part (their
 * force goes to their pin, as at level 0). Allocates nothing */
TF_LOCAL void levels_distribute(struct tf_sim *s, const double *x, const double *in, double *out);

#endif
