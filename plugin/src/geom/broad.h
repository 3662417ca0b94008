/* SPDX-License-Identifier: MIT
 * Broad phase for contact: candidate vertex-triangle and edge-edge pairs whose swept, inflated
 * axis-aligned boxes overlap, found through a spatial hash (a uniform grid hashed into a table).
 * A box spans an item's vertices at the step's start and end, grown by half the inflation on
 * every side, so every pair that comes within the inflation distance at either end of the step
 * (or anywhere along linear trajectories) is a candidate. Pairs go to a caller buffer, sorted
 * and without duplicates; when it is too small the needed count comes back and the caller grows
 * it and asks again. Memory is the broad's scratch, sized by broad_reserve and grown
 * geometrically (rarely) when a query needs more; queries do not allocate otherwise. One broad
 * is not thread-safe; use one per thread. */
#ifndef TF_GEOM_BROAD_H
#define TF_GEOM_BROAD_H

#include "core/mem.h"

/* A mesh as the broad phase sees it; a view, nothing is copied or owned. */
typedef struct broad_mesh {
  const double *x0; /* vert_count x 3, m: positions at the step's start */
  const double *x1; /* vert_count x 3, m: at its end; Nullable: the mesh does not move */
  int vert_count;
  const int *tris; /* tri_count x 3 vertex indices; Nullable when tri_count is 0 */
  int tri_count;
  const int *edges; /* edge_count x 2 vertex indices; Nullable when edge_count is 0 */
  int edge_count;
} broad_mesh;

/* the most chunks a threaded query splits its items into */
#define BROAD_CHUNKS 64
/* a cached query filters its pairs on the pool in chunks of at least this many */
#define BROAD_FILTER_CHUNK 4096

/* One candidate: (vertex, triangle) or (edge of the first mesh, edge of the second). */
typedef struct broad_pair {
  int a, b;
} broad_pair;

/* A grid entry: item index and the integer coordinates of one cell it covers. */
typedef struct broad_entry {
  uint32_t item_low; /* item << 3 | low, low's bit k: the cell is the item's lowest along axis k */
  int cx, cy, cz;
} broad_entry;

/* two boxes (min xyz, max xyz) overlap, touching included; a NaN bound counts as overlapping
 * (a broad phase reports too much rather than too little) */
static inline int broad_boxes_overlap(const double *a, const double *b) {
  for (int c = 0; c < 3; ++c)
    if (a[c] > b[3 + c] || b[c] > a[3 + c]) return 0;
  return 1;
}

typedef struct tf_pool tf_pool;

typedef struct broad {
  tf_mem *mem;
  tf_pool *pool;    /* Nullable: threads for a query's boxes and its item loop (core/pool.h); the
                    output is the one thread's, bit for bit */
  double cell_size; /* m; <= 0 (the default): the mean largest extent of the grid's boxes */
  double *gbox;     /* gbox_cap / 6 boxes put in the grid (min xyz, max xyz), m */
  double *qbox;     /* qbox_cap / 6 boxes queried against it */
  int *big;         /* big_cap: grid items spanning too many cells, tested against all */
  int *gcell;       /* gcell_cap / 6 grid items' cell ranges (lo xyz, hi xyz), computed once */
  uint32_t *gfirst; /* gfirst_cap: each grid item's first entry in ehash, plus one end */
  size_t gbox_cap, qbox_cap, big_cap, gcell_cap, gfirst_cap; /* in elements */
  broad_entry *entries; /* entry_cap: (item, cell) sorted by hash bucket */
  uint32_t *ehash;      /* entry_cap: the bucket of each item's cells, item by item (gfirst) */
  size_t entry_cap;
  uint32_t *bucket; /* bucket_cap: start of each bucket in entries, plus one end */
  size_t bucket_cap;
  /* the threaded item loop's pairs: a region of its own per chunk of items (part_cap[c] pairs),
   * each sized by that chunk's own largest count, so a dense chunk (where a fold meets the
   * sheet) does not size all of them */
  broad_pair *part[BROAD_CHUNKS];
  size_t part_cap[BROAD_CHUNKS];
  size_t part_n[BROAD_CHUNKS]; /* each chunk's pair count */
  uint32_t *first;             /* first_cap: the self edge-edge query's runs by a, where each
                                  starts and how far it is filled (broad.c, sort_by_a) */
  size_t first_cap;
  uint64_t grow_count; /* allocations made by queries (not by broad_reserve), for tests */
} broad;

/* A superset of one query's pairs, reused while every item stays inside the box it had when the
 * superset was found. A query through a cache whose boxes all hold the query's boxes filters the
 * stored pairs by the query's own box test, which gives exactly the pairs (and order) a fresh
 * query gives: no hashing, and contact's many queries of one step (anchoring, two first iterates,
 * Newton's segments; a body at rest for many steps) share one. Otherwise the query runs afresh
 * with 1.5 times its inflation and is stored. One cache per query slot (the same two meshes). */
typedef struct broad_cache {
  tf_mem *mem;
  broad_pair *pairs; /* count, sorted by (a, b): every pair of the wide query */
  size_t count, cap;
  uint8_t *keep;       /* (cap) a query's verdict on each pair, for the threaded filter (NULL on one
                  * thread) */
  double *qbox, *gbox; /* the wide query's boxes of each side (6 per item), m */
  size_t qbox_cap, gbox_cap; /* in doubles */
  int q_count, g_count, valid;
  uint64_t hits, misses; /* queries answered from the pairs, and rebuilds */
} broad_cache;

TF_LOCAL void broad_cache_init(broad_cache *k, tf_mem *mem);
TF_LOCAL void broad_cache_free(broad_cache *k);

/* Empty broad phase drawing memory from mem (kept, not owned). */
TF_LOCAL void broad_init(broad *b, tf_mem *mem);
/* Release every block; b can be initialized again. */
TF_LOCAL void broad_free(broad *b);
/* Make room for max_items boxes per side and max_entries grid entries (item-cell pairs; about
 * 8 per item is typical with the default cell size). TF_OK or TF_E_NOMEM (b stays usable). */
TF_LOCAL tf_status broad_reserve(broad *b, int max_items, size_t max_entries);

/* Vertex-triangle candidates: (vertex of verts, triangle of tris). Passing the same pointer for
 * both is the self query, which skips a triangle's own vertices. inflation (m, >= 0) is the
 * distance within which pairs must be found. Writes min(count, cap) pairs to out (Nullable when
 * cap is 0) and the full count to *out_count; out is sorted by (a, b) when count <= cap and
 * unspecified otherwise. TF_E_NOMEM if growing the scratch failed (*out_count is then 0). */
TF_LOCAL tf_status broad_vertex_tri(broad *b, const broad_mesh *verts, const broad_mesh *tris,
                                    double inflation, broad_pair *out, size_t cap,
                                    size_t *out_count);
/* The same through the cache k (Nullable: none), with the same results; TF_E_NOMEM also when
 * the cache cannot grow (it is then invalid, nothing else changes). */
TF_LOCAL tf_status broad_vertex_tri_cached(broad *b, broad_cache *k, const broad_mesh *verts,
                                           const broad_mesh *tris, double inflation,
                                           broad_pair *out, size_t cap, size_t *out_count);

/* Edge-edge candidates: (edge of ea, edge of eb). The same pointer for both is the self query:
 * each unordered pair once with a < b, pairs sharing a vertex skipped. As broad_vertex_tri. */
TF_LOCAL tf_status broad_edge_edge(broad *b, const broad_mesh *ea, const broad_mesh *eb,
                                   double inflation, broad_pair *out, size_t cap,
                                   size_t *out_count);
TF_LOCAL tf_status broad_edge_edge_cached(broad *b, broad_cache *k, const broad_mesh *ea,
                                          const broad_mesh *eb, double inflation, broad_pair *out,
                                          size_t cap, size_t *out_count);

#endif
