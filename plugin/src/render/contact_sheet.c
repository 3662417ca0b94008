/* SPDX-License-Identifier: MIT
 * Contact sheet layout: tile (i % columns, i / columns) has its top-left pixel at
 * (col x (tile_width + separator), row x (tile_height + separator)). The sheet is first filled with
 * the separator colour, then each tile is copied row by row. */
#include "render/contact_sheet.h"

#include <string.h>

tf_status contact_sheet_size(const contact_sheet *cs, uint32_t image_count, uint32_t *out_width,
                             uint32_t *out_height) {
  if (!cs || !out_width || !out_height || image_count == 0 || cs->columns == 0 ||
      cs->tile_width == 0 || cs->tile_height == 0)
    return TF_E_INVALID_ARG;
  uint64_t cols = cs->columns < image_count ? cs->columns : image_count;
  uint64_t rows = (image_count + cols - 1) / cols;
  uint64_t w = cols * cs->tile_width + (cols - 1) * cs->separator;
  uint64_t h = rows * cs->tile_height + (rows - 1) * cs->separator;
  /* each factor is below 2^33, so the products above cannot overflow 64 bits */
  if (w > UINT32_MAX || h > UINT32_MAX || h > SIZE_MAX / 3 / w) return TF_E_INVALID_ARG;
  *out_width = (uint32_t)w;
  *out_height = (uint32_t)h;
  return TF_OK;
}

tf_status contact_sheet_compose(const contact_sheet *cs, const uint8_t *const *images,
                                uint32_t image_count, uint8_t *out_rgb) {
  uint32_t w, h;
  tf_status st = contact_sheet_size(cs, image_count, &w, &h);
  if (st != TF_OK) return st;
  if (!images || !out_rgb) return TF_E_INVALID_ARG;
  size_t npix = (size_t)w * h;
  for (size_t i = 0; i < npix; ++i) memcpy(out_rgb + 3 * i, cs->separator_rgb, 3);
  size_t row_bytes = 3 * (size_t)cs->tile_width;
  for (uint32_t i = 0; i < image_count; ++i) {
    if (!images[i]) continue;
    size_t x0 = (size_t)(i % cs->columns) * (cs->tile_width + (size_t)cs->separator);
    size_t y0 = (size_t)(i / cs->columns) * (cs->tile_height + (size_t)cs->separator);
    for (uint32_t y = 0; y < cs->tile_height; ++y)
      memcpy(out_rgb + 3 * ((y0 + y) * w + x0), images[i] + y * row_bytes, row_bytes);
  }
  return TF_OK;
}
