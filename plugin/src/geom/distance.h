/* SPDX-License-Identifier: MIT
 * Squared distances between contact primitives, with the closest-feature classification and the
 * gradient and Hessian of the active feature's formula, for Incremental Potential Contact (Li et
 * al. 2020, "Incremental Potential Contact", sec. 4 and supplemental). Pure geometry: positions
 * in, numbers out, no state, no allocation; thread-safe.
 *
 * Stencils are gathered, 3 doubles per point: point-triangle x = (p, t0, t1, t2), edge-edge
 * x = (ea0, ea1, eb0, eb1), point-edge x = (p, e0, e1), point-point x = (p, q). Gradients have
 * 3 * points entries (m), Hessians (3 * points)^2 entries, row-major (dimensionless). The
 * Hessian is that of the active feature's formula and is not projected to PSD here. */
#ifndef TF_GEOM_DISTANCE_H
#define TF_GEOM_DISTANCE_H

#include "core/common.h"

/* The closest feature pair for point-triangle: the point to a triangle vertex, to the interior
 * of a triangle edge (E01 is t0-t1, E12 t1-t2, E20 t2-t0), or to the face interior. */
typedef enum geom_pt_type {
  GEOM_PT_T0,
  GEOM_PT_T1,
  GEOM_PT_T2,
  GEOM_PT_E01,
  GEOM_PT_E12,
  GEOM_PT_E20,
  GEOM_PT_FACE,
} geom_pt_type;

/* The closest feature pair for edge-edge (A = ea0-ea1, B = eb0-eb1): an endpoint to an endpoint
 * (4), an endpoint to the other edge's interior (4: EA_B0 is eb0 to the interior of A), or the
 * two interiors (the line-line distance). */
typedef enum geom_ee_type {
  GEOM_EE_A0_B0,
  GEOM_EE_A0_B1,
  GEOM_EE_A1_B0,
  GEOM_EE_A1_B1,
  GEOM_EE_EA_B0,
  GEOM_EE_EA_B1,
  GEOM_EE_A0_EB,
  GEOM_EE_A1_EB,
  GEOM_EE_EA_EB,
} geom_ee_type;

/* The closest feature pair for point-edge: an endpoint or the interior. */
typedef enum geom_pe_type { GEOM_PE_E0, GEOM_PE_E1, GEOM_PE_EDGE } geom_pe_type;

/* Edge pairs whose sin^2 of the angle between them is below this are treated as parallel: the
 * line-line formula is skipped (its denominator |ea x eb|^2 loses all relative precision) and the
 * distance comes from the endpoint cases, which hold the minimum of two parallel segments. */
#define GEOM_EE_PARALLEL_SIN2 1e-20

/* Squared distance (m^2) between point p and point q, x = (p, q). Nullable: grad (6), hess (36). */
TF_LOCAL double geom_pp_distance2(const double x[6], double *grad, double *hess);

/* Closest feature of point p to segment e0-e1, x = (p, e0, e1). A zero-length edge gives E0. */
TF_LOCAL geom_pe_type geom_pe_classify(const double x[9]);
/* Squared distance (m^2) of point to segment by the given feature's formula (GEOM_PE_EDGE: the
 * distance to the line, |(p - e0) x (e1 - e0)|^2 / |e1 - e0|^2, NaN for a zero-length edge).
 * Nullable: grad (9), hess (81). */
TF_LOCAL double geom_pe_distance2_typed(const double x[9], geom_pe_type type, double *grad,
                                        double *hess);
/* Squared distance (m^2) of point to segment, classified first. Nullable: out_type, grad, hess. */
TF_LOCAL double geom_pe_distance2(const double x[9], geom_pe_type *out_type, double *grad,
                                  double *hess);

/* Closest feature of point to triangle, x = (p, t0, t1, t2). A degenerate (zero-area)
 * triangle never gives FACE; its edges and vertices cover it. */
TF_LOCAL geom_pt_type geom_pt_classify(const double x[12]);
/* Squared distance (m^2) by the given feature's formula (FACE: the distance to the plane,
 * ((p - t0) . n)^2 / |n|^2 with n = (t1 - t0) x (t2 - t0)). Nullable: grad (12), hess (144). */
TF_LOCAL double geom_pt_distance2_typed(const double x[12], geom_pt_type type, double *grad,
                                        double *hess);
/* Squared distance (m^2) of point to triangle, classified first. Nullable: out_type, grad, hess. */
TF_LOCAL double geom_pt_distance2(const double x[12], geom_pt_type *out_type, double *grad,
                                  double *hess);

/* Closest feature pair of segments ea0-ea1 and eb0-eb1, x = (ea0, ea1, eb0, eb1). Near-parallel
 * pairs (GEOM_EE_PARALLEL_SIN2) never give EA_EB. */
TF_LOCAL geom_ee_type geom_ee_classify(const double x[12]);
/* Squared distance (m^2) by the given feature pair's formula (EA_EB: the line-line distance
 * ((eb0 - ea0) . n)^2 / |n|^2, n = (ea1 - ea0) x (eb1 - eb0)). Nullable: grad (12), hess (144). */
TF_LOCAL double geom_ee_distance2_typed(const double x[12], geom_ee_type type, double *grad,
                                        double *hess);
/* Squared distance (m^2) between the segments, classified first. Nullable: out_type, grad,
 * hess. */
TF_LOCAL double geom_ee_distance2(const double x[12], geom_ee_type *out_type, double *grad,
                                  double *hess);

/* The edge-edge mollifier threshold eps_x = 1e-3 |ea_rest|^2 |eb_rest|^2 (m^4; Li et al. 2020
 * sec. 4.3) from the rest positions x_rest = (ea0, ea1, eb0, eb1). */
TF_LOCAL double geom_ee_mollifier_eps(const double x_rest[12]);
/* IPC edge-edge mollifier (Li et al. 2020 eq. 22): with c = |(ea1 - ea0) x (eb1 - eb0)|^2,
 * m = (2 - c / eps_x) c / eps_x for c < eps_x and 1 otherwise (dimensionless, C1 at c = eps_x),
 * so the barrier of near-parallel edges fades smoothly to zero. Nullable: grad (12, 1/m),
 * hess (144, 1/m^2). eps_x > 0. */
TF_LOCAL double geom_ee_mollifier(const double x[12], double eps_x, double *grad, double *hess);

/* Signed distance (m) of p from the plane through origin with unit normal n: (p - origin) . n.
 * Its square has gradient 2 d n and Hessian 2 n n^T in p; geom_point_plane_distance2 gives
 * them. Nullable: grad (3), hess (9). */
TF_LOCAL double geom_point_plane_signed(const double p[3], const double origin[3],
                                        const double n[3]);
TF_LOCAL double geom_point_plane_distance2(const double p[3], const double origin[3],
                                           const double n[3], double *grad, double *hess);

#endif
