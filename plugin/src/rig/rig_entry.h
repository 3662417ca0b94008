/* SPDX-License-Identifier: MIT
 * The contract between libtauform.so (tf_rig_* entry points) and libtauform_rig.so (the rig
 * runner and its Lua core), which the former loads on first use. Versioned: a runner
 * from another build is refused rather than misused. */
#ifndef TF_RIG_ENTRY_H
#define TF_RIG_ENTRY_H

#include "tauform.h"

#define TF_RIG_ENTRY_VERSION 1u
#define TF_RIG_ENTRY_SYMBOL "tauform_rig_entry"

typedef struct tf_rig_impl tf_rig_impl;

typedef struct tf_rig_vtable {
  uint32_t version;    /* TF_RIG_ENTRY_VERSION */
  uint32_t tf_version; /* TF_VERSION the runner was built with */
  tf_status (*load)(const tf_rig_def *def, tf_rig_impl **out, char *err, size_t err_size);
  void (*destroy)(tf_rig_impl *rig);
  tf_sim *(*sim)(tf_rig_impl *rig);
  tf_status (*apply)(tf_rig_impl *rig, double frame);
  void (*timing)(const tf_rig_impl *rig, double *first, double *last, double *fps,
                 uint32_t *substeps);
  const char *(*last_error)(const tf_rig_impl *rig);
} tf_rig_vtable;

typedef const tf_rig_vtable *(*tf_rig_entry_fn)(void);

#endif
