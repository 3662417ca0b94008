/* SPDX-License-Identifier: MIT
 * Sorted arrays of 64-bit keys (edges as vertex pairs, patches as piece and node, the links of a
 * tangle's patches): lookups, and sorting one in place. */
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

/* sorts keys[0..count) ascending in place with no memory of its own (heapsort: qsort may take
 * a buffer from malloc, which a step must not) and drops repeats; returns the unique count */
static inline uint32_t sorted_unique_u64(uint64_t *keys, uint32_t count) {
  for (uint32_t k = count / 2; k-- > 0;) /* sift each parent down: a max-heap */
    for (uint32_t i = k, c; (c = 2 * i + 1) < count; i = c) {
      if (c + 1 < count && keys[c + 1] > keys[c]) c++;
      if (keys[i] >= keys[c]) break;
      uint64_t t = keys[i];
      keys[i] = keys[c], keys[c] = t;
    }
  for (uint32_t end = count; end > 1;) { /* the largest to the end, the heap one shorter */
    uint64_t t = keys[0];
    keys[0] = keys[--end], keys[end] = t;
    for (uint32_t i = 0, c; (c = 2 * i + 1) < end; i = c) {
      if (c + 1 < end && keys[c + 1] > keys[c]) c++;
      if (keys[i] >= keys[c]) break;
      t = keys[i];
      keys[i] = keys[c], keys[c] = t;
    }
  }
  uint32_t m = count ? 1 : 0;
  for (uint32_t k = 1; k < count; ++k)
    if (keys[k] != keys[m - 1]) keys[m++] = keys[k];
  return m;
}

#endif
