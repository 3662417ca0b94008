/* SPDX-License-Identifier: MIT
 * Tests for the hinge bending energy (energy/bend_hinge.c): the sign convention of the dihedral
 * angle, gradient and exact Hessian against central finite differences on random hinges up to
 * +-170 degrees, the positive semi-definite Newton Hessian (eigenvalues from a small Jacobi
 * routine), rigid-motion invariance with zero net force and torque, the bending of flat grids onto
 * a cylinder at three resolutions against 1/2 B c^2 per unit area, degenerate input, and timing.
 * Random hinges come from a fixed-seed generator so failures reproduce.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/vec3.h"
#include "energy/bend_hinge.h"
#include "testmath.h"
#include "tf_test.h"

static const double PI = 3.14159265358979323846;

/* xorshift64*; deterministic across platforms */
typedef struct rng {
  unsigned long long s;
} rng;

static double rng_uniform(rng *r, double lo, double hi) {
  r->s ^= r->s >> 12;
  r->s ^= r->s << 25;
  r->s ^= r->s >> 27;
  unsigned long long v = r->s * 2685821657736338717ULL;
  return lo + (hi - lo) * (double)(v >> 11) * (1.0 / 9007199254740992.0);
}

static double wrap(double d) {
  while (d > PI) d -= 2.0 * PI;
  while (d < -PI) d += 2.0 * PI;
  return d;
}

static double maxabs(const double *a, int n) {
  double m = 0.0;
  for (int i = 0; i < n; ++i)
    if (fabs(a[i]) > m) m = fabs(a[i]);
  return m;
}

/* rotation matrix of a uniformly random unit quaternion */
static void random_rotation(rng *r, double R[9]) {
  double q[4], n2;
  do {
    for (int i = 0; i < 4; ++i) q[i] = rng_uniform(r, -1.0, 1.0);
    n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  } while (n2 > 1.0 || n2 < 1e-3);
  double s = 1.0 / sqrt(n2), w = q[0] * s, x = q[1] * s, y = q[2] * s, z = q[3] * s;
  double m[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                 2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                 2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
  memcpy(R, m, sizeof m);
}

static void rigid_apply(double y[12], const double x[12], const double R[9], const double t[3]) {
  for (int v = 0; v < 4; ++v) {
    m3_mulv(y + 3 * v, R, x + 3 * v);
    v3_add(y + 3 * v, y + 3 * v, t);
  }
}

/* A random hinge whose dihedral angle is theta by construction: edge along x, triangle A in the
 * xy plane with normal +z, v3 rotated about the edge (x3 = (sB L, -hB cos theta, -hB sin theta)
 * gives theta under the header's convention), then a random rigid motion. */
static void make_hinge(rng *r, double theta, double x[12]) {
  double L = rng_uniform(r, 0.5, 1.5);
  double sa = rng_uniform(r, -0.4, 1.4), sb = rng_uniform(r, -0.4, 1.4);
  double ha = L * rng_uniform(r, 0.3, 1.2), hb = L * rng_uniform(r, 0.3, 1.2);
  double local[12] = {0, 0, 0, L, 0, 0, sa * L, ha, 0, sb * L, -hb * cos(theta), -hb * sin(theta)};
  double R[9], t[3];
  random_rotation(r, R);
  for (int i = 0; i < 3; ++i) t[i] = rng_uniform(r, -2.0, 2.0);
  rigid_apply(x, local, R, t);
}

/* dihedral angles of the random cases: mild, strong, near +-150 and +-170 degrees, flat */
static const double CASE_ANGLES[] = {0.4, -1.1, 2.0, -2.2, 2.618, -2.618, 2.97, -2.97, 0.0};
enum { CASE_ANGLE_COUNT = sizeof CASE_ANGLES / sizeof CASE_ANGLES[0], CASE_COUNT = 36 };

/* case i: a hinge, its k and a theta0 that is 0.2..1.5 rad away; theta0 is wrapped into
 * [-pi, pi], so near +-pi some cases straddle the cut and exercise the energy's wrapping */
static void make_case(rng *r, int i, double x[12], double *k, double *theta0) {
  double theta = CASE_ANGLES[i % CASE_ANGLE_COUNT];
  make_hinge(r, theta, x);
  *k = rng_uniform(r, 0.5, 2.0);
  double off = rng_uniform(r, 0.2, 1.5);
  *theta0 = wrap(theta + (rng_uniform(r, -1.0, 1.0) < 0.0 ? -off : off));
}

static double min_eigenvalue(const double h[144]) { return sym_min_eigenvalue(h, 12); }

TF_TEST(energy_hinge_angle_sign_convention) {
  /* canonical flat hinge: edge on x, v2 at +y, v3 at -y, both normals +z */
  double flat[12] = {0, 0, 0, 1, 0, 0, 0.3, 0.8, 0, 0.6, -0.7, 0};
  ENSURE(hinge_angle(flat) == 0.0);

  /* v3 up along +nA = +z folds the sheet towards its normals: theta = -atan(dz / hB) < 0 */
  double up[12];
  memcpy(up, flat, sizeof up);
  up[11] = 0.2;
  ENSURE_NEAR(hinge_angle(up), -atan2(0.2, 0.7), 1e-15);
  ENSURE(hinge_angle(up) < 0.0);
  /* v2 up along +nA folds the same way; down along -nA is convex: positive */
  memcpy(up, flat, sizeof up);
  up[8] = 0.3;
  ENSURE_NEAR(hinge_angle(up), -atan2(0.3, 0.8), 1e-15);
  up[8] = -0.3;
  ENSURE_NEAR(hinge_angle(up), atan2(0.3, 0.8), 1e-15);

  /* a closed convex body with outward normals has positive dihedral angles: a regular
   * tetrahedron's interior angle is acos(1/3), so theta = pi - acos(1/3) */
  double s = 1.0 / sqrt(2.0);
  double tet[4][3] = {{1, 0, -s}, {-1, 0, -s}, {0, 1, s}, {0, -1, s}};
  /* faces (0,1,2) and (1,0,3) are outward oriented when (x1-x0)x(x2-x0) points away from 3 */
  double hx[12];
  for (int v = 0; v < 4; ++v) v3_copy(hx + 3 * v, tet[v]);
  double n[3], e[3], a[3], away[3];
  v3_sub(e, hx + 3, hx);
  v3_sub(a, hx + 6, hx);
  v3_cross(n, e, a);
  v3_sub(away, hx, hx + 9);
  ENSURE(v3_dot(n, away) > 0.0);
  ENSURE_NEAR(hinge_angle(hx), PI - acos(1.0 / 3.0), 1e-14);

  /* the constructed angles come back for a full sweep in random poses, including +-150, +-179 */
  rng r = {0x9e3779b97f4a7c15ULL};
  double worst = 0.0;
  for (int deg = -179; deg <= 180; ++deg) {
    double x[12], theta = deg * PI / 180.0;
    make_hinge(&r, theta, x);
    double err = fabs(wrap(hinge_angle(x) - theta));
    if (err > worst) worst = err;
    ENSURE_MSG(err < 1e-12, "deg %d: theta %.17g", deg, hinge_angle(x));

    /* relabeling (v0 v1 v2 v3) -> (v1 v0 v3 v2) swaps the triangles and flips the edge: same angle
     */
    double y[12];
    v3_copy(y, x + 3);
    v3_copy(y + 3, x);
    v3_copy(y + 6, x + 9);
    v3_copy(y + 9, x + 6);
    ENSURE_MSG(fabs(wrap(hinge_angle(y) - hinge_angle(x))) < 1e-12, "relabel, deg %d", deg);
  }
  TF_NOTE("angle sweep -179..180 deg in random poses: max |theta - constructed| = %.2e rad", worst);
}

TF_TEST(energy_hinge_wrap_at_pi) {
  /* a hinge folded through theta = pi is 0.1 rad past its rest angle, not 2 pi - 0.1 */
  rng r = {31};
  const double k = 1.5;
  for (int side = -1; side <= 1; side += 2) {
    for (int i = 0; i < 8; ++i) {
      double theta0 = side * (PI - 0.05), theta = -side * (PI - 0.05 - 0.01 * i), x[12];
      make_hinge(&r, theta, x);
      double d = wrap(theta - theta0);
      ENSURE(fabs(d) < 0.2);
      ENSURE_NEAR(hinge_energy(x, k, theta0, NULL, NULL), k * d * d, 1e-12);
      ENSURE_NEAR(hinge_energy_psd(x, k, theta0, NULL, NULL), k * d * d, 1e-12);
    }
  }
}

TF_TEST(energy_hinge_gradient_fd) {
  /* central differences of the energy; step 1e-5 on unit-sized hinges keeps truncation
   * (~h^2) and rounding (~eps / h) both near 1e-10 */
  const double h = 1e-5;
  rng r = {12345};
  double worst = 0.0;
  for (int c = 0; c < CASE_COUNT; ++c) {
    double x[12], k, th0, g[12], gp[12];
    make_case(&r, c, x, &k, &th0);
    double e = hinge_energy(x, k, th0, g, NULL);
    double epsd = hinge_energy_psd(x, k, th0, gp, NULL);
    ENSURE(e == epsd);
    ENSURE(memcmp(g, gp, sizeof g) == 0);
    double err = 0.0;
    for (int j = 0; j < 12; ++j) {
      double xp[12], xm[12];
      memcpy(xp, x, sizeof xp);
      memcpy(xm, x, sizeof xm);
      xp[j] += h;
      xm[j] -= h;
      double ep = hinge_energy(xp, k, th0, NULL, NULL), em = hinge_energy(xm, k, th0, NULL, NULL);
      double fd = (ep - em) / (2 * h);
      if (fabs(fd - g[j]) > err) err = fabs(fd - g[j]);
    }
    err /= maxabs(g, 12);
    if (err > worst) worst = err;
    ENSURE_MSG(err < 1e-6, "case %d (theta %.3f, theta0 %.3f): rel err %.3g", c, hinge_angle(x),
               th0, err);
  }
  TF_NOTE("gradient vs central FD, %d hinges up to +-170 deg: max rel err %.2e", CASE_COUNT, worst);
}

TF_TEST(energy_hinge_hessian_fd) {
  /* central differences of the analytic gradient, column by column */
  const double h = 1e-6;
  rng r = {777};
  double worst = 0.0, worst_asym = 0.0;
  for (int c = 0; c < CASE_COUNT; ++c) {
    double x[12], k, th0, H[144];
    make_case(&r, c, x, &k, &th0);
    hinge_energy(x, k, th0, NULL, H);
    double hmax = maxabs(H, 144), err = 0.0, asym = 0.0;
    for (int j = 0; j < 12; ++j) {
      double xp[12], xm[12], gp[12], gm[12];
      memcpy(xp, x, sizeof xp);
      memcpy(xm, x, sizeof xm);
      xp[j] += h;
      xm[j] -= h;
      hinge_energy(xp, k, th0, gp, NULL);
      hinge_energy(xm, k, th0, gm, NULL);
      for (int i = 0; i < 12; ++i) {
        double fd = (gp[i] - gm[i]) / (2 * h);
        if (fabs(fd - H[12 * i + j]) > err) err = fabs(fd - H[12 * i + j]);
        if (fabs(H[12 * i + j] - H[12 * j + i]) > asym) asym = fabs(H[12 * i + j] - H[12 * j + i]);
      }
    }
    err /= hmax;
    asym /= hmax;
    if (err > worst) worst = err;
    if (asym > worst_asym) worst_asym = asym;
    ENSURE_MSG(err < 1e-5, "case %d (theta %.3f, theta0 %.3f): rel err %.3g", c, hinge_angle(x),
               th0, err);
    ENSURE_MSG(asym < 1e-12, "case %d: asymmetry %.3g", c, asym);
  }
  TF_NOTE("exact Hessian vs central FD of gradient, %d hinges: max rel err %.2e, asymmetry %.1e",
          CASE_COUNT, worst, worst_asym);
}

TF_TEST(energy_hinge_psd_hessian) {
  rng r = {4242};
  double worst = 0.0, exact_min = 0.0;
  for (int c = 0; c < 4 * CASE_COUNT; ++c) {
    double x[12], k, th0, H[144], He[144];
    make_case(&r, c, x, &k, &th0);
    hinge_energy_psd(x, k, th0, NULL, H);
    hinge_energy(x, k, th0, NULL, He);
    double hmax = maxabs(H, 144);
    for (int i = 0; i < 12; ++i)
      for (int j = 0; j < i; ++j) ENSURE(H[12 * i + j] == H[12 * j + i]);
    double lmin = min_eigenvalue(H) / hmax, emin = min_eigenvalue(He) / maxabs(He, 144);
    if (lmin < worst) worst = lmin;
    if (emin < exact_min) exact_min = emin;
    ENSURE_MSG(lmin >= -1e-12, "case %d: min eigenvalue / max|H| = %.3g", c, lmin);

    /* at rest the curvature term 2 k (theta - theta0) d2theta vanishes: both Hessians agree */
    double th = hinge_angle(x);
    hinge_energy_psd(x, k, th, NULL, H);
    hinge_energy(x, k, th, NULL, He);
    for (int i = 0; i < 144; ++i) ENSURE_NEAR(H[i], He[i], 1e-13 * maxabs(He, 144));
  }
  /* the check above has teeth: the exact Hessian of these hinges is clearly indefinite */
  ENSURE(exact_min < -1e-2);
  TF_NOTE("PSD Hessian, %d hinges: min eigenvalue / max|H| = %.2e (exact Hessian: %.2f)",
          4 * CASE_COUNT, worst, exact_min);
}

TF_TEST(energy_hinge_rest_and_invariance) {
  rng r = {99};
  for (int c = 0; c < CASE_COUNT; ++c) {
    double x[12], k, th0, g[12], H[144];
    make_case(&r, c, x, &k, &th0);

    /* at rest, with k and theta0 taken from the same positions: no energy, no force */
    double kr = hinge_rest_stiffness(x, 2.0), g0[12];
    ENSURE(kr > 0.0);
    ENSURE(hinge_energy(x, kr, hinge_angle(x), g0, NULL) == 0.0);
    ENSURE(maxabs(g0, 12) == 0.0);

    /* rigid motion: same energy, per-vertex gradient rotated, Hessian blocks R H R^T */
    double e = hinge_energy(x, k, th0, g, H);
    double R[9], t[3], y[12], gy[12], Hy[144];
    random_rotation(&r, R);
    for (int i = 0; i < 3; ++i) t[i] = rng_uniform(&r, -10.0, 10.0);
    rigid_apply(y, x, R, t);
    double ey = hinge_energy(y, k, th0, gy, Hy);
    double gmax = maxabs(g, 12), hmax = maxabs(H, 144);
    ENSURE_NEAR(ey, e, 1e-12 * e);
    for (int v = 0; v < 4; ++v) {
      double rg[3];
      m3_mulv(rg, R, g + 3 * v);
      for (int i = 0; i < 3; ++i) ENSURE_NEAR(gy[3 * v + i], rg[i], 1e-10 * gmax);
    }
    for (int p = 0; p < 4; ++p)
      for (int q = 0; q < 4; ++q)
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) {
            double s = 0.0;
            for (int a = 0; a < 3; ++a)
              for (int b = 0; b < 3; ++b)
                s += R[3 * i + a] * H[(3 * p + a) * 12 + 3 * q + b] * R[3 * j + b];
            ENSURE_NEAR(Hy[(3 * p + i) * 12 + 3 * q + j], s, 1e-10 * hmax);
          }

    /* no net force or torque, at the translated positions too */
    double f[3] = {0, 0, 0}, tq[3] = {0, 0, 0}, xg[3];
    for (int v = 0; v < 4; ++v) {
      v3_add(f, f, gy + 3 * v);
      v3_cross(xg, y + 3 * v, gy + 3 * v);
      v3_add(tq, tq, xg);
    }
    double ymax = maxabs(y, 12);
    ENSURE_MSG(v3_maxabs(f) <= 1e-13 * gmax, "case %d: net force %.3g", c, v3_maxabs(f));
    ENSURE_MSG(v3_maxabs(tq) <= 1e-13 * gmax * ymax, "case %d: net torque %.3g", c, v3_maxabs(tq));
  }
}

/* ---- cylinder bending of flat meshes ---- */

enum {
  GRID_MAX = 64,
  MESH_MAX_VERTS = (GRID_MAX + 1) * (GRID_MAX + 1),
  MESH_MAX_TRIS = 2 * GRID_MAX * GRID_MAX
};

typedef struct mesh {
  int vert_count, tri_count;
  double uv[MESH_MAX_VERTS][2]; /* flat rest positions in the plane z = 0 */
  int tri[MESH_MAX_TRIS][3];    /* counter-clockwise in uv: normals +z */
  double area;                  /* flat area */
} mesh;

/* n x n cells on [0, L]^2; diagonals all (i,j)-(i+1,j+1), or alternating cell by cell */
static void mesh_square_grid(mesh *m, int n, double L, int alternate) {
  double hc = L / n;
  m->vert_count = (n + 1) * (n + 1);
  m->tri_count = 0;
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i) {
      m->uv[j * (n + 1) + i][0] = i * hc;
      m->uv[j * (n + 1) + i][1] = j * hc;
    }
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      int a = j * (n + 1) + i, b = a + 1, c = a + n + 2, d = a + n + 1;
      int t[2][3] = {{a, b, c}, {a, c, d}};
      if (alternate && (i + j) % 2) {
        int u[2][3] = {{a, b, d}, {b, c, d}};
        memcpy(t, u, sizeof t);
      }
      memcpy(m->tri[m->tri_count++], t[0], sizeof t[0]);
      memcpy(m->tri[m->tri_count++], t[1], sizeof t[1]);
    }
  m->area = L * L;
}

/* n rows of 2 n equilateral triangles with side s; odd vertex rows are shifted by s/2, so the
 * patch is a zigzag-edged rectangle */
static void mesh_equilateral(mesh *m, int n, double s) {
  double dy = s * sqrt(3.0) / 2.0;
  int w = n + 1;
  m->vert_count = (n + 1) * w;
  m->tri_count = 0;
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i < w; ++i) {
      m->uv[j * w + i][0] = (i + 0.5 * (j % 2)) * s;
      m->uv[j * w + i][1] = j * dy;
    }
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      int a = j * w + i, b = a + 1, c = a + w, d = c + 1; /* a b bottom row, c d top row */
      if (j % 2 == 0) {
        int t[2][3] = {{a, b, c}, {b, d, c}};
        memcpy(m->tri[m->tri_count++], t[0], sizeof t[0]);
        memcpy(m->tri[m->tri_count++], t[1], sizeof t[1]);
      } else {
        int t[2][3] = {{a, d, c}, {a, b, d}};
        memcpy(m->tri[m->tri_count++], t[0], sizeof t[0]);
        memcpy(m->tri[m->tri_count++], t[1], sizeof t[1]);
      }
    }
  m->area = 0.5 * s * dy * m->tri_count;
}

typedef struct half_edge {
  int lo, hi, from, to, opp;
} half_edge;

static int half_edge_cmp(const void *pa, const void *pb) {
  const half_edge *a = pa, *b = pb;
  if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
  if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
  return 0;
}

typedef struct bend_result {
  double energy;       /* summed hinge energy, J */
  double analytic;     /* 1/2 B c^2 * flat area, J */
  int hinge_count;     /* interior edges */
  int bent_count;      /* hinges with |theta| > 1e-9 */
  double max_theta;    /* largest |theta| */
  double max_positive; /* largest theta (all negative when only bent towards the normals) */
} bend_result;

/* bend the flat mesh isometrically onto the cylinder of radius R whose curvature direction is
 * (cos phi, sin phi) in uv: p -> (u', v') rotated, then (R sin(u'/R), v', R (1 - cos(u'/R))) */
static bend_result mesh_bend_energy(const mesh *m, double R, double phi, double B) {
  static half_edge he[3 * MESH_MAX_TRIS];
  static double pos[MESH_MAX_VERTS][3];
  bend_result res = {0.0, 0.5 * B * m->area / (R * R), 0, 0, 0.0, -1.0};
  double cp = cos(phi), sp = sin(phi);
  for (int v = 0; v < m->vert_count; ++v) {
    double u = cp * m->uv[v][0] + sp * m->uv[v][1], w = -sp * m->uv[v][0] + cp * m->uv[v][1];
    v3_set(pos[v], R * sin(u / R), w, R * (1.0 - cos(u / R)));
  }
  int n = 0;
  for (int t = 0; t < m->tri_count; ++t)
    for (int c = 0; c < 3; ++c) {
      int p = m->tri[t][c], q = m->tri[t][(c + 1) % 3];
      half_edge h = {p < q ? p : q, p < q ? q : p, p, q, m->tri[t][(c + 2) % 3]};
      he[n++] = h;
    }
  qsort(he, (size_t)n, sizeof he[0], half_edge_cmp);
  for (int i = 0; i + 1 < n; ++i) {
    if (he[i].lo != he[i + 1].lo || he[i].hi != he[i + 1].hi) continue;
    /* triangle A = (from, to, opp) of the first half edge, B = (to, from, opp) of its twin */
    int vid[4] = {he[i].from, he[i].to, he[i].opp, he[i + 1].opp};
    double rest[12], x[12];
    for (int v = 0; v < 4; ++v) {
      v3_set(rest + 3 * v, m->uv[vid[v]][0], m->uv[vid[v]][1], 0.0);
      v3_copy(x + 3 * v, pos[vid[v]]);
    }
    double k = hinge_rest_stiffness(rest, B), th = hinge_angle(x);
    res.energy += hinge_energy(x, k, hinge_angle(rest), NULL, NULL);
    res.hinge_count++;
    if (fabs(th) > 1e-9) res.bent_count++;
    if (fabs(th) > res.max_theta) res.max_theta = fabs(th);
    if (th > res.max_positive) res.max_positive = th;
    ++i;
  }
  return res;
}

TF_TEST(energy_hinge_cylinder_resolution) {
  static mesh m;
  const double L = 1.0, R = 0.75, B = 1e-4; /* 1 m square, 76 degrees of wrap, B in N m */
  const int sizes[3] = {8, 16, 32};
  double ratio[3];
  for (int s = 0; s < 3; ++s) {
    int n = sizes[s];
    double hc = L / n;
    mesh_square_grid(&m, n, L, 0);
    bend_result br = mesh_bend_energy(&m, R, 0.0, B);
    ratio[s] = br.energy / br.analytic;
    /* each cell column is planar (its corners sit on two generators), so only the n (n - 1)
     * hinges along the axis bend, by exactly hc / R, with k = (B/2) hc^2 / hc^2 */
    double lattice = 0.5 * B * (hc / R) * (hc / R) * n * (n - 1);
    TF_NOTE(
        "grid %2d: E = %.6e J, 1/2 B c^2 L^2 = %.6e J, ratio %.4f; without the boundary "
        "half columns (x n/(n-1)) %.4f; %d of %d hinges bent, max theta %.1e, max |theta| %.4f",
        n, br.energy, br.analytic, ratio[s], ratio[s] * n / (n - 1), br.bent_count, br.hinge_count,
        br.max_positive, br.max_theta);
    ENSURE_NEAR(br.energy, lattice, 1e-10 * lattice);
    ENSURE(br.bent_count == n * (n - 1));
    ENSURE_NEAR(br.max_theta, hc / R, 1e-12);
    ENSURE(br.max_positive < 1e-12); /* the cylinder curves towards the +z normals */
  }
  /* resolution independence: the boundary-corrected energies agree */
  for (int s = 1; s < 3; ++s) {
    double a = ratio[s] * sizes[s] / (sizes[s] - 1), b = ratio[0] * sizes[0] / (sizes[0] - 1);
    ENSURE_MSG(fabs(a / b - 1.0) < 0.05, "grid %d vs %d: %.4f vs %.4f", sizes[s], sizes[0], a, b);
  }
  /* calibrated weight (B/2) |e|^2 / (A_A + A_B): the continuum energy 1/2 B c^2 L^2 in the limit */
  double limit = 2.0 * ratio[2] - ratio[1]; /* Richardson, ratio = r_inf - c / n */
  TF_NOTE("extrapolated E / (1/2 B c^2 L^2) for n -> inf: %.4f (continuum: 1)", limit);
  ENSURE_NEAR(limit, 1.0, 0.02);

  /* other meshes and directions, reported: alternating diagonals, bending across and along the
   * diagonals, equilateral triangles */
  {
    double r16, r32;
    mesh_square_grid(&m, 16, L, 1);
    r16 = mesh_bend_energy(&m, R, 0.0, B).energy / (0.5 * B * L * L / (R * R));
    mesh_square_grid(&m, 32, L, 1);
    r32 = mesh_bend_energy(&m, R, 0.0, B).energy / (0.5 * B * L * L / (R * R));
    TF_NOTE("alternating diagonals, axis-aligned: ratio %.4f (16), %.4f (32), extrapolated %.4f",
            r16, r32, 2.0 * r32 - r16);
    ENSURE_NEAR(2.0 * r32 - r16, 1.0, 0.02);
    const double phis[2] = {-PI / 4.0, PI / 4.0};
    const char *what[2] = {"curving across the diagonals", "curving along the diagonals"};
    for (int p = 0; p < 2; ++p) {
      mesh_square_grid(&m, 32, L, 0);
      r32 = mesh_bend_energy(&m, R, phis[p], B).energy / (0.5 * B * L * L / (R * R));
      mesh_square_grid(&m, 64, L, 0);
      double r64 = mesh_bend_energy(&m, R, phis[p], B).energy / (0.5 * B * L * L / (R * R));
      TF_NOTE("grid, %s (phi %+.0f deg): ratio %.4f (32), %.4f (64), extrapolated %.4f", what[p],
              phis[p] * 180.0 / PI, r32, r64, 2.0 * r64 - r32);
    }
    for (int p = 0; p < 3; ++p) {
      double phi = p * PI / 6.0;
      mesh_equilateral(&m, 32, L / 32);
      bend_result a = mesh_bend_energy(&m, R, phi, B);
      mesh_equilateral(&m, 64, L / 64);
      bend_result b = mesh_bend_energy(&m, R, phi, B);
      double ra = a.energy / a.analytic, rb = b.energy / b.analytic;
      TF_NOTE("equilateral, phi %2.0f deg: ratio %.4f (32), %.4f (64), extrapolated %.4f",
              phi * 180.0 / PI, ra, rb, 2.0 * rb - ra);
      ENSURE_NEAR(2.0 * rb - ra, 1.0, 0.02); /* isotropic on equilateral meshes */
    }
  }
}

TF_TEST(energy_hinge_degenerate) {
  const double nan = NAN, inf = INFINITY;
  double cases[][12] = {
      {0, 0, 0, 0, 0, 0, 0.5, 1, 0, 0.5, -1, 0},     /* zero-length edge */
      {0, 0, 0, 1, 0, 0, 0.5, 0, 0, 0.5, -1, 0},     /* v2 on the edge: zero-area triangle A */
      {0, 0, 0, 1, 0, 0, 0.5, 1, 0, 2.0, 0, 0},      /* v3 on the edge line */
      {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},          /* everything at one point */
      {0, 0, 0, 1, 0, 0, 0.5, 1e-14, 0, 0.5, -1, 0}, /* height 1e-14 of the edge */
      {0, 0, 0, 1, 0, 0, nan, 1, 0, 0.5, -1, 0},     /* NaN input */
      {0, 0, 0, 1, 0, 0, 0.5, inf, 0, 0.5, -1, 0},   /* infinite input */
      {0, 0, 0, 1e-200, 0, 0, 0, 1e-200, 0, 0, -1e-200, 0}, /* underflowing scale */
  };
  int count = (int)(sizeof cases / sizeof cases[0]);
  for (int c = 0; c < count; ++c) {
    double g[12], H[144];
    ENSURE_MSG(hinge_angle(cases[c]) == 0.0, "case %d", c);
    ENSURE_MSG(hinge_rest_stiffness(cases[c], 1.0) == 0.0, "case %d", c);
    for (int psd = 0; psd < 2; ++psd) {
      double e =
          psd ? hinge_energy_psd(cases[c], 1.0, 0.5, g, H) : hinge_energy(cases[c], 1.0, 0.5, g, H);
      ENSURE_MSG(e == 0.0, "case %d psd %d: energy %g", c, psd, e);
      ENSURE_MSG(maxabs(g, 12) == 0.0, "case %d psd %d", c, psd);
      ENSURE_MSG(maxabs(H, 144) == 0.0, "case %d psd %d", c, psd);
    }
  }
  /* nearly degenerate but valid (height 1e-9 of the edge): large, finite, consistent */
  double thin[12] = {0, 0, 0, 1, 0, 0, 0.5, 1e-9, 0, 0.5, -1, 0.3};
  double g[12], H[144];
  double e = hinge_energy(thin, 1.0, 0.0, g, H);
  ENSURE(isfinite(e) && e > 0.0);
  for (int i = 0; i < 144; ++i) ENSURE(isfinite(H[i]));
  for (int i = 0; i < 12; ++i) ENSURE(isfinite(g[i]));
  ENSURE(maxabs(g, 12) > 1e6); /* dtheta/dx2 ~ 1 / height */
}
