/* SPDX-License-Identifier: MIT
 * Verifies a cape cache written by tauform_host, without loading tauform: the PC2 header
 * (signature, version, point count, start frame, rate, sample count), the exact file size
 * 32 + frames * verts * 12 bytes, that every value is finite, that the hard-pinned shoulder row
 * sits on the animated path (cape.h) at every frame within PIN_TOLERANCE, and, as a blow-up guard,
 * that the last frame's edge strain is physically plausible. Exit code 0 means every check passed.
 *
 *   tauform_check_pc2 FILE.pc2 [--frames N] [--fps F]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cape.h"
#include "pc2.h"

/* m; float32 storage alone leaves ~1e-7 m at 1.5 m from the origin */
static const double PIN_TOLERANCE = 1e-5;
/* a wool cape under its own weight strains ~1e-3; 20 % means the solve went wrong */
static const double MAX_PLAUSIBLE_STRAIN = 0.2;

static int fail_count = 0;

static void fail(const char *path, const char *what) {
  fprintf(stderr, "check_pc2: %s: FAIL: %s\n", path, what);
  fail_count++;
}

static int parse_positive(const char *s, double *out) {
  char *end = NULL;
  double v = strtod(s, &end);
  if (end == s || *end != '\0' || !isfinite(v) || !(v > 0.0)) return -1;
  *out = v;
  return 0;
}

int main(int argc, char **argv) {
  const char *path = NULL;
  double frames_opt = 0.0; /* 0: take the header's sample count */
  double fps = CAPE_DEFAULT_FPS;
  for (int k = 1; k < argc; ++k) {
    if ((strcmp(argv[k], "--frames") == 0 || strcmp(argv[k], "--fps") == 0) && k + 1 < argc) {
      double *dst = strcmp(argv[k], "--frames") == 0 ? &frames_opt : &fps;
      if (parse_positive(argv[k + 1], dst) != 0) {
        fprintf(stderr, "check_pc2: bad value '%s' for %s\n", argv[k + 1], argv[k]);
        return 2;
      }
      ++k;
    } else if (argv[k][0] != '-' && path == NULL) {
      path = argv[k];
    } else {
      fprintf(stderr, "usage: tauform_check_pc2 FILE.pc2 [--frames N] [--fps F]\n");
      return 2;
    }
  }
  if (path == NULL) {
    fprintf(stderr, "usage: tauform_check_pc2 FILE.pc2 [--frames N] [--fps F]\n");
    return 2;
  }
  if (frames_opt != floor(frames_opt)) {
    fprintf(stderr, "check_pc2: --frames must be a whole number\n");
    return 2;
  }

  pc2_cache c;
  char err[512];
  if (pc2_read(path, &c, err, sizeof err) != 0) {
    fprintf(stderr, "check_pc2: FAIL: %s\n", err);
    return 1;
  }
  char msg[256];

  /* header */
  const uint32_t frames = frames_opt > 0.0 ? (uint32_t)frames_opt : c.sample_count;
  if (c.point_count != CAPE_VERT_COUNT) {
    snprintf(msg, sizeof msg, "%u points, the cape has %d", (unsigned)c.point_count,
             CAPE_VERT_COUNT);
    fail(path, msg);
  }
  if (c.sample_count != frames || frames == 0) {
    snprintf(msg, sizeof msg, "%u samples, expected %u (> 0)", (unsigned)c.sample_count,
             (unsigned)frames);
    fail(path, msg);
  }
  if (c.start_frame != CAPE_PC2_START_FRAME || c.sample_rate != CAPE_PC2_SAMPLE_RATE) {
    snprintf(msg, sizeof msg, "start frame %g, sample rate %g; expected %g, %g",
             (double)c.start_frame, (double)c.sample_rate, (double)CAPE_PC2_START_FRAME,
             (double)CAPE_PC2_SAMPLE_RATE);
    fail(path, msg);
  }
  const unsigned long long expected_bytes =
      PC2_HEADER_BYTES + (unsigned long long)frames * CAPE_VERT_COUNT * PC2_BYTES_PER_POINT;
  if (c.file_bytes != expected_bytes) {
    snprintf(msg, sizeof msg, "file is %llu bytes, expected 32 + %u x %d x 12 = %llu",
             (unsigned long long)c.file_bytes, (unsigned)frames, CAPE_VERT_COUNT, expected_bytes);
    fail(path, msg);
  }
  if (fail_count > 0) {
    pc2_cache_free(&c);
    return 1;
  }

  /* values */
  const size_t value_count = (size_t)c.sample_count * c.point_count * 3;
  for (size_t k = 0; k < value_count; ++k) {
    if (!isfinite(c.samples[k])) {
      snprintf(msg, sizeof msg, "value %zu (frame %zu, vertex %zu) is %g", k,
               k / (3 * (size_t)c.point_count) + 1, k / 3 % c.point_count, (double)c.samples[k]);
      fail(path, msg);
      pc2_cache_free(&c);
      return 1;
    }
  }

  /* pinned row on the path; sample k is the end of frame k + 1 */
  double targets[3 * CAPE_PIN_COUNT];
  double worst = 0.0, last = 0.0;
  uint32_t worst_frame = 0;
  for (uint32_t k = 0; k < c.sample_count; ++k) {
    const float *p = c.samples + (size_t)k * c.point_count * 3;
    cape_pin_targets((k + 1) / fps, targets);
    double frame_err = 0.0;
    for (int i = 0; i < CAPE_PIN_COUNT; ++i) {
      const double dx = p[3 * i] - targets[3 * i], dy = p[3 * i + 1] - targets[3 * i + 1],
                   dz = p[3 * i + 2] - targets[3 * i + 2];
      const double d = sqrt(dx * dx + dy * dy + dz * dz);
      if (d > frame_err) frame_err = d;
    }
    if (frame_err > worst) {
      worst = frame_err;
      worst_frame = k + 1;
    }
    last = frame_err;
  }
  if (last > PIN_TOLERANCE) {
    snprintf(msg, sizeof msg, "pinned row is %.3g m off the path at the last frame (tolerance %g)",
             last, PIN_TOLERANCE);
    fail(path, msg);
  }
  if (worst > PIN_TOLERANCE) {
    snprintf(msg, sizeof msg, "pinned row is %.3g m off the path at frame %u (tolerance %g)", worst,
             (unsigned)worst_frame, PIN_TOLERANCE);
    fail(path, msg);
  }

  /* plausibility of the last frame */
  double rest[3 * CAPE_VERT_COUNT];
  uint32_t edges[2 * CAPE_EDGE_COUNT];
  cape_rest_positions(rest);
  cape_edges(edges);
  const double strain = cape_max_edge_strain(
      edges, rest, c.samples + (size_t)(c.sample_count - 1) * c.point_count * 3);
  if (!(strain <= MAX_PLAUSIBLE_STRAIN)) {
    snprintf(msg, sizeof msg, "last-frame max edge strain %.3g exceeds %g", strain,
             MAX_PLAUSIBLE_STRAIN);
    fail(path, msg);
  }

  if (fail_count == 0) {
    printf(
        "check_pc2: %s OK: %u frames x %u verts, %llu bytes; pinned row within %.2g m of the "
        "path (worst frame %u), last-frame max edge strain %.3g\n",
        path, (unsigned)c.sample_count, (unsigned)c.point_count, (unsigned long long)c.file_bytes,
        worst, (unsigned)worst_frame, strain);
  }
  pc2_cache_free(&c);
  return fail_count == 0 ? 0 : 1;
}
