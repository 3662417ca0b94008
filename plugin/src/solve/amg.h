/* SPDX-License-Identifier: MIT
 * Smoothed-aggregation algebraic multigrid (Vanek, Mandel & Brezina 1996) as a preconditioner for
 * the Newton systems: aggregates of mesh neighbours, a prolongator from the translations of each
 * aggregate (from a chosen level on, its rigid rotations too) smoothed by one damped block-Jacobi
 * step, Galerkin coarse matrices P^T A P, symmetric block Gauss-Seidel smoothing and a dense
 * Cholesky solve on the coarsest level. One V-cycle is one application; it is symmetric positive
 * definite, so PCG can use it.
 *
 * The hierarchy's structure (aggregates, sparsity of P, A P and every coarse matrix) is built
 * once from the mesh adjacency (amg_create); amg_setup recomputes the numbers from a new Hessian
 * without allocating. */
#ifndef TF_SOLVE_AMG_H
#define TF_SOLVE_AMG_H

#include "core/mem.h"
#include "solve/bsr.h"

typedef struct amg amg;

/* rot_level: no level carries the rotations */
#define AMG_TRANSLATIONS UINT32_MAX

/* Structure from the full (both triangles, diagonal included) adjacency of n vertices. NULL when
 * out of memory. */
/* H: the upper-triangle pattern every amg_setup will be given (its values are not read here);
 * pos (n x 3, Nullable) the vertices' rest positions, which place the smoother's blocks;
 * rot_level: 0 or 1, the first level whose prolongator carries each aggregate's three rotations
 * besides its translations (a coarse level then has two 3x3 nodes per aggregate), or
 * AMG_TRANSLATIONS */
TF_LOCAL amg *amg_create(tf_mem *m, uint32_t n, const uint32_t *adj_ptr, const uint32_t *adj,
                         const bsr *H, const double *pos, uint32_t rot_level);
TF_LOCAL void amg_destroy(tf_mem *m, amg *a);
/* the threads of amg_setup and amg_apply (Nullable pool: inline), with their scratch allocated
 * through m (0: out of memory, the pool not set); the result does not depend on them */
TF_LOCAL int amg_set_pool(tf_mem *m, amg *a, tf_pool *pool);
/* Numbers from the upper-triangle Hessian H, whose pattern may be wider than the adjacency given
 * to amg_create (blocks outside it are lumped onto the diagonal); fixed (Nullable) vertices are
 * Dirichlet; x (3n, Nullable: the rest positions) the positions H was taken at, about which the
 * rotations turn. With amg_set_reuse, a set-up since the last amg_forget whose level-0 rows each
 * lie within the fraction of the last full set-up's refreshes level 0 only. */
TF_LOCAL void amg_setup(amg *a, const bsr *H, const uint8_t *fixed, const double *x);
/* Let amg_setup keep the coarse levels (prolongator and Galerkin matrices) while every row of level
 * 0 (Frobenius norm) lies within fraction of its values at the last full set-up; level 0, which
 * the finest smoother and the residual use, is always the current Hessian's. The V-cycle stays
 * symmetric positive definite (its coarse operators are Galerkin products of an earlier SPD
 * matrix); only the CG count changes. 0 (the default): every set-up is full. Keeps a copy of
 * level 0, allocated through m here (0: out of memory, nothing changed). */
TF_LOCAL int amg_set_reuse(tf_mem *m, amg *a, double fraction);
/* Whether the full set-ups from now on use the rotations of a hierarchy built for them (on by
 * default); off, their rotation nodes are dead and the V-cycle is a translation-only one's */
TF_LOCAL void amg_set_rotations(amg *a, int on);
/* full set-ups (every level rebuilt) since amg_create */
TF_LOCAL uint32_t amg_full_setups(const amg *a);
/* Forget the eigenvector estimates and the coarse levels kept between set-ups (the power
 * iteration's warm start, amg_set_reuse's), so that what follows depends only on the Hessians given
 * from now on: called at the start of every time step, a restored state continues bit for bit and
 * the result of a step never depends on what was solved before it. */
TF_LOCAL void amg_forget(amg *a);
/* z = one V-cycle applied to r (both 3n). The pcg_precond callback signature. */
TF_LOCAL void amg_apply(void *a, const double *r, double *z);
TF_LOCAL uint32_t amg_level_count(const amg *a);
/* nodes and stored 3x3 blocks of a level (0 for levels past the last) */
TF_LOCAL void amg_level_size(const amg *a, uint32_t level, uint32_t *n, uint32_t *nnz);

#endif
