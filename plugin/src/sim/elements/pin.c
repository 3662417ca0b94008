/* SPDX-License-Identifier: MIT
 * The soft-pin set: goal springs 1/2 k_i |y_i - p_i|^2 with k_i = m_i x pin_stiffness x w/(1 - w),
 * so a weight w sets the spring's frequency independently of the vertex mass (hard pins, w = 1,
 * are constraints, not springs: their vertices are fixed). */
#include "core/vec3.h"
#include "sim/sim.h"

static void pin_eval(const tf_sim *s, const void *data, const elem_args *a, const double *y,
                     double *E, double *grad, bsr *H) {
  (void)data;
  if (!a->pins) return;
  const sim_pins *p = &s->pins;
  for (uint32_t q = 0; q < p->count; ++q) {
    double w = p->w[q];
    if (w >= 1.0) continue;
    uint32_t i = p->idx[q];
    double k = s->model.mass[i] * s->par.pin_stiffness * w / (1.0 - w);
    double d[3];
    v3_sub(d, y + 3 * (size_t)i, a->pins + 3 * (size_t)q);
    *E += 0.5 * k * v3_norm2(d);
    if (grad) v3_axpy(grad + 3 * (size_t)i, k, d);
    if (H) {
      double *blk = H->val + 9 * (size_t)H->diag[i];
      blk[0] += k;
      blk[4] += k;
      blk[8] += k;
    }
  }
}

const elem_ops ELEM_PIN = {"pin", 0, pin_eval, NULL, NULL, 0, NULL, NULL};
