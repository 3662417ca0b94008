/* SPDX-License-Identifier: MIT
 * Block colouring for the threaded kernels (elements.h). Elements are cut into blocks of
 * ELEM_BLOCK consecutive ones (the mesh's own order, so a block touches a compact patch of
 * vertices and runs cache-friendly); the blocks are coloured greedily in order, each taking the
 * smallest colour none of the blocks sharing one of its vertices has (the sequential greedy
 * colouring; Jones & Plassmann 1993 discuss its parallel forms). Blocks of one colour touch
 * disjoint vertices, so their gradient rows and Hessian blocks are disjoint: a colour runs on any
 * number of threads without locks, and a vertex receives its elements' terms in one fixed order
 * (colour by colour, the block's order within it) whatever the thread count. A mesh of fewer than
 * two blocks has one colour and runs inline. A mesh whose element order is not spatially coherent
 * (a TetGen mesh: FLESH-20k's 79 blocks took 79 colours, the tet loop ran on one thread) is cut
 * into blocks along a Morton (Z-order) curve of its elements' rest centroids instead.
 *
 * On several threads the colours do not run one after another behind a barrier: a block waits
 * only for the blocks of lower colours that share a vertex with it (its predecessors), and runs
 * as soon as they are done, taken from a queue the threads share. A vertex still receives its
 * terms colour by colour, so the bits are those of the barriers'; what goes is the wait at each
 * colour's end, where a colour of an odd number of blocks (or one block, as greedy colouring's
 * last colours often have) left threads idle. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/morton.h"
#include "core/pool.h"
#include "sim/sim.h"

/* elements per block: enough that a block outweighs claiming it from the pool, few enough that
 * a mesh of some thousands of elements still has blocks for every thread */
static const uint32_t ELEM_BLOCK = 256;

/* colours with fewer blocks than this on average are too few to share out: try the spatial order,
 * on meshes of at least SPATIAL_MIN_BLOCKS blocks (a smaller one keeps its order: little to share,
 * and its arithmetic stays what it was) */
static const uint32_t MIN_BLOCKS_PER_COLOUR = 4, SPATIAL_MIN_BLOCKS = 16;

/* The blocks' dependences and the run's shared state. pending and ready are reset by the calling
 * thread before each run's job starts (the pool's job start orders those writes before the
 * workers' reads) */
typedef struct elem_deps {
  uint32_t blocks;
  uint32_t *npred;           /* (blocks) predecessors: neighbouring blocks of lower colours */
  uint32_t *succ_ptr;        /* (blocks + 1) into succ */
  uint32_t *succ;            /* neighbouring blocks of higher colours */
  uint32_t *seq;             /* (blocks) the order one thread runs them in (deps_sequence) */
  _Atomic uint32_t *pending; /* (blocks) predecessors not yet done in this run */
  _Atomic uint32_t *ready;   /* (blocks) blocks free to run, in the order they became so;
                              * DEPS_NONE where not yet written */
  _Atomic uint32_t head;     /* next queue entry to take */
  _Atomic uint32_t tail;     /* next queue entry to write */
} elem_deps;

#define DEPS_NONE UINT32_MAX

static void deps_free(tf_mem *m, elem_deps *d) {
  if (!d) return;
  MEM_FREE_ARRAY(m, d->succ, d->succ_ptr ? d->succ_ptr[d->blocks] : 0);
  MEM_FREE_ARRAY(m, d->succ_ptr, (size_t)d->blocks + 1);
  MEM_FREE_ARRAY(m, d->npred, d->blocks);
  MEM_FREE_ARRAY(m, d->pending, d->blocks);
  MEM_FREE_ARRAY(m, d->ready, d->blocks);
  MEM_FREE_ARRAY(m, d->seq, d->blocks);
  mem_free(m, d, sizeof *d);
}

void elem_colours_free(tf_mem *m, elem_colours *c) {
  deps_free(m, c->deps);
  MEM_FREE_ARRAY(m, c->ptr, c->count + 1);
  MEM_FREE_ARRAY(m, c->order, c->blocks);
  MEM_FREE_ARRAY(m, c->energy, c->elems);
  MEM_FREE_ARRAY(m, c->perm, c->elems);
  memset(c, 0, sizeof *c);
}

static int cmp_u32(const void *pa, const void *pb) {
  uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
  return a < b ? -1 : a > b;
}

int elem_spatial_order(tf_mem *m, uint32_t elems, const uint32_t *verts, uint32_t stride,
                       const uint32_t *width, const double *pos, uint32_t *perm) {
  double *cen = mem_array(m, 3 * (size_t)elems, sizeof *cen);
  if (!cen) return 0;
  for (uint32_t e = 0; e < elems; ++e) {
    const uint32_t *v = verts + (size_t)stride * e, w = width ? width[e] : stride;
    double *c = cen + 3 * (size_t)e;
    for (uint32_t q = 0; q < w; ++q)
      for (int a = 0; a < 3; ++a) c[a] += pos[3 * (size_t)v[q] + a] / w;
  }
  int ok = morton_order(m, elems, cen, perm);
  MEM_FREE_ARRAY(m, cen, 3 * (size_t)elems);
  return ok;
}

/* heap of block indices, smallest on top */
static void heap_push(uint32_t *h, uint32_t *n, uint32_t b) {
  uint32_t i = (*n)++;
  for (; i > 0 && h[(i - 1) / 2] > b; i = (i - 1) / 2) h[i] = h[(i - 1) / 2];
  h[i] = b;
}

static uint32_t heap_pop(uint32_t *h, uint32_t *n) {
  uint32_t top = h[0], last = h[--*n], i = 0;
  for (uint32_t k; (k = 2 * i + 1) < *n; i = k) {
    if (k + 1 < *n && h[k + 1] < h[k]) ++k;
    if (h[k] >= last) break;
    h[i] = h[k];
  }
  h[i] = last;
  return top;
}

/* d->seq: an order of the blocks in which each comes after its predecessors, the lowest-numbered
 * ready block first (Kahn's topological sort with a heap). Blocks are runs of the mesh's or the
 * Morton curve's consecutive elements, so this order sweeps the mesh once, and a vertex's blocks
 * run close together while its gradient and Hessian rows are in cache; colour by colour swept it
 * once per colour, each sweep loading every row it touched from memory (CLOTH-256's Hessian: 92
 * MB). Any such order gives each vertex its terms colour by colour: the same bits. */
static tf_status deps_sequence(tf_mem *m, elem_deps *d) {
  uint32_t nb = d->blocks, *left = mem_array(m, nb, sizeof *left);
  uint32_t *heap = mem_array(m, nb, sizeof *heap), hn = 0, k = 0;
  tf_status st = TF_E_NOMEM;
  if (left && heap) {
    for (uint32_t b = 0; b < nb; ++b)
      if ((left[b] = d->npred[b]) == 0) heap_push(heap, &hn, b);
    while (hn) {
      uint32_t b = heap_pop(heap, &hn);
      d->seq[k++] = b;
      for (uint32_t q = d->succ_ptr[b]; q < d->succ_ptr[b + 1]; ++q)
        if (--left[d->succ[q]] == 0) heap_push(heap, &hn, d->succ[q]);
    }
    st = TF_OK; /* every block is in seq: colours rise along each dependence, so none is cyclic */
  }
  MEM_FREE_ARRAY(m, left, nb);
  MEM_FREE_ARRAY(m, heap, nb);
  return st;
}

/* each block's neighbours (blocks sharing a vertex: vbl over vptr) sorted into predecessors and
 * successors by colour col; stamp (blocks + 1) is scratch */
static tf_status deps_build(tf_mem *m, elem_colours *c, uint32_t elems, const uint32_t *verts,
                            uint32_t stride, const uint32_t *width, const uint32_t *perm,
                            const uint32_t *vptr, const uint32_t *vbl, const uint32_t *col,
                            uint32_t *stamp) {
  uint32_t nb = c->blocks;
  elem_deps *d = mem_alloc(m, sizeof *d);
  if (!d) return TF_E_NOMEM;
  c->deps = d;
  d->blocks = nb;
  d->npred = mem_array(m, nb, sizeof *d->npred);
  d->succ_ptr = mem_array(m, (size_t)nb + 1, sizeof *d->succ_ptr);
  d->pending = mem_array(m, nb, sizeof *d->pending);
  d->ready = mem_array(m, nb, sizeof *d->ready);
  d->seq = mem_array(m, nb, sizeof *d->seq);
  if (!d->npred || !d->succ_ptr || !d->pending || !d->ready || !d->seq) return TF_E_NOMEM;
  /* two passes over each block's vertices' blocks: count, then fill the successors */
  for (int pass = 0; pass < 2; ++pass) {
    for (uint32_t b = 0; b <= nb; ++b) stamp[b] = UINT32_MAX;
    for (uint32_t b = 0; b < nb; ++b) {
      uint32_t end = (b + 1) * ELEM_BLOCK < elems ? (b + 1) * ELEM_BLOCK : elems, ns = 0;
      stamp[b] = b;
      for (uint32_t k = b * ELEM_BLOCK; k < end; ++k) {
        const uint32_t *v = verts + (size_t)stride * perm[k];
        for (uint32_t q = 0; q < (width ? width[perm[k]] : stride); ++q)
          for (uint32_t j = vptr[v[q]]; j < vptr[v[q] + 1]; ++j) {
            uint32_t o = vbl[j];
            if (stamp[o] == b) continue;
            stamp[o] = b;
            if (col[o] < col[b]) {
              if (pass == 0) d->npred[b]++;
            } else if (pass == 0) {
              ns++;
            } else {
              d->succ[d->succ_ptr[b + 1]++] = o;
            }
          }
      }
      if (pass == 0) d->succ_ptr[b + 1] = ns;
    }
    if (pass == 0) {
      for (uint32_t b = 0; b < nb; ++b) d->succ_ptr[b + 1] += d->succ_ptr[b];
      d->succ = mem_array(m, d->succ_ptr[nb], sizeof *d->succ); /* > 0: two colours touch */
      if (!d->succ) return TF_E_NOMEM;
      /* the fill pass counts each block's entries up from its start */
      for (uint32_t b = nb; b > 0; --b) d->succ_ptr[b] = d->succ_ptr[b - 1];
    }
  }
  return deps_sequence(m, d);
}

/* the greedy colouring of the blocks of perm's order */
static tf_status colour_blocks(tf_mem *m, elem_colours *c, uint32_t nv, uint32_t elems,
                               const uint32_t *verts, uint32_t stride, const uint32_t *width,
                               const uint32_t *perm) {
  uint32_t nb = (elems + ELEM_BLOCK - 1) / ELEM_BLOCK;
  /* vertex -> blocks touching it (CSR, each block once per vertex), then the greedy pass with a
   * "forbidden for block b" stamp per colour */
  uint32_t *vptr = mem_array(m, (size_t)nv + 1, sizeof *vptr);
  uint32_t *last = mem_array(m, nv, sizeof *last);
  uint32_t *col = mem_array(m, nb, sizeof *col);
  uint32_t *stamp = mem_array(m, (size_t)nb + 1, sizeof *stamp);
  size_t total = 0;
  for (uint32_t e = 0; e < elems; ++e) total += width ? width[e] : stride;
  uint32_t *vbl = mem_array(m, total ? total : 1, sizeof *vbl);
  tf_status st = TF_E_NOMEM;
  if (!vptr || !last || !col || !stamp || !vbl) goto done;
  for (int pass = 0; pass < 2; ++pass) {
    for (uint32_t i = 0; i < nv; ++i) last[i] = UINT32_MAX;
    for (uint32_t k = 0; k < elems; ++k) {
      uint32_t e = perm[k], b = k / ELEM_BLOCK;
      const uint32_t *v = verts + (size_t)stride * e;
      for (uint32_t q = 0; q < (width ? width[e] : stride); ++q) {
        if (last[v[q]] == b) continue;
        last[v[q]] = b;
        if (pass == 0)
          vptr[v[q] + 1]++;
        else
          vbl[vptr[v[q]]++] = b;
      }
    }
    if (pass == 0)
      for (uint32_t i = 0; i < nv; ++i) vptr[i + 1] += vptr[i];
  }
  for (uint32_t i = nv; i > 0; --i) vptr[i] = vptr[i - 1];
  vptr[0] = 0;
  uint32_t ncol = 0;
  for (uint32_t b = 0; b < nb; ++b) stamp[b] = UINT32_MAX;
  for (uint32_t b = 0; b < nb; ++b) {
    uint32_t end = (b + 1) * ELEM_BLOCK < elems ? (b + 1) * ELEM_BLOCK : elems;
    for (uint32_t k = b * ELEM_BLOCK; k < end; ++k) {
      const uint32_t *v = verts + (size_t)stride * perm[k];
      for (uint32_t q = 0; q < (width ? width[perm[k]] : stride); ++q)
        for (uint32_t j = vptr[v[q]]; j < vptr[v[q] + 1] && vbl[j] < b; ++j) stamp[col[vbl[j]]] = b;
    }
    uint32_t cc = 0;
    while (cc < ncol && stamp[cc] == b) ++cc;
    col[b] = cc;
    if (cc == ncol) ++ncol;
  }
  c->count = ncol;
  c->blocks = nb;
  c->ptr = mem_array(m, (size_t)ncol + 1, sizeof *c->ptr);
  c->order = mem_array(m, nb, sizeof *c->order);
  if (!c->ptr || !c->order) goto done;
  for (uint32_t b = 0; b < nb; ++b) c->ptr[col[b] + 1]++;
  for (uint32_t k = 0; k < ncol; ++k) c->ptr[k + 1] += c->ptr[k];
  for (uint32_t b = 0; b < nb; ++b) c->order[c->ptr[col[b]]++] = b;
  for (uint32_t k = ncol; k > 0; --k) c->ptr[k] = c->ptr[k - 1];
  c->ptr[0] = 0;
  st =
      ncol > 1 ? deps_build(m, c, elems, verts, stride, width, perm, vptr, vbl, col, stamp) : TF_OK;
done:
  MEM_FREE_ARRAY(m, vptr, (size_t)nv + 1);
  MEM_FREE_ARRAY(m, last, nv);
  MEM_FREE_ARRAY(m, col, nb);
  MEM_FREE_ARRAY(m, stamp, (size_t)nb + 1);
  MEM_FREE_ARRAY(m, vbl, total ? total : 1);
  return st;
}

tf_status elem_colours_build(tf_mem *m, elem_colours *c, uint32_t nv, uint32_t elems,
                             const uint32_t *verts, uint32_t stride, const uint32_t *width,
                             const double *pos) {
  memset(c, 0, sizeof *c);
  if (!elems) return TF_OK;
  c->elems = elems;
  c->energy = mem_array(m, elems, sizeof *c->energy);
  c->perm = mem_array(m, elems, sizeof *c->perm);
  if (!c->energy || !c->perm) return elem_colours_free(m, c), TF_E_NOMEM;
  for (uint32_t e = 0; e < elems; ++e) c->perm[e] = e;
  tf_status st = colour_blocks(m, c, nv, elems, verts, stride, width, c->perm);
  if (st == TF_OK && pos && c->blocks >= SPATIAL_MIN_BLOCKS &&
      c->count * MIN_BLOCKS_PER_COLOUR > c->blocks) {
    /* the mesh's own order leaves too few blocks per colour: block it along space */
    MEM_FREE_ARRAY(m, c->ptr, c->count + 1);
    MEM_FREE_ARRAY(m, c->order, c->blocks);
    deps_free(m, c->deps);
    c->ptr = c->order = NULL;
    c->deps = NULL;
    st = elem_spatial_order(m, elems, verts, stride, width, pos, c->perm) ? TF_OK : TF_E_NOMEM;
    /* each block's elements in increasing index: their data is then read forwards, which the
     * memory prefetch follows (in curve order the tet loop of FLESH-20k took 2x as long) */
    for (uint32_t b = 0; st == TF_OK && b * ELEM_BLOCK < elems; ++b) {
      uint32_t len = elems - b * ELEM_BLOCK < ELEM_BLOCK ? elems - b * ELEM_BLOCK : ELEM_BLOCK;
      qsort(c->perm + (size_t)b * ELEM_BLOCK, len, sizeof *c->perm, cmp_u32);
    }
    if (st == TF_OK) st = colour_blocks(m, c, nv, elems, verts, stride, width, c->perm);
  }
  if (st != TF_OK) elem_colours_free(m, c);
  return st;
}

typedef struct colour_job {
  const elem_colours *c;
  const uint32_t *blocks; /* the colour's */
  elem_kernel fn;
  const void *ctx;
  tf_pool *pool;
} colour_job;

static void run_block(const colour_job *j, uint32_t b) {
  uint32_t e1 = (b + 1) * ELEM_BLOCK;
  if (e1 > j->c->elems) e1 = j->c->elems;
  for (uint32_t i = b * ELEM_BLOCK; i < e1; ++i) {
    uint32_t e = j->c->perm[i];
    j->c->energy[e] = j->fn(j->ctx, e);
  }
}

static void colour_range(void *ctx, uint32_t begin, uint32_t end) {
  const colour_job *j = ctx;
  for (uint32_t k = begin; k < end; ++k) run_block(j, j->blocks[k]);
}

/* before a run: every block waits for all its predecessors; colour 0 (no predecessors) queued */
static void deps_reset(const elem_colours *c) {
  elem_deps *d = c->deps;
  for (uint32_t b = 0; b < d->blocks; ++b) {
    atomic_store_explicit(&d->pending[b], d->npred[b], memory_order_relaxed);
    atomic_store_explicit(&d->ready[b], DEPS_NONE, memory_order_relaxed);
  }
  uint32_t t = 0;
  for (uint32_t k = c->ptr[0]; k < c->ptr[1]; ++k)
    atomic_store_explicit(&d->ready[t++], c->order[k], memory_order_relaxed);
  atomic_store_explicit(&d->head, 0, memory_order_relaxed);
  atomic_store_explicit(&d->tail, t, memory_order_relaxed);
}

/* one thread's share of a run: take the next ready block, run it, release its successors, until
 * every block is taken. A block's writes reach its successor's thread through the release of
 * the last predecessor's decrement (acq_rel: it also acquires the earlier ones') and of the queue
 * entry, which the taker acquires */
static void deps_worker(void *ctx, uint32_t begin, uint32_t end) {
  (void)begin, (void)end;
  const colour_job *j = ctx;
  elem_deps *d = j->c->deps;
  uint32_t spins = 0;
  for (;;) {
    uint32_t h = atomic_load_explicit(&d->head, memory_order_relaxed);
    if (h >= d->blocks) return;
    uint32_t b = atomic_load_explicit(&d->ready[h], memory_order_acquire);
    if (b == DEPS_NONE) { /* its predecessors are still running on other threads */
      pool_spin(j->pool, &spins);
      continue;
    }
    if (!atomic_compare_exchange_weak_explicit(&d->head, &h, h + 1, memory_order_relaxed,
                                               memory_order_relaxed))
      continue;
    run_block(j, b);
    for (uint32_t k = d->succ_ptr[b]; k < d->succ_ptr[b + 1]; ++k) {
      uint32_t o = d->succ[k];
      if (atomic_fetch_sub_explicit(&d->pending[o], 1, memory_order_acq_rel) == 1) {
        uint32_t t = atomic_fetch_add_explicit(&d->tail, 1, memory_order_relaxed);
        atomic_store_explicit(&d->ready[t], o, memory_order_release);
      }
    }
  }
}

/* each element's term in turn, in element order: one running total's rounding */
static double colours_sum(const elem_colours *c) {
  double E = 0.0;
  for (uint32_t e = 0; e < c->elems; ++e) E += c->energy[e];
  return E;
}

double elem_colours_run(const tf_sim *s, const elem_colours *c, elem_kernel fn, const void *ctx,
                        int scatter) {
  colour_job j = {c, c->order, fn, ctx, s->pool};
  /* an element's energy alone touches nothing it shares: every block in one job (a colour's
   * barrier cost a line search's evaluation of FLESH-20k's 13 colours a tenth of its time on two
   * threads, its odd counts of blocks leaving one thread idle) */
  if (!scatter) {
    pool_for(s->pool, c->blocks, 1, colour_range, &j);
    return colours_sum(c);
  }
  uint32_t threads = pool_threads(s->pool);
  if (c->deps && threads > 1) { /* each thread takes the blocks as their predecessors finish */
    deps_reset(c);
    pool_for(s->pool, threads, 1, deps_worker, &j);
  } else { /* one thread, in the sequence that sweeps the mesh once (or the one colour's order) */
    if (c->deps) j.blocks = c->deps->seq;
    colour_range(&j, 0, c->blocks);
  }
  return colours_sum(c);
}
