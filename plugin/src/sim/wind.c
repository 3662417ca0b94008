/* SPDX-License-Identifier: MIT
 * The wind field: the base velocity scaled by a gust envelope, plus turbulence, as a smooth and
 * deterministic function of position and time (same seed, same wind: a re-run is identical):
 *   w(x, t) = (1 + gust g(t)) w0 + turbulence (N1, N2, N3)(x / scale, t / time)
 * N are value noises on the integer lattice of R^4 (space and time) with quintic fades (C2), in
 * [-1, 1]; g(t) in [0, 1] is a 1D noise over t / gust_period. */
#include <math.h>
#include <stdint.h>

#include "core/vec3.h"
#include "sim/sim.h"

/* 64-bit mix (splitmix64's finalizer): lattice point and seed to a uniform value */
static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static double lattice(int64_t i, int64_t j, int64_t k, int64_t l, uint64_t seed) {
  uint64_t h = mix64(seed ^ (uint64_t)i * 0x9e3779b97f4a7c15ull);
  h = mix64(h ^ (uint64_t)j * 0xc2b2ae3d27d4eb4full);
  h = mix64(h ^ (uint64_t)k * 0x165667b19e3779f9ull);
  h = mix64(h ^ (uint64_t)l * 0x27d4eb2f165667c5ull);
  return (double)(h >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static double fade(double t) { return t * t * t * (t * (t * 6.0 - 15.0) + 10.0); }

/* value noise in R^4, in [-1, 1] */
static double noise4(const double p[4], uint64_t seed) {
  int64_t c[4];
  double f[4];
  for (int a = 0; a < 4; ++a) {
    /* x / turbulence_scale can be huge (a tiny scale) or inf: beyond 2^52 every double is an
     * integer, so wrap there (a lattice point still, now one that fits int64); inf and NaN give 0
     */
    double pa = p[a];
    if (!(fabs(pa) < 0x1p52)) pa = isfinite(pa) ? fmod(pa, 0x1p52) : 0.0;
    double fl = floor(pa);
    c[a] = (int64_t)fl;
    f[a] = fade(pa - fl);
  }
  double acc = 0.0;
  for (int corner = 0; corner < 16; ++corner) {
    double w = 1.0;
    int64_t q[4];
    for (int a = 0; a < 4; ++a) {
      int bit = (corner >> a) & 1;
      q[a] = c[a] + bit;
      w *= bit ? f[a] : 1.0 - f[a];
    }
    acc += w * lattice(q[0], q[1], q[2], q[3], seed);
  }
  return acc;
}

int wind_active(const sim_params *p) {
  return p->air_density > 0.0 && (p->drag > 0.0 || p->lift > 0.0);
}

void wind_at(const sim_params *p, const double x[3], double t, double out[3]) {
  uint64_t seed = (uint64_t)p->turbulence_seed;
  double g = 1.0;
  if (p->gust > 0.0) {
    double q[4] = {t / p->gust_period, 0.5, 0.5, 0.5};
    g += p->gust * (0.5 + 0.5 * noise4(q, seed ^ 0x5bd1e995ull));
  }
  v3_scale(out, p->wind, g);
  if (p->turbulence > 0.0) {
    double q[4] = {x[0] / p->turbulence_scale, x[1] / p->turbulence_scale,
                   x[2] / p->turbulence_scale, t / p->turbulence_time};
    for (int k = 0; k < 3; ++k) out[k] += p->turbulence * noise4(q, seed * 3 + (uint64_t)k + 1);
  }
}
