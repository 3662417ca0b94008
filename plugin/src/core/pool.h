/* SPDX-License-Identifier: MIT
 * A fork-join thread pool (pthreads) for the per-step loops, built so that results never depend
 * on the thread count:
 * - pool_for splits [0, n) into chunks and every item is processed by exactly one thread; the
 *   caller makes items independent (element blocks run after the blocks they share vertices with
 *   of lower colours, sim/elements/colour.c;
 *   matrix rows write only their own row), so which thread runs a chunk changes nothing;
 * - pool_sum's chunk boundaries depend on n alone (one chunk per POOL_SUM_GRAIN items, at most
 *   POOL_SUM_CHUNKS), and the chunks' partial sums are added in chunk order by the caller's
 *   thread: one thread or 32, the same rounding.
 * A pool of one thread runs everything inline with the same chunking. The workers spin briefly
 * between jobs (a Newton iteration issues hundreds of short ones) and then sleep on a condition
 * variable, so an idle simulation costs no CPU. Set-up allocates; pool_for and pool_sum never do.
 */
#ifndef TF_CORE_POOL_H
#define TF_CORE_POOL_H

#include "core/mem.h"

#define POOL_MAX_THREADS TF_MAX_THREADS
#define POOL_SUM_CHUNKS 64   /* at most */
#define POOL_SUM_GRAIN 4096u /* items per chunk of a sum (32 kB of doubles) */

typedef struct tf_pool tf_pool;

/* process items [begin, end) */
typedef void (*pool_fn)(void *ctx, uint32_t begin, uint32_t end);
/* process items [begin, end) and return their partial sum */
typedef double (*pool_sum_fn)(void *ctx, uint32_t begin, uint32_t end);

/* the thread count 0 means: every online core (sysconf), capped at POOL_MAX_THREADS */
TF_LOCAL uint32_t pool_resolve_threads(uint32_t requested);
/* threads >= 1 in total, the caller's included (threads - 1 workers are started). NULL when
 * memory or a thread could not be had (then nothing is left running). */
TF_LOCAL tf_pool *pool_create(tf_mem *m, uint32_t threads);
TF_LOCAL void pool_destroy(tf_mem *m, tf_pool *p);
TF_LOCAL uint32_t pool_threads(const tf_pool *p);
/* one turn of a thread's spin-wait for another of p's threads: a pause, and on a pool of more
 * threads than cores every 256th turn a yield (the thread waited for may be
 * descheduled: yielding hands it the core). spins: the wait's count, from 0 */
TF_LOCAL void pool_spin(const tf_pool *p, uint32_t *spins);
/* inside a job: which thread runs it, 0 .. pool_threads - 1 (the caller's is 0), for per-thread
 * scratch; never part of a result */
TF_LOCAL uint32_t pool_thread_index(void);

/* fn over [0, n) in chunks of grain items (>= 1); returns when every chunk is done. p Nullable
 * (inline). Not reentrant: fn must not call the pool. */
TF_LOCAL void pool_for(tf_pool *p, uint32_t n, uint32_t grain, pool_fn fn, void *ctx);
/* the sum of fn's partials over chunks of [0, n) fixed by n, in chunk order */
TF_LOCAL double pool_sum(tf_pool *p, uint32_t n, pool_sum_fn fn, void *ctx);

#endif
