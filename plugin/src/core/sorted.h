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

/* Defines static inline void name(T *a, uint32_t count): sorts a[0..count) ascending by
 * less(x, y) (two T values) in place with no memory of its own: heapsort, as qsort may take a
 * buffer from malloc, which a step must not. Not stable: for keys that are all different. */
#define SORTED_DEFINE_HEAPSORT(name, T, less)                                                     \
  static inline void name##_sift(T *a, uint32_t i, uint32_t end) {                                \
    for (uint32_t c; (c = 2 * i + 1) < end; i = c) {                                              \
      if (c + 1 < end && less(a[c], a[c + 1])) c++;                                               \
      if (!less(a[i], a[c])) break;                                                               \
      T t = a[i];                                                                                 \
      a[i] = a[c], a[c] = t;                                                                      \
    }                                                                                             \
  }                                                                                               \
  static inline void name(T *a, uint32_t count) {                                                 \
    for (uint32_t k = count / 2; k-- > 0;) name##_sift(a, k, count); /* max-heap */               \
    for (uint32_t end = count; end > 1;) {                           /* the largest to the end */ \
      T t = a[0];                                                                                 \
      a[0] = a[--end], a[end] = t;                                                                \
      name##_sift(a, 0, end);                                                                     \
    }                                                                                             \
  }

#define SORTED_LESS(x, y) ((x) < (y))
SORTED_DEFINE_HEAPSORT(sorted_heapsort_u64, uint64_t, SORTED_LESS)

/* sorts keys[0..count) ascending in place (sorted_heapsort_u64) and drops repeats; returns the
 * unique count */
static inline uint32_t sorted_unique_u64(uint64_t *keys, uint32_t count) {
  sorted_heapsort_u64(keys, count);
  uint32_t m = count ? 1 : 0;
  for (uint32_t k = 1; k < count; ++k)
    if (keys[k] != keys[m - 1]) keys[m++] = keys[k];
  return m;
}

#endif
