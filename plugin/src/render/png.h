/* SPDX-License-Identifier: MIT
 * Minimal PNG writer for 8-bit RGB images, with no zlib: each scanline gets the PNG filter (None,
 * Sub, Up, Average, Paeth) with the least sum of absolute differences, and the filtered data is a
 * zlib stream (RFC 1950) of deflate blocks (RFC 1951) with LZ77 matches over a 32 KiB window and
 * the fixed Huffman codes, or stored blocks where coding would not pay (noise), so a file is never
 * much above 3 bytes per pixel and a rendered contact sheet is 40-65x smaller than that. IDAT
 * chunks of up to 32 KiB; chunk CRC-32 as in the PNG spec, annex D. Each call mallocs one bounded
 * scratch block (about 270 KiB, whatever the image size) and frees it before returning. No global
 * state: safe from any thread. */
#ifndef TF_RENDER_PNG_H
#define TF_RENDER_PNG_H

#include "core/common.h"

/* Largest width or height a PNG may state (PNG spec sec. 11.2.2: 2^31 - 1). */
#define PNG_MAX_DIM 0x7fffffffu

/* Upper bound in bytes of the PNG png_encode_mem writes for a width x height RGB image (the stored
 * encoding plus block and chunk headers); 0 when the size is invalid (zero, above PNG_MAX_DIM, or
 * the file would not fit in size_t). */
TF_LOCAL size_t png_encoded_size(uint32_t width, uint32_t height);

/* Write rgb (height rows of width x 3 bytes, top row first) as a PNG file at path. Returns TF_OK,
 * TF_E_INVALID_ARG (NULL, zero or too large size), TF_E_NOMEM or TF_E_IO; on failure err
 * (Nullable) gets a message naming the path and the failing operation (open, write, close); a
 * partly written file is left as it is. */
TF_LOCAL tf_status png_write(const char *path, const uint8_t *rgb, uint32_t width, uint32_t height,
                             char *err, size_t err_size);

/* Encode into out (capacity out_cap bytes, at least png_encoded_size(width, height)); the size
 * written goes to *out_size (Nullable). TF_E_INVALID_ARG with a message when out is too small,
 * TF_E_NOMEM when the scratch cannot be allocated. */
TF_LOCAL tf_status png_encode_mem(const uint8_t *rgb, uint32_t width, uint32_t height, uint8_t *out,
                                  size_t out_cap, size_t *out_size, char *err, size_t err_size);

/* CRC-32 of the PNG spec (ISO 3309, reflected polynomial 0xEDB88320), of n bytes. */
TF_LOCAL uint32_t png_crc32(const uint8_t *data, size_t n);
/* Adler-32 of RFC 1950 sec. 8, of n bytes. */
TF_LOCAL uint32_t png_adler32(const uint8_t *data, size_t n);

#endif
