/* SPDX-License-Identifier: MIT
 * StVK membrane triangle: gradient and Hessian against central finite differences, the PSD
 * projection, zero force at rest and under rigid motion, the strain-rate damping force against
 * the derivative of a Rayleigh dissipation, and the Lame conversion. */
#include <stdlib.h>
#include <string.h>

#include "core/vec3.h"
#include "energy/membrane_tri.h"
#include "testmath.h"
#include "tf_test.h"

static double frand(unsigned *s) {
  *s = *s * 1664525u + 1013904223u;
  return (double)(*s >> 8) / (double)(1u << 24) * 2.0 - 1.0;
}

static const double LAMBDA = 3.0, MU = 1.0;

static void random_triangle(unsigned *seed, double rest[9], double x[9], double strain) {
  for (int k = 0; k < 9; ++k) rest[k] = frand(seed);
  for (int k = 0; k < 9; ++k)
    x[k] = rest[k] * (1.0 + strain * frand(seed)) + 0.3 * strain * frand(seed);
}

static double min_eigenvalue(const double *A, int n) { return sym_min_eigenvalue(A, n); }

TF_TEST(energy_membrane_gradient_fd) {
  unsigned seed = 7;
  double worst = 0.0;
  for (int trial = 0; trial < 50; ++trial) {
    double rest[9], x[9], g[9];
    random_triangle(&seed, rest, x, trial < 25 ? 0.3 : 0.9);
    membrane_rest r;
    ENSURE(membrane_rest_init(&r, rest, rest + 3, rest + 6));
    membrane_energy(&r, x, LAMBDA, MU, g, NULL, 0);
    double gmax = 0.0;
    for (int k = 0; k < 9; ++k) gmax = fmax(gmax, fabs(g[k]));
    for (int k = 0; k < 9; ++k) {
      const double h = 1e-6;
      double xp[9], xm[9];
      memcpy(xp, x, sizeof xp);
      memcpy(xm, x, sizeof xm);
      xp[k] += h;
      xm[k] -= h;
      double fd = (membrane_energy(&r, xp, LAMBDA, MU, NULL, NULL, 0) -
                   membrane_energy(&r, xm, LAMBDA, MU, NULL, NULL, 0)) /
                  (2 * h);
      worst = fmax(worst, fabs(fd - g[k]) / fmax(gmax, 1e-12));
    }
  }
  TF_NOTE("membrane gradient vs central FD, 50 triangles: max rel err %.2e", worst);
  ENSURE(worst < 1e-7);
}

TF_TEST(energy_membrane_hessian_fd) {
  unsigned seed = 11;
  double worst = 0.0;
  for (int trial = 0; trial < 50; ++trial) {
    double rest[9], x[9], H[81];
    random_triangle(&seed, rest, x, trial < 25 ? 0.3 : 0.9);
    membrane_rest r;
    ENSURE(membrane_rest_init(&r, rest, rest + 3, rest + 6));
    membrane_energy(&r, x, LAMBDA, MU, NULL, H, 0);
    double hmax = 0.0;
    for (int k = 0; k < 81; ++k) hmax = fmax(hmax, fabs(H[k]));
    for (int k = 0; k < 9; ++k) {
      const double h = 1e-6;
      double xp[9], xm[9], gp[9], gm[9];
      memcpy(xp, x, sizeof xp);
      memcpy(xm, x, sizeof xm);
      xp[k] += h;
      xm[k] -= h;
      membrane_energy(&r, xp, LAMBDA, MU, gp, NULL, 0);
      membrane_energy(&r, xm, LAMBDA, MU, gm, NULL, 0);
      for (int i = 0; i < 9; ++i)
        worst = fmax(worst, fabs((gp[i] - gm[i]) / (2 * h) - H[9 * i + k]) / hmax);
    }
  }
  TF_NOTE("membrane exact Hessian vs central FD of the gradient: max rel err %.2e", worst);
  ENSURE(worst < 1e-7);
}

TF_TEST(energy_membrane_psd_projection) {
  unsigned seed = 5;
  double worst_exact = 0.0, worst_psd = 0.0;
  int tension_exact = 1;
  for (int trial = 0; trial < 200; ++trial) {
    double rest[9], x[9], H[81], P[81];
    random_triangle(&seed, rest, x, 0.9);
    /* strong compression in half of the trials */
    if (trial % 2)
      for (int k = 0; k < 9; ++k) x[k] = 0.3 * rest[k] + 0.05 * frand(&seed);
    membrane_rest r;
    ENSURE(membrane_rest_init(&r, rest, rest + 3, rest + 6));
    membrane_energy(&r, x, LAMBDA, MU, NULL, H, 0);
    membrane_energy(&r, x, LAMBDA, MU, NULL, P, 1);
    double hmax = 0.0;
    for (int k = 0; k < 81; ++k) hmax = fmax(hmax, fabs(P[k]));
    worst_exact = fmin(worst_exact, min_eigenvalue(H, 9) / hmax);
    worst_psd = fmin(worst_psd, min_eigenvalue(P, 9) / hmax);
    for (int i = 0; i < 9; ++i)
      for (int j = 0; j < 9; ++j)
        ENSURE(P[9 * i + j] == P[9 * j + i] || fabs(P[9 * i + j] - P[9 * j + i]) < 1e-14 * hmax);
  }
  /* in pure tension (stretched 10 % both ways) the projection changes nothing */
  double rest[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, x[9] = {0, 0, 0, 1.1, 0, 0.01, 0, 1.1, 0};
  membrane_rest r;
  membrane_rest_init(&r, rest, rest + 3, rest + 6);
  double H[81], P[81];
  membrane_energy(&r, x, LAMBDA, MU, NULL, H, 0);
  membrane_energy(&r, x, LAMBDA, MU, NULL, P, 1);
  for (int k = 0; k < 81; ++k)
    if (H[k] != P[k]) tension_exact = 0;
  TF_NOTE("min eigenvalue / max|H|: exact %.3f (indefinite in compression), projected %.2e",
          worst_exact, worst_psd);
  ENSURE(worst_exact < -1e-3); /* the test can see indefiniteness */
  ENSURE(worst_psd > -1e-12);
  ENSURE(tension_exact);
}

TF_TEST(energy_membrane_rest_and_rigid_motion) {
  unsigned seed = 3;
  for (int trial = 0; trial < 20; ++trial) {
    double rest[9], x[9], g[9];
    for (int k = 0; k < 9; ++k) rest[k] = frand(&seed);
    membrane_rest r;
    ENSURE(membrane_rest_init(&r, rest, rest + 3, rest + 6));
    double e = membrane_energy(&r, rest, LAMBDA, MU, g, NULL, 0);
    ENSURE(fabs(e) < 1e-14);
    for (int k = 0; k < 9; ++k) ENSURE(fabs(g[k]) < 1e-12);
    /* random rotation (Rodrigues) + translation of the rest shape */
    double axis[3] = {frand(&seed), frand(&seed), frand(&seed)}, ang = 3.0 * frand(&seed),
           shift[3] = {0.7, 1.4, 2.1};
    rigid_motion(rest, 3, axis, ang, shift, x);
    e = membrane_energy(&r, x, LAMBDA, MU, g, NULL, 0);
    ENSURE(fabs(e) < 1e-13);
    for (int k = 0; k < 9; ++k) ENSURE(fabs(g[k]) < 1e-12);
  }
  /* a deformed triangle: net force and torque vanish */
  double rest[9] = {0, 0, 0, 1, 0, 0, 0.3, 0.8, 0},
         x[9] = {0.1, 0, 0.2, 1.3, 0.1, 0, 0.2, 1.1, 0.4}, g[9];
  membrane_rest r;
  membrane_rest_init(&r, rest, rest + 3, rest + 6);
  membrane_energy(&r, x, LAMBDA, MU, g, NULL, 0);
  double F[3] = {0}, T[3] = {0};
  for (int v = 0; v < 3; ++v) {
    double t[3];
    v3_cross(t, x + 3 * v, g + 3 * v);
    v3_add(F, F, g + 3 * v);
    v3_add(T, T, t);
  }
  ENSURE(v3_maxabs(F) < 1e-13 && v3_maxabs(T) < 1e-13);
}

TF_TEST(energy_membrane_damping_is_rayleigh_derivative) {
  /* the damping force is -dR/dv of R = A (phi/2 tr(G')^2 + psi G':G'), which is linear in v */
  double rest[9] = {0, 0, 0, 1, 0, 0, 0.3, 0.8, 0},
         x[9] = {0.1, 0, 0.2, 1.3, 0.1, 0, 0.2, 1.1, 0.4};
  double v[9] = {0.3, -0.2, 0.1, 0.5, 0.7, -0.4, 0.0, 0.2, 0.9};
  const double phi = 0.3, psi = 0.7;
  membrane_rest r;
  membrane_rest_init(&r, rest, rest + 3, rest + 6);
  double f[9] = {0};
  membrane_damping_force(&r, x, v, phi, psi, f);
  /* R(v) equals the StVK energy with (lambda, mu) -> (phi, psi) of the strain G' */
  double worst = 0.0;
  for (int k = 0; k < 9; ++k) {
    const double h = 1e-6;
    double vp[9], vm[9], fp[9] = {0}, fm[9] = {0};
    memcpy(vp, v, sizeof vp);
    memcpy(vm, v, sizeof vm);
    vp[k] += h;
    vm[k] -= h;
    /* power P = -f.v = 2R for a quadratic form; dR/dv_k from the power's FD: d(f.v)/dv_k = 2 f_k */
    membrane_damping_force(&r, x, vp, phi, psi, fp);
    membrane_damping_force(&r, x, vm, phi, psi, fm);
    double pp = 0, pm = 0;
    for (int i = 0; i < 9; ++i) {
      pp += fp[i] * vp[i];
      pm += fm[i] * vm[i];
    }
    worst = fmax(worst, fabs((pp - pm) / (2 * h) - 2.0 * f[k]));
  }
  double pw = 0.0;
  for (int i = 0; i < 9; ++i) pw += f[i] * v[i];
  ENSURE(pw < 0.0); /* damping dissipates */
  ENSURE(worst < 1e-7);
  /* rigid velocities are not damped */
  double w[3] = {0.2, -0.5, 0.3}, vr[9], fr[9] = {0};
  for (int q = 0; q < 3; ++q) {
    double c[3];
    v3_cross(c, w, x + 3 * q);
    for (int k = 0; k < 3; ++k) vr[3 * q + k] = c[k] + 0.4;
  }
  membrane_damping_force(&r, x, vr, phi, psi, fr);
  for (int k = 0; k < 9; ++k) ENSURE(fabs(fr[k]) < 1e-13);
}

TF_TEST(energy_membrane_lame_plane_stress) {
  double l, m;
  membrane_lame(3.2, 0.6, &l, &m);
  ENSURE_NEAR(l, 3.0, 1e-12);
  ENSURE_NEAR(m, 1.0, 1e-12);
  /* uniaxial stretch of a unit square's triangle: small-strain stress Y * eps in plane stress */
  membrane_lame(1000.0, 0.3, &l, &m);
  ENSURE_NEAR(4.0 * m * (l + m) / (l + 2.0 * m), 1000.0, 1e-9);
}
