/* SPDX-License-Identifier: MIT
 * Shared internal definitions: TF_LOCAL visibility for cross-file internals, the public header,
 * and small helpers every layer may use. */
#ifndef TF_CORE_COMMON_H
#define TF_CORE_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "tauform.h"

#define TF_LOCAL __attribute__((visibility("hidden")))

#define TF_PI 3.14159265358979323846

static inline int tf_isfinite3(const double *p) {
  /* x - x is 0 for finite x and NaN for inf/NaN */
  double s = (p[0] - p[0]) + (p[1] - p[1]) + (p[2] - p[2]);
  return s == 0.0;
}

/* min and max of the hot loops: fmin/fmax are library calls at -O2 (2-3 % of a contact step's
 * samples; geom/broad.c's box said 3 % of a query). A NaN in x is ignored, as fmin ignores one:
 * pass the value that may be NaN first, the running bound (never NaN) second */
static inline double tf_min(double x, double bound) { return x < bound ? x : bound; }
static inline double tf_max(double x, double bound) { return x > bound ? x : bound; }

#endif
