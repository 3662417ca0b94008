/* SPDX-License-Identifier: MIT
 * PNG writer (PNG spec, 2nd ed., W3C 2003) for 8-bit RGB without compression. Bytes stream through
 * a sink (a FILE or a caller buffer) that keeps the running CRC of the open chunk and the Adler-32
 * of the uncompressed data, so nothing is allocated and no scanline is copied: each IDAT chunk is
 * one stored deflate block (header BFINAL/BTYPE=00, LEN, NLEN = ~LEN) whose bytes are the filter
 * byte 0 and slices of the caller's rows. The CRC table lives in the sink, rebuilt per image
 * (256 x 8 shifts), so there is no global state. */
#include "render/png.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const uint8_t PNG_SIGNATURE[8] = {137, 80, 78, 71, 13, 10, 26, 10};
static const uint32_t CRC_POLY = 0xEDB88320u; /* ISO 3309 polynomial, bit-reflected */
static const uint32_t ADLER_MOD = 65521;      /* largest prime below 2^16 (RFC 1950) */
/* bytes of input before the Adler sums must be reduced to stay in 32 bits (zlib's NMAX) */
static const size_t ADLER_NMAX = 5552;
/* zlib header: CM 8 (deflate), CINFO 7 (32 KiB window), FLEVEL 0, FCHECK making
 * (CMF * 256 + FLG) a multiple of 31 (RFC 1950 sec. 2.2) */
static const uint8_t ZLIB_CMF = 0x78, ZLIB_FLG = 0x01;
static const uint8_t FILTER_NONE = 0;
static const uint8_t BIT_DEPTH = 8, COLOR_TYPE_RGB = 2;

enum {
  STORED_MAX = 65535,  /* a stored block's LEN is 16 bits */
  CHUNK_OVERHEAD = 12, /* length, type, CRC */
  IHDR_SIZE = 13,
  ZLIB_HEADER = 2,
  ZLIB_TRAILER = 4,    /* Adler-32, big-endian */
  STORED_HEADER = 5    /* BFINAL/BTYPE byte, LEN, NLEN */
};

typedef struct png_sink {
  FILE *f;          /* file output, or NULL for memory */
  uint8_t *mem;     /* memory output of capacity cap */
  size_t cap, len;  /* len: bytes written so far */
  int failed;       /* a write failed; later writes are dropped */
  int saved_errno;  /* errno of the failed file write */
  uint32_t crc;     /* running CRC of the open chunk, pre-inverted */
  uint32_t adler_a, adler_b;
  uint32_t crc_table[256];
} png_sink;

static void crc_table_init(uint32_t t[256]) {
  for (uint32_t n = 0; n < 256; ++n) {
    uint32_t c = n;
    for (int k = 0; k < 8; ++k) c = (c & 1u) ? CRC_POLY ^ (c >> 1) : c >> 1;
    t[n] = c;
  }
}

static uint32_t crc_update(const uint32_t t[256], uint32_t crc, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; ++i) crc = t[(crc ^ p[i]) & 0xffu] ^ (crc >> 8);
  return crc;
}

static void adler_update(uint32_t *a, uint32_t *b, const uint8_t *p, size_t n) {
  while (n > 0) {
    size_t m = n < ADLER_NMAX ? n : ADLER_NMAX;
    for (size_t i = 0; i < m; ++i) {
      *a += p[i];
      *b += *a;
    }
    *a %= ADLER_MOD;
    *b %= ADLER_MOD;
    p += m;
    n -= m;
  }
}

uint32_t png_crc32(const uint8_t *data, size_t n) {
  uint32_t t[256];
  crc_table_init(t);
  return crc_update(t, 0xffffffffu, data, n) ^ 0xffffffffu;
}

uint32_t png_adler32(const uint8_t *data, size_t n) {
  uint32_t a = 1, b = 0;
  adler_update(&a, &b, data, n);
  return (b << 16) | a;
}

static void set_err(char *err, size_t err_size, const char *fmt, ...) {
  if (!err || err_size == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, err_size, fmt, ap);
  va_end(ap);
}

static void be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

/* bytes outside any chunk's CRC (signature, lengths, CRCs) */
static void put_raw(png_sink *s, const uint8_t *p, size_t n) {
  if (s->failed || n == 0) return;
  if (s->f) {
    if (fwrite(p, 1, n, s->f) != n) {
      s->failed = 1;
      s->saved_errno = errno;
      return;
    }
  } else {
    if (n > s->cap - s->len) {
      s->failed = 1;
      return;
    }
    memcpy(s->mem + s->len, p, n);
  }
  s->len += n;
}

/* chunk type and data: covered by the chunk's CRC */
static void put(png_sink *s, const uint8_t *p, size_t n) {
  s->crc = crc_update(s->crc_table, s->crc, p, n);
  put_raw(s, p, n);
}

static void chunk_begin(png_sink *s, const char type[4], uint32_t len) {
  uint8_t h[4];
  be32(h, len);
  put_raw(s, h, 4);
  s->crc = 0xffffffffu;
  put(s, (const uint8_t *)type, 4);
}

static void chunk_end(png_sink *s) {
  uint8_t t[4];
  be32(t, s->crc ^ 0xffffffffu);
  put_raw(s, t, 4);
}

/* n bytes of the filtered image data from offset off: each row of stride bytes is the filter byte
 * then the row's pixels; they also feed the Adler-32 of the zlib stream */
static void put_image_bytes(png_sink *s, const uint8_t *rgb, size_t stride, size_t off, size_t n) {
  while (n > 0) {
    size_t row = off / stride, col = off % stride;
    const uint8_t *p;
    size_t m;
    if (col == 0) {
      p = &FILTER_NONE;
      m = 1;
    } else {
      p = rgb + row * (stride - 1) + (col - 1);
      m = stride - col < n ? stride - col : n;
    }
    put(s, p, m);
    adler_update(&s->adler_a, &s->adler_b, p, m);
    off += m;
    n -= m;
  }
}

static void encode(png_sink *s, const uint8_t *rgb, uint32_t width, uint32_t height) {
  crc_table_init(s->crc_table);
  s->adler_a = 1;
  s->adler_b = 0;
  put_raw(s, PNG_SIGNATURE, sizeof PNG_SIGNATURE);

  /* IHDR: compression 0 (deflate), filter method 0, no interlace */
  uint8_t ihdr[IHDR_SIZE] = {0};
  be32(ihdr, width);
  be32(ihdr + 4, height);
  ihdr[8] = BIT_DEPTH;
  ihdr[9] = COLOR_TYPE_RGB;
  chunk_begin(s, "IHDR", IHDR_SIZE);
  put(s, ihdr, IHDR_SIZE);
  chunk_end(s);

  /* IDAT chunks, one stored block each; the zlib header rides on the first, Adler-32 on the last */
  size_t stride = 1 + 3 * (size_t)width, total = stride * height;
  for (size_t off = 0; off < total;) {
    size_t n = total - off < STORED_MAX ? total - off : STORED_MAX;
    int first = off == 0, last = off + n == total;
    size_t len = (first ? ZLIB_HEADER : 0) + STORED_HEADER + n + (last ? ZLIB_TRAILER : 0);
    chunk_begin(s, "IDAT", (uint32_t)len);
    if (first) {
      const uint8_t zh[ZLIB_HEADER] = {ZLIB_CMF, ZLIB_FLG};
      put(s, zh, ZLIB_HEADER);
    }
    /* BFINAL in bit 0, BTYPE 00 (stored) in bits 1-2; LEN and NLEN little-endian */
    uint16_t l = (uint16_t)n, nl = (uint16_t)~l;
    const uint8_t bh[STORED_HEADER] = {(uint8_t)(last ? 1 : 0), (uint8_t)(l & 0xffu), (uint8_t)(l >> 8),
                                       (uint8_t)(nl & 0xffu), (uint8_t)(nl >> 8)};
    put(s, bh, STORED_HEADER);
    put_image_bytes(s, rgb, stride, off, n);
    if (last) {
      uint8_t tr[ZLIB_TRAILER];
      be32(tr, (s->adler_b << 16) | s->adler_a);
      put(s, tr, ZLIB_TRAILER);
    }
    chunk_end(s);
    off += n;
  }

  chunk_begin(s, "IEND", 0);
  chunk_end(s);
}

size_t png_encoded_size(uint32_t width, uint32_t height) {
  if (width == 0 || height == 0 || width > PNG_MAX_DIM || height > PNG_MAX_DIM) return 0;
  size_t stride = 1 + 3 * (size_t)width;
  if (stride < width || height > SIZE_MAX / stride) return 0;
  size_t total = stride * height;
  size_t blocks = total / STORED_MAX + (total % STORED_MAX != 0);
  size_t fixed = sizeof PNG_SIGNATURE + (CHUNK_OVERHEAD + IHDR_SIZE) + ZLIB_HEADER + ZLIB_TRAILER +
                 CHUNK_OVERHEAD /* IEND */;
  size_t per_block = CHUNK_OVERHEAD + STORED_HEADER;
  if (blocks > (SIZE_MAX - fixed) / per_block) return 0;
  size_t overhead = fixed + blocks * per_block;
  if (total > SIZE_MAX - overhead) return 0;
  return total + overhead;
}

static tf_status check_args(const uint8_t *rgb, uint32_t width, uint32_t height, size_t *out_size,
                            char *err, size_t err_size) {
  if (!rgb) {
    set_err(err, err_size, "rgb is NULL");
    return TF_E_INVALID_ARG;
  }
  *out_size = png_encoded_size(width, height);
  if (*out_size == 0) {
    set_err(err, err_size, "image size %ux%u is invalid (each side 1 to %u)", (unsigned)width,
            (unsigned)height, (unsigned)PNG_MAX_DIM);
    return TF_E_INVALID_ARG;
  }
  return TF_OK;
}

tf_status png_encode_mem(const uint8_t *rgb, uint32_t width, uint32_t height, uint8_t *out,
                         size_t out_cap, size_t *out_size, char *err, size_t err_size) {
  size_t need;
  tf_status st = check_args(rgb, width, height, &need, err, err_size);
  if (st != TF_OK) return st;
  if (!out || out_cap < need) {
    set_err(err, err_size, "output buffer holds %zu bytes, the %ux%u PNG needs %zu", out ? out_cap : 0,
            (unsigned)width, (unsigned)height, need);
    return TF_E_INVALID_ARG;
  }
  png_sink s;
  memset(&s, 0, sizeof s);
  s.mem = out;
  s.cap = out_cap;
  encode(&s, rgb, width, height);
  if (out_size) *out_size = s.len;
  return TF_OK;
}

tf_status png_write(const char *path, const uint8_t *rgb, uint32_t width, uint32_t height, char *err,
                    size_t err_size) {
  if (!path) {
    set_err(err, err_size, "path is NULL");
    return TF_E_INVALID_ARG;
  }
  size_t need;
  tf_status st = check_args(rgb, width, height, &need, err, err_size);
  if (st != TF_OK) return st;
  png_sink s;
  memset(&s, 0, sizeof s);
  s.f = fopen(path, "wb");
  if (!s.f) {
    set_err(err, err_size, "cannot open '%s' for writing: %s", path, strerror(errno));
    return TF_E_IO;
  }
  encode(&s, rgb, width, height);
  /* fclose flushes the stdio buffer, so it can be where a full disk shows */
  int close_failed = fclose(s.f) != 0;
  int close_errno = errno;
  if (s.failed || close_failed) {
    set_err(err, err_size, "%s of '%s' failed: %s", s.failed ? "write" : "close", path,
            strerror(s.failed ? s.saved_errno : close_errno));
    return TF_E_IO;
  }
  return TF_OK;
}
