/* SPDX-License-Identifier: MIT
 * The candidates' loops on the simulation's threads. Each loop (the barrier's terms, the filter of
 * the broad phase's pairs, the CCD of a segment, the first iterate's reach) has a part that reads
 * one pair and the positions and nothing else (distances, times of impact, a pair's local
 * gradient) and a part that accumulates (an energy sum, a scatter into the Hessian, a list, a
 * carry that moves vertices). The first runs on the pool a block of pairs at a time into the
 * contact's block buffer; the second takes the block's results on the calling thread in pair
 * order. Sums, scatters and lists therefore come out as one thread makes them, whatever the
 * thread count (core/pool.h's promise), and the buffer is fixed at set-up: no allocation per step.
 */
#include "contact/contact.h"
#include "sim/sim.h"

/* pairs per block: large enough that a block is many pool chunks, small enough that the buffer
 * (CONTACT_BLOCK x CONTACT_BLOCK_BYTES) stays in cache */
enum { CONTACT_BLOCK = 2048 };
/* pairs per pool chunk: a pair costs 0.1 to 2 microseconds, a chunk's hand-off about 1 */
enum { CONTACT_GRAIN = 64 };

typedef struct block_job {
  contact_pair_fn compute;
  void *ctx;
  size_t first;
  size_t out_size;
  unsigned char *out;
} block_job;

static void block_range(void *ctx, uint32_t begin, uint32_t end) {
  const block_job *j = ctx;
  for (uint32_t q = begin; q < end; ++q)
    j->compute(j->ctx, j->first + q, j->out + (size_t)q * j->out_size);
}

tf_status contact_blocks_init(tf_sim *s, sim_contact *c) {
  c->block = mem_array(&s->mem, (size_t)CONTACT_BLOCK * CONTACT_BLOCK_BYTES, 1);
  return c->block ? TF_OK : TF_E_NOMEM;
}

void contact_blocks_free(tf_mem *m, sim_contact *c) {
  MEM_FREE_ARRAY(m, c->block, (size_t)CONTACT_BLOCK * CONTACT_BLOCK_BYTES);
}

int contact_pairs_run(const tf_sim *s, size_t count, size_t out_size, contact_pair_fn compute,
                      contact_take_fn take, void *ctx) {
  sim_contact *c = s->contact;
  block_job j = {compute, ctx, 0, out_size, c->block};
  for (size_t first = 0; first < count; first += CONTACT_BLOCK) {
    size_t len = count - first < CONTACT_BLOCK ? count - first : CONTACT_BLOCK;
    j.first = first;
    pool_for(s->pool, (uint32_t)len, CONTACT_GRAIN, block_range, &j);
    for (size_t q = 0; q < len; ++q)
      if (!take(ctx, first + q, c->block + q * out_size)) return 0;
  }
  return 1;
}
