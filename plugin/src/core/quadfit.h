/* SPDX-License-Identifier: MIT
 * The quadratic through six points of a plane: f(u, v) = a0 + a1 u + a2 v + a3 u^2 + a4 u v +
 * a5 v^2 interpolating six values, and so its constant second derivatives as fixed weights on the
 * six values. This is the patch of Phaal & Calladine 1992 and of the rotation-free shell
 * triangles of Onate & Zarate 2000 (a triangle and its three neighbours' opposite vertices): it
 * reproduces every quadratic exactly, so curvature taken from it is consistent on any
 * triangulation whose patches are not on a conic. */
#ifndef TF_CORE_QUADFIT_H
#define TF_CORE_QUADFIT_H

#include "core/common.h"

/* Weights w[3][6] such that f_uu = sum_i w[0][i] f_i, f_vv = sum_i w[1][i] f_i and f_uv =
 * sum_i w[2][i] f_i for the quadratic through (uv[2i], uv[2i+1], f_i), i < 6. Returns the fit's
 * quality, |det| of its 6 x 6 system with the points centred and scaled to the unit disc (a
 * scale-free number, 0 when the six points lie on a conic and no quadratic fits; w is then left
 * zero). */
TF_LOCAL double quadfit_weights(const double uv[12], double w[3][6]);

/* at most this many points in a least-squares fit */
#define QUADFIT_MAX 16

/* Weights w[2][k] such that f_u(0, 0) = sum_i w[0][i] f_i and f_v(0, 0) = sum_i w[1][i] f_i for
 * the least-squares quadratic through the k points (6 <= k <= QUADFIT_MAX): exact when the f_i
 * are samples of a quadratic. Returns the fit's quality (the determinant of the normal equations
 * / k on the points scaled to the unit disc about the origin; 0 when they are on a conic, w zero). */
TF_LOCAL double quadfit_gradient(const double *uv, int k, double w[2][QUADFIT_MAX]);

#endif
