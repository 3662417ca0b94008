/* SPDX-License-Identifier: MIT
 * Multiplicative plasticity of an element's rest shape (issue 23; Young 2007 sec. 5.1.2 names it
 * the tau method's next step): F = Fe Fp, and the energy sees only the elastic part Fe = F Fp^-1,
 * which an element gets by using dm = Dm^-1 Fp^-1 in place of its rest Dm^-1. Past the elastic
 * limit the rate-independent rule takes Fp to a target along Fe's principal directions V,
 * Fp* = V diag(g) V^T Fp, so Fe keeps its directions and its principal stretches become
 * sigma / g, never further than the plastic limit p from the rest mesh's shape. A step moves Fp
 * the share `rate` (1 - exp(-dt / T), elements.h) of the way there, so a held element's rest
 * shape approaches its target as 1 - exp(-t / T) whatever the step (plastic_flow.c, blend).
 *
 * A triangle yields as Leplatre's springs do, per principal direction: a stretch past 1 + y (or
 * below 1 - y) keeps 1 +- y of it and hands the rest to Fp; Fp's principal stretches stay within
 * 1 +- p, and the rest area follows (A0 det Fp), so a bagged elbow keeps its extra cloth.
 *
 * A tet yields as clay or a metal does (von Mises on the Hencky strain, volume kept: flesh is
 * nearly incompressible, and a dent moves material rather than making or losing it): its elastic
 * equivalent strain sqrt(2/3) |dev ln sigma| (a uniaxial pull's log stretch) stays at y, Fp's
 * equivalent strain within p, det Fp = 1 so the rest volume does not change. */
#ifndef TF_ENERGY_PLASTIC_FLOW_H
#define TF_ENERGY_PLASTIC_FLOW_H

#include "core/common.h"

/* triangle: Fe (3x2, row-major) its elastic deformation gradient Ds dm, dm0 and A0 its rest
 * mesh's Dm^-1 (2x2) and area; dm and *area moved in place. 1 when they moved */
TF_LOCAL int plastic_flow_tri(const double Fe[6], const double dm0[4], double A0, double y,
                              double p, double rate, double dm[4], double *area);

/* tet: Fe (3x3) its elastic deformation gradient Ds dm, dm0 its rest mesh's Dm^-1; dm moved in
 * place. 1 when it moved */
TF_LOCAL int plastic_flow_tet(const double Fe[9], const double dm0[9], double y, double p,
                              double rate, double dm[9]);

/* what a saved state can hold: the plastic part Fp = dm^-1 dm0 of a triangle (n = 2) or a tet
 * (3), its principal stretches' logarithms into lp (ascending) and det Fp returned; NaN when dm
 * is singular */
TF_LOCAL double plastic_stretches(const double *dm, const double *dm0, int n, double lp[3]);

#endif
