/* SPDX-License-Identifier: MIT
 * Contact sheet: N RGB images of one size laid out row by row in a grid of a given number of
 * columns, separated (not framed) by lines of a given width and colour; cells without an image
 * (the end of the last row, or a NULL entry) keep the separator colour. */
#ifndef TF_RENDER_CONTACT_SHEET_H
#define TF_RENDER_CONTACT_SHEET_H

#include "core/common.h"

typedef struct contact_sheet {
  uint32_t tile_width, tile_height; /* px, every image's size, >= 1 */
  uint32_t columns;                 /* >= 1; rows follow from the image count */
  uint32_t separator;               /* px between neighbouring tiles, e.g. 2 */
  uint8_t separator_rgb[3];
} contact_sheet;

/* Size of the sheet for image_count images: columns x tile_width + (columns - 1) x separator wide
 * (fewer columns when there are fewer images). TF_E_INVALID_ARG for a zero count or size, or a
 * sheet whose byte size (width x height x 3) would not fit in size_t. */
TF_LOCAL tf_status contact_sheet_size(const contact_sheet *cs, uint32_t image_count,
                                      uint32_t *out_width, uint32_t *out_height);

/* Compose images (image_count pointers, each tile_width x tile_height x 3 bytes; NULL entries
 * allowed) into out_rgb, whose size contact_sheet_size gives. Same status as contact_sheet_size. */
TF_LOCAL tf_status contact_sheet_compose(const contact_sheet *cs, const uint8_t *const *images,
                                         uint32_t image_count, uint8_t *out_rgb);

#endif
