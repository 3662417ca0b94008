/* SPDX-License-Identifier: MIT
 * Lookups in sorted arrays of 64-bit keys (edges as vertex pairs, patches as piece and node). */
#ifndef TF_CORE_SORTED_H
#define TF_CORE_SORTED_H

#include <stdint.h>

/* the index of the last key <= key in keys[0..count) (sorted, count >= 1): for a key that is in a
 * sorted array of unique keys, its index */
static inline uint32_t sorted_floor_u64(const uint64_t *keys, uint32_t count, uint64_t key) {
  uint32_t lo = 0, hi = count;
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (keys[mid] <= key)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

#endif
