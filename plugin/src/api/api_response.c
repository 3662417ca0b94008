/* SPDX-License-Identifier: MIT
 * External forces and the response's percentages per level (1.14; levels/levels.h). Every input
 * is checked before anything changes, and storage is taken before the commit, so a refused or
 * failed call leaves the simulation as it was. */
#include <math.h>
#include <string.h>

#include "api/api_common.h"
#include "core/vec3.h"

/* what "sum to 100" (and each in [0, 100]) allows: the rounding of a few typed decimals or of a
 * keyframe curve, not a missing percent */
static const double PERCENT_SUM_TOLERANCE = 1e-6;

uint32_t tf_sim_response_levels(const tf_sim *sim, double *out_sizes, uint32_t capacity) {
  if (!sim) return 0;
  double size[LEVELS_MAX];
  uint32_t count = sim->levels ? sim->levels->count : levels_count(sim, size);
  if (sim->levels) memcpy(size, sim->levels->size, sizeof size);
  for (uint32_t k = 0; out_sizes && k < count && k < capacity; ++k) out_sizes[k] = size[k];
  return count;
}

tf_status tf_sim_set_response(tf_sim *sim, const double *percent, uint32_t count,
                              const uint32_t *vertices, uint32_t vertex_count) {
  if (!sim) return TF_E_INVALID_ARG;
  const uint32_t L = tf_sim_response_levels(sim, NULL, 0), b = sim->index_base;
  FAIL_IF(sim, !percent, TF_E_INVALID_ARG, "tf_sim_set_response: percent is NULL");
  FAIL_IF(sim, count < 1 || count > L, TF_E_INVALID_ARG,
          "tf_sim_set_response: %u percentages, but this simulation's response has %u levels "
          "(%u the vertices .. %u the rigid body)",
          count, L, b, L - 1 + b);
  double sum = 0.0;
  for (uint32_t k = 0; k < count; ++k) {
    FAIL_IF(sim,
            !(percent[k] >= -PERCENT_SUM_TOLERANCE && percent[k] <= 100.0 + PERCENT_SUM_TOLERANCE),
            TF_E_INVALID_ARG, "tf_sim_set_response: level %u's percentage %g is not in [0, 100]",
            k + b, percent[k]);
    sum += percent[k];
  }
  FAIL_IF(sim, !(fabs(sum - 100.0) <= PERCENT_SUM_TOLERANCE), TF_E_INVALID_ARG,
          "tf_sim_set_response: the percentages sum to %.9g %%, not 100 %%", sum);
  FAIL_IF(sim, vertex_count > 0 && !vertices, TF_E_INVALID_ARG,
          "tf_sim_set_response: vertices is NULL");
  for (uint32_t q = 0; vertices && q < vertex_count; ++q)
    FAIL_IF(sim, vertices[q] >= sim->model.host_n, TF_E_INVALID_ARG,
            "tf_sim_set_response: vertices[%u] = %u out of range %u..%u", q + b, vertices[q] + b, b,
            sim->model.host_n - 1 + b);
  /* storage first: the levels, and their patches once a share leaves level 0 */
  int global = 0;
  for (uint32_t k = 1; k < count; ++k) global |= percent[k] != 0.0;
  if (levels_enable(sim) != TF_OK || (global && levels_build(sim) != TF_OK))
    return sim_fail(sim, TF_E_NOMEM, "tf_sim_set_response: out of memory for the levels");
  sim_levels *lv = sim->levels;
  /* fractions summing to 1 to round-off: within the tolerance a keyed curve's 100.00000000000001
   * is 100, and the rest is scaled so no share of a force is lost or made */
  double row[LEVELS_MAX] = {0}, total = 0.0;
  for (uint32_t k = 0; k < count; ++k) total += row[k] = fmin(100.0, fmax(0.0, percent[k]));
  for (uint32_t k = 0; k < count; ++k) row[k] = row[k] == total ? 1.0 : row[k] / total;
  /* every vertex (the quadratic flesh's edge nodes too), or the group's */
  const uint32_t rows = vertices ? vertex_count : lv->n;
  for (uint32_t q = 0; q < rows; ++q) {
    const uint32_t i = vertices ? sim_vertex(sim, vertices[q]) : q;
    memcpy(lv->share + (size_t)i * L, row, sizeof(double) * L);
  }
  levels_refresh(lv);
  return TF_OK;
}

tf_status tf_sim_get_response(const tf_sim *sim, uint32_t vertex, double *out, uint32_t count) {
  if (!sim) return TF_E_INVALID_ARG;
  tf_sim *s = (tf_sim *)sim;
  const uint32_t L = tf_sim_response_levels(sim, NULL, 0), b = sim->index_base;
  FAIL_IF(s, !out || count < 1, TF_E_INVALID_ARG,
          "tf_sim_get_response: out_percent is NULL or count is 0");
  FAIL_IF(s, vertex >= sim->model.host_n, TF_E_INVALID_ARG,
          "tf_sim_get_response: vertex %u out of range %u..%u", vertex + b, b,
          sim->model.host_n - 1 + b);
  for (uint32_t k = 0; k < count && k < L; ++k)
    out[k] = sim->levels ? 100.0 * sim->levels->share[(size_t)sim_vertex(sim, vertex) * L + k]
             : k         ? 0.0
                         : 100.0;
  return TF_OK;
}

tf_status tf_sim_set_forces(tf_sim *sim, const double *forces, uint32_t vert_count) {
  if (!sim) return TF_E_INVALID_ARG;
  const uint32_t b = sim->index_base;
  if (!forces && vert_count == 0) { /* remove them */
    if (sim->levels) {
      memset(sim->levels->force, 0, sizeof(double) * 3 * sim->levels->n);
      levels_refresh(sim->levels);
    }
    return TF_OK;
  }
  FAIL_IF(sim, !forces, TF_E_INVALID_ARG, "tf_sim_set_forces: forces is NULL");
  FAIL_IF(sim, vert_count != sim->model.host_n, TF_E_INVALID_ARG,
          "tf_sim_set_forces: vert_count is %u but the simulation has %u vertices", vert_count,
          sim->model.host_n);
  for (uint32_t i = 0; i < vert_count; ++i)
    for (int k = 0; k < 3; ++k)
      FAIL_IF(sim, !(fabs(forces[3 * (size_t)i + k]) <= LEVELS_MAX_FORCE), TF_E_INVALID_ARG,
              "tf_sim_set_forces: vertex %u's force %g N is not finite or beyond 1e9 N", i + b,
              forces[3 * (size_t)i + k]);
  if (levels_enable(sim) != TF_OK)
    return sim_fail(sim, TF_E_NOMEM, "tf_sim_set_forces: out of memory");
  sim_levels *lv = sim->levels;
  sim_rows_from_host(sim, forces, lv->force, 3); /* edge nodes keep 0 */
  levels_refresh(lv);
  return TF_OK;
}
