/* SPDX-License-Identifier: MIT
 * Example host: loads tauform the way a DCC tool loads a plugin. It does not link the library;
 * it dlopen()s it, dlsym()s the single entry point tf_get_api, asks for the ABI major it was
 * compiled against, checks the table it gets back and from then on calls only through that
 * table. It simulates a cape hanging from an animated shoulder line (cape.h) with the tau method
 * (Young 2007) and writes the motion to a PC2 point cache for Blender's Mesh Cache modifier.
 *
 *   tauform_host [--lib PATH | PATH] [--frames 72] [--fps 24] [--substeps 2] [--tau S]
 *                [--kappa K] [--out cape.pc2]
 *
 * Without --lib the library is looked for next to the executable, then on the loader's search
 * path. Any tauform error is printed with tf_sim_last_error and ends the run with exit code 1.
 */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cape.h"
#include "pc2.h"
#include "tauform.h"

#if defined(__APPLE__)
static const char LIB_FILE_NAME[] = "libtauform.dylib";
#else
static const char LIB_FILE_NAME[] = "libtauform.so";
#endif
static const char ENTRY_POINT[] = "tf_get_api";

/* cape material: a medium-weight wool */
static const double CAPE_DENSITY = 0.25;             /* kg/m^2 */
static const double CAPE_STRETCH_STIFFNESS = 5000.0; /* N/m, 2D Young's modulus */
static const double CAPE_POISSON = 0.3;
static const double CAPE_BEND_STIFFNESS = 1e-5; /* N m */

static const unsigned HOST_DEFAULT_SUBSTEPS = 2;
static const unsigned HOST_MAX_FRAMES = 1000000; /* sanity bound on --frames */
static const char HOST_DEFAULT_OUT[] = "cape.pc2";

/* the table must reach the last member this host calls */
#define HOST_API_MIN_BYTES (offsetof(tf_api, sim_get_stats) + sizeof(void (*)(void)))

typedef const tf_api *(*get_api_fn)(uint32_t abi_major);
_Static_assert(sizeof(void *) == sizeof(get_api_fn), "dlsym result must fit a function pointer");

typedef struct host_options {
  const char *lib; /* NULL: next to the executable, then the loader's search path */
  const char *out;
  unsigned frames;
  double fps;
  unsigned substeps;
  double tau;   /* s; <= 0: library default */
  double kappa; /* < 0: library default */
} host_options;

static void usage(FILE *f) {
  fprintf(f,
          "usage: tauform_host [--lib PATH | PATH] [--frames N] [--fps F] [--substeps S]\n"
          "                    [--tau SECONDS] [--kappa K] [--out FILE.pc2]\n"
          "  --lib PATH    tauform shared library (default: %s next to this program,\n"
          "                then the dynamic loader's search path)\n"
          "  --frames N    frames to simulate (default %d: 2 s walk, 1 s settle at 24 fps)\n"
          "  --fps F       frames per second (default %g)\n"
          "  --substeps S  solver steps per frame (default %u)\n"
          "  --tau S       tau (s, > 0); larger settles faster (default: the library's)\n"
          "  --kappa K     kappa in [0, 1]; 0 = no oscillation (default: the library's)\n"
          "  --out FILE    PC2 point cache to write (default %s)\n",
          LIB_FILE_NAME, CAPE_DEFAULT_FRAMES, CAPE_DEFAULT_FPS, HOST_DEFAULT_SUBSTEPS,
          HOST_DEFAULT_OUT);
}

static int parse_double(const char *s, double *out) {
  char *end = NULL;
  double v = strtod(s, &end);
  if (end == s || *end != '\0' || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

static int parse_unsigned(const char *s, unsigned *out) {
  char *end = NULL;
  unsigned long v = strtoul(s, &end, 10);
  if (end == s || *end != '\0' || s[0] == '-' || v > UINT_MAX) return -1;
  *out = (unsigned)v;
  return 0;
}

/* Returns 0, or 2 (the usage exit code) after printing what was wrong. */
static int parse_options(int argc, char **argv, host_options *o) {
  o->lib = NULL;
  o->out = HOST_DEFAULT_OUT;
  o->frames = CAPE_DEFAULT_FRAMES;
  o->fps = CAPE_DEFAULT_FPS;
  o->substeps = HOST_DEFAULT_SUBSTEPS;
  o->tau = 0.0;
  o->kappa = -1.0;
  for (int k = 1; k < argc; ++k) {
    const char *a = argv[k];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      exit(0);
    }
    if (a[0] != '-') {
      if (o->lib != NULL) {
        fprintf(stderr, "tauform_host: more than one library path given ('%s')\n", a);
        return 2;
      }
      o->lib = a;
      continue;
    }
    if (k + 1 >= argc) {
      fprintf(stderr, "tauform_host: option %s needs a value\n", a);
      return 2;
    }
    const char *v = argv[++k];
    int bad = 0;
    if (strcmp(a, "--lib") == 0)
      o->lib = v;
    else if (strcmp(a, "--out") == 0)
      o->out = v;
    else if (strcmp(a, "--frames") == 0)
      bad = parse_unsigned(v, &o->frames) != 0 || o->frames == 0 || o->frames > HOST_MAX_FRAMES;
    else if (strcmp(a, "--fps") == 0)
      bad = parse_double(v, &o->fps) != 0 || !(o->fps > 0.0);
    else if (strcmp(a, "--substeps") == 0)
      bad = parse_unsigned(v, &o->substeps) != 0 || o->substeps == 0;
    else if (strcmp(a, "--tau") == 0)
      bad = parse_double(v, &o->tau) != 0 || !(o->tau > 0.0);
    else if (strcmp(a, "--kappa") == 0)
      bad = parse_double(v, &o->kappa) != 0 || o->kappa < 0.0 || o->kappa > 1.0;
    else {
      fprintf(stderr, "tauform_host: unknown option %s\n", a);
      usage(stderr);
      return 2;
    }
    if (bad) {
      fprintf(stderr, "tauform_host: bad value '%s' for %s\n", v, a);
      return 2;
    }
  }
  return 0;
}

/* "<dir of this executable>/libtauform.so" if that file exists, else the bare file name so that
 * dlopen searches LD_LIBRARY_PATH and the system paths. */
static const char *default_lib_path(const char *argv0, char *buf, size_t size) {
  ssize_t n = readlink("/proc/self/exe", buf, size - 1);
  if (n > 0) {
    buf[n] = '\0';
  } else if (argv0 != NULL && strchr(argv0, '/') != NULL && strlen(argv0) < size) {
    strcpy(buf, argv0);
  } else {
    return LIB_FILE_NAME;
  }
  char *slash = strrchr(buf, '/');
  if (slash == NULL || (size_t)(slash - buf) + 1 + sizeof LIB_FILE_NAME > size)
    return LIB_FILE_NAME;
  memcpy(slash + 1, LIB_FILE_NAME, sizeof LIB_FILE_NAME);
  return access(buf, F_OK) == 0 ? buf : LIB_FILE_NAME;
}

/* Resolve tf_get_api and validate the table. Returns NULL after printing why. */
static const tf_api *load_api(void *lib, const char *lib_path) {
  void *sym = dlsym(lib, ENTRY_POINT);
  if (sym == NULL) {
    const char *why = dlerror();
    fprintf(stderr, "tauform_host: %s has no symbol %s: %s\n", lib_path, ENTRY_POINT,
            why != NULL ? why : "not found");
    return NULL;
  }
  /* ISO C has no object-to-function pointer cast; POSIX guarantees the representation */
  get_api_fn get_api;
  memcpy(&get_api, &sym, sizeof get_api);

  const tf_api *api = get_api(TF_VERSION_MAJOR);
  if (api == NULL) {
    fprintf(stderr, "tauform_host: %s cannot serve ABI major %d (%s returned NULL)\n", lib_path,
            TF_VERSION_MAJOR, ENTRY_POINT);
    return NULL;
  }
  if (api->struct_size < HOST_API_MIN_BYTES) {
    fprintf(stderr, "tauform_host: %s returned a tf_api of %u bytes; this host needs at least %u\n",
            lib_path, (unsigned)api->struct_size, (unsigned)HOST_API_MIN_BYTES);
    return NULL;
  }
  if ((api->version >> 16) != TF_VERSION_MAJOR) {
    fprintf(stderr, "tauform_host: %s reports version %u.%u.%u, this host needs major %d\n",
            lib_path, (unsigned)(api->version >> 16), (unsigned)((api->version >> 8) & 0xffu),
            (unsigned)(api->version & 0xffu), TF_VERSION_MAJOR);
    return NULL;
  }
  /* every member this host calls; a NULL one would crash later instead of failing here */
  const struct {
    const char *name;
    int present;
  } needed[] = {
      {"status_name", api->status_name != NULL},
      {"cloth_def_init_", api->cloth_def_init_ != NULL},
      {"cloth_create", api->cloth_create != NULL},
      {"sim_destroy", api->sim_destroy != NULL},
      {"sim_last_error", api->sim_last_error != NULL},
      {"sim_get_param", api->sim_get_param != NULL},
      {"sim_set_pins", api->sim_set_pins != NULL},
      {"sim_set_pin_targets", api->sim_set_pin_targets != NULL},
      {"sim_advance", api->sim_advance != NULL},
      {"sim_vert_count", api->sim_vert_count != NULL},
      {"sim_get_positions_f", api->sim_get_positions_f != NULL},
      {"sim_get_stats", api->sim_get_stats != NULL},
  };
  for (size_t k = 0; k < sizeof needed / sizeof needed[0]; ++k) {
    if (!needed[k].present) {
      fprintf(stderr, "tauform_host: %s: tf_api.%s is NULL\n", lib_path, needed[k].name);
      return NULL;
    }
  }
  return api;
}

/* Print a failed tauform call with the sim's own message. Returns the exit code 1. */
static int report(const tf_api *api, const tf_sim *sim, const char *call, unsigned frame,
                  tf_status s) {
  char where[32] = "";
  if (frame > 0) snprintf(where, sizeof where, " (frame %u)", frame);
  fprintf(stderr, "tauform_host: %s%s failed: %s: %s\n", call, where, api->status_name(s),
          api->sim_last_error(sim));
  return 1;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  host_options opt;
  int rc = parse_options(argc, argv, &opt);
  if (rc != 0) return rc;

  char path_buf[PATH_MAX];
  const char *lib_path =
      opt.lib != NULL ? opt.lib : default_lib_path(argv[0], path_buf, sizeof path_buf);
  void *lib = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "tauform_host: cannot load %s: %s\n", lib_path, dlerror());
    return 1;
  }
  const tf_api *api = load_api(lib, lib_path);
  if (api == NULL) {
    dlclose(lib);
    return 1;
  }

  /* everything below is released at `done`, whichever way the run ends */
  rc = 1;
  tf_sim *sim = NULL;
  pc2_writer cache = {0};
  double *rest = malloc(sizeof(double) * 3 * CAPE_VERT_COUNT);
  uint32_t *tris = malloc(sizeof(uint32_t) * 3 * CAPE_TRI_COUNT);
  uint32_t *edges = malloc(sizeof(uint32_t) * 2 * CAPE_EDGE_COUNT);
  float *pos = malloc(sizeof(float) * 3 * CAPE_VERT_COUNT);
  if (rest == NULL || tris == NULL || edges == NULL || pos == NULL) {
    fprintf(stderr, "tauform_host: out of memory\n");
    goto done;
  }
  cape_rest_positions(rest);
  cape_triangles(tris);
  cape_edges(edges);

  /* the def is initialized through the table: the library fills defaults for its own size */
  tf_cloth_def def;
  api->cloth_def_init_(&def, (uint32_t)sizeof def);
  def.rest_positions = rest;
  def.vert_count = CAPE_VERT_COUNT;
  def.triangles = tris;
  def.tri_count = CAPE_TRI_COUNT;
  def.density = CAPE_DENSITY;
  def.stretch_stiffness = CAPE_STRETCH_STIFFNESS;
  def.poisson = CAPE_POISSON;
  def.bend_stiffness = CAPE_BEND_STIFFNESS;
  def.integrator = TF_INTEGRATOR_TAU;
  if (opt.tau > 0.0) def.tau = opt.tau;
  if (opt.kappa >= 0.0) def.kappa = opt.kappa;

  char errbuf[256] = "";
  tf_status s = api->cloth_create(&def, &sim, errbuf, sizeof errbuf);
  if (s != TF_OK) {
    fprintf(stderr, "tauform_host: tf_cloth_create failed: %s: %s\n", api->status_name(s), errbuf);
    goto done;
  }
  if (api->sim_vert_count(sim) != CAPE_VERT_COUNT) {
    fprintf(stderr, "tauform_host: the sim reports %u vertices, the cape has %d\n",
            (unsigned)api->sim_vert_count(sim), CAPE_VERT_COUNT);
    goto done;
  }
  double tau = 0.0, kappa = 0.0;
  if ((s = api->sim_get_param(sim, TF_PARAM_TAU, &tau, 1)) != TF_OK) {
    rc = report(api, sim, "tf_sim_get_param(TAU)", 0, s);
    goto done;
  }
  if ((s = api->sim_get_param(sim, TF_PARAM_KAPPA, &kappa, 1)) != TF_OK) {
    rc = report(api, sim, "tf_sim_get_param(KAPPA)", 0, s);
    goto done;
  }

  /* hard pins on the shoulder row, vertices 0..CAPE_PIN_COUNT-1 (weights NULL = all 1) */
  uint32_t pins[CAPE_PIN_COUNT];
  for (uint32_t i = 0; i < CAPE_PIN_COUNT; ++i) pins[i] = i;
  if ((s = api->sim_set_pins(sim, pins, NULL, CAPE_PIN_COUNT)) != TF_OK) {
    rc = report(api, sim, "tf_sim_set_pins", 0, s);
    goto done;
  }

  char pc2_err[512] = "";
  if (pc2_writer_open(&cache, opt.out, CAPE_VERT_COUNT, CAPE_PC2_START_FRAME, CAPE_PC2_SAMPLE_RATE,
                      pc2_err, sizeof pc2_err) != 0) {
    fprintf(stderr, "tauform_host: %s\n", pc2_err);
    goto done;
  }

  const double frame_dt = 1.0 / opt.fps;
  double targets[3 * CAPE_PIN_COUNT];
  double advance_seconds = 0.0, max_strain = 0.0;
  unsigned max_strain_frame = 0, max_newton_per_step = 0;
  uint64_t steps = 0, newton = 0, cg = 0, unconverged = 0;
  for (unsigned frame = 1; frame <= opt.frames; ++frame) {
    /* targets for the end of this frame; the library interpolates them over the substeps */
    cape_pin_targets(frame * frame_dt, targets);
    if ((s = api->sim_set_pin_targets(sim, targets, CAPE_PIN_COUNT)) != TF_OK) {
      rc = report(api, sim, "tf_sim_set_pin_targets", frame, s);
      goto done;
    }
    const double t0 = now_seconds();
    s = api->sim_advance(sim, frame_dt, opt.substeps);
    advance_seconds += now_seconds() - t0;
    if (s != TF_OK) {
      rc = report(api, sim, "tf_sim_advance", frame, s);
      goto done;
    }

    tf_stats st;
    memset(&st, 0, sizeof st);
    st.struct_size = (uint32_t)sizeof st;
    if ((s = api->sim_get_stats(sim, &st)) != TF_OK) {
      rc = report(api, sim, "tf_sim_get_stats", frame, s);
      goto done;
    }
    steps += st.steps;
    newton += st.newton_iterations;
    cg += st.cg_iterations;
    unconverged += st.unconverged_steps;
    if (st.max_newton_per_step > max_newton_per_step) max_newton_per_step = st.max_newton_per_step;

    if ((s = api->sim_get_positions_f(sim, pos, CAPE_VERT_COUNT)) != TF_OK) {
      rc = report(api, sim, "tf_sim_get_positions_f", frame, s);
      goto done;
    }
    const double strain = cape_max_edge_strain(edges, rest, pos);
    if (!isfinite(strain)) {
      fprintf(stderr, "tauform_host: non-finite positions at frame %u\n", frame);
      goto done;
    }
    if (strain > max_strain) {
      max_strain = strain;
      max_strain_frame = frame;
    }
    if (pc2_writer_append(&cache, pos, pc2_err, sizeof pc2_err) != 0) {
      fprintf(stderr, "tauform_host: %s: %s\n", opt.out, pc2_err);
      goto done;
    }
  }
  if (pc2_writer_close(&cache, pc2_err, sizeof pc2_err) != 0) {
    fprintf(stderr, "tauform_host: %s: %s\n", opt.out, pc2_err);
    goto done;
  }

  const double per_step = steps > 0 ? 1.0 / (double)steps : 0.0;
  printf(
      "tauform_host: %u frames x %u substep%s at %g fps, tau %g s, kappa %g: %.3f ms/frame; "
      "max edge strain %.3g (frame %u); %.2f Newton and %.1f CG iterations per step "
      "(max %u Newton, %llu unconverged steps); %d verts -> %s\n",
      opt.frames, opt.substeps, opt.substeps == 1 ? "" : "s", opt.fps, tau, kappa,
      1000.0 * advance_seconds / opt.frames, max_strain, max_strain_frame,
      (double)newton * per_step, (double)cg * per_step, max_newton_per_step,
      (unsigned long long)unconverged, CAPE_VERT_COUNT, opt.out);
  rc = 0;

done:
  pc2_writer_close(&cache, NULL, 0);
  if (sim != NULL) api->sim_destroy(sim);
  free(pos);
  free(edges);
  free(tris);
  free(rest);
  dlclose(lib);
  return rc;
}
