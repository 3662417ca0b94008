/* SPDX-License-Identifier: MIT
 * Helpers shared by the tf_* entry points: argument checks that record a message naming the
 * function and the argument, then return a status. */
#ifndef TF_API_COMMON_H
#define TF_API_COMMON_H

#include "sim/sim.h"

#define CHECK_SIM(s, fn)               \
  do {                                 \
    if (!(s)) return TF_E_INVALID_ARG; \
  } while (0)

#define FAIL_IF(s, cond, st, ...)                      \
  do {                                                 \
    if (cond) return sim_fail((s), (st), __VA_ARGS__); \
  } while (0)

/* finite-and-in-range helpers */
static inline int api_finite(double x) { return x - x == 0.0; }

TF_LOCAL int api_all_finite(const double *a, size_t count);
/* solver settings of a def: 0 and a message naming the field when bad */
TF_LOCAL int api_check_solver(const tf_solver_settings *s, char *err, size_t err_size);
/* the def's thread count: 0 (every core) or 1 .. POOL_MAX_THREADS */
TF_LOCAL int api_check_threads(uint32_t threads, char *err, size_t err_size);
/* copy the first min(struct_size, full_size) bytes of `defaults` (a complete def whose first field
 * is struct_size) into def and record that size: an older host's smaller def gets only the
 * fields it knows */
TF_LOCAL void api_def_init(void *def, const void *defaults, size_t full_size, uint32_t struct_size);
/* a create call's def from the host: not NULL, initialized (struct_size > 0), and its first
 * min(struct_size, full_size) bytes, the fields the host's header knows, copied over the defaults
 * already in d. The bytes copied; 0 with a message naming fn (and init, the def's initializer,
 * for one left uninitialized) in err and the status in *st */
TF_LOCAL size_t api_def_take(const char *fn, const char *init, const void *def, void *d,
                             size_t full_size, char *err, size_t err_size, tf_status *st);

#endif
