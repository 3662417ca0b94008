/* SPDX-License-Identifier: MIT
 * Cape mesh and shoulder animation (see cape.h). The path is smooth: the forward walk follows a
 * quintic smootherstep (zero velocity and acceleration at both ends) and the sway and yaw are
 * faded in and out by sin^2, so pinned vertices never jerk and the motion ends exactly at rest.
 */
#include "cape.h"

#include <math.h>

static const double CAPE_WIDTH = 0.8;      /* m, along x */
static const double CAPE_LENGTH = 1.0;     /* m, along -z */
static const double CAPE_TOP_Z = 1.5;      /* m, shoulder height */
static const double WALK_SECONDS = 2.0;    /* s, duration of the move; still afterwards */
static const double WALK_DISTANCE = 1.2;   /* m along +y: peak speed 1.125 m/s, a brisk walk */
static const double SWAY_HZ = 1.0;         /* side-to-side at half the ~2 Hz step rate */
static const double SWAY_AMPLITUDE = 0.05; /* m along x */
static const double YAW_AMPLITUDE = 0.14;  /* rad (8 degrees) of shoulder turn about z */
static const double PI = 3.14159265358979323846;

void cape_rest_positions(double *out) {
  for (int j = 0; j < CAPE_ROWS; ++j) {
    for (int i = 0; i < CAPE_COLS; ++i) {
      double *p = out + 3 * (j * CAPE_COLS + i);
      p[0] = -0.5 * CAPE_WIDTH + CAPE_WIDTH * i / CAPE_QUADS_X;
      p[1] = 0.0;
      p[2] = CAPE_TOP_Z - CAPE_LENGTH * j / CAPE_QUADS_Z;
    }
  }
}

void cape_triangles(uint32_t *out) {
  for (int j = 0; j < CAPE_QUADS_Z; ++j) {
    for (int i = 0; i < CAPE_QUADS_X; ++i) {
      const uint32_t a = (uint32_t)(j * CAPE_COLS + i), b = a + 1, c = a + CAPE_COLS + 1,
                     d = a + CAPE_COLS;
      uint32_t *t = out + 6 * (j * CAPE_QUADS_X + i);
      t[0] = a;
      t[1] = b;
      t[2] = c;
      t[3] = a;
      t[4] = c;
      t[5] = d;
    }
  }
}

void cape_edges(uint32_t *out) {
  uint32_t *e = out;
  for (int j = 0; j < CAPE_ROWS; ++j) {
    for (int i = 0; i < CAPE_COLS; ++i) {
      const uint32_t a = (uint32_t)(j * CAPE_COLS + i);
      if (i < CAPE_QUADS_X) {
        e[0] = a;
        e[1] = a + 1;
        e += 2;
      }
      if (j < CAPE_QUADS_Z) {
        e[0] = a;
        e[1] = a + CAPE_COLS;
        e += 2;
      }
      if (i < CAPE_QUADS_X && j < CAPE_QUADS_Z) {
        e[0] = a;
        e[1] = a + CAPE_COLS + 1;
        e += 2;
      }
    }
  }
}

void cape_pin_targets(double t, double *out) {
  double u = t / WALK_SECONDS;
  if (u < 0.0) u = 0.0;
  if (u > 1.0) u = 1.0;
  /* quintic smootherstep 6u^5 - 15u^4 + 10u^3 */
  const double forward = WALK_DISTANCE * u * u * u * (u * (6.0 * u - 15.0) + 10.0);
  const double fade = sin(PI * u) * sin(PI * u);
  const double swing = sin(2.0 * PI * SWAY_HZ * (u * WALK_SECONDS));
  const double sway = SWAY_AMPLITUDE * fade * swing;
  const double yaw = YAW_AMPLITUDE * fade * swing;

  /* rotate the shoulder line about its centre, then carry it along the walk */
  for (int i = 0; i < CAPE_PIN_COUNT; ++i) {
    const double x = -0.5 * CAPE_WIDTH + CAPE_WIDTH * i / CAPE_QUADS_X;
    out[3 * i + 0] = cos(yaw) * x + sway;
    out[3 * i + 1] = sin(yaw) * x + forward;
    out[3 * i + 2] = CAPE_TOP_Z;
  }
}

double cape_max_edge_strain(const uint32_t *edges, const double *rest, const float *pos) {
  double worst = 0.0;
  for (int e = 0; e < CAPE_EDGE_COUNT; ++e) {
    const uint32_t a = edges[2 * e], b = edges[2 * e + 1];
    double r2 = 0.0, l2 = 0.0;
    for (int k = 0; k < 3; ++k) {
      const double dr = rest[3 * a + k] - rest[3 * b + k];
      const double dl = (double)pos[3 * a + k] - (double)pos[3 * b + k];
      r2 += dr * dr;
      l2 += dl * dl;
    }
    const double strain = fabs(sqrt(l2 / r2) - 1.0);
    if (!isfinite(strain)) return NAN;
    if (strain > worst) worst = strain;
  }
  return worst;
}
