/* SPDX-License-Identifier: MIT
 * tf_rig_*: rig scripts for hosts that know no Lua. The runner and its Lua core (the system's
 * liblua5.4.so) live in libtauform_rig.so next to this library, loaded with dlopen only when a rig
 * is loaded: a process that never runs a rig (and the stock lua5.4 interpreter loading the Lua
 * module) never gets a second Lua core. Each rig holds its own handle to the runner; nothing is
 * global. */
/* dladdr is a GNU extension (also in the BSDs and macOS) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_common.h"
#include "rig/rig_entry.h"

#define RIG_ERR_SIZE 1024
#define RIG_STR2(x) #x
#define RIG_STR(x) RIG_STR2(x)

struct tf_rig {
  void *handle;
  const tf_rig_vtable *vt;
  tf_rig_impl *impl;
  char err[RIG_ERR_SIZE];
};

void tf_rig_def_init_(tf_rig_def *def, uint32_t struct_size) {
  if (!def) return;
  tf_rig_def d;
  memset(&d, 0, sizeof d);
  d.struct_size = (uint32_t)sizeof d;
  api_def_init(def, &d, sizeof d, struct_size);
}

/* dlopen libtauform_rig.so from the directory this library was loaded from */
static void *open_runner(char *err, size_t n, const tf_rig_vtable **vt) {
  Dl_info info;
  char path[4096];
  const char *dir_end = NULL;
  if (dladdr((void *)tf_rig_load, &info) && info.dli_fname) dir_end = strrchr(info.dli_fname, '/');
  static const char *const names[] = {"libtauform_rig.so." RIG_STR(TF_VERSION_MAJOR),
                                      "libtauform_rig.so"};
  void *h = NULL;
  char tried[1024] = "";
  for (int k = 0; k < 2 && !h; ++k) {
    if (dir_end)
      snprintf(path, sizeof path, "%.*s/%s", (int)(dir_end - info.dli_fname), info.dli_fname,
               names[k]);
    else
      snprintf(path, sizeof path, "%s", names[k]);
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h && k == 0) snprintf(tried, sizeof tried, "%s", dlerror());
  }
  if (!h) {
    snprintf(err, n, "tf_rig_load: cannot load the rig runner libtauform_rig.so (%s)", tried);
    return NULL;
  }
  tf_rig_entry_fn entry = NULL;
  *(void **)&entry = dlsym(h, TF_RIG_ENTRY_SYMBOL);
  *vt = entry ? entry() : NULL;
  if (!*vt || (*vt)->version != TF_RIG_ENTRY_VERSION || (*vt)->tf_version != TF_VERSION) {
    snprintf(err, n, "tf_rig_load: %s is from another tauform build", path);
    dlclose(h);
    return NULL;
  }
  return h;
}

tf_status tf_rig_load(const tf_rig_def *def, tf_rig **out_rig, char *errbuf, size_t errbuf_size) {
  char local[RIG_ERR_SIZE];
  char *err = errbuf && errbuf_size ? errbuf : local;
  size_t n = errbuf && errbuf_size ? errbuf_size : sizeof local;
  err[0] = '\0';
  if (!out_rig) return snprintf(err, n, "tf_rig_load: out_rig is NULL"), TF_E_INVALID_ARG;
  *out_rig = NULL;
  tf_rig_def d;
  tf_rig_def_init(&d);
  tf_status st;
  if (!api_def_take("tf_rig_load", "tf_rig_def_init", def, &d, sizeof d, err, n, &st)) return st;
  if (!d.path && !d.source)
    return snprintf(err, n, "tf_rig_load: give a path or a source"), TF_E_INVALID_ARG;
  tf_rig *rig = calloc(1, sizeof *rig);
  if (!rig) return snprintf(err, n, "tf_rig_load: out of memory"), TF_E_NOMEM;
  rig->handle = open_runner(err, n, &rig->vt);
  if (!rig->handle) {
    free(rig);
    return TF_E_UNSUPPORTED;
  }
  st = rig->vt->load(&d, &rig->impl, err, n);
  if (st != TF_OK) {
    dlclose(rig->handle);
    free(rig);
    return st;
  }
  *out_rig = rig;
  return TF_OK;
}

void tf_rig_destroy(tf_rig *rig) {
  if (!rig) return;
  rig->vt->destroy(rig->impl);
  dlclose(rig->handle);
  free(rig);
}

tf_sim *tf_rig_sim(tf_rig *rig) { return rig ? rig->vt->sim(rig->impl) : NULL; }

tf_status tf_rig_apply(tf_rig *rig, double frame) {
  if (!rig) return TF_E_INVALID_ARG;
  if (!(frame - frame == 0.0)) {
    snprintf(rig->err, sizeof rig->err, "tf_rig_apply: frame is not finite");
    return TF_E_INVALID_ARG;
  }
  tf_status st = rig->vt->apply(rig->impl, frame);
  snprintf(rig->err, sizeof rig->err, "%s", st == TF_OK ? "" : rig->vt->last_error(rig->impl));
  return st;
}

tf_status tf_rig_timing(const tf_rig *rig, double *out_first, double *out_last, double *out_fps,
                        uint32_t *out_substeps) {
  if (!rig) return TF_E_INVALID_ARG;
  double a, b, f;
  uint32_t s;
  rig->vt->timing(rig->impl, &a, &b, &f, &s);
  if (out_first) *out_first = a;
  if (out_last) *out_last = b;
  if (out_fps) *out_fps = f;
  if (out_substeps) *out_substeps = s;
  return TF_OK;
}

const char *tf_rig_last_error(const tf_rig *rig) { return rig ? rig->err : "rig is NULL"; }
