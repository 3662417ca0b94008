/* SPDX-License-Identifier: MIT
 * A C host that runs a Lua rig without knowing Lua: it dlopen()s libtauform.so, gets the API table
 * through tf_get_api, loads the rig with tf_rig_load and, for every frame, lets the rig set the
 * parameters and pin targets (tf_rig_apply) before advancing, then writes a PC2 cache.
 *   tauform_rig_host RIG.lua [--lib PATH] [--frames FIRST-LAST] [--out FILE.pc2]
 * Without --lib it loads libtauform.so.<ABI major> the way the dynamic linker finds it: through
 * the RUNPATH the build gives it (the build tree's library directory; once installed, its own
 * directory and the prefix's lib), then LD_LIBRARY_PATH and the system's directories.
 * For a flesh rig with a skin (an embedded surface) the cache holds the skin, as the Lua runner's
 * does. The cache matches, bit for bit, the one `lua5.4 examples/run.lua RIG.lua` writes. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pc2.h"
#include "tauform.h"

/* the positions a cache stores: the flesh's skin when the sim has one, else its vertices */
typedef struct shape {
  const tf_api *api;
  tf_sim *sim;
  uint32_t n; /* cached vertices */
  int skin;
  double *buf;
  float *xyz;
} shape;

static void shape_read(shape *s) {
  if (s->skin)
    s->api->sim_get_surface_positions(s->sim, s->buf, s->n);
  else
    s->api->sim_get_positions(s->sim, s->buf, s->n);
  for (size_t k = 0; k < 3 * (size_t)s->n; ++k) s->xyz[k] = (float)s->buf[k];
}

#define STR_(x) #x
#define STR(x) STR_(x)
/* the SONAME: present wherever the library is installed, also without its development symlink */
static const char DEFAULT_LIB[] = "libtauform.so." STR(TF_VERSION_MAJOR);

static int fail(const char *what, const char *msg) {
  fprintf(stderr, "tauform_rig_host: %s: %s\n", what, msg);
  return 1;
}

int main(int argc, char **argv) {
  const char *lib = DEFAULT_LIB, *rig_path = NULL, *out = "rig.pc2", *frames = NULL;
  for (int k = 1; k < argc; ++k) {
    if (strcmp(argv[k], "--lib") == 0 && k + 1 < argc)
      lib = argv[++k];
    else if (strcmp(argv[k], "--frames") == 0 && k + 1 < argc)
      frames = argv[++k];
    else if (strcmp(argv[k], "--out") == 0 && k + 1 < argc)
      out = argv[++k];
    else if (argv[k][0] != '-' && !rig_path)
      rig_path = argv[k];
    else {
      fprintf(
          stderr,
          "usage: tauform_rig_host RIG.lua [--lib PATH] [--frames FIRST-LAST] [--out FILE.pc2]\n");
      return 2;
    }
  }
  if (!rig_path) return fail("usage", "give a rig file");
  void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!h) return fail("dlopen", dlerror());
  const tf_api *(*get_api)(uint32_t) = NULL;
  *(void **)&get_api = dlsym(h, "tf_get_api");
  const tf_api *api = get_api ? get_api(TF_VERSION_MAJOR) : NULL;
  if (!api || api->struct_size < offsetof(tf_api, rig_last_error) + sizeof api->rig_last_error)
    return fail(lib, "no tf_get_api table with rig support for this ABI");

  tf_rig_def def;
  api->rig_def_init_(&def, sizeof def);
  def.path = rig_path;
  tf_rig *rig = NULL;
  char err[1024];
  if (api->rig_load(&def, &rig, err, sizeof err) != TF_OK) return fail("tf_rig_load", err);
  double first, last, fps;
  uint32_t substeps;
  api->rig_timing(rig, &first, &last, &fps, &substeps);
  if (frames) {
    int a, b;
    if (sscanf(frames, "%d-%d", &a, &b) != 2 || b < a)
      return fail("--frames", "expected FIRST-LAST");
    first = a;
    last = b;
  }
  tf_sim *sim = api->rig_sim(rig);
  shape sh = {api, sim, api->sim_vert_count(sim), 0, NULL, NULL};
  int has_flesh = api->struct_size >= offsetof(tf_api, sim_get_surface_positions) +
                                          sizeof api->sim_get_surface_positions;
  if (has_flesh && api->sim_surface_vert_count(sim) > 0)
    sh.skin = 1, sh.n = api->sim_surface_vert_count(sim);
  sh.buf = malloc(sizeof(double) * 3 * sh.n);
  sh.xyz = malloc(sizeof(float) * 3 * sh.n);
  pc2_writer w;
  if (!sh.buf || !sh.xyz) return fail("memory", "out of memory");
  if (pc2_writer_open(&w, out, sh.n, (float)first, 1.0f, err, sizeof err) != 0)
    return fail(out, err);
  int rc = 0;
  /* the frame-range runner's sequence: the state at `first` (set up by tf_rig_load), then apply
   * and advance per frame */
  shape_read(&sh);
  if (!rc && pc2_writer_append(&w, sh.xyz, err, sizeof err) != 0) rc = fail(out, err);
  for (double f = first + 1; !rc && f <= last; f += 1) {
    if (api->rig_apply(rig, f) != TF_OK) {
      rc = fail("tf_rig_apply", api->rig_last_error(rig));
      break;
    }
    tf_status st = api->sim_advance(sim, 1.0 / fps, substeps);
    if (st != TF_OK) {
      rc = fail("tf_sim_advance", api->sim_last_error(sim));
      break;
    }
    shape_read(&sh);
    if (pc2_writer_append(&w, sh.xyz, err, sizeof err) != 0) rc = fail(out, err);
  }
  pc2_writer_close(&w, err, sizeof err);
  api->rig_destroy(rig);
  free(sh.buf);
  free(sh.xyz);
  dlclose(h);
  if (!rc) printf("%s: frames %g-%g -> %s\n", rig_path, first, last, out);
  return rc;
}
