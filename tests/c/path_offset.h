/* SPDX-License-Identifier: MIT
 * Neighbouring paths of a scene: the offset of coordinate k of vertex i on path `path`, in
 * [-1e-12, 1e-12] m (a splitmix64 hash of the path, the vertex and the axis), 0 on path 0. The
 * tests' TF_PERTURB_SEED (scenes.c) and the benchmark's --path (examples/bench/bench.c) move a
 * scene the same way, so a path number names the same sheet in both. */
#ifndef TF_TESTS_PATH_OFFSET_H
#define TF_TESTS_PATH_OFFSET_H

#include <stdint.h>

static inline double path_offset(uint64_t path, uint32_t i, int k) {
  if (path == 0) return 0.0;
  uint64_t z = path * 0x9E3779B97F4A7C15ull + (3 * (uint64_t)i + (uint64_t)k + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return 1e-12 * ((double)(z >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

#endif
