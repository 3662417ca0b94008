/* SPDX-License-Identifier: MIT
 * The software renderer: PNG files are checked by an independent decoder written here (signature,
 * every chunk CRC, IHDR fields, zlib header, an inflater for the stored and fixed-Huffman blocks
 * png.c writes, Adler-32, the five filters, exact pixels), which itself must reject every
 * single-bit corruption; round trips cover rendered scenes and adversarial images (all zero,
 * noise, long runs, gradients, 1x1, widths that are not a multiple of 4, matches at the window's
 * far end); the contact sheet of a cape-sized render must be at least 5x smaller than the stored
 * encoding png.c used before. The rasterizer by images of scenes whose answer is known (a
 * face-on triangle, a turned-away one, two overlapping ones, edges, pins, a plane running behind
 * the camera, NaN and out-of-range input); camera_fit by projecting every vertex; the contact
 * sheet by its tile and separator pixels. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "render/contact_sheet.h"
#include "render/png.h"
#include "render/raster.h"
#include "tf_test.h"

/* ---------------------------------------------------------------------------------------------
 * Test PNG decoder: 8-bit RGB, deflate blocks of type stored or fixed Huffman (the only ones
 * png.c writes; a dynamic block is refused), any filter; it checks every field a reader would,
 * independently of png.c's code (RFC 1950, RFC 1951, PNG spec 2nd ed.). */

static const uint8_t SIG[8] = {137, 80, 78, 71, 13, 10, 26, 10};

typedef struct decoded {
  uint32_t width, height;
  uint8_t *rgb;           /* width x height x 3, malloc'd */
  uint32_t idat_chunks;   /* IDAT chunks seen */
  uint32_t blocks;        /* deflate blocks */
  uint32_t stored_blocks; /* of which stored */
  uint32_t filters[5];    /* scanlines per filter type */
  size_t matches;         /* LZ77 back references */
  size_t max_dist;        /* the farthest of them */
} decoded;

static uint32_t t_crc32(const uint8_t *p, size_t n) {
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return c ^ 0xffffffffu;
}

static uint32_t t_adler32(const uint8_t *p, size_t n) {
  uint32_t a = 1, b = 0;
  for (size_t i = 0; i < n; ++i) {
    a = (a + p[i]) % 65521u;
    b = (b + a) % 65521u;
  }
  return (b << 16) | a;
}

static uint32_t rd32(const uint8_t *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static void wr32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

/* bits least significant first (RFC 1951 sec. 3.1.1); reading past the end sets overrun */
typedef struct bitreader {
  const uint8_t *p;
  size_t n, pos;
  unsigned bit;
  int overrun;
} bitreader;

static uint32_t get_bits(bitreader *br, unsigned k) {
  uint32_t v = 0;
  for (unsigned i = 0; i < k; ++i) {
    if (br->pos >= br->n) {
      br->overrun = 1;
      return 0;
    }
    v |= (uint32_t)((br->p[br->pos] >> br->bit) & 1u) << i;
    if (++br->bit == 8) br->bit = 0, br->pos++;
  }
  return v;
}

/* a fixed-code literal/length symbol (RFC 1951 sec. 3.2.6), Huffman bits most significant first:
 * 7 bits 0000000-0010111 are 256-279, 8 bits 00110000-10111111 are 0-143 and 11000000-11000111
 * 280-287, 9 bits 110010000-111111111 are 144-255 */
static int fixed_symbol(bitreader *br) {
  uint32_t c = 0;
  for (int len = 1; len <= 9; ++len) {
    c = (c << 1) | get_bits(br, 1);
    if (len == 7 && c <= 0x17) return 256 + (int)c;
    if (len == 8 && c >= 0x30 && c <= 0xBF) return (int)c - 0x30;
    if (len == 8 && c >= 0xC0 && c <= 0xC7) return 280 + (int)c - 0xC0;
    if (len == 9 && c >= 0x190) return 144 + (int)c - 0x190;
  }
  return -1;
}

/* the zlib stream into raw (exactly cap bytes expected); NULL or the failed check */
static const char *inflate_zlib(const uint8_t *z, size_t zlen, uint8_t *raw, size_t cap,
                                decoded *out) {
  static const uint16_t lbase[29] = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                     15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                     67, 83, 99, 115, 131, 163, 195, 227, 258};
  static const uint8_t lextra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                     2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
  if (zlen < 2 + 4) return "zlib stream too short";
  if ((z[0] & 0x0f) != 8 || (z[0] >> 4) > 7 || ((z[0] << 8) | z[1]) % 31 != 0 || (z[1] & 0x20))
    return "zlib header";
  bitreader br = {z + 2, zlen - 2, 0, 0, 0};
  size_t len = 0;
  uint32_t final = 0;
  while (!final) {
    final = get_bits(&br, 1);
    uint32_t type = get_bits(&br, 2);
    out->blocks++;
    if (type == 0) {
      if (br.bit) br.bit = 0, br.pos++;
      if (br.n - br.pos < 4) return "stored block header truncated";
      const uint8_t *h = br.p + br.pos;
      uint32_t l = h[0] | ((uint32_t)h[1] << 8), nl = h[2] | ((uint32_t)h[3] << 8);
      if ((l ^ nl) != 0xffffu) return "LEN/NLEN mismatch";
      br.pos += 4;
      if (l > br.n - br.pos) return "stored block runs past the data";
      if (l > cap - len) return "more image data than IHDR says";
      memcpy(raw + len, br.p + br.pos, l);
      len += l;
      br.pos += l;
      out->stored_blocks++;
    } else if (type == 1) {
      for (;;) {
        int sym = fixed_symbol(&br);
        if (br.overrun) return "deflate data truncated";
        if (sym < 0 || sym > 285) return "bad literal/length code";
        if (sym < 256) {
          if (len == cap) return "more image data than IHDR says";
          raw[len++] = (uint8_t)sym;
          continue;
        }
        if (sym == 256) break;
        uint32_t li = (uint32_t)sym - 257, mlen = lbase[li] + get_bits(&br, lextra[li]);
        uint32_t dc = 0;
        for (int k = 0; k < 5; ++k) dc = (dc << 1) | get_bits(&br, 1);
        if (dc >= 30) return "bad distance code";
        /* distance codes: 1-4, then pairs with extra bits (dc - 2) / 2 */
        uint32_t dextra = dc < 4 ? 0 : (dc - 2) / 2;
        uint32_t dbase = dc < 4 ? dc + 1 : ((2u + (dc & 1u)) << dextra) + 1;
        uint32_t dist = dbase + get_bits(&br, dextra);
        if (br.overrun) return "deflate data truncated";
        if (dist > len) return "distance before the start of the data";
        if (dist > 32768) return "distance past the 32 KiB window";
        if (mlen > cap - len) return "more image data than IHDR says";
        for (uint32_t k = 0; k < mlen; ++k, ++len) raw[len] = raw[len - dist];
        out->matches++;
        if (dist > out->max_dist) out->max_dist = dist;
      }
    } else {
      return "block type other than stored or fixed Huffman";
    }
    if (br.overrun) return "deflate data truncated";
  }
  if (br.bit) br.pos++;
  if (len != cap) return "less image data than IHDR says";
  if (br.n - br.pos != 4) return "bytes after the Adler-32 trailer or trailer truncated";
  if (rd32(br.p + br.pos) != t_adler32(raw, len)) return "Adler-32 mismatch";
  return NULL;
}

/* undo PNG filtering (PNG spec sec. 9.2-9.4) of raw (height rows of 1 + stride bytes) into rgb */
static const char *unfilter(const uint8_t *raw, uint32_t height, size_t stride, uint8_t *rgb,
                            decoded *out) {
  for (uint32_t y = 0; y < height; ++y) {
    const uint8_t *f = raw + y * (stride + 1);
    uint8_t *cur = rgb + y * stride;
    const uint8_t *up = y > 0 ? cur - stride : NULL;
    if (f[0] > 4) return "filter type other than 0-4";
    out->filters[f[0]]++;
    for (size_t i = 0; i < stride; ++i) {
      int a = i >= 3 ? cur[i - 3] : 0, b = up ? up[i] : 0, c = up && i >= 3 ? up[i - 3] : 0,
          pred = 0;
      if (f[0] == 1)
        pred = a;
      else if (f[0] == 2)
        pred = b;
      else if (f[0] == 3)
        pred = (a + b) / 2;
      else if (f[0] == 4) {
        int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
        pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      cur[i] = (uint8_t)(f[1 + i] + pred);
    }
  }
  return NULL;
}

/* NULL on success (out->rgb to free), else the check that failed */
static const char *decode_png(const uint8_t *png, size_t n, decoded *out) {
  memset(out, 0, sizeof *out);
  if (n < 8 || memcmp(png, SIG, 8) != 0) return "signature";
  uint8_t *z = NULL;
  size_t zlen = 0, off = 8;
  int ihdr = 0, iend = 0;
  const char *bad = NULL;
  while (!bad && off < n) {
    if (n - off < 12) {
      bad = "truncated chunk";
      break;
    }
    uint32_t len = rd32(png + off);
    if (len > n - off - 12) {
      bad = "chunk length past the end";
      break;
    }
    const uint8_t *type = png + off + 4, *data = png + off + 8;
    if (t_crc32(type, 4 + (size_t)len) != rd32(data + len)) {
      bad = "chunk CRC";
      break;
    }
    if (!ihdr && memcmp(type, "IHDR", 4) != 0) {
      bad = "first chunk is not IHDR";
      break;
    }
    if (memcmp(type, "IHDR", 4) == 0) {
      if (ihdr) {
        bad = "second IHDR";
        break;
      }
      if (len != 13) {
        bad = "IHDR length";
        break;
      }
      if (data[8] != 8 || data[9] != 2 || data[10] || data[11] || data[12])
        bad = "IHDR format fields";
      out->width = rd32(data);
      out->height = rd32(data + 4);
      if (!bad && (out->width == 0 || out->height == 0 || out->width > 0x7fffffffu ||
                   out->height > 0x7fffffffu))
        bad = "IHDR size";
      ihdr = 1;
    } else if (memcmp(type, "IDAT", 4) == 0) {
      uint8_t *nz = realloc(z, zlen + len + 1);
      if (!nz) {
        bad = "out of memory";
        break;
      }
      z = nz;
      memcpy(z + zlen, data, len);
      zlen += len;
      out->idat_chunks++;
    } else if (memcmp(type, "IEND", 4) == 0) {
      if (len != 0) bad = "IEND length";
      iend = 1;
      off += 12;
      if (!bad && off != n) bad = "bytes after IEND";
      break;
    } else if (!(type[0] & 0x20)) {
      bad = "unknown critical chunk";
    }
    off += 12 + (size_t)len;
  }
  if (!bad && !iend) bad = "no IEND";
  if (!bad && out->idat_chunks == 0) bad = "no IDAT";
  size_t stride = 3 * (size_t)out->width, raw_len = (1 + stride) * out->height;
  uint8_t *raw = bad ? NULL : malloc(raw_len);
  if (!bad && !raw) bad = "out of memory";
  if (!bad) bad = inflate_zlib(z, zlen, raw, raw_len, out);
  if (!bad) {
    out->rgb = malloc(stride * out->height);
    bad = out->rgb ? unfilter(raw, out->height, stride, out->rgb, out) : "out of memory";
  }
  free(raw);
  free(z);
  if (bad) {
    free(out->rgb);
    out->rgb = NULL;
  }
  return bad;
}

/* offset of the first chunk of this type, or 0 */
static size_t find_chunk(const uint8_t *png, size_t n, const char *type) {
  for (size_t off = 8; off + 12 <= n; off += 12 + (size_t)rd32(png + off))
    if (memcmp(png + off + 4, type, 4) == 0) return off;
  return 0;
}

/* recompute the CRC of the chunk at off, so a corruption inside it gets past the CRC check */
static void fix_crc(uint8_t *png, size_t off) {
  uint32_t len = rd32(png + off);
  wr32(png + off + 8 + len, t_crc32(png + off + 4, 4 + (size_t)len));
}

/* the size of the PNG png.c wrote before it compressed: one stored block per IDAT chunk of up to
 * 65535 bytes of filter-0 scanlines, a bound every compressed PNG must beat */
static size_t stored_png_size(uint32_t w, uint32_t h) {
  size_t total = (1 + 3 * (size_t)w) * h, blocks = (total + 65534) / 65535;
  return 8 + 25 + 2 + 4 + blocks * (12 + 5) + total + 12;
}

static uint8_t *pattern_image(uint32_t w, uint32_t h, uint32_t seed) {
  uint8_t *rgb = malloc(3 * (size_t)w * h);
  uint32_t s = seed;
  for (size_t i = 0; i < 3 * (size_t)w * h; ++i) {
    s = s * 1664525u + 1013904223u; /* LCG (Numerical Recipes) */
    rgb[i] = (uint8_t)(s >> 24);
  }
  return rgb;
}

/* encode rgb to memory, decode, compare; NULL or what went wrong; the file size and decoder
 * counts in *out_size and *out (Nullable) */
static const char *roundtrip_rgb(const uint8_t *rgb, uint32_t w, uint32_t h, size_t *out_size,
                                 decoded *out) {
  static char msg[160];
  size_t need = png_encoded_size(w, h), got = 0;
  uint8_t *png = malloc(need);
  char err[128] = "";
  decoded d;
  const char *bad = NULL;
  if (!png)
    bad = "out of memory";
  else if (png_encode_mem(rgb, w, h, png, need, &got, err, sizeof err) != TF_OK)
    bad = err;
  else if (got > need)
    bad = "encoded size exceeds png_encoded_size";
  else if ((bad = decode_png(png, got, &d)) == NULL) {
    if (d.width != w || d.height != h)
      bad = "IHDR size differs";
    else if (memcmp(d.rgb, rgb, 3 * (size_t)w * h) != 0)
      bad = "pixels differ";
    else if (got > stored_png_size(w, h) + 6 * ((1 + 3 * (size_t)w) * h / 16384 + 2) +
                       12 * ((1 + 3 * (size_t)w) * h / 32768 + 1))
      bad = "larger than stored blocks of 16 KiB in chunks of 32 KiB";
    free(d.rgb);
    d.rgb = NULL;
    if (out) *out = d;
  }
  if (out_size) *out_size = got;
  if (bad) {
    snprintf(msg, sizeof msg, "%ux%u: %s", (unsigned)w, (unsigned)h, bad);
    bad = msg;
  }
  free(png);
  return bad;
}

static const char *roundtrip(uint32_t w, uint32_t h, uint32_t seed, decoded *out) {
  uint8_t *rgb = pattern_image(w, h, seed);
  const char *bad = roundtrip_rgb(rgb, w, h, NULL, out);
  free(rgb);
  return bad;
}

static uint8_t *read_file(const char *path, size_t *out_n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *buf = n > 0 ? malloc((size_t)n) : NULL;
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *out_n = buf ? (size_t)n : 0;
  return buf;
}

/* a fresh empty file in $TMPDIR (or /tmp); path filled in */
static int temp_path(char *path, size_t n) {
  const char *dir = getenv("TMPDIR");
  snprintf(path, n, "%s/tf_render_XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0) return 0;
  close(fd);
  return 1;
}

TF_TEST(render_png_crc_adler_known_values) {
  const uint8_t *digits = (const uint8_t *)"123456789", *wiki = (const uint8_t *)"Wikipedia";
  /* the check values of CRC-32/ISO-HDLC and of RFC 1950's Adler-32 (its Wikipedia example) */
  ENSURE(png_crc32(digits, 9) == 0xCBF43926u);
  ENSURE(png_adler32(wiki, 9) == 0x11E60398u);
  ENSURE(t_crc32(digits, 9) == 0xCBF43926u);
  ENSURE(t_adler32(wiki, 9) == 0x11E60398u);
  ENSURE(png_crc32(digits, 0) == 0u);
  ENSURE(png_adler32(wiki, 0) == 1u);
  /* Adler sums past zlib's NMAX reduction interval agree with the reduce-every-byte version */
  uint8_t *big = pattern_image(10000, 1, 7);
  uint32_t a = png_adler32(big, 30000), b = t_adler32(big, 30000);
  uint32_t c1 = png_crc32(big, 30000), c2 = t_crc32(big, 30000);
  free(big);
  ENSURE(a == b);
  ENSURE(c1 == c2);
}

TF_TEST(render_png_inflater_known_streams) {
  /* the test inflater against streams from zlib 1.2 (python3 zlib.compress): "a" x 20 as one
   * fixed block (a literal, then a match of length 19 at distance 1), and a stored block */
  const uint8_t fixed[] = {0x78, 0x9c, 0x4b, 0x4c, 0xc4, 0x04, 0x00, 0x4f, 0xa6, 0x07, 0x95};
  const uint8_t stored[] = {0x78, 0x01, 0x01, 0x03, 0x00, 0xfc, 0xff,
                            0x61, 0x62, 0x63, 0x02, 0x4d, 0x01, 0x27};
  uint8_t out[20];
  decoded d = {0};
  const char *why = inflate_zlib(fixed, sizeof fixed, out, 20, &d);
  ENSURE_MSG(why == NULL, "%s", why);
  ENSURE(d.blocks == 1 && d.stored_blocks == 0 && d.matches == 1 && d.max_dist == 1);
  for (int i = 0; i < 20; ++i) ENSURE(out[i] == 'a');
  memset(&d, 0, sizeof d);
  why = inflate_zlib(stored, sizeof stored, out, 3, &d);
  ENSURE_MSG(why == NULL, "%s", why);
  ENSURE(d.stored_blocks == 1 && memcmp(out, "abc", 3) == 0);
  /* one byte fewer expected: refused */
  memset(&d, 0, sizeof d);
  why = inflate_zlib(fixed, sizeof fixed, out, 19, &d);
  ENSURE(why != NULL && strstr(why, "more image data"));
}

TF_TEST(render_png_roundtrip_small) {
  /* rows shorter and longer than a pixel, widths that are not a multiple of 4, one pixel */
  const uint32_t sizes[][2] = {{1, 1}, {7, 5}, {1, 64},  {300, 2}, {2, 3},
                               {3, 9}, {5, 5}, {13, 11}, {4097, 3}};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    const char *bad = roundtrip(sizes[i][0], sizes[i][1], (uint32_t)i + 1, NULL);
    ENSURE_MSG(bad == NULL, "%s", bad);
  }
  /* a buffer one byte short of the bound is refused with both sizes in the message */
  uint8_t px[3 * 4] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  size_t need = png_encoded_size(2, 2);
  uint8_t *png = malloc(need);
  char err[128] = "";
  tf_status st = png_encode_mem(px, 2, 2, png, need - 1, NULL, err, sizeof err);
  free(png);
  ENSURE(st == TF_E_INVALID_ARG);
  ENSURE_MSG(strstr(err, "needs") != NULL, "%s", err);
}

TF_TEST(render_png_adversarial_images) {
  decoded d;
  size_t size = 0;
  const char *bad;
  /* noise: nothing to find, so stored blocks; no larger than the old stored file plus headers */
  bad = roundtrip(400, 300, 13, &d);
  ENSURE_MSG(bad == NULL, "%s", bad);
  ENSURE_MSG(d.stored_blocks > 0, "%u stored of %u blocks", d.stored_blocks, d.blocks);
  bad = roundtrip(1456, 16, 12, &d);
  ENSURE_MSG(bad == NULL, "%s", bad);

  /* all zero: long runs of one byte, matches at distance 1 (or a row up); over 100x smaller */
  uint32_t w = 1000, h = 700;
  uint8_t *rgb = calloc(3 * (size_t)w * h, 1);
  bad = roundtrip_rgb(rgb, w, h, &size, &d);
  ENSURE_MSG(bad == NULL, "%s", bad);
  ENSURE_MSG(size * 100 < stored_png_size(w, h), "all-zero %ux%u: %zu bytes", w, h, size);
  ENSURE(d.stored_blocks == 0 && d.matches > 0);

  /* runs of colour of every length 1..300 across rows, and a horizontal gradient (Sub wins) and a
   * vertical one (Up wins): several filters in one image */
  for (size_t i = 0, run = 1, k = 0; i < (size_t)w * h; ++k) {
    for (size_t j = 0; j < run && i < (size_t)w * h; ++j, ++i) {
      rgb[3 * i] = (uint8_t)(k * 37);
      rgb[3 * i + 1] = (uint8_t)(k * 11);
      rgb[3 * i + 2] = (uint8_t)k;
    }
    run = run % 300 + 1;
  }
  for (uint32_t y = 200; y < 400; ++y)
    for (uint32_t x = 0; x < w; ++x)
      memset(rgb + 3 * ((size_t)y * w + x), (int)(x * 7 + y / 50), 3);
  for (uint32_t y = 400; y < 600; ++y)
    for (uint32_t x = 0; x < w; ++x)
      memset(rgb + 3 * ((size_t)y * w + x), (int)(y * 3 + (x / 100) * 40), 3);
  bad = roundtrip_rgb(rgb, w, h, &size, &d);
  ENSURE_MSG(bad == NULL, "%s", bad);
  ENSURE_MSG(size * 5 < stored_png_size(w, h), "runs %ux%u: %zu bytes", w, h, size);
  ENSURE_MSG(d.filters[0] + d.filters[1] + d.filters[2] + d.filters[3] + d.filters[4] == h &&
                 d.filters[1] > 0 && d.filters[2] > 0,
             "filters none %u sub %u up %u avg %u paeth %u", d.filters[0], d.filters[1],
             d.filters[2], d.filters[3], d.filters[4]);
  free(rgb);

  /* noise repeated every 10833 pixels (32499 bytes) in one long row: matches near the far end of
   * the window (zlib's MAX_DIST, 32 KiB less 262 bytes of lookahead); with no row above, every
   * filter keeps the repeat */
  w = 60000;
  rgb = pattern_image(w, 1, 21);
  for (size_t i = 3 * 10833; i < 3 * (size_t)w; ++i) rgb[i] = rgb[i - 3 * 10833];
  bad = roundtrip_rgb(rgb, w, 1, &size, &d);
  ENSURE_MSG(bad == NULL, "%s", bad);
  ENSURE_MSG(d.max_dist > 32000 && size < 3 * (size_t)w / 4, "farthest match %zu, %zu bytes",
             d.max_dist, size);
  free(rgb);

  /* one pixel of each extreme */
  const uint8_t one[2][3] = {{0, 0, 0}, {255, 255, 255}};
  for (int k = 0; k < 2; ++k) {
    bad = roundtrip_rgb(one[k], 1, 1, &size, NULL);
    ENSURE_MSG(bad == NULL, "%s", bad);
  }
}

TF_TEST(render_png_decoder_rejects_corruption) {
  /* noise, so the stream is a stored block whose fields sit at known offsets */
  uint32_t w = 16, h = 16;
  uint8_t *rgb = pattern_image(w, h, 3);
  size_t cap = png_encoded_size(w, h), n = 0;
  uint8_t *png = malloc(cap), *bad_png = malloc(cap);
  decoded d;
  ENSURE(png_encode_mem(rgb, w, h, png, cap, &n, NULL, 0) == TF_OK);
  const char *why = decode_png(png, n, &d);
  ENSURE_MSG(why == NULL, "%s", why);
  free(d.rgb);
  ENSURE(d.stored_blocks == 1);
  /* every single-bit flip anywhere in the file is caught (by the signature, a chunk CRC or the
   * chunk structure): the decoder is not a rubber stamp */
  for (size_t i = 0; i < n; ++i)
    for (int bit = 0; bit < 8; bit += 7) {
      memcpy(bad_png, png, n);
      bad_png[i] ^= (uint8_t)(1u << bit);
      why = decode_png(bad_png, n, &d);
      free(d.rgb);
      ENSURE_MSG(why != NULL, "flipping bit %d of byte %zu of %zu went unnoticed", bit, i, n);
    }
  /* corruptions with the chunk CRC recomputed reach the zlib checks */
  size_t idat = find_chunk(png, n, "IDAT");
  ENSURE(idat > 0);
  uint8_t *z = png + idat + 8; /* zlib header at z[0..1], stored block header at z[2..6] */
  size_t raw_len = (1 + 3 * (size_t)w) * h;
  struct {
    size_t at;
    uint8_t set;
    const char *expect;
  } cases[] = {
      {0, 0x79, "zlib header"},      /* CMF with CM 9 */
      {2, 0x05, "block type"},       /* BTYPE 10 (dynamic) */
      {5, 0x00, "LEN/NLEN"},         /* NLEN low byte */
      {2 + 5 + 3, 0x00, "Adler-32"}, /* a pixel byte */
      {2 + 5, 0x07, "filter type"}, /* the first filter byte, with the Adler sum also fixed below */
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    memcpy(bad_png, png, n);
    size_t at = (size_t)(z - png) + cases[c].at;
    bad_png[at] = cases[c].set != bad_png[at] ? cases[c].set : (uint8_t)(cases[c].set ^ 0x10);
    if (strcmp(cases[c].expect, "filter type") == 0)
      wr32(bad_png + at + raw_len, t_adler32(bad_png + at, raw_len));
    fix_crc(bad_png, idat);
    why = decode_png(bad_png, n, &d);
    free(d.rgb);
    ENSURE_MSG(why != NULL && strstr(why, cases[c].expect) != NULL,
               "byte %zu: expected '%s', got '%s'", cases[c].at, cases[c].expect,
               why ? why : "(accepted)");
  }
  free(png);
  free(bad_png);
  free(rgb);
}

TF_TEST(render_png_write_errors) {
  uint8_t px[3] = {1, 2, 3};
  char err[256] = "";
  const char *missing = "/nonexistent-tauform-dir/out.png";
  ENSURE(png_write(missing, px, 1, 1, err, sizeof err) == TF_E_IO);
  ENSURE_MSG(strstr(err, missing) && strstr(err, "open"), "%s", err);
  ENSURE(png_write(missing, px, 1, 1, NULL, 0) == TF_E_IO); /* errbuf is nullable */
  ENSURE(png_write("/tmp/x.png", NULL, 1, 1, err, sizeof err) == TF_E_INVALID_ARG);
  ENSURE_MSG(strstr(err, "rgb"), "%s", err);
  ENSURE(png_write(NULL, px, 1, 1, err, sizeof err) == TF_E_INVALID_ARG);
  ENSURE(png_write("/tmp/x.png", px, 0, 1, err, sizeof err) == TF_E_INVALID_ARG);
  ENSURE_MSG(strstr(err, "0x1"), "%s", err);
  ENSURE(png_encoded_size(0, 1) == 0 && png_encoded_size(1, 0) == 0);
  ENSURE(png_encoded_size(PNG_MAX_DIM + 1u, 1) == 0);
  /* a full device: the write (or the flush at close) fails and says which; noise does not
   * compress, so the file is larger than stdio's buffer */
  if (access("/dev/full", W_OK) == 0) {
    uint8_t *img = pattern_image(200, 200, 5);
    tf_status st = png_write("/dev/full", img, 200, 200, err, sizeof err);
    free(img);
    ENSURE(st == TF_E_IO);
    ENSURE_MSG(strstr(err, "/dev/full") && (strstr(err, "write") || strstr(err, "close")), "%s",
               err);
  } else {
    TF_NOTE("no writable /dev/full: write-failure path not exercised");
  }
}
/* ---------------------------------------------------------------------------------------------
 * Rasterizer. */

enum { W = 96, H = 72 };

typedef struct canvas {
  uint8_t rgb[W * H * 3];
  double z[W * H];
} canvas;

static const uint8_t *px_at(const canvas *c, int x, int y) {
  return c->rgb + 3 * ((size_t)y * W + x);
}
static int same(const uint8_t *a, const uint8_t *b) {
  return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

/* looking down at the origin from z = 5, image y up = world +y */
static render_camera top_camera(void) {
  render_camera c = {{0, 0, 5}, {0, 0, 0}, {0, 1, 0}, 60.0};
  return c;
}

/* a quiet style: head-on light from +z, no wireframe, no pins */
static render_style plain_style(void) {
  render_style s;
  render_style_default(&s);
  s.wireframe = 0;
  s.pin_radius = 0;
  s.light[0] = 0;
  s.light[1] = 0;
  s.light[2] = 1;
  return s;
}

/* counter-clockwise seen from +z: normal +z */
static const double BIG_TRI[9] = {-30, -30, 0, 30, -30, 0, 0, 30, 0};
static const uint32_t CCW[3] = {0, 1, 2}, CW[3] = {0, 2, 1};

static int count_colour(const canvas *c, const uint8_t *col) {
  int k = 0;
  for (int i = 0; i < W * H; ++i) k += same(c->rgb + 3 * i, col);
  return k;
}

TF_TEST(render_project_matches_pinhole) {
  /* Blender's front view: eye on -y looking along +y, z up, so x is right and z is up on screen */
  render_camera cam = {{0, -5, 0}, {0, 0, 0}, {0, 0, 1}, 90.0};
  double xy[2], depth = 0;
  const double p[3] = {1, 0, 1};
  ENSURE(render_project(&cam, W, H, p, xy, &depth));
  /* fov 90: focal length = H / 2 px, so a point 1 m off-axis at 5 m is H / 10 px off-centre */
  ENSURE_NEAR(xy[0], W / 2.0 + H / 10.0, 1e-9);
  ENSURE_NEAR(xy[1], H / 2.0 - H / 10.0, 1e-9);
  ENSURE_NEAR(depth, 5.0, 1e-12);
  const double behind[3] = {0, -10, 0}, nan_p[3] = {NAN, 0, 0};
  ENSURE(!render_project(&cam, W, H, behind, xy, &depth));
  ENSURE(!render_project(&cam, W, H, nan_p, xy, &depth));
  render_camera flat = {{1, 1, 1}, {1, 1, 1}, {0, 0, 1}, 40.0}; /* eye == target */
  ENSURE(!render_project(&flat, W, H, p, xy, &depth));
}

TF_TEST(render_front_face_shaded) {
  canvas *c = malloc(sizeof *c);
  render_camera cam = top_camera();
  render_style s = plain_style();
  uint8_t head_on[3], oblique[3], from_behind[3];
  /* light along the normal: exactly the front colour; at 45 degrees darker; from behind darker
   * still */
  render_mesh(c->rgb, c->z, W, H, &cam, &s, BIG_TRI, 3, CCW, 1, NULL, 0);
  memcpy(head_on, px_at(c, W / 2, H / 2), 3);
  double zc = c->z[(H / 2) * W + W / 2];
  s.light[0] = 1;
  render_mesh(c->rgb, c->z, W, H, &cam, &s, BIG_TRI, 3, CCW, 1, NULL, 0);
  memcpy(oblique, px_at(c, W / 2, H / 2), 3);
  s.light[0] = 0;
  s.light[2] = -1;
  render_mesh(c->rgb, c->z, W, H, &cam, &s, BIG_TRI, 3, CCW, 1, NULL, 0);
  memcpy(from_behind, px_at(c, W / 2, H / 2), 3);
  free(c);
  ENSURE_MSG(same(head_on, s.front), "centre %d %d %d", head_on[0], head_on[1], head_on[2]);
  ENSURE(!same(head_on, s.background));
  ENSURE_NEAR(zc, 5.0, 1e-9);
  for (int k = 0; k < 3; ++k) {
    ENSURE(oblique[k] < head_on[k]);
    ENSURE(from_behind[k] < oblique[k]);
    ENSURE(from_behind[k] > 0); /* ambient keeps unlit faces visible */
  }
  /* Lambert: the 45-degree intensity lies between the unlit (ambient) and head-on ones by cos 45 */
  double amb = (double)from_behind[2] / head_on[2], i45 = (double)oblique[2] / head_on[2];
  ENSURE_NEAR((i45 - amb) / (1.0 - amb), cos(TF_PI / 4), 0.02);
}

TF_TEST(render_back_face_colour) {
  canvas *c = malloc(sizeof *c);
  render_camera cam = top_camera();
  render_style s = plain_style();
  /* the same triangle wound clockwise turns its back to the eye; the light is on the eye's side */
  render_mesh(c->rgb, c->z, W, H, &cam, &s, BIG_TRI, 3, CW, 1, NULL, 0);
  uint8_t back[3];
  memcpy(back, px_at(c, W / 2, H / 2), 3);
  /* seen from below with the light above: the back faces the eye, the light hits the other side */
  render_camera below = {{0, 0, -5}, {0, 0, 0}, {0, 1, 0}, 60.0};
  render_mesh(c->rgb, c->z, W, H, &below, &s, BIG_TRI, 3, CCW, 1, NULL, 0);
  uint8_t unlit[3];
  memcpy(unlit, px_at(c, W / 2, H / 2), 3);
  free(c);
  ENSURE_MSG(same(back, s.back), "centre %d %d %d", back[0], back[1], back[2]);
  for (int k = 0; k < 3; ++k) ENSURE(unlit[k] < s.back[k] && unlit[k] > 0);
  ENSURE(!same(unlit, s.background));
}

TF_TEST(render_zbuffer_keeps_nearer) {
  canvas *c = malloc(sizeof *c);
  render_camera cam = top_camera();
  render_style s = plain_style();
  /* two big triangles: at z = 1 (depth 4) and z = 0 (depth 5); the colour shows which one won */
  double pos[18];
  memcpy(pos, BIG_TRI, sizeof BIG_TRI);
  memcpy(pos + 9, BIG_TRI, sizeof BIG_TRI);
  for (int k = 0; k < 3; ++k) pos[3 * k + 2] = 1.0;
  const uint32_t near_front[6] = {0, 1, 2, 3, 5, 4}, far_first[6] = {3, 5, 4, 0, 1, 2};
  const uint32_t near_back[6] = {0, 2, 1, 3, 4, 5}, far_first_b[6] = {3, 4, 5, 0, 2, 1};
  const uint32_t *order[4] = {near_front, far_first, near_back, far_first_b};
  for (int o = 0; o < 4; ++o) {
    render_mesh(c->rgb, c->z, W, H, &cam, &s, pos, 6, order[o], 2, NULL, 0);
    const uint8_t *want = o < 2 ? s.front : s.back;
    int ok = same(px_at(c, W / 2, H / 2), want) && fabs(c->z[(H / 2) * W + W / 2] - 4.0) < 1e-9;
    if (!ok) free(c);
    ENSURE_MSG(ok, "order %d: the farther triangle won", o);
  }
  free(c);
}

TF_TEST(render_depth_is_perspective_correct) {
  canvas *c = malloc(sizeof *c);
  render_camera cam = top_camera();
  render_style s = plain_style();
  /* a plane tilted towards the eye, z = 0.3 y: the ray through pixel centre (px, py) is
   * eye + t (u, v, -1) with u = (px - W/2) / f, v = (H/2 - py) / f, f = (H/2) / tan(30 deg), and
   * meets the plane at view depth t = 5 / (1 + 0.3 v); linear (affine) depth would be off */
  double pos[9];
  memcpy(pos, BIG_TRI, sizeof pos);
  for (int k = 0; k < 3; ++k) pos[3 * k + 2] = 0.3 * pos[3 * k + 1];
  render_mesh(c->rgb, c->z, W, H, &cam, &s, pos, 3, CCW, 1, NULL, 0);
  double f = (H / 2.0) / tan(TF_PI / 6), worst = 0;
  for (int y = 0; y < H; y += 7)
    for (int x = 0; x < W; x += 5) {
      double v = (H / 2.0 - (y + 0.5)) / f;
      worst = fmax(worst, fabs(c->z[y * W + x] - 5.0 / (1.0 + 0.3 * v)));
    }
  free(c);
  ENSURE_MSG(worst < 1e-9, "depth off by %g m", worst);
}

TF_TEST(render_wireframe_on_edges) {
  canvas *c = malloc(sizeof *c);
  render_camera cam = top_camera();
  render_style s = plain_style();
  /* a small triangle at depth 5 and, behind it at depth 7, a smaller one whose edges it hides */
  const double pos[18] = {-1, -1, 0, 1, -1, 0, 0, 1, 0, -0.5, -0.5, -2, 0.5, -0.5, -2, 0, 0.5, -2};
  const uint32_t tris[6] = {0, 1, 2, 3, 4, 5};
  render_mesh(c->rgb, c->z, W, H, &cam, &s, pos, 6, tris, 2, NULL, 0);
  int wire_off = count_colour(c, s.wire);
  s.wireframe = 1;
  render_mesh(c->rgb, c->z, W, H, &cam, &s, pos, 6, tris, 2, NULL, 0);
  int wire_on = count_colour(c, s.wire);
  /* the midpoint of each visible edge is a wire pixel; the centroid is face colour */
  int edges_ok = 1, centroid_ok, hidden_ok = 1;
  for (int e = 0; e < 3; ++e) {
    double mid[3], xy[2];
    for (int k = 0; k < 3; ++k) mid[k] = 0.5 * (pos[3 * e + k] + pos[3 * ((e + 1) % 3) + k]);
    render_project(&cam, W, H, mid, xy, NULL);
    int hit = 0; /* the line may fall on either pixel next to the exact midpoint */
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        hit |= same(px_at(c, (int)xy[0] + dx, (int)xy[1] + dy), s.wire);
    edges_ok &= hit;
  }
  const double centroid[3] = {0, -1.0 / 3, 0};
  double xy[2];
  render_project(&cam, W, H, centroid, xy, NULL);
  centroid_ok = same(px_at(c, (int)xy[0], (int)xy[1]), s.front);
  /* the hidden triangle's edge midpoints lie inside the near one: no wire there */
  for (int e = 0; e < 3; ++e) {
    double mid[3], mxy[2];
    for (int k = 0; k < 3; ++k)
      mid[k] = 0.5 * (pos[9 + 3 * e + k] + pos[9 + 3 * ((e + 1) % 3) + k]);
    render_project(&cam, W, H, mid, mxy, NULL);
    hidden_ok &= !same(px_at(c, (int)mxy[0], (int)mxy[1]), s.wire);
  }
  free(c);
  ENSURE(wire_off == 0);
  /* one pixel per step along each edge's longer axis: about 75 px for the visible triangle */
  ENSURE_MSG(wire_on > 60, "%d wire pixels", wire_on);
  ENSURE(edges_ok);
  ENSURE(centroid_ok);
  ENSURE(hidden_ok);
}

TF_TEST(render_pin_dot) {
  canvas *c = malloc(sizeof *c);
  render_camera cam = top_camera();
  render_style s = plain_style();
  s.pin_radius = 3;
  const double pos[9] = {-1, -1, 0, 1, -1, 0, 0.5, 1, 0};
  const uint32_t pins[3] = {2, 7 /* out of range: ignored */, 0};
  double xy[2], xy0[2];
  ENSURE(render_project(&cam, W, H, pos + 6, xy, NULL));
  ENSURE(render_project(&cam, W, H, pos, xy0, NULL));
  int px = (int)floor(xy[0]), py = (int)floor(xy[1]);
  render_mesh(c->rgb, c->z, W, H, &cam, &s, pos, 3, CCW, 1, pins, 0);
  int before = same(px_at(c, px, py), s.pin);
  render_mesh(c->rgb, c->z, W, H, &cam, &s, pos, 3, CCW, 1, pins, 3);
  int centre = same(px_at(c, px, py), s.pin);
  int rim = same(px_at(c, px + 3, py), s.pin) && same(px_at(c, px, py - 3), s.pin);
  int ring = same(px_at(c, px + 4, py), s.wire); /* outline one pixel outside the radius */
  int outside = !same(px_at(c, px + 6, py), s.pin) && !same(px_at(c, px + 6, py), s.wire);
  int other = same(px_at(c, (int)floor(xy0[0]), (int)floor(xy0[1])), s.pin);
  int dots = count_colour(c, s.pin);
  free(c);
  ENSURE(!before);
  ENSURE(centre);
  ENSURE(rim);
  ENSURE(ring);
  ENSURE(outside);
  ENSURE(other);
  /* two discs of radius 3 with the r (r + 1) rule: 37 pixels each */
  ENSURE_MSG(dots == 2 * 37, "%d pin pixels", dots);
}

TF_TEST(render_near_plane_clips_not_skips) {
  canvas *c = malloc(sizeof *c);
  render_style s = plain_style();
  /* a ground triangle running under and behind the eye, looking slightly down: the floor fills the
   * bottom of the image, the sky the top; skipping the straddling triangle would leave no floor */
  const double ground[9] = {-100, -100, 0, 100, -100, 0, 0, 100, 0};
  render_camera cam = {{0, 0, 1}, {0, 10, 0}, {0, 0, 1}, 60.0};
  render_mesh(c->rgb, c->z, W, H, &cam, &s, ground, 3, CCW, 1, NULL, 0);
  int floor_seen = !same(px_at(c, W / 2, H - 1), s.background);
  int sky = same(px_at(c, W / 2, 0), s.background);
  int floor_rows = 0;
  for (int y = 0; y < H; ++y) floor_rows += !same(px_at(c, W / 2, y), s.background);
  free(c);
  ENSURE(floor_seen);
  ENSURE(sky);
  /* horizon 5.7 degrees above the centre of a 60 degree view: a bit over half the rows are floor */
  ENSURE_MSG(floor_rows > H / 2 && floor_rows < 3 * H / 4, "%d floor rows", floor_rows);
}

/* a 20 x 20 cell sheet, 1 m square, sagging between two pinned corners like a draped cloth */
typedef struct sheet {
  double pos[21 * 21 * 3];
  uint32_t tris[20 * 20 * 6];
  uint32_t pins[2];
} sheet;

static void make_sheet(sheet *g, const double offset[3]) {
  for (int j = 0; j <= 20; ++j)
    for (int i = 0; i <= 20; ++i) {
      double u = i / 20.0, v = j / 20.0, *p = g->pos + 3 * (j * 21 + i);
      p[0] = offset[0] + u;
      p[1] = offset[1] + 0.6 * v + 0.05 * sin(6 * u);
      p[2] = offset[2] + 1.0 - 0.8 * v * v - 0.15 * sin(TF_PI * u) * v;
    }
  uint32_t *t = g->tris;
  for (uint32_t j = 0; j < 20; ++j)
    for (uint32_t i = 0; i < 20; ++i) {
      uint32_t a = j * 21 + i, b = a + 1, c = a + 21, d = c + 1;
      t[0] = a;
      t[1] = b;
      t[2] = d;
      t[3] = a;
      t[4] = d;
      t[5] = c;
      t += 6;
    }
  g->pins[0] = 0;
  g->pins[1] = 20;
}

TF_TEST(render_camera_fit_frames_mesh) {
  sheet *g = malloc(sizeof *g);
  const double offset[3] = {10, -3, 2};
  make_sheet(g, offset);
  const double dirs[4][3] = {{1, -1.5, 0.8}, {0, 0, 1}, {-1, 0, 0}, {0.2, 1, -0.3}};
  const uint32_t sizes[2][2] = {{320, 240}, {200, 200}};
  const char *fail = NULL;
  for (int d = 0; d < 5 && !fail; ++d)
    for (int sz = 0; sz < 2 && !fail; ++sz) {
      render_camera cam;
      /* d == 4: NULL dir and up take the defaults */
      render_camera_fit(&cam, g->pos, 21 * 21, d < 4 ? dirs[d] : NULL,
                        d < 4 ? (const double[3]){0, 0, 1} : NULL);
      uint32_t w = sizes[sz][0], h = sizes[sz][1];
      double lo[2] = {1e300, 1e300}, hi[2] = {-1e300, -1e300};
      for (uint32_t i = 0; i < 21 * 21 && !fail; ++i) {
        double xy[2];
        if (!render_project(&cam, w, h, g->pos + 3 * i, xy, NULL))
          fail = "a vertex is behind the camera";
        else if (xy[0] < 0 || xy[1] < 0 || xy[0] > w || xy[1] > h)
          fail = "a vertex projects outside the image";
        for (int k = 0; k < 2 && !fail; ++k) {
          lo[k] = fmin(lo[k], xy[k]);
          hi[k] = fmax(hi[k], xy[k]);
        }
      }
      /* framed, not lost in the distance: the mesh spans a good part of the image */
      if (!fail && hi[0] - lo[0] < 0.3 * w && hi[1] - lo[1] < 0.3 * h)
        fail = "the mesh is tiny in the image";
      if (fail) TF_NOTE("dir %d, %ux%u", d, (unsigned)w, (unsigned)h);
    }
  /* Z up: of two points one above the other, the upper one is higher in the image (smaller y) */
  render_camera cam;
  render_camera_fit(&cam, g->pos, 21 * 21, NULL, NULL);
  const double lowp[3] = {10.5, -2.7, 1.5}, highp[3] = {10.5, -2.7, 2.5};
  double a[2], b[2];
  int upright = render_project(&cam, 320, 240, lowp, a, NULL) &&
                render_project(&cam, 320, 240, highp, b, NULL) && b[1] < a[1];
  free(g);
  ENSURE_MSG(fail == NULL, "%s", fail);
  ENSURE(upright);
  ENSURE_NEAR(cam.fov_deg, RENDER_FIT_FOV_DEG, 0);
}

TF_TEST(render_bad_input_is_skipped) {
  canvas *c = malloc(sizeof *c);
  render_camera cam = top_camera();
  render_style s = plain_style();
  s.wireframe = 1;
  s.pin_radius = 1 << 30; /* clamped */
  /* vertices 0-2: the good triangle, then NaN, inf, huge, and a point behind the eye */
  const double pos[8 * 3] = {-30,      -30, 0, 30,    -30,    0, 0,      30,    0, NAN, 0,   0,
                             INFINITY, 1,   0, 1e300, -1e300, 0, -1e308, 1e308, 1, 0.1, 0.1, 10};
  const uint32_t tris[] = {
      0, 3, 1,  /* NaN vertex */
      4, 1, 2,  /* inf vertex */
      0, 1, 99, /* index out of range */
      0, 0, 1,  /* repeated vertex: zero area */
      0, 5, 6,  /* huge, finite */
      0, 7, 1,  /* through the near plane */
      0, 1, 2,  /* the good one, last so the test sees it was still drawn */
  };
  const uint32_t ntri = sizeof tris / sizeof tris[0] / 3;
  /* pins on the NaN, inf, huge, behind-the-eye and a missing vertex: none drawn */
  const uint32_t pins[] = {3, 4, 5, 7, 1000, 0};
  render_mesh(c->rgb, c->z, W, H, &cam, &s, pos, 8, tris, ntri, pins, 5);
  /* the good triangle covers the centre; NaN-free depth everywhere */
  int centre_ok = same(px_at(c, W / 2, H / 2), s.front) && count_colour(c, s.pin) == 0;
  int depth_ok = 1;
  for (int i = 0; i < W * H; ++i) depth_ok &= !isnan(c->z[i]);
  /* a huge dot on an off-screen vertex still covers the whole image, in bounded time */
  render_mesh(c->rgb, c->z, W, H, &cam, &s, pos, 8, tris, ntri, pins, 6);
  int huge_dot = count_colour(c, s.pin) == W * H;
  /* a NaN camera, eye == target, up along the view, silly fov: cleared image or a sane fallback */
  render_camera bad[4] = {{{NAN, 0, 5}, {0, 0, 0}, {0, 1, 0}, 60},
                          {{0, 0, 0}, {0, 0, 0}, {0, 1, 0}, 60},
                          {{0, 0, 5}, {0, 0, 0}, {0, 0, 1}, 60},
                          {{0, 0, 5}, {0, 0, 0}, {NAN, 0, 0}, NAN}};
  int cleared = 1, fallback = 1;
  for (int k = 0; k < 4; ++k) {
    render_mesh(c->rgb, c->z, W, H, &bad[k], &s, pos, 8, tris, ntri, NULL, 0);
    if (k < 2)
      cleared &= count_colour(c, s.background) == W * H;
    else
      fallback &= same(px_at(c, W / 2, H / 2), s.front);
  }
  /* no triangles, NULL pins with a count, a 1 x 1 image */
  render_mesh(c->rgb, c->z, W, H, &cam, &s, pos, 8, NULL, 3, NULL, 2);
  int empty = count_colour(c, s.background) == W * H;
  render_mesh(c->rgb, c->z, 1, 1, &cam, &s, pos, 8, tris, ntri, pins, 6);
  /* camera_fit over NaN vertices frames the finite ones; all-NaN still gives a finite camera */
  render_camera fit;
  render_camera_fit(&fit, pos, 3, NULL, NULL);
  int fit_ok = tf_isfinite3(fit.eye) && fabs(fit.target[0]) < 1e-12 && fabs(fit.target[1]) < 1e-12;
  render_camera_fit(&fit, pos + 9, 1, NULL, NULL);
  fit_ok &= tf_isfinite3(fit.eye) && tf_isfinite3(fit.target);
  free(c);
  ENSURE(centre_ok);
  ENSURE(depth_ok);
  ENSURE(huge_dot);
  ENSURE(cleared);
  ENSURE(fallback);
  ENSURE(empty);
  ENSURE(fit_ok);
}

TF_TEST(render_contact_sheet_layout) {
  enum { TW = 4, TH = 3, N = 5 };
  uint8_t tiles[N][TW * TH * 3];
  const uint8_t *list[N];
  for (int i = 0; i < N; ++i) {
    for (int p = 0; p < TW * TH; ++p) {
      tiles[i][3 * p] = (uint8_t)(10 * i);
      tiles[i][3 * p + 1] = (uint8_t)(100 + i);
      tiles[i][3 * p + 2] = (uint8_t)p; /* position inside the tile */
    }
    list[i] = tiles[i];
  }
  contact_sheet cs = {TW, TH, 3, 2, {1, 2, 3}};
  uint32_t w = 0, h = 0;
  ENSURE(contact_sheet_size(&cs, N, &w, &h) == TF_OK);
  ENSURE(w == 3 * TW + 2 * 2 && h == 2 * TH + 2);
  uint8_t *out = malloc(3 * (size_t)w * h);
  ENSURE(contact_sheet_compose(&cs, list, N, out) == TF_OK);
  int ok = 1;
  for (int i = 0; i < N; ++i)
    for (int y = 0; y < TH; ++y)
      for (int x = 0; x < TW; ++x) {
        const uint8_t *p =
            out + 3 * ((size_t)((i / 3) * (TH + 2) + y) * w + (i % 3) * (TW + 2) + x);
        ok &= p[0] == 10 * i && p[1] == 100 + i && p[2] == y * TW + x;
      }
  const uint8_t sep[3] = {1, 2, 3};
  int sep_ok = same(out + 3 * (size_t)TW, sep) && same(out + 3 * ((size_t)TH * w), sep) &&
               same(out + 3 * ((size_t)(h - 1) * w + w - 1), sep); /* the empty sixth cell */
  free(out);
  ENSURE(ok);
  ENSURE(sep_ok);
  /* fewer images than columns: only as wide as needed */
  ENSURE(contact_sheet_size(&cs, 2, &w, &h) == TF_OK && w == 2 * TW + 2 && h == TH);
  contact_sheet zero_cols = cs;
  zero_cols.columns = 0;
  ENSURE(contact_sheet_size(&zero_cols, 2, &w, &h) == TF_E_INVALID_ARG);
  ENSURE(contact_sheet_size(&cs, 0, &w, &h) == TF_E_INVALID_ARG);
  uint8_t scratch[3 * (2 * TW + 2) * TH];
  ENSURE(contact_sheet_compose(&cs, NULL, 2, scratch) == TF_E_INVALID_ARG);
}

TF_TEST(render_scene_png_file_roundtrip) {
  /* a rendered 400 x 300 view of the sheet, through a file: several stored blocks, exact pixels */
  enum { RW = 400, RH = 300 };
  sheet *g = malloc(sizeof *g);
  const double offset[3] = {0, 0, 0};
  make_sheet(g, offset);
  uint8_t *rgb = malloc(3 * RW * RH);
  double *z = malloc(sizeof(double) * RW * RH);
  render_camera cam;
  render_style s;
  render_style_default(&s);
  render_camera_fit(&cam, g->pos, 21 * 21, NULL, NULL);
  render_mesh(rgb, z, RW, RH, &cam, &s, g->pos, 21 * 21, g->tris, 20 * 20 * 2, g->pins, 2);
  char path[512], err[256] = "";
  int have_path = temp_path(path, sizeof path);
  tf_status st = have_path ? png_write(path, rgb, RW, RH, err, sizeof err) : TF_E_IO;
  size_t n = 0;
  uint8_t *file = st == TF_OK ? read_file(path, &n) : NULL;
  if (have_path) remove(path);
  decoded d = {0};
  const char *why = file ? decode_png(file, n, &d) : "file not written or not read back";
  int same_px =
      why == NULL && d.width == RW && d.height == RH && memcmp(d.rgb, rgb, 3 * RW * RH) == 0;
  int colours = 0; /* the scene shows front, back (or shades of them), wire and pins */
  for (size_t i = 0; i < RW * RH; ++i)
    colours += same(rgb + 3 * i, s.wire) || same(rgb + 3 * i, s.pin);
  free(d.rgb);
  free(file);
  free(z);
  free(rgb);
  free(g);
  ENSURE_MSG(st == TF_OK, "%s", err);
  ENSURE_MSG(why == NULL, "%s", why);
  ENSURE(same_px);
  ENSURE(d.stored_blocks == 0 && d.matches > 0);
  ENSURE_MSG(n * 5 < stored_png_size(RW, RH), "%zu bytes", n);
  ENSURE(colours > 1000);
}

TF_TEST(render_png_contact_sheet_5x_smaller) {
  /* the cape example's contact sheet: six 480 x 360 tiles in 3 columns, 2 px apart (1448 x 724),
   * here six views of the draped sheet; before compression that file was 3146664 bytes */
  enum { TW = 480, TH = 360, FRAMES = 6 };
  contact_sheet cs = {TW, TH, 3, 4, {255, 255, 255}};
  uint32_t sw = 0, sh = 0;
  ENSURE(contact_sheet_size(&cs, FRAMES, &sw, &sh) == TF_OK);
  ENSURE(sw == 1448 && sh == 724 && stored_png_size(sw, sh) == 3146664);
  sheet *g = malloc(sizeof *g);
  uint8_t *tiles = malloc(3 * (size_t)TW * TH * FRAMES), *rgb = malloc(3 * (size_t)sw * sh);
  double *z = malloc(sizeof(double) * TW * TH);
  const uint8_t *ptrs[FRAMES];
  render_style s;
  render_style_default(&s);
  for (int k = 0; k < FRAMES; ++k) {
    const double offset[3] = {0.1 * k, 0, -0.05 * k};
    make_sheet(g, offset);
    for (int i = 0; i < 21 * 21; ++i)
      g->pos[3 * i + 2] -= 0.04 * k * sin(0.3 * i); /* a different ripple per frame */
    render_camera cam;
    render_camera_fit(&cam, g->pos, 21 * 21, (const double[3]){1, -1.5, 0.8}, NULL);
    render_mesh(tiles + 3 * (size_t)TW * TH * k, z, TW, TH, &cam, &s, g->pos, 21 * 21, g->tris,
                20 * 20 * 2, g->pins, 2);
    ptrs[k] = tiles + 3 * (size_t)TW * TH * k;
  }
  ENSURE(contact_sheet_compose(&cs, ptrs, FRAMES, rgb) == TF_OK);
  size_t size = 0;
  decoded d;
  clock_t t0 = clock();
  const char *bad = roundtrip_rgb(rgb, sw, sh, &size, &d);
  double ms = 1000.0 * (double)(clock() - t0) / CLOCKS_PER_SEC;
  free(z);
  free(rgb);
  free(tiles);
  free(g);
  ENSURE_MSG(bad == NULL, "%s", bad);
  TF_NOTE(
      "contact sheet %ux%u: %zu bytes (stored: %zu, %.1fx smaller); encode + test decode %.0f ms",
      sw, sh, size, stored_png_size(sw, sh), (double)stored_png_size(sw, sh) / (double)size, ms);
  ENSURE_MSG(size * 5 <= stored_png_size(sw, sh), "%zu bytes", size);
}
