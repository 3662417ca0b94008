/* SPDX-License-Identifier: MIT
 * Spatial-hash broad phase (Teschner et al. 2003, "Optimized Spatial Hashing for Collision
 * Detection of Deformable Objects"): the grid side's boxes are binned into every cell they
 * cover, cells hashed into a power-of-two table and the entries counting-sorted by bucket, in
 * item order, so the layout is deterministic. A query box visits its cells; an entry counts
 * only if its cell is the visited one (hash collisions are skipped) and a pair is emitted only
 * in the lowest cell the two boxes share, so no pair comes out twice and nothing needs a set.
 * Boxes spanning more than BROAD_MAX_CELLS cells are tested against everything instead. */
#include "geom/broad.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/pool.h"
#include "core/sorted.h"

/* cells one box may span before it is handled by brute force (keeps the grid O(n)) */
#define BROAD_MAX_CELLS 512
/* grid items an entry can name (its item shares 32 bits with 3 bits of cell flags) */
#define BROAD_MAX_ITEMS ((1 << 29) - 1)
/* cell coordinates are clamped here so floor() of huge or NaN input stays a valid int */
static const double BROAD_CELL_LIMIT = 1e9;

void broad_init(broad *b, tf_mem *mem) {
  memset(b, 0, sizeof *b);
  b->mem = mem;
}

void broad_free(broad *b) {
  MEM_FREE_ARRAY(b->mem, b->gbox, b->gbox_cap);
  MEM_FREE_ARRAY(b->mem, b->gcell, b->gcell_cap);
  MEM_FREE_ARRAY(b->mem, b->gfirst, b->gfirst_cap);
  MEM_FREE_ARRAY(b->mem, b->ehash, b->entry_cap);
  MEM_FREE_ARRAY(b->mem, b->qbox, b->qbox_cap);
  MEM_FREE_ARRAY(b->mem, b->big, b->big_cap);
  MEM_FREE_ARRAY(b->mem, b->entries, b->entry_cap);
  MEM_FREE_ARRAY(b->mem, b->bucket, b->bucket_cap);
  for (int c = 0; c < BROAD_CHUNKS; ++c) MEM_FREE_ARRAY(b->mem, b->part[c], b->part_cap[c]);
  MEM_FREE_ARRAY(b->mem, b->first, b->first_cap);
  tf_mem *mem = b->mem;
  broad_init(b, mem);
}

/* grow *p (elem bytes each) from *cap to at least need, doubling; 0 on failure (p kept) */
static int grow(tf_mem *m, void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 1;
  size_t n = *cap * 2 > need ? *cap * 2 : need;
  void *q = mem_array(m, n, elem);
  if (!q) return 0;
  mem_free(m, *p, *cap * elem);
  *p = q;
  *cap = n;
  return 1;
}

static int grow_boxes(broad *b, int items) {
  size_t need = (size_t)items;
  return grow(b->mem, (void **)&b->gbox, &b->gbox_cap, 6 * need, sizeof(double)) &&
         grow(b->mem, (void **)&b->qbox, &b->qbox_cap, 6 * need, sizeof(double)) &&
         grow(b->mem, (void **)&b->big, &b->big_cap, need, sizeof(int)) &&
         grow(b->mem, (void **)&b->gcell, &b->gcell_cap, 6 * need, sizeof(int)) &&
         grow(b->mem, (void **)&b->gfirst, &b->gfirst_cap, need + 1, sizeof(uint32_t));
}

/* the table holds at least two buckets per entry, a power of two, plus one end marker */
static size_t table_size(size_t entries) {
  size_t t = 64;
  while (t < 2 * entries) t *= 2;
  return t;
}

/* the entries and their buckets (one capacity for both; nothing in them is kept) and the table */
static int grow_grid(broad *b, size_t entries) {
  if (entries > b->entry_cap) {
    size_t n = b->entry_cap * 2 > entries ? b->entry_cap * 2 : entries;
    broad_entry *e = mem_array(b->mem, n, sizeof *e);
    uint32_t *h = mem_array(b->mem, n, sizeof *h);
    if (!e || !h) {
      mem_free(b->mem, e, e ? n * sizeof *e : 0);
      mem_free(b->mem, h, h ? n * sizeof *h : 0);
      return 0;
    }
    MEM_FREE_ARRAY(b->mem, b->entries, b->entry_cap);
    MEM_FREE_ARRAY(b->mem, b->ehash, b->entry_cap);
    b->entries = e, b->ehash = h, b->entry_cap = n;
  }
  return grow(b->mem, (void **)&b->bucket, &b->bucket_cap, table_size(entries) + 1,
              sizeof(uint32_t));
}

tf_status broad_reserve(broad *b, int max_items, size_t max_entries) {
  if (max_items < 0) max_items = 0;
  if (!grow_boxes(b, max_items) || !grow_grid(b, max_entries)) return TF_E_NOMEM;
  return TF_OK;
}

/* box of k vertices idx (or the single vertex v when idx is NULL), over both ends, grown by h */
static void item_box(const broad_mesh *m, const int *idx, int k, int v, double h, double box[6]) {
  for (int c = 0; c < 3; ++c) {
    box[c] = INFINITY;
    box[3 + c] = -INFINITY;
  }
  for (int i = 0; i < k; ++i) {
    int vi = idx ? idx[i] : v;
    for (int end = 0; end < 2; ++end) {
      const double *x = (end == 0 || !m->x1) ? m->x0 : m->x1;
      for (int c = 0; c < 3; ++c) { /* tf_min, not fmin: a library call (3 % of a query) */
        double q = x[3 * vi + c];
        box[c] = tf_min(q, box[c]);
        box[3 + c] = tf_max(q, box[3 + c]);
      }
    }
  }
  for (int c = 0; c < 3; ++c) {
    box[c] -= h;
    box[3 + c] += h;
  }
}

static int cell_of(double q, double inv_cell) {
  double f = floor(q * inv_cell);
  if (!(f >= -BROAD_CELL_LIMIT)) f = -BROAD_CELL_LIMIT; /* also NaN */
  if (!(f <= BROAD_CELL_LIMIT)) f = BROAD_CELL_LIMIT;
  return (int)f;
}

static void cell_range(const double box[6], double inv_cell, int lo[3], int hi[3]) {
  for (int c = 0; c < 3; ++c) {
    lo[c] = cell_of(box[c], inv_cell);
    hi[c] = cell_of(box[3 + c], inv_cell);
    if (hi[c] < lo[c]) hi[c] = lo[c];
  }
}

/* cells in the range, saturating at BROAD_MAX_CELLS + 1 */
static size_t range_cells(const int lo[3], const int hi[3]) {
  size_t n = 1;
  for (int c = 0; c < 3; ++c) {
    size_t w = (size_t)((int64_t)hi[c] - lo[c] + 1);
    if (w > BROAD_MAX_CELLS) return BROAD_MAX_CELLS + 1;
    n *= w;
    if (n > BROAD_MAX_CELLS) return BROAD_MAX_CELLS + 1;
  }
  return n;
}

/* Teschner et al. 2003 hash the coordinates by three large primes, XORed; the low bits of that
 * sum depend only on the coordinates' low bits, and on DRAPE-SELF-64's self edge-edge grid 22 % of
 * the entries a query scanned were another cell's. A 64-bit odd-multiplier sum through
 * MurmurHash3's finalizer mixes every bit into the low ones the mask keeps */
static uint32_t cell_hash(int x, int y, int z, size_t mask) {
  uint64_t h = (uint64_t)(uint32_t)x * 0x9E3779B97F4A7C15ull +
               (uint64_t)(uint32_t)y * 0xC2B2AE3D27D4EB4Full +
               (uint64_t)(uint32_t)z * 0x165667B19E3779F9ull;
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDull;
  h ^= h >> 33;
  return (uint32_t)(h & mask);
}

/* what one query describes: items of each side as vertex lists, and the self rules */
typedef struct query {
  const broad_mesh *qm, *gm;
  const int *qidx, *gidx; /* q_k / g_k vertices per item; qidx NULL: the item is a vertex */
  int qk, gk, q_count, g_count;
  int self;    /* skip pairs sharing a vertex */
  int ordered; /* self edge-edge: keep a < b only */
} query;

static int shares_vertex(const query *q, int i, int j) {
  const int *gv = q->gidx + (size_t)q->gk * (size_t)j;
  for (int a = 0; a < q->qk; ++a) {
    int va = q->qidx ? q->qidx[(size_t)q->qk * (size_t)i + (size_t)a] : i;
    for (int c = 0; c < q->gk; ++c)
      if (va == gv[c]) return 1;
  }
  return 0;
}

static void emit(broad_pair *out, size_t cap, size_t *n, int a, int b) {
  if (*n < cap) {
    out[*n].a = a;
    out[*n].b = b;
  }
  (*n)++;
}

#define PAIR_B_LESS(x, y) ((x).b < (y).b)
SORTED_DEFINE_HEAPSORT(sort_by_b, broad_pair, PAIR_B_LESS)

/* pairs come out by query item (a ascending), each item's by cell: sort each run of one a by b
 * (a handful each: insertion sort; a long run, of a box spanning much of the grid, by heapsort:
 * qsort may take its buffer from malloc, in a step) */
static void sort_runs(broad_pair *p, size_t n) {
  for (size_t r = 0, e; r < n; r = e) {
    for (e = r + 1; e < n && p[e].a == p[r].a;) ++e;
    if (e - r > 32) {
      sort_by_b(p + r, (uint32_t)(e - r));
      continue;
    }
    for (size_t k = r + 1; k < e; ++k) {
      broad_pair x = p[k];
      size_t j = k;
      for (; j > r && p[j - 1].b > x.b; --j) p[j] = p[j - 1];
      p[j] = x;
    }
  }
}

/* the pair (query i, grid j) survives the self rules */
static int admissible(const query *q, int i, int j) {
  if (q->ordered && !(i < j)) return 0;
  return !(q->self && shares_vertex(q, i, j));
}

/* both sides are the same items of the same mesh */
static int same_items(const query *q) {
  return q->qm == q->gm && q->qidx == q->gidx && q->qk == q->gk && q->q_count == q->g_count;
}

/* items per pool chunk of the boxes, and the fewest items a chunk of the item loop takes */
enum { BOX_GRAIN = 512, ITEM_CHUNK_MIN = 256 };

typedef struct boxes_job {
  const broad_mesh *m;
  const int *idx;
  int k;
  double h, *out;
} boxes_job;

static void boxes_range(void *ctx, uint32_t begin, uint32_t end) {
  const boxes_job *j = ctx;
  for (uint32_t i = begin; i < end; ++i)
    item_box(j->m, j->idx ? j->idx + (size_t)j->k * i : NULL, j->k, (int)i, j->h,
             j->out + 6 * (size_t)i);
}

/* every item's box of both sides into b->gbox / b->qbox (room made by grow_boxes) */
static void query_boxes(broad *b, const query *q, double inflation) {
  double h = 0.5 * (inflation > 0.0 ? inflation : 0.0);
  boxes_job g = {q->gm, q->gidx, q->gk, h, b->gbox};
  pool_for(b->pool, (uint32_t)q->g_count, BOX_GRAIN, boxes_range, &g);
  if (same_items(q)) { /* the self edge-edge query: both sides are the same boxes */
    memcpy(b->qbox, b->gbox, 6 * (size_t)q->g_count * sizeof *b->qbox);
    return;
  }
  boxes_job j = {q->qm, q->qidx, q->qk, h, b->qbox};
  pool_for(b->pool, (uint32_t)q->q_count, BOX_GRAIN, boxes_range, &j);
}

/* the grid's layout for the item loop */
typedef struct grid_view {
  const broad *b;
  const query *q;
  double inv;
  size_t mask;
  int n_big;
} grid_view;

/* query item i's pairs outside the grid: an oversized query box (brute) meets every grid item,
 * any other box only the oversized grid items */
static void against_big(const grid_view *g, int i, const double *qb, int brute, broad_pair *out,
                        size_t cap, size_t *n) {
  const broad *b = g->b;
  const query *q = g->q;
  for (int k = 0; k < (brute ? q->g_count : g->n_big); ++k) {
    int j = brute ? k : b->big[k];
    if (broad_boxes_overlap(qb, b->gbox + 6 * (size_t)j) && admissible(q, i, j))
      emit(out, cap, n, i, j);
  }
}

/* the pairs of query items [i0, i1) into out (emit: count all, write cap): in item order */
static void query_items(const grid_view *g, int i0, int i1, broad_pair *out, size_t cap,
                        size_t *n) {
  const broad *b = g->b;
  const query *q = g->q;
  const uint32_t *start = b->bucket;
  for (int i = i0; i < i1; ++i) {
    const double *qb = b->qbox + 6 * (size_t)i;
    int qlo[3], qhi[3];
    cell_range(qb, g->inv, qlo, qhi);
    int brute = range_cells(qlo, qhi) > BROAD_MAX_CELLS;
    against_big(g, i, qb, brute, out, cap, n);
    if (brute) continue;
    for (int x = qlo[0]; x <= qhi[0]; ++x)
      for (int y = qlo[1]; y <= qhi[1]; ++y)
        for (int z = qlo[2]; z <= qhi[2]; ++z) {
          uint32_t hb = cell_hash(x, y, z, g->mask);
          /* emit only in the lowest shared cell, the corner max(qlo, glo): a cell of both ranges
           * is that corner on an axis where it is the query's lowest or the item's. First, from
           * the entry alone: most of a box's cells are not its pairs' corner, and this spares
           * their random reads of the item's box (DRAPE-SELF's swept self boxes span several
           * cells each): the entry's low bits must hold every axis where this cell is not the
           * query's lowest */
          uint32_t need =
              (uint32_t)(x != qlo[0]) | (uint32_t)(y != qlo[1]) << 1 | (uint32_t)(z != qlo[2]) << 2;
          for (uint32_t e = start[hb]; e < start[hb + 1]; ++e) {
            const broad_entry *en = &b->entries[e];
            if (en->cx != x || en->cy != y || en->cz != z) continue; /* a hash collision */
            if ((en->item_low & need) != need) continue;
            int j = (int)(en->item_low >> 3);
            /* the order before the box: half of a self query's entries, without a random read */
            if (q->ordered && j <= i) continue;
            if (!broad_boxes_overlap(qb, b->gbox + 6 * (size_t)j) || !admissible(q, i, j)) continue;
            emit(out, cap, n, i, j);
          }
        }
  }
}

/* the threaded item loop: chunk c (items in [c, c + 1) x count / chunks) into its region of
 * b->part[c], sorted there when it fits; its full count into part_n[c] */
typedef struct items_job {
  broad *b;
  const grid_view *g;
  int chunks;
} items_job;

static int chunk_first(int c, int chunks, int count) { return (int)((int64_t)count * c / chunks); }

static void items_range(void *ctx, uint32_t begin, uint32_t end) {
  const items_job *j = ctx;
  int count = j->g->q->q_count;
  for (uint32_t c = begin; c < end; ++c) {
    broad_pair *out = j->b->part[c];
    size_t n = 0;
    query_items(j->g, chunk_first((int)c, j->chunks, count),
                chunk_first((int)c + 1, j->chunks, count), out, j->b->part_cap[c], &n);
    if (n <= j->b->part_cap[c]) sort_runs(out, n);
    j->b->part_n[c] = n;
  }
}

/* chunk c's region made room for a quarter more than nc pairs, its old pairs dropped (allocation,
 * counted in grow_count); 0 without the memory, the region kept */
static int grow_region(broad *b, int c, size_t nc) {
  uint64_t allocs = b->mem->alloc_count;
  broad_pair *p = mem_array(b->mem, nc + nc / 4, sizeof *p);
  b->grow_count += b->mem->alloc_count - allocs;
  if (!p) return 0;
  MEM_FREE_ARRAY(b->mem, b->part[c], b->part_cap[c]);
  b->part[c] = p;
  b->part_cap[c] = nc + nc / 4;
  return 1;
}

/* the item loop on the pool: each chunk's pairs in its region, then the regions in chunk order
 * into out. A chunk that overflowed its region runs again into out on this thread, and its region
 * grows to a quarter more than its count for the next query (allocation, counted in grow_count;
 * without the memory it stays as it was and the chunk keeps running again here: slower, the same
 * pairs). The pairs and their order are the one-thread loop's; every run of one item lies in one
 * chunk, sorted there. One region sized for the fullest chunk times the chunk count had made the
 * regions of DRAPE-SELF-128 on two threads 148 MB (577 MB at the peak against 429 on one) */
static void query_items_threaded(broad *b, const grid_view *g, int chunks, broad_pair *out,
                                 size_t cap, size_t *out_n) {
  int count = g->q->q_count;
  items_job j = {b, g, chunks};
  pool_for(b->pool, (uint32_t)chunks, 1, items_range, &j);
  size_t n = 0;
  for (int c = 0; c < chunks; ++c) {
    size_t nc = b->part_n[c];
    if (nc <= b->part_cap[c]) {
      if (nc > 0 && n + nc <= cap) memcpy(out + n, b->part[c], nc * sizeof *out);
      n += nc;
      continue;
    }
    size_t n0 = n;
    query_items(g, chunk_first(c, chunks, count), chunk_first(c + 1, chunks, count), out, cap, &n);
    if (n <= cap) sort_runs(out + n0, n - n0);
    grow_region(b, c, nc);
  }
  *out_n = n;
}

/* The self edge-edge query (both sides the same boxes, pairs a < b) cell by cell: each cell's
 * entries against the later ones of the same cell, a pair emitted in the one cell where, on every
 * axis, the cell is the lowest of one of the two boxes (their low flags together cover all three
 * axes): the lowest cell both share, the item loop's rule. The item loop met each pair from the
 * cells of both its items' boxes and scanned every entry of every cell a box covers (DRAPE-SELF-64:
 * 1.29 million entries for 28 thousand pairs a query, 21.7 a cell); here each unordered pair of a
 * cell is looked at once, from two entries already in hand. The pairs come out by cell and are
 * grouped by a, then each a's run sorted by b: the item loop's order. Pairs with an item
 * too large for the grid (b->big) are the item loop's (against_big). */
static void cell_pairs(const grid_view *g, size_t h0, size_t h1, int with_big, broad_pair *out,
                       size_t cap, size_t *n) {
  const broad *b = g->b;
  const query *q = g->q;
  const uint32_t *start = b->bucket;
  for (size_t h = h0; h < h1; ++h)
    for (uint32_t e = start[h]; e + 1 < start[h + 1]; ++e) {
      const broad_entry *u = &b->entries[e];
      const int i = (int)(u->item_low >> 3);
      const double *bi = b->gbox + 6 * (size_t)i;
      for (uint32_t f = e + 1; f < start[h + 1]; ++f) { /* a bucket's entries are in item order */
        const broad_entry *w = &b->entries[f];
        if (((u->item_low | w->item_low) & 7) != 7) continue;
        if (w->cx != u->cx || w->cy != u->cy || w->cz != u->cz) continue; /* a hash collision */
        const int j = (int)(w->item_low >> 3);
        if (broad_boxes_overlap(bi, b->gbox + 6 * (size_t)j) && admissible(q, i, j))
          emit(out, cap, n, i, j);
      }
    }
  if (!with_big || g->n_big == 0) return;
  for (int i = 0; i < q->q_count; ++i) /* the same boxes both sides: brute exactly when big */
    against_big(g, i, b->gbox + 6 * (size_t)i, b->gfirst[i] == b->gfirst[i + 1], out, cap, n);
}

typedef struct cells_job {
  broad *b;
  const grid_view *g;
  int chunks;
  size_t nbuckets;
} cells_job;

static void cells_range(void *ctx, uint32_t begin, uint32_t end) {
  const cells_job *j = ctx;
  for (uint32_t c = begin; c < end; ++c) {
    size_t n = 0;
    cell_pairs(j->g, j->nbuckets * c / (size_t)j->chunks, j->nbuckets * (c + 1) / (size_t)j->chunks,
               c == 0, j->b->part[c], j->b->part_cap[c], &n);
    j->b->part_n[c] = n;
  }
}

/* out's n pairs grouped by a in place (an American flag sort: each pair swapped into its a's
 * run, b->first counting, then marking where each run is filled to), then each run sorted by b */
static void sort_by_a(broad *b, int count, broad_pair *out, size_t n) {
  uint32_t *first = b->first, *fill = b->first + count + 1;
  memset(first, 0, ((size_t)count + 1) * sizeof *first);
  for (size_t e = 0; e < n; ++e) first[out[e].a + 1]++;
  for (int i = 0; i < count; ++i) first[i + 1] += first[i];
  memcpy(fill, first, (size_t)count * sizeof *fill);
  for (int a = 0; a < count; ++a)
    while (fill[a] < first[a + 1]) {
      broad_pair p = out[fill[a]];
      if (p.a == a) {
        fill[a]++;
        continue;
      }
      out[fill[a]] = out[fill[p.a]]; /* p to its own run, that run's next pair here */
      out[fill[p.a]++] = p;
    }
  sort_runs(out, n);
}

/* the cells into out, on one thread; on several, in chunks into the regions b->part (a region
 * that overflowed grown to a quarter more than its count and its chunk run again here, as the
 * item loop's), gathered into out in chunk order. Then grouped by a and sorted. Only the regions
 * and the counts are allocated, by a query that needs more than any before it (grow_count) */
static tf_status query_cells(broad *b, const grid_view *g, size_t nbuckets, int chunks,
                             broad_pair *out, size_t cap, size_t *out_n) {
  const query *q = g->q;
  uint64_t allocs = b->mem->alloc_count;
  int ok = grow(b->mem, (void **)&b->first, &b->first_cap, 2 * ((size_t)q->q_count + 1),
                sizeof *b->first);
  b->grow_count += b->mem->alloc_count - allocs;
  if (!ok) return TF_E_NOMEM;
  size_t n = 0;
  if (chunks <= 1) {
    cell_pairs(g, 0, nbuckets, 1, out, cap, &n);
  } else {
    cells_job j = {b, g, chunks, nbuckets};
    pool_for(b->pool, (uint32_t)chunks, 1, cells_range, &j);
    for (int c = 0; c < chunks; ++c) {
      size_t nc = b->part_n[c];
      if (nc > b->part_cap[c]) {
        if (!grow_region(b, c, nc)) return TF_E_NOMEM;
        cells_range(&j, (uint32_t)c, (uint32_t)c + 1);
      }
      if (n + nc <= cap) memcpy(out + n, b->part[c], nc * sizeof *out);
      n += nc;
    }
  }
  *out_n = n;
  if (n <= cap) sort_by_a(b, q->q_count, out, n);
  return TF_OK;
}

/* The grid's build on the pool: each item's cell range and cell count (0: too many, the item
 * goes against everything) into gcell and gfirst, then, once gfirst holds where each item's
 * entries start, each entry's bucket into ehash; the counting sort that follows reads them in
 * order. On two threads DRAPE-SELF-64's main thread spent 4.9 % of the wall time alone in this
 * build, which hashed every cell twice (to count and to place) */
typedef struct grid_job {
  broad *b;
  double inv;
  size_t mask;
} grid_job;

static void grid_cells(void *ctx, uint32_t begin, uint32_t end) {
  const grid_job *j = ctx;
  broad *b = j->b;
  for (uint32_t i = begin; i < end; ++i) {
    int *gc = b->gcell + 6 * (size_t)i;
    cell_range(b->gbox + 6 * (size_t)i, j->inv, gc, gc + 3);
    size_t nc = range_cells(gc, gc + 3);
    b->gfirst[i] = nc > BROAD_MAX_CELLS ? 0 : (uint32_t)nc;
  }
}

static void grid_hashes(void *ctx, uint32_t begin, uint32_t end) {
  const grid_job *j = ctx;
  broad *b = j->b;
  for (uint32_t i = begin; i < end; ++i) {
    const int *lo = b->gcell + 6 * (size_t)i, *hi = lo + 3;
    uint32_t e = b->gfirst[i];
    if (e == b->gfirst[i + 1]) continue; /* a big item */
    for (int x = lo[0]; x <= hi[0]; ++x)
      for (int y = lo[1]; y <= hi[1]; ++y)
        for (int z = lo[2]; z <= hi[2]; ++z) b->ehash[e++] = cell_hash(x, y, z, j->mask);
  }
}

static tf_status run_query(broad *b, const query *q, double inflation, broad_pair *out, size_t cap,
                           size_t *out_count) {
  *out_count = 0;
  int items = q->q_count > q->g_count ? q->q_count : q->g_count;
  if (q->g_count > BROAD_MAX_ITEMS) return TF_E_NOMEM; /* an entry keeps 29 bits of item */
  uint64_t allocs = b->mem->alloc_count;
  if (!grow_boxes(b, items)) return TF_E_NOMEM;
  query_boxes(b, q, inflation);

  /* cell size: the caller's, or the grid boxes' mean largest extent */
  double cell = b->cell_size;
  if (!(cell > 0.0)) {
    double sum = 0.0;
    for (int j = 0; j < q->g_count; ++j) {
      const double *g = b->gbox + 6 * (size_t)j;
      sum += fmax(g[3] - g[0], fmax(g[4] - g[1], g[5] - g[2]));
    }
    cell = q->g_count > 0 ? sum / q->g_count : 1.0;
  }
  if (!(cell > 0.0) || !isfinite(cell)) cell = 1.0;
  double inv = 1.0 / cell;

  /* each grid item's cells and how many (on the pool); the entries item by item from gfirst, too
   * large boxes to the brute-force list, in item order */
  grid_job gj = {b, inv, 0};
  pool_for(b->pool, (uint32_t)q->g_count, BOX_GRAIN, grid_cells, &gj);
  size_t n_entries = 0;
  int n_big = 0;
  for (int j = 0; j < q->g_count; ++j) {
    uint32_t nc = b->gfirst[j];
    b->gfirst[j] = (uint32_t)n_entries;
    if (nc == 0)
      b->big[n_big++] = j;
    else
      n_entries += nc;
  }
  if (n_entries > UINT32_MAX) return TF_E_NOMEM; /* entries are counted in 32 bits */
  b->gfirst[q->g_count] = (uint32_t)n_entries;
  if (!grow_grid(b, n_entries)) return TF_E_NOMEM;
  b->grow_count += b->mem->alloc_count - allocs;
  size_t nbuckets = table_size(n_entries), mask = nbuckets - 1;
  gj.mask = mask;
  pool_for(b->pool, (uint32_t)q->g_count, BOX_GRAIN, grid_hashes, &gj);

  /* counting sort of (item, cell) by bucket, items in order within a bucket */
  uint32_t *start = b->bucket;
  const uint32_t *eh = b->ehash;
  memset(start, 0, (nbuckets + 1) * sizeof *start);
  for (size_t e = 0; e < n_entries; ++e) start[eh[e] + 1]++;
  for (size_t k = 0; k < nbuckets; ++k) start[k + 1] += start[k];
  for (int j = 0; j < q->g_count; ++j) {
    const int *lo = b->gcell + 6 * (size_t)j, *hi = lo + 3;
    uint32_t e = b->gfirst[j];
    if (e == b->gfirst[j + 1]) continue; /* a big item */
    for (int x = lo[0]; x <= hi[0]; ++x)
      for (int y = lo[1]; y <= hi[1]; ++y)
        for (int z = lo[2]; z <= hi[2]; ++z) {
          /* start[k] runs ahead while filling; it ends as the start of bucket k + 1 */
          broad_entry *en = &b->entries[start[eh[e++]]++];
          en->item_low = (uint32_t)j << 3 | (uint32_t)(x == lo[0]) | (uint32_t)(y == lo[1]) << 1 |
                         (uint32_t)(z == lo[2]) << 2;
          en->cx = x;
          en->cy = y;
          en->cz = z;
        }
  }
  /* shift back so start[k] is bucket k's first entry again */
  for (size_t k = nbuckets; k > 0; --k) start[k] = start[k - 1];
  start[0] = 0;

  grid_view g = {b, q, inv, mask, n_big};
  int chunks = q->q_count / ITEM_CHUNK_MIN;
  chunks = chunks > BROAD_CHUNKS ? BROAD_CHUNKS : chunks;
  if (q->ordered && same_items(q)) {
    int threads = b->pool ? pool_threads(b->pool) : 1;
    return query_cells(b, &g, nbuckets, threads > 1 ? chunks : 1, out, cap, out_count);
  }
  if (b->pool && pool_threads(b->pool) > 1 && chunks > 1) {
    query_items_threaded(b, &g, chunks, out, cap, out_count);
    return TF_OK;
  }
  size_t n = 0;
  query_items(&g, 0, q->q_count, out, cap, &n);
  if (n <= cap) sort_runs(out, n);
  *out_count = n;
  return TF_OK;
}

/* every box of now (count x 6) inside the same item's box of then; NaN is never inside */
static int boxes_inside(const double *now, const double *then, int count) {
  for (size_t k = 0; k < 6 * (size_t)count; k += 6)
    for (int c = 0; c < 3; ++c)
      if (!(now[k + c] >= then[k + c] && now[k + 3 + c] <= then[k + 3 + c])) return 0;
  return 1;
}

void broad_cache_init(broad_cache *k, tf_mem *mem) {
  memset(k, 0, sizeof *k);
  k->mem = mem;
}

void broad_cache_free(broad_cache *k) {
  if (!k->mem) return;
  MEM_FREE_ARRAY(k->mem, k->pairs, k->cap);
  MEM_FREE_ARRAY(k->mem, k->keep, k->keep ? k->cap : 0);
  MEM_FREE_ARRAY(k->mem, k->qbox, k->qbox_cap);
  MEM_FREE_ARRAY(k->mem, k->gbox, k->gbox_cap);
  broad_cache_init(k, k->mem); /* pointers and capacities back to none */
}

/* the wide query into the cache (grown as it needs), with its boxes */
static tf_status cache_rebuild(broad *b, broad_cache *k, const query *q, double wide) {
  k->valid = 0;
  k->misses++;
  size_t n = 0;
  for (;;) {
    tf_status st = run_query(b, q, wide, k->pairs, k->cap, &n);
    if (st != TF_OK) return st;
    if (n <= k->cap) break;
    uint64_t allocs = b->mem->alloc_count;
    MEM_FREE_ARRAY(k->mem, k->pairs, k->cap); /* nothing in it to keep */
    MEM_FREE_ARRAY(k->mem, k->keep, k->keep ? k->cap : 0);
    k->pairs = NULL;
    k->keep = NULL;
    k->cap = 0;
    int ok = grow(k->mem, (void **)&k->pairs, &k->cap, n + n / 4, sizeof *k->pairs);
    b->grow_count += b->mem->alloc_count - allocs;
    if (!ok) return TF_E_NOMEM;
  }
  /* the verdicts' room, with the pairs', where the filter runs on several threads */
  if (!k->keep && k->cap > 0 && b->pool && pool_threads(b->pool) > 1) {
    uint64_t allocs = b->mem->alloc_count;
    k->keep = mem_array(k->mem, k->cap, sizeof *k->keep);
    b->grow_count += b->mem->alloc_count - allocs;
    if (!k->keep) return TF_E_NOMEM;
  }
  uint64_t allocs = b->mem->alloc_count;
  int ok = grow(k->mem, (void **)&k->qbox, &k->qbox_cap, 6 * (size_t)q->q_count, sizeof(double)) &&
           grow(k->mem, (void **)&k->gbox, &k->gbox_cap, 6 * (size_t)q->g_count, sizeof(double));
  b->grow_count += b->mem->alloc_count - allocs;
  if (!ok) return TF_E_NOMEM;
  memcpy(k->qbox, b->qbox, 6 * (size_t)q->q_count * sizeof(double));
  memcpy(k->gbox, b->gbox, 6 * (size_t)q->g_count * sizeof(double));
  k->count = n;
  k->q_count = q->q_count;
  k->g_count = q->g_count;
  k->valid = 1;
  return TF_OK;
}

/* The cached filter on the pool (22 % of DRAPE-SELF-64's main thread ran alone on two threads,
 * this loop and the grid's build the largest part): each chunk of the cached pairs records its
 * verdicts and counts them, then writes its kept pairs from its offset, so out holds the one-thread
 * loop's pairs in its order for any thread count. */
typedef struct filter_job {
  const broad *b;
  broad_cache *k;
  size_t chunks, count[BROAD_CHUNKS], at[BROAD_CHUNKS];
  broad_pair *out;
  size_t cap;
} filter_job;

static size_t filter_first(const filter_job *j, size_t c) { return j->k->count * c / j->chunks; }

static void filter_judge(void *ctx, uint32_t c0, uint32_t c1) {
  filter_job *j = ctx;
  for (uint32_t c = c0; c < c1; ++c) {
    size_t kept = 0;
    for (size_t e = filter_first(j, c); e < filter_first(j, c + 1); ++e) {
      const broad_pair *p = &j->k->pairs[e];
      uint8_t in = (uint8_t)broad_boxes_overlap(j->b->qbox + 6 * (size_t)p->a,
                                                j->b->gbox + 6 * (size_t)p->b);
      j->k->keep[e] = in;
      kept += in;
    }
    j->count[c] = kept;
  }
}

static void filter_write(void *ctx, uint32_t c0, uint32_t c1) {
  filter_job *j = ctx;
  for (uint32_t c = c0; c < c1; ++c) {
    size_t n = j->at[c];
    for (size_t e = filter_first(j, c); e < filter_first(j, c + 1); ++e)
      if (j->k->keep[e]) emit(j->out, j->cap, &n, j->k->pairs[e].a, j->k->pairs[e].b);
  }
}

static size_t filter_threaded(broad *b, broad_cache *k, size_t chunks, broad_pair *out,
                              size_t cap) {
  filter_job j = {.b = b, .k = k, .chunks = chunks, .out = out, .cap = cap};
  pool_for(b->pool, (uint32_t)chunks, 1, filter_judge, &j);
  size_t n = 0;
  for (size_t c = 0; c < chunks; ++c) j.at[c] = n, n += j.count[c];
  pool_for(b->pool, (uint32_t)chunks, 1, filter_write, &j);
  return n;
}

static tf_status run_cached(broad *b, broad_cache *k, const query *q, double inflation,
                            broad_pair *out, size_t cap, size_t *out_count) {
  if (!k) return run_query(b, q, inflation, out, cap, out_count);
  *out_count = 0;
  int items = q->q_count > q->g_count ? q->q_count : q->g_count;
  uint64_t allocs = b->mem->alloc_count;
  if (!grow_boxes(b, items)) return TF_E_NOMEM;
  b->grow_count += b->mem->alloc_count - allocs;
  query_boxes(b, q, inflation);
  int hit = k->valid && k->q_count == q->q_count && k->g_count == q->g_count &&
            boxes_inside(b->gbox, k->gbox, q->g_count) &&
            (same_items(q) || boxes_inside(b->qbox, k->qbox, q->q_count));
  if (hit)
    k->hits++;
  else {
    /* half as much again: the boxes grow by a quarter of the inflation on every side, room for
     * the motion of the next queries (a step's several first iterates; the next steps of a body
     * at rest). Wider caches hit more often but every query filters all they hold (DRAPE-64: 1.25
     * and 1.5 times alike, twice 3 % slower, three times 10 %, four times 26 %). A sheet against
     * itself moves relative to its own mean only (self.c), so its boxes stay put longer, and its
     * rebuild, a grid of the whole sheet queried by the whole sheet, costs several filters: 2.5
     * times cut DRAPE-SELF-64's self queries that rebuild from 54 % to 30 % and its self-contact
     * time by 20 % (1.5, 2, 2.5, 3 times: 26.8, 24.4, 21.5, 22.5 ms/frame; DRAPE-SELF-32 5.1, 4.3,
     * 3.9, 3.9), its peak memory up 0.7 MB */
    double wide = (q->self ? 2.5 : 1.5) * (inflation > 0.0 ? inflation : 0.0);
    tf_status st = cache_rebuild(b, k, q, wide);
    if (st != TF_OK) return st;
    query_boxes(b, q, inflation); /* the rebuild left its wide boxes there */
  }
  /* the stored pairs with the query's own boxes overlapping: the fresh query's pairs, as every
   * box lies inside the wide one and the broad phase finds every overlapping admissible pair */
  size_t chunks = k->count / BROAD_FILTER_CHUNK;
  if (k->keep && b->pool && pool_threads(b->pool) > 1 && chunks > 1) {
    *out_count = filter_threaded(b, k, chunks > BROAD_CHUNKS ? BROAD_CHUNKS : chunks, out, cap);
    return TF_OK;
  }
  size_t n = 0;
  for (size_t e = 0; e < k->count; ++e) {
    const broad_pair *p = &k->pairs[e];
    if (broad_boxes_overlap(b->qbox + 6 * (size_t)p->a, b->gbox + 6 * (size_t)p->b))
      emit(out, cap, &n, p->a, p->b);
  }
  *out_count = n;
  return TF_OK;
}

tf_status broad_vertex_tri_cached(broad *b, broad_cache *k, const broad_mesh *verts,
                                  const broad_mesh *tris, double inflation, broad_pair *out,
                                  size_t cap, size_t *out_count) {
  query q = {verts,           tris,          NULL, tris->tris, 1, 3, verts->vert_count,
             tris->tri_count, verts == tris, 0};
  return run_cached(b, k, &q, inflation, out, cap, out_count);
}

tf_status broad_edge_edge_cached(broad *b, broad_cache *k, const broad_mesh *ea,
                                 const broad_mesh *eb, double inflation, broad_pair *out,
                                 size_t cap, size_t *out_count) {
  query q = {ea,       eb,      ea->edges, eb->edges, 2, 2, ea->edge_count, eb->edge_count,
             ea == eb, ea == eb};
  return run_cached(b, k, &q, inflation, out, cap, out_count);
}

tf_status broad_vertex_tri(broad *b, const broad_mesh *verts, const broad_mesh *tris,
                           double inflation, broad_pair *out, size_t cap, size_t *out_count) {
  return broad_vertex_tri_cached(b, NULL, verts, tris, inflation, out, cap, out_count);
}

tf_status broad_edge_edge(broad *b, const broad_mesh *ea, const broad_mesh *eb, double inflation,
                          broad_pair *out, size_t cap, size_t *out_count) {
  return broad_edge_edge_cached(b, NULL, ea, eb, inflation, out, cap, out_count);
}
