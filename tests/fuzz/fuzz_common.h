/* SPDX-License-Identifier: MIT
 * Shared by the fuzz targets: a byte reader over the input (zeros once it runs out) and a check
 * that aborts with a message, so libFuzzer and the replay driver both report it as a crash. */
#ifndef TF_FUZZ_COMMON_H
#define TF_FUZZ_COMMON_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond, ...)                                                         \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      fprintf(stderr, "fuzz check failed at %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                                   \
      fprintf(stderr, "\n");                                                          \
      abort();                                                                        \
    }                                                                                 \
  } while (0)

typedef struct fuzz_bytes {
  const uint8_t *p;
  size_t n;
} fuzz_bytes;

static inline uint8_t fz_u8(fuzz_bytes *f) {
  if (!f->n) return 0;
  f->n--;
  return *f->p++;
}

static inline uint32_t fz_u32(fuzz_bytes *f) {
  uint32_t v = 0;
  for (int k = 0; k < 4; ++k) v = v << 8 | fz_u8(f);
  return v;
}

/* a double: mostly ordinary magnitudes, often the edges (0, NaN, inf, huge, tiny, raw bits) */
static inline double fz_double(fuzz_bytes *f) {
  uint8_t k = fz_u8(f);
  switch (k & 15) {
    case 0:
      return 0.0;
    case 1:
      return NAN;
    case 2:
      return (k & 16) ? INFINITY : -INFINITY;
    case 3:
      return (k & 16) ? 1e300 : -1e300;
    case 4:
      return (k & 16) ? 5e-324 : 1e-300;
    case 5: {
      uint64_t b = (uint64_t)fz_u32(f) << 32 | fz_u32(f);
      double d;
      memcpy(&d, &b, sizeof d);
      return d;
    }
    default: { /* (-128..127) x 10^(-4..3) */
      int8_t m = (int8_t)fz_u8(f);
      return m * pow(10.0, (int)(k >> 4) % 8 - 4);
    }
  }
}

#endif
