/* SPDX-License-Identifier: MIT
 * Stable Neo-Hookean tetrahedron and the dense eigen-solver behind its PSD projection: gradient and
 * Hessian against central finite differences, the 3x3 eigen-solver on the cases a closed form gets
 * wrong (equal and nearly equal eigenvalues, tiny strains, extreme scales), zero force at rest and under rigid motion, the
 * linear-elastic small-strain limit, PSD projection, and recovery of flat and inverted tets. */
#include <stdlib.h>
#include <string.h>

#include "core/eigen3.h"
#include "core/eigen_sym.h"
#include "core/svd3.h"
#include "core/vec3.h"
#include "energy/neohookean_tet.h"
#include "testmath.h"
#include "tf_test.h"

static double frand(unsigned *s) {
  *s = *s * 1664525u + 1013904223u;
  return (double)(*s >> 8) / (double)(1u << 24) * 2.0 - 1.0;
}

static const double LAMBDA = 4.0, MU = 1.5;

/* a random well-shaped rest tet (regular tet, randomly scaled and sheared) and a deformed copy */
static void random_tet(unsigned *seed, double rest[12], double x[12], double strain) {
  static const double reg[12] = {0, 0, 0, 1, 0, 0, 0.5, 0.866, 0, 0.5, 0.289, 0.816};
  for (int k = 0; k < 12; ++k) rest[k] = reg[k] + 0.2 * frand(seed);
  for (int k = 0; k < 12; ++k)
    x[k] = rest[k] * (1.0 + strain * frand(seed)) + 0.3 * strain * frand(seed);
}

TF_TEST(core_eigen_sym_reconstructs) {
  unsigned seed = 17;
  double worst = 0.0, worst_orth = 0.0;
  for (int n = 1; n <= EIGEN_SYM_MAX; n += 3)
    for (int trial = 0; trial < 5; ++trial) {
      double A[EIGEN_SYM_MAX * EIGEN_SYM_MAX], V[EIGEN_SYM_MAX * EIGEN_SYM_MAX], w[EIGEN_SYM_MAX];
      for (int i = 0; i < n; ++i)
        for (int j = i; j < n; ++j) A[i * n + j] = A[j * n + i] = frand(&seed);
      eigen_sym(A, n, w, V);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          double s = 0.0, o = 0.0;
          for (int k = 0; k < n; ++k) {
            s += V[i * n + k] * w[k] * V[j * n + k];
            o += V[k * n + i] * V[k * n + j];
          }
          worst = fmax(worst, fabs(s - A[i * n + j]));
          worst_orth = fmax(worst_orth, fabs(o - (i == j)));
        }
    }
  TF_NOTE("Jacobi eigen-decomposition: max |V W V^T - A| %.1e, max |V^T V - I| %.1e", worst,
          worst_orth);
  ENSURE(worst < 1e-12 && worst_orth < 1e-12);
  /* projection: eigenvalues -2, 1, 3 -> 0, 1, 3 with the same eigenvectors */
  double A[9] = {1, 2, 0, 2, 1, 0, 0, 0, 1}, w[3];
  ENSURE(eigen_sym_project_psd(A, 3) == 1);
  eigen_sym(A, 3, w, NULL);
  double lo = fmin(w[0], fmin(w[1], w[2])), hi = fmax(w[0], fmax(w[1], w[2]));
  ENSURE_NEAR(lo, 0.0, 1e-14);
  ENSURE_NEAR(hi, 3.0, 1e-14);
  ENSURE_NEAR(A[8], 1.0, 1e-14);
}

/* worst |V diag(w) V^T - A| / max|A| and |V^T V - I| of eigen3_sym */
static void eigen3_errors(const double A[9], double *rec, double *orth) {
  double w[3], V[9], amax = 0.0;
  eigen3_sym(A, w, V);
  for (int k = 0; k < 9; ++k) amax = fmax(amax, fabs(A[k]));
  *rec = *orth = 0.0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0.0, o = 0.0;
      for (int k = 0; k < 3; ++k) {
        s += V[3 * i + k] * w[k] * V[3 * j + k];
        o += V[3 * k + i] * V[3 * k + j];
      }
      *rec = fmax(*rec, amax > 0.0 ? fabs(s - A[3 * i + j]) / amax : fabs(s));
      *orth = fmax(*orth, fabs(o - (i == j)));
    }
}

/* R diag(d) R^T for a random rotation R */
static void rotated_diagonal(unsigned *seed, const double d[3], double A[9]) {
  double q[4] = {frand(seed), frand(seed), frand(seed), frand(seed)};
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int k = 0; k < 4; ++k) q[k] /= n;
  const double a = q[0], b = q[1], c = q[2], e = q[3];
  const double R[9] = {1 - 2 * (c * c + e * e), 2 * (b * c - a * e),     2 * (b * e + a * c),
                       2 * (b * c + a * e),     1 - 2 * (b * b + e * e), 2 * (c * e - a * b),
                       2 * (b * e - a * c),     2 * (c * e + a * b),     1 - 2 * (b * b + c * c)};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      A[3 * i + j] = R[3 * i] * d[0] * R[3 * j] + R[3 * i + 1] * d[1] * R[3 * j + 1] +
                     R[3 * i + 2] * d[2] * R[3 * j + 2];
}

TF_TEST(core_eigen3_equal_and_close_eigenvalues) {
  unsigned seed = 5;
  double worst_rec = 0.0, worst_orth = 0.0, rec, orth;
  /* spectra a closed-form solver gets wrong: equal, nearly equal (gaps from 1e-3 down to
   * round-off), one of each sign, zero, and scales from 1e-150 to 1e150 */
  static const double SPECTRA[][3] = {{1, 1, 2},
                                      {2, 1, 1},
                                      {1, 1, 1},
                                      {1, 1 + 1e-9, 2},
                                      {1, 1 + 1e-13, 1 + 2e-13},
                                      {1, 1 + 1e-6, 3},
                                      {-1, 0, 1},
                                      {0, 0, 0},
                                      {0, 0, 1},
                                      {-3, -3, 5},
                                      {1, 1 + 1e-3, 1 + 2e-3},
                                      {1, 2, 3},
                                      {1e-8, 1, 1},
                                      {1, 1 + 4e-8, 1 + 9e-8}};
  static const double SCALES[] = {1e-150, 1e-8, 1.0, 1e8, 1e150};
  for (size_t c = 0; c < sizeof SPECTRA / sizeof SPECTRA[0]; ++c)
    for (size_t k = 0; k < sizeof SCALES / sizeof SCALES[0]; ++k)
      for (int trial = 0; trial < 20; ++trial) {
        double d[3] = {SCALES[k] * SPECTRA[c][0], SCALES[k] * SPECTRA[c][1],
                       SCALES[k] * SPECTRA[c][2]},
               A[9];
        rotated_diagonal(&seed, d, A);
        eigen3_errors(A, &rec, &orth);
        worst_rec = fmax(worst_rec, rec), worst_orth = fmax(worst_orth, orth);
      }
  /* F^T F of a deformation gradient at strains from 10 % down to 1e-12, and random matrices */
  for (int e = 1; e <= 12; ++e)
    for (int trial = 0; trial < 50; ++trial) {
      double F[9], A[9];
      for (int k = 0; k < 9; ++k) F[k] = (k % 4 == 0) + pow(10.0, -e) * frand(&seed);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          A[3 * i + j] = F[i] * F[j] + F[3 + i] * F[3 + j] + F[6 + i] * F[6 + j];
      eigen3_errors(A, &rec, &orth);
      worst_rec = fmax(worst_rec, rec), worst_orth = fmax(worst_orth, orth);
      for (int i = 0; i < 3; ++i)
        for (int j = i; j < 3; ++j) A[3 * i + j] = A[3 * j + i] = frand(&seed);
      eigen3_errors(A, &rec, &orth);
      worst_rec = fmax(worst_rec, rec), worst_orth = fmax(worst_orth, orth);
    }
  TF_NOTE("3x3 eigen-solver: max |V W V^T - A| / max|A| %.1e, max |V^T V - I| %.1e", worst_rec,
          worst_orth);
  ENSURE(worst_rec < 1e-13 && worst_orth < 1e-13);
  /* the signed SVD built on it reconstructs F, near rest included */
  double worst_svd = 0.0;
  for (int e = 0; e <= 12; e += 2)
    for (int trial = 0; trial < 50; ++trial) {
      double F[9], U[9], s[3], V[9];
      for (int k = 0; k < 9; ++k) F[k] = (k % 4 == 0) + (e ? pow(10.0, -e) : 0.7) * frand(&seed);
      svd3_signed(F, U, s, V);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          double r = 0.0;
          for (int k = 0; k < 3; ++k) r += U[3 * i + k] * s[k] * V[3 * j + k];
          worst_svd = fmax(worst_svd, fabs(r - F[3 * i + j]));
        }
    }
  TF_NOTE("signed SVD: max |U S V^T - F| %.1e", worst_svd);
  ENSURE(worst_svd < 1e-12);
}

TF_TEST(energy_tet_gradient_hessian_fd) {
  unsigned seed = 23;
  double worst_g = 0.0, worst_h = 0.0;
  for (int trial = 0; trial < 60; ++trial) {
    double rest[12], x[12], g[12], H[144];
    random_tet(&seed, rest, x,
               trial < 20 ? 0.2 : 0.8); /* the large strains include inverted tets */
    tet_rest r;
    ENSURE(tet_rest_init(&r, rest, rest + 3, rest + 6, rest + 9));
    tet_energy(&r, x, LAMBDA, MU, g, H, 0);
    double gmax = 1e-12, hmax = 1e-12;
    for (int k = 0; k < 12; ++k) gmax = fmax(gmax, fabs(g[k]));
    for (int k = 0; k < 144; ++k) hmax = fmax(hmax, fabs(H[k]));
    for (int k = 0; k < 12; ++k) {
      const double h = 1e-6;
      double xp[12], xm[12], gp[12], gm[12];
      memcpy(xp, x, sizeof xp);
      memcpy(xm, x, sizeof xm);
      xp[k] += h;
      xm[k] -= h;
      double ep = tet_energy(&r, xp, LAMBDA, MU, gp, NULL, 0),
             em = tet_energy(&r, xm, LAMBDA, MU, gm, NULL, 0);
      worst_g = fmax(worst_g, fabs((ep - em) / (2 * h) - g[k]) / gmax);
      for (int i = 0; i < 12; ++i)
        worst_h = fmax(worst_h, fabs((gp[i] - gm[i]) / (2 * h) - H[12 * i + k]) / hmax);
    }
    for (int i = 0; i < 12; ++i)
      for (int j = 0; j < 12; ++j) ENSURE(fabs(H[12 * i + j] - H[12 * j + i]) <= 1e-13 * hmax);
  }
  TF_NOTE("tet gradient vs FD of energy %.1e, Hessian vs FD of gradient %.1e (60 tets)", worst_g,
          worst_h);
  ENSURE(worst_g < 1e-7 && worst_h < 1e-7);
}

TF_TEST(energy_tet_rest_rigid_and_orientation) {
  unsigned seed = 29;
  for (int trial = 0; trial < 20; ++trial) {
    double rest[12], x[12], g[12], dummy[12];
    random_tet(&seed, rest, dummy, 0.0);
    if (trial % 2) /* a negatively oriented rest tet is accepted and re-ordered */
      for (int k = 0; k < 3; ++k) {
        double t = rest[6 + k];
        rest[6 + k] = rest[9 + k];
        rest[9 + k] = t;
      }
    tet_rest r;
    ENSURE(tet_rest_init(&r, rest, rest + 3, rest + 6, rest + 9));
    ENSURE(r.swapped == (trial % 2));
    double loc[12];
    for (int v = 0; v < 4; ++v)
      memcpy(loc + 3 * v, rest + 3 * tet_local_vertex(&r, v), 3 * sizeof(double));
    ENSURE(fabs(tet_energy(&r, loc, LAMBDA, MU, g, NULL, 0)) < 1e-14);
    ENSURE_NEAR(tet_volume_ratio(&r, loc), 1.0, 1e-12);
    for (int k = 0; k < 12; ++k) ENSURE(fabs(g[k]) < 1e-12);
    double axis[3] = {frand(&seed), frand(&seed), frand(&seed)}, ang = 3.0 * frand(&seed),
           shift[3] = {0.0, -0.4, -0.8};
    rigid_motion(loc, 4, axis, ang, shift, x);
    ENSURE(fabs(tet_energy(&r, x, LAMBDA, MU, g, NULL, 0)) < 1e-13);
    for (int k = 0; k < 12; ++k) ENSURE(fabs(g[k]) < 1e-12);
  }
  /* a flat rest tet is refused */
  double f[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.3, 0.3, 0};
  tet_rest r;
  ENSURE(!tet_rest_init(&r, f, f + 3, f + 6, f + 9));
  /* a deformed tet: net force and torque vanish */
  double rest[12], x[12], g[12];
  random_tet(&seed, rest, x, 0.5);
  ENSURE(tet_rest_init(&r, rest, rest + 3, rest + 6, rest + 9));
  tet_energy(&r, x, LAMBDA, MU, g, NULL, 0);
  double F[3] = {0}, T[3] = {0};
  for (int v = 0; v < 4; ++v) {
    double t[3];
    v3_cross(t, x + 3 * v, g + 3 * v);
    v3_add(F, F, g + 3 * v);
    v3_add(T, T, t);
  }
  ENSURE(v3_maxabs(F) < 1e-12 && v3_maxabs(T) < 1e-12);
}

TF_TEST(energy_tet_small_strain_is_linear_elasticity) {
  /* psi(I + H) -> mu eps:eps + lambda/2 tr(eps)^2 for a small symmetric strain eps = H */
  double rest[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  tet_rest r;
  ENSURE(tet_rest_init(&r, rest, rest + 3, rest + 6, rest + 9));
  const double e[9] = {0.3, 0.1, -0.2, 0.1, -0.5, 0.4, -0.2, 0.4, 0.2};
  for (int s = 3; s <= 5; ++s) {
    const double d = pow(10.0, -s);
    double x[12];
    for (int v = 0; v < 4; ++v)
      for (int i = 0; i < 3; ++i) {
        x[3 * v + i] = rest[3 * v + i];
        for (int j = 0; j < 3; ++j) x[3 * v + i] += d * e[3 * i + j] * rest[3 * v + j];
      }
    double tr = d * (e[0] + e[4] + e[8]), ee = 0.0;
    for (int k = 0; k < 9; ++k) ee += d * d * e[k] * e[k];
    double lin = r.volume * (MU * ee + 0.5 * LAMBDA * tr * tr);
    double rel = fabs(tet_energy(&r, x, LAMBDA, MU, NULL, NULL, 0) - lin) / lin;
    ENSURE(rel < 5.0 * d); /* the error is the O(strain^3) term */
  }
  double l, m;
  tet_lame(1e5, 0.49, &l, &m);
  ENSURE_NEAR(m, 1e5 / 2.98, 1e-9);
  ENSURE_NEAR(l, 1e5 * 0.49 / (1.49 * 0.02), 1e-6);
}

TF_TEST(energy_tet_psd_projection) {
  unsigned seed = 31;
  double worst_exact = 0.0, worst_psd = 0.0;
  for (int trial = 0; trial < 100; ++trial) {
    double rest[12], x[12], H[144], P[144];
    random_tet(&seed, rest, x, 0.9);
    tet_rest r;
    ENSURE(tet_rest_init(&r, rest, rest + 3, rest + 6, rest + 9));
    tet_energy(&r, x, LAMBDA, MU, NULL, H, 0);
    tet_energy(&r, x, LAMBDA, MU, NULL, P, 1);
    double hmax = 0.0;
    for (int k = 0; k < 144; ++k) hmax = fmax(hmax, fabs(H[k]));
    worst_exact = fmin(worst_exact, sym_min_eigenvalue(H, 12) / hmax);
    worst_psd = fmin(worst_psd, sym_min_eigenvalue(P, 12) / hmax);
  }
  /* near rest nothing is clamped: the projected Hessian is the exact one */
  double rest[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, x[12], H[144], P[144];
  for (int k = 0; k < 12; ++k) x[k] = rest[k] * 1.01;
  tet_rest r;
  ENSURE(tet_rest_init(&r, rest, rest + 3, rest + 6, rest + 9));
  tet_energy(&r, x, LAMBDA, MU, NULL, H, 0);
  tet_energy(&r, x, LAMBDA, MU, NULL, P, 1);
  for (int k = 0; k < 144; ++k) ENSURE(H[k] == P[k]);
  TF_NOTE("tet min eigenvalue / max|H|: exact %.3f, projected %.1e", worst_exact, worst_psd);
  ENSURE(worst_exact < -1e-3);
  ENSURE(worst_psd > -1e-12);
}

/* Newton on the free vertex 3 (0..2 held) with the projected Hessian and a backtracking line search
 */
static int relax_apex(const tet_rest *r, double x[12], double lambda, double mu) {
  for (int it = 0; it < 100; ++it) {
    double g[12], H[144];
    double e = tet_energy(r, x, lambda, mu, g, H, 1);
    if (v3_norm(g + 9) < 1e-10 * mu * r->volume) return it; /* force relative to the stiffness */
    double A[9], p[3];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) A[3 * i + j] = H[12 * (9 + i) + 9 + j] + (i == j) * 1e-9 * mu;
    double Ainv[9], mg[3] = {-g[9], -g[10], -g[11]};
    if (!m3_inverse(Ainv, A, 0.0)) return -1;
    m3_mulv(p, Ainv, mg);
    double t = 1.0, y[12];
    for (;;) {
      memcpy(y, x, sizeof y);
      for (int k = 0; k < 3; ++k) y[9 + k] += t * p[k];
      double gy[12];
      /* near the minimum the energy decrease drowns in round-off; a smaller force also counts */
      if (tet_energy(r, y, lambda, mu, gy, NULL, 0) <= e || v3_norm(gy + 9) < v3_norm(g + 9) ||
          t < 1e-10)
        break;
      t *= 0.5;
    }
    memcpy(x, y, sizeof y);
  }
  return -1;
}

TF_TEST(energy_tet_flat_and_inverted_recover) {
  double rest[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.2, 0.3, 1};
  tet_rest r;
  ENSURE(tet_rest_init(&r, rest, rest + 3, rest + 6, rest + 9));
  double lambda, mu;
  tet_lame(1e4, 0.45, &lambda, &mu);
  /* squashed flat, pushed through the base, and far through it */
  const double apex[3][3] = {{0.2, 0.3, 0.0}, {0.4, 0.1, -0.5}, {-1.0, 2.0, -3.0}};
  for (int c = 0; c < 3; ++c) {
    double x[12];
    memcpy(x, rest, sizeof x);
    memcpy(x + 9, apex[c], sizeof apex[c]);
    double J0 = tet_volume_ratio(&r, x), g[12];
    tet_energy(&r, x, lambda, mu, g, NULL, 0);
    ENSURE(g[11] < 0.0); /* the force -g on the apex points up, out of the inversion */
    int its = relax_apex(&r, x, lambda, mu);
    TF_NOTE("apex start J = %+.2f: back to rest in %d Newton steps, J = %.12f", J0, its,
            tet_volume_ratio(&r, x));
    ENSURE(its >= 0);
    for (int k = 0; k < 3; ++k) ENSURE_NEAR(x[9 + k], rest[9 + k], 1e-9);
  }
}

/* the analytic eigensystem projection equals the brute-force one (9x9 Jacobi, clamp, rebuild) on
 * stretched, compressed, flat and inverted deformation gradients */
TF_TEST(energy_tet_analytic_projection_matches_jacobi) {
  unsigned seed = 77;
  double worst = 0.0;
  int clamped_cases = 0;
  for (int trial = 0; trial < 400; ++trial) {
    double F[9];
    for (int k = 0; k < 9; ++k) F[k] = (k % 4 == 0) + 0.8 * (frand(&seed) - 0.5) * (1 + trial % 4);
    if (trial % 5 == 0) /* flat: one column a combination of the others */
      for (int i = 0; i < 3; ++i) F[3 * i + 2] = 0.3 * F[3 * i] - 0.7 * F[3 * i + 1];
    if (trial % 7 == 0)
      for (int i = 0; i < 3; ++i) F[3 * i] = -F[3 * i]; /* inverted */
    double A[81], B[81];
    tet_stress_derivative(F, LAMBDA, MU, 1, A);
    tet_stress_derivative(F, LAMBDA, MU, 0, B);
    clamped_cases += eigen_sym_project_psd(B, 9) > 0;
    double scale = 0.0, err = 0.0;
    for (int k = 0; k < 81; ++k)
      scale = fmax(scale, fabs(B[k])), err = fmax(err, fabs(A[k] - B[k]));
    worst = fmax(worst, err / scale);
  }
  TF_NOTE(
      "analytic vs Jacobi PSD projection of d2psi/dF2: max relative difference %.1e (%d of 400 "
      "clamped)",
      worst, clamped_cases);
  ENSURE(clamped_cases > 100);
  ENSURE(worst < 1e-9);
}
