/* SPDX-License-Identifier: MIT
 * One table for the parameters settable between frames: name, where it lives in sim_params, how
 * many values, its unit and its admissible range, so setting, reading and checking them (and
 * naming them in messages) is one piece of code. */
#ifndef TF_API_PARAMS_H
#define TF_API_PARAMS_H

#include "sim/sim.h"

typedef struct param_desc {
  const char *name;
  size_t offset; /* into sim_params */
  uint32_t count;
  double lo, hi; /* range; a bound that is infinite is absent */
  int lo_open;   /* lo excluded */
  int hi_open;
  int integer;
  const char *unit;
  const char *short_name; /* the Lua and rig name */
  uint32_t kinds;         /* TF_PARAM_FOR_* */
  int keyable;
  double def[3]; /* the def's default */
  const char *doc;
} param_desc;

/* NULL for an unknown id */
TF_LOCAL const param_desc *param_find(tf_param p);
/* 0 and a message naming the parameter when values do not fit */
TF_LOCAL int param_check(tf_param p, const double *values, uint32_t count, char *err,
                         size_t err_size);
TF_LOCAL double *param_ptr(sim_params *sp, const param_desc *d);

#endif
