/* SPDX-License-Identifier: MIT
 * What every element set shares: the map from an element's vertex pairs to Hessian slots. */
#include "sim/elements/elements.h"

void elem_slots(const bsr *H, const uint32_t *elems, uint32_t count, int k, uint32_t *slot) {
  for (uint32_t e = 0; e < count; ++e)
    for (int a = 0; a < k; ++a)
      for (int b = 0; b < k; ++b)
        slot[(size_t)k * k * e + (size_t)k * a + b] =
            bsr_slot(H, elems[(size_t)k * e + a], elems[(size_t)k * e + b]);
}
