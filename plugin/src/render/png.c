/* SPDX-License-Identifier: MIT
 * PNG writer (PNG spec, 2nd ed., W3C 2003) for 8-bit RGB with its own deflate (RFC 1951), so the
 * library links no zlib. Each scanline gets the filter (None, Sub, Up, Average, Paeth) whose
 * output has the smallest sum of absolute values as signed bytes (the heuristic of PNG spec sec.
 * 12.8); filtered bytes are made on the fly from the caller's rows into a 64 KiB sliding window.
 * LZ77 runs over that window as zlib's deflate_slow does: 3-byte hash chains over the last
 * 32 KiB, lazy matching one byte ahead, chains and lengths bounded (zlib level 6's 128/16/128/8).
 * Blocks use the fixed Huffman codes (RFC 1951 sec. 3.2.6); a block whose fixed coding would be
 * longer than its raw bytes (noise) is written stored instead, so the output never exceeds
 * png_encoded_size. The zlib stream (RFC 1950: header, Adler-32 of the filtered data) is cut into
 * IDAT chunks of at most IDAT_MAX bytes. Scratch: one bounded block (about 270 KiB, the window,
 * hash chains, a token buffer and the IDAT buffer) malloc'd per image and freed before return;
 * no global state. */
#include "render/png.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t PNG_SIGNATURE[8] = {137, 80, 78, 71, 13, 10, 26, 10};
static const uint32_t CRC_POLY = 0xEDB88320u; /* ISO 3309 polynomial, bit-reflected */
static const uint32_t ADLER_MOD = 65521;      /* largest prime below 2^16 (RFC 1950) */
/* bytes of input before the Adler sums must be reduced to stay in 32 bits (zlib's NMAX) */
static const size_t ADLER_NMAX = 5552;
/* zlib header: CM 8 (deflate), CINFO 7 (32 KiB window), FLEVEL 2 (default), FCHECK making
 * (CMF * 256 + FLG) a multiple of 31 (RFC 1950 sec. 2.2): 0x789C, as zlib writes */
static const uint8_t ZLIB_CMF = 0x78, ZLIB_FLG = 0x9C;
static const uint8_t BIT_DEPTH = 8, COLOR_TYPE_RGB = 2;
static const unsigned BPP = 3; /* bytes per pixel: the filters' left neighbour distance */

/* LZ77 limits: zlib's deflate_slow at level 6 (zlib deflate.c configuration_table) */
static const unsigned MAX_CHAIN = 128;  /* hash chain links followed per search */
static const unsigned MAX_LAZY = 16;    /* no lazy search past a match this long */
static const unsigned GOOD_MATCH = 8;   /* quarter the chain past a previous match this long */
static const unsigned NICE_MATCH = 128; /* stop searching at a match this long */
static const unsigned TOO_FAR =
    4096; /* a 3-byte match farther than this costs more than it saves */

enum {
  CHUNK_OVERHEAD = 12, /* length, type, CRC */
  IHDR_SIZE = 13,
  ZLIB_HEADER = 2,
  ZLIB_TRAILER = 4,   /* Adler-32, big-endian */
  STORED_HEADER = 5,  /* BFINAL/BTYPE bits padded to a byte, LEN, NLEN */
  STORED_MAX = 65535, /* a stored block's LEN is 16 bits */
  WSIZE = 32768,      /* deflate's window: the farthest a match may look back */
  WMASK = WSIZE - 1,
  MIN_MATCH = 3,
  MAX_MATCH = 258,
  MIN_LOOKAHEAD = MAX_MATCH + MIN_MATCH + 1, /* bytes kept ahead so a match never runs short */
  MAX_DIST = WSIZE - MIN_LOOKAHEAD,
  HASH_BITS = 15,
  HASH_SIZE = 1 << HASH_BITS,
  TOKEN_MAX = 16384, /* tokens per block (zlib's lit_bufsize at memLevel 8) */
  IDAT_MAX = 32768,  /* bytes of zlib stream per IDAT chunk */
  FILTER_COUNT = 5   /* None, Sub, Up, Average, Paeth */
};

/* RFC 1951 sec. 3.2.5: length codes 257..285 and distance codes 0..29, base and extra bits */
static const uint16_t LEN_BASE[29] = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                      15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                      67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t LEN_EXTRA[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t DIST_BASE[30] = {
    1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t DIST_EXTRA[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

/* the scratch of one image; every size is fixed, whatever the image */
typedef struct deflate_state {
  uint8_t win[2 * WSIZE];   /* filtered bytes; the upper half slides down when full */
  uint16_t prev[WSIZE];     /* hash chain: the previous position with the same hash, 0 = none */
  uint16_t head[HASH_SIZE]; /* newest position per hash, 0 = none (position 0 is never matched) */
  uint16_t tok_dist[TOKEN_MAX]; /* 0: literal; else match distance */
  uint8_t tok_lc[TOKEN_MAX];    /* literal byte, or match length - MIN_MATCH */
  uint8_t idat[IDAT_MAX];       /* zlib stream bytes not yet in a chunk */
} deflate_state;

typedef struct png_sink {
  FILE *f;         /* file output, or NULL for memory */
  uint8_t *mem;    /* memory output of capacity cap */
  size_t cap, len; /* len: bytes written so far */
  int failed;      /* a write failed; later writes are dropped */
  int saved_errno; /* errno of the failed file write */
  uint32_t crc;    /* running CRC of the open chunk, pre-inverted */
  uint32_t crc_table[256];

  /* the image and where filtering has got to */
  const uint8_t *rgb;
  size_t row_bytes;          /* 3 x width */
  uint32_t height, row;      /* row: the scanline being filtered */
  size_t col;                /* 0: the filter byte is next; else 1 + byte index in the row */
  uint8_t filter;            /* of the current row */
  uint32_t adler_a, adler_b; /* of the filtered bytes */

  /* LZ77 over ds->win */
  deflate_state *ds;
  size_t strstart, lookahead;               /* current position in win, bytes available from it */
  size_t match_start, block_start, raw_pos; /* raw_pos: first byte no token covers yet */
  size_t tok_count;

  /* bit writer (LSB first, RFC 1951 sec. 3.1.1) into ds->idat */
  uint64_t bits;
  unsigned bit_count;
  size_t idat_len;
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

/* ---------------------------------------------------------------------------------------------
 * Filters (PNG spec sec. 9): a = left, b = above, c = above-left, 0 outside the image. */

static uint8_t paeth(uint8_t a, uint8_t b, uint8_t c) {
  int p = (int)a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

/* filtered byte i of a row: cur and up (NULL on the first row) are the unfiltered rows */
static uint8_t filter_byte(uint8_t type, const uint8_t *cur, const uint8_t *up, size_t i) {
  uint8_t a = i >= BPP ? cur[i - BPP] : 0, b = up ? up[i] : 0, c = up && i >= BPP ? up[i - BPP] : 0;
  switch (type) {
    case 1:
      return (uint8_t)(cur[i] - a);
    case 2:
      return (uint8_t)(cur[i] - b);
    case 3:
      return (uint8_t)(cur[i] - ((a + b) >> 1));
    case 4:
      return (uint8_t)(cur[i] - paeth(a, b, c));
    default:
      return cur[i];
  }
}

/* the filter with the least sum of |filtered byte| as a signed byte (PNG spec sec. 12.8) */
static uint8_t choose_filter(const uint8_t *cur, const uint8_t *up, size_t n) {
  uint8_t best = 0;
  uint64_t best_sum = UINT64_MAX;
  for (uint8_t t = 0; t < FILTER_COUNT; ++t) {
    uint64_t sum = 0;
    for (size_t i = 0; i < n && sum < best_sum; ++i) {
      int v = (int8_t)filter_byte(t, cur, up, i);
      sum += (uint64_t)(v < 0 ? -v : v);
    }
    if (sum < best_sum) best = t, best_sum = sum;
  }
  return best;
}

/* up to n filtered bytes (filter byte, then the row's bytes, row after row) into dst; the count */
static size_t read_filtered(png_sink *s, uint8_t *dst, size_t n) {
  size_t got = 0;
  while (got < n && s->row < s->height) {
    const uint8_t *cur = s->rgb + (size_t)s->row * s->row_bytes;
    const uint8_t *up = s->row > 0 ? cur - s->row_bytes : NULL;
    if (s->col == 0) {
      s->filter = choose_filter(cur, up, s->row_bytes);
      dst[got++] = s->filter;
      s->col = 1;
      continue;
    }
    size_t i = s->col - 1, m = s->row_bytes - i < n - got ? s->row_bytes - i : n - got;
    if (s->filter == 0)
      memcpy(dst + got, cur + i, m);
    else
      for (size_t k = 0; k < m; ++k) dst[got + k] = filter_byte(s->filter, cur, up, i + k);
    got += m;
    s->col += m;
    if (s->col == s->row_bytes + 1) s->col = 0, s->row++;
  }
  adler_update(&s->adler_a, &s->adler_b, dst, got);
  return got;
}

/* ---------------------------------------------------------------------------------------------
 * Bit output and IDAT chunks. */

static void idat_flush(png_sink *s) {
  if (s->idat_len == 0) return;
  chunk_begin(s, "IDAT", (uint32_t)s->idat_len);
  put(s, s->ds->idat, s->idat_len);
  chunk_end(s);
  s->idat_len = 0;
}

static void put_byte(png_sink *s, uint8_t b) {
  if (s->idat_len == IDAT_MAX) idat_flush(s);
  s->ds->idat[s->idat_len++] = b;
}

/* n <= 32 bits of v, least significant first */
static void put_bits(png_sink *s, uint32_t v, unsigned n) {
  s->bits |= (uint64_t)v << s->bit_count;
  s->bit_count += n;
  while (s->bit_count >= 8) {
    put_byte(s, (uint8_t)s->bits);
    s->bits >>= 8;
    s->bit_count -= 8;
  }
}

static void align_byte(png_sink *s) {
  if (s->bit_count > 0) put_bits(s, 0, 8 - s->bit_count);
}

/* a Huffman code of n bits goes out most significant bit first (RFC 1951 sec. 3.1.1) */
static void put_code(png_sink *s, uint32_t code, unsigned n) {
  uint32_t r = 0;
  for (unsigned k = 0; k < n; ++k) r |= ((code >> k) & 1u) << (n - 1 - k);
  put_bits(s, r, n);
}

/* ---------------------------------------------------------------------------------------------
 * Fixed Huffman codes (RFC 1951 sec. 3.2.6). */

static unsigned lit_bits(unsigned sym) { return sym < 144 ? 8 : sym < 256 ? 9 : sym < 280 ? 7 : 8; }

static void put_lit(png_sink *s, unsigned sym) {
  if (sym < 144)
    put_code(s, 0x30 + sym, 8);
  else if (sym < 256)
    put_code(s, 0x190 + (sym - 144), 9);
  else if (sym < 280)
    put_code(s, sym - 256, 7);
  else
    put_code(s, 0xC0 + (sym - 280), 8);
}

/* index into LEN_BASE of a match length 3..258 */
static unsigned len_index(unsigned len) {
  if (len == MAX_MATCH) return 28;
  unsigned l = len - MIN_MATCH, nb = 0;
  if (l < 8) return l;
  while ((l >> (nb + 1)) != 0) ++nb; /* nb = floor(log2 l), 3..7 */
  return 4 * (nb - 1) + ((l >> (nb - 2)) & 3u);
}

/* index into DIST_BASE of a distance 1..32768 */
static unsigned dist_index(unsigned dist) {
  unsigned d = dist - 1, nb = 0;
  if (d < 4) return d;
  while ((d >> (nb + 1)) != 0) ++nb; /* nb = floor(log2 d), 2..14 */
  return 2 * nb + ((d >> (nb - 1)) & 1u);
}

static uint64_t token_bits(const png_sink *s, size_t k) {
  const deflate_state *ds = s->ds;
  if (ds->tok_dist[k] == 0) return lit_bits(ds->tok_lc[k]);
  unsigned li = len_index(ds->tok_lc[k] + MIN_MATCH), di = dist_index(ds->tok_dist[k]);
  return lit_bits(257 + li) + LEN_EXTRA[li] + 5 + DIST_EXTRA[di];
}

/* the block of the tokens so far (raw bytes win[block_start, raw_pos)), fixed or stored,
 * whichever is shorter */
static void flush_block(png_sink *s, int final) {
  deflate_state *ds = s->ds;
  size_t raw_len = s->raw_pos - s->block_start;
  assert(raw_len <= STORED_MAX);
  uint64_t fixed = 3 + 7; /* header and end-of-block */
  for (size_t k = 0; k < s->tok_count; ++k) fixed += token_bits(s, k);
  uint64_t stored = 3 + (8 - (s->bit_count + 3) % 8) % 8 + 32 + 8 * (uint64_t)raw_len;
  if (stored < fixed) {
    put_bits(s, final ? 1u : 0u, 3); /* BFINAL, BTYPE 00 */
    align_byte(s);
    put_bits(s, (uint32_t)raw_len, 16);
    put_bits(s, (uint32_t)raw_len ^ 0xffffu, 16);
    for (size_t k = 0; k < raw_len; ++k) put_byte(s, ds->win[s->block_start + k]);
  } else {
    put_bits(s, final ? 3u : 2u, 3); /* BFINAL, BTYPE 01 */
    for (size_t k = 0; k < s->tok_count; ++k) {
      if (ds->tok_dist[k] == 0) {
        put_lit(s, ds->tok_lc[k]);
        continue;
      }
      unsigned len = ds->tok_lc[k] + MIN_MATCH, dist = ds->tok_dist[k];
      unsigned li = len_index(len), di = dist_index(dist);
      put_lit(s, 257 + li);
      put_bits(s, len - LEN_BASE[li], LEN_EXTRA[li]);
      put_code(s, di, 5);
      put_bits(s, dist - DIST_BASE[di], DIST_EXTRA[di]);
    }
    put_lit(s, 256);
  }
  s->tok_count = 0;
  s->block_start = s->raw_pos;
}

static void emit_literal(png_sink *s, uint8_t c) {
  s->ds->tok_dist[s->tok_count] = 0;
  s->ds->tok_lc[s->tok_count++] = c;
  s->raw_pos += 1;
  if (s->tok_count == TOKEN_MAX) flush_block(s, 0);
}

static void emit_match(png_sink *s, size_t dist, size_t len) {
  assert(dist >= 1 && dist <= WSIZE && len >= MIN_MATCH && len <= MAX_MATCH);
  s->ds->tok_dist[s->tok_count] = (uint16_t)dist;
  s->ds->tok_lc[s->tok_count++] = (uint8_t)(len - MIN_MATCH);
  s->raw_pos += len;
  if (s->tok_count == TOKEN_MAX) flush_block(s, 0);
}

/* ---------------------------------------------------------------------------------------------
 * LZ77 (zlib's deflate.c: fill_window, longest_match, deflate_slow). */

static uint32_t hash3(const uint8_t *p) {
  uint32_t v = ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2];
  return (v * 2654435761u) >> (32 - HASH_BITS); /* Knuth's multiplicative hash */
}

/* link position p (3 bytes available) into its chain; the previous head of the chain */
static size_t insert_string(deflate_state *ds, size_t p) {
  uint32_t h = hash3(ds->win + p);
  size_t head = ds->head[h];
  ds->prev[p & WMASK] = (uint16_t)head;
  ds->head[h] = (uint16_t)p;
  return head;
}

/* keep at least MIN_LOOKAHEAD bytes ahead of strstart while input lasts; when strstart nears the
 * top, close the block (its raw bytes are still in the window) and slide the upper half down */
static void fill_window(png_sink *s) {
  deflate_state *ds = s->ds;
  if (s->strstart >= WSIZE + MAX_DIST) {
    flush_block(s, 0);
    memmove(ds->win, ds->win + WSIZE, WSIZE);
    s->strstart -= WSIZE;
    s->match_start -= WSIZE;
    s->raw_pos -= WSIZE;
    s->block_start = s->raw_pos;
    for (size_t h = 0; h < HASH_SIZE; ++h)
      ds->head[h] = (uint16_t)(ds->head[h] >= WSIZE ? ds->head[h] - WSIZE : 0);
    for (size_t p = 0; p < WSIZE; ++p)
      ds->prev[p] = (uint16_t)(ds->prev[p] >= WSIZE ? ds->prev[p] - WSIZE : 0);
  }
  size_t end = s->strstart + s->lookahead;
  s->lookahead += read_filtered(s, ds->win + end, 2 * WSIZE - end);
}

/* the longest match at strstart along the chain from cur, longer than prev_length; its length
 * (at most lookahead) with its start in match_start, or prev_length */
static size_t longest_match(png_sink *s, size_t cur, size_t prev_length) {
  const deflate_state *ds = s->ds;
  unsigned chain = prev_length >= GOOD_MATCH ? MAX_CHAIN >> 2 : MAX_CHAIN;
  const uint8_t *scan = ds->win + s->strstart;
  size_t best = prev_length, max_len = s->lookahead < MAX_MATCH ? s->lookahead : MAX_MATCH;
  size_t nice = NICE_MATCH < max_len ? NICE_MATCH : max_len;
  size_t limit = s->strstart > MAX_DIST ? s->strstart - MAX_DIST : 0;
  if (best >= max_len) return best;
  do {
    const uint8_t *m = ds->win + cur;
    if (m[best] != scan[best] || m[0] != scan[0] || m[1] != scan[1]) continue;
    size_t len = 2;
    while (len < max_len && m[len] == scan[len]) ++len;
    if (len > best) {
      s->match_start = cur;
      best = len;
      if (len >= nice) break;
    }
  } while ((cur = ds->prev[cur & WMASK]) > limit && --chain != 0);
  return best;
}

static void deflate_data(png_sink *s) {
  deflate_state *ds = s->ds;
  size_t match_length = MIN_MATCH - 1, prev_length, prev_match;
  int match_available = 0;
  for (;;) {
    if (s->lookahead < MIN_LOOKAHEAD) {
      fill_window(s);
      if (s->lookahead == 0) break;
    }
    size_t hash_head = s->lookahead >= MIN_MATCH ? insert_string(ds, s->strstart) : 0;
    prev_length = match_length;
    prev_match = s->match_start;
    match_length = MIN_MATCH - 1;
    if (hash_head != 0 && prev_length < MAX_LAZY && s->strstart - hash_head <= MAX_DIST) {
      match_length = longest_match(s, hash_head, prev_length);
      if (match_length == MIN_MATCH && s->strstart - s->match_start > TOO_FAR)
        match_length = MIN_MATCH - 1;
    }
    if (prev_length >= MIN_MATCH && match_length <= prev_length) {
      /* the match at strstart - 1 wins: emit it and hash the bytes it covers */
      size_t max_insert = s->strstart + s->lookahead - MIN_MATCH;
      emit_match(s, s->strstart - 1 - prev_match, prev_length);
      s->lookahead -= prev_length - 1;
      for (size_t k = prev_length - 2; k > 0; --k)
        if (++s->strstart <= max_insert) insert_string(ds, s->strstart);
      match_available = 0;
      match_length = MIN_MATCH - 1;
      s->strstart++;
    } else {
      /* the byte at strstart - 1 goes out as a literal (if pending); look one byte further */
      if (match_available) emit_literal(s, ds->win[s->strstart - 1]);
      match_available = 1;
      s->strstart++;
      s->lookahead--;
    }
  }
  if (match_available) emit_literal(s, ds->win[s->strstart - 1]);
  assert(s->raw_pos == s->strstart);
  flush_block(s, 1);
}

static void encode(png_sink *s, const uint8_t *rgb, uint32_t width, uint32_t height) {
  crc_table_init(s->crc_table);
  s->adler_a = 1;
  s->adler_b = 0;
  s->rgb = rgb;
  s->row_bytes = 3 * (size_t)width;
  s->height = height;
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

  /* the zlib stream, cut into IDAT chunks as its bytes come */
  put_byte(s, ZLIB_CMF);
  put_byte(s, ZLIB_FLG);
  deflate_data(s);
  align_byte(s);
  uint8_t tr[ZLIB_TRAILER];
  be32(tr, (s->adler_b << 16) | s->adler_a);
  for (int k = 0; k < ZLIB_TRAILER; ++k) put_byte(s, tr[k]);
  idat_flush(s);

  chunk_begin(s, "IEND", 0);
  chunk_end(s);
}

size_t png_encoded_size(uint32_t width, uint32_t height) {
  if (width == 0 || height == 0 || width > PNG_MAX_DIM || height > PNG_MAX_DIM) return 0;
  size_t stride = 1 + 3 * (size_t)width;
  if (stride < width || height > SIZE_MAX / stride) return 0;
  size_t total = stride * height;
  /* a block ends when its tokens fill (each token covers a raw byte or more), at a slide (WSIZE
   * raw bytes apart) or at the end; none is longer than its stored form, raw bytes plus at most
   * 42 bits (3 header bits, 7 padding, LEN, NLEN), and the end adds at most 7 padding bits */
  size_t blocks = total / TOKEN_MAX + total / WSIZE + 2;
  size_t extra = ZLIB_HEADER + blocks * (STORED_HEADER + 1) + 1 + ZLIB_TRAILER;
  if (total > SIZE_MAX - extra) return 0;
  size_t z = total + extra, chunks = z / IDAT_MAX + 1;
  size_t overhead = sizeof PNG_SIGNATURE + (CHUNK_OVERHEAD + IHDR_SIZE) + chunks * CHUNK_OVERHEAD +
                    CHUNK_OVERHEAD /* IEND */;
  if (z > SIZE_MAX - overhead) return 0;
  return z + overhead;
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

/* the sink's scratch, zeroed (empty hash chains); TF_E_NOMEM with a message when it is not there */
static tf_status sink_alloc(png_sink *s, char *err, size_t err_size) {
  s->ds = calloc(1, sizeof *s->ds);
  if (s->ds) return TF_OK;
  set_err(err, err_size, "out of memory for the PNG encoder's %zu bytes of scratch", sizeof *s->ds);
  return TF_E_NOMEM;
}

tf_status png_encode_mem(const uint8_t *rgb, uint32_t width, uint32_t height, uint8_t *out,
                         size_t out_cap, size_t *out_size, char *err, size_t err_size) {
  size_t need;
  tf_status st = check_args(rgb, width, height, &need, err, err_size);
  if (st != TF_OK) return st;
  if (!out || out_cap < need) {
    set_err(err, err_size, "output buffer holds %zu bytes, the %ux%u PNG needs up to %zu",
            out ? out_cap : 0, (unsigned)width, (unsigned)height, need);
    return TF_E_INVALID_ARG;
  }
  png_sink s;
  memset(&s, 0, sizeof s);
  if ((st = sink_alloc(&s, err, err_size)) != TF_OK) return st;
  s.mem = out;
  s.cap = out_cap;
  encode(&s, rgb, width, height);
  free(s.ds);
  if (out_size) *out_size = s.len;
  return TF_OK;
}

tf_status png_write(const char *path, const uint8_t *rgb, uint32_t width, uint32_t height,
                    char *err, size_t err_size) {
  if (!path) {
    set_err(err, err_size, "path is NULL");
    return TF_E_INVALID_ARG;
  }
  size_t need;
  tf_status st = check_args(rgb, width, height, &need, err, err_size);
  if (st != TF_OK) return st;
  png_sink s;
  memset(&s, 0, sizeof s);
  if ((st = sink_alloc(&s, err, err_size)) != TF_OK) return st;
  s.f = fopen(path, "wb");
  if (!s.f) {
    set_err(err, err_size, "cannot open '%s' for writing: %s", path, strerror(errno));
    free(s.ds);
    return TF_E_IO;
  }
  encode(&s, rgb, width, height);
  free(s.ds);
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
