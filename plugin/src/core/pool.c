/* SPDX-License-Identifier: MIT
 * Fork-join pool (see pool.h). A job is open from its start until the caller has claimed its last
 * chunk: a worker joins it only while it is open (one atomic word holds the job's number, the
 * open bit and the count of workers inside), the threads inside claim chunks from one atomic
 * counter, and the caller closes the job and returns once every worker that joined has left, so
 * no worker is inside a job when the next one's fields are written. A worker that is asleep, or
 * whose core the host has not given it back yet, is not waited for: the threads inside do its
 * share. (Waiting for every worker cost CLOTH-32 on two threads of a 2-vCPU VM 1.0 ms a frame
 * where one thread takes 0.6: a worker woken from sleep took up to milliseconds to report.) */
#include "core/pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>

#include "core/clock.h"

/* how long a worker waits for the next job, spinning, before it sleeps: longer than the serial
 * stretches between two jobs of a step, so that a job does not start with its workers asleep (a
 * sleeping worker's wake-up cost FLESH-20k 4 % of its frame on two threads with a 25 us spin),
 * short enough that an idle simulation costs nothing. A time, not a count of pause
 * instructions, whose length differs several-fold between processors */
static const double SPIN_SECONDS = 200e-6;
/* spins between two readings of the clock while a worker waits, and between yields while any
 * thread waits with more threads than cores (one of them may be descheduled: yielding hands it
 * the core) */
static const uint32_t SPIN_BEFORE_YIELD = 256;

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* the job word */
#define JOB_OPEN (1ull << 31)
#define JOB_NUMBER(w) ((w) >> 32)
#define JOB_INSIDE(w) ((w) & (JOB_OPEN - 1)) /* workers that joined and have not left */

/* which of its pool's threads this is: 0 for the caller's, k for worker k (set once per worker) */
static _Thread_local uint32_t pool_tid;

uint32_t pool_thread_index(void) { return pool_tid; }

typedef struct worker_arg {
  struct tf_pool *p;
  uint32_t index;
} worker_arg;

struct tf_pool {
  uint32_t threads;
  pthread_t *tid;   /* (threads - 1) */
  worker_arg *args; /* (threads - 1) */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  _Atomic uint64_t job;      /* JOB_NUMBER: a change starts a job; JOB_OPEN; JOB_INSIDE */
  _Atomic uint32_t sleepers; /* workers waiting on cv */
  _Atomic uint32_t next;     /* next chunk to claim */
  _Atomic int stop;
  int oversubscribed; /* more threads than cores: a waiting thread yields its core */
  /* the current job, written by the caller while every worker is idle */
  pool_fn fn;
  pool_sum_fn sum_fn;
  void *ctx;
  uint32_t n, grain, chunks;
  double partial[POOL_SUM_CHUNKS];
};

uint32_t pool_resolve_threads(uint32_t requested) {
  if (requested == 0) {
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    requested = c > 0 ? (uint32_t)c : 1u;
  }
  return requested > POOL_MAX_THREADS ? POOL_MAX_THREADS : requested;
}

/* a sum's chunk count, fixed by n: one per POOL_SUM_GRAIN items (a short sum is one serial
 * loop, as it always was), at most POOL_SUM_CHUNKS */
static uint32_t sum_chunks(uint32_t n) {
  uint32_t k = n / POOL_SUM_GRAIN + (n % POOL_SUM_GRAIN != 0);
  return k < 1 ? 1 : k > POOL_SUM_CHUNKS ? POOL_SUM_CHUNKS : k;
}

/* chunk c of a sum over n items in k chunks: [c n / k, (c + 1) n / k) */
static void sum_range(uint32_t n, uint32_t k, uint32_t c, uint32_t *begin, uint32_t *end) {
  *begin = (uint32_t)((uint64_t)c * n / k);
  *end = (uint32_t)((uint64_t)(c + 1) * n / k);
}

/* chunk c of the current job: [begin, end) */
static void chunk_range(const tf_pool *p, uint32_t c, uint32_t *begin, uint32_t *end) {
  if (p->sum_fn) {
    sum_range(p->n, p->chunks, c, begin, end);
  } else {
    *begin = c * p->grain;
    *end = *begin + p->grain < p->n ? *begin + p->grain : p->n;
  }
}

static void run_chunks(tf_pool *p) {
  for (;;) {
    uint32_t c = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
    if (c >= p->chunks) return;
    uint32_t b, e;
    chunk_range(p, c, &b, &e);
    if (p->sum_fn)
      p->partial[c] = p->sum_fn(p->ctx, b, e);
    else
      p->fn(p->ctx, b, e);
  }
}

static void *worker(void *arg) {
  const worker_arg *wa = arg;
  tf_pool *p = wa->p;
  pool_tid = wa->index;
  uint64_t seen = 0;
  for (;;) {
    uint32_t spins = 0;
    double since = now_seconds();
    while (JOB_NUMBER(atomic_load(&p->job)) == seen && !atomic_load(&p->stop)) {
      if (++spins % SPIN_BEFORE_YIELD != 0) {
        cpu_relax();
        continue;
      }
      if (now_seconds() - since < SPIN_SECONDS) {
        if (p->oversubscribed) sched_yield();
        continue;
      }
      pthread_mutex_lock(&p->mu);
      atomic_fetch_add(&p->sleepers, 1);
      while (JOB_NUMBER(atomic_load(&p->job)) == seen && !atomic_load(&p->stop))
        pthread_cond_wait(&p->cv, &p->mu);
      atomic_fetch_sub(&p->sleepers, 1);
      pthread_mutex_unlock(&p->mu);
    }
    if (atomic_load(&p->stop)) return NULL;
    /* join the job while it is open (acquire: its fields); a closed one is done without us */
    uint64_t w = atomic_load_explicit(&p->job, memory_order_acquire);
    seen = JOB_NUMBER(w);
    int joined = 0;
    while (!joined && (w & JOB_OPEN) && JOB_NUMBER(w) == seen)
      joined = atomic_compare_exchange_weak_explicit(&p->job, &w, w + 1, memory_order_acquire,
                                                     memory_order_acquire);
    if (!joined) continue;
    run_chunks(p);
    atomic_fetch_sub_explicit(&p->job, 1, memory_order_release); /* our chunks' writes */
  }
}

/* start a job (fn over chunks of grain, or sum_fn over sum chunks), take part in it, close it and
 * wait for the workers that joined; the fields are written while no worker is inside a job */
static void run_job(tf_pool *p, pool_fn fn, pool_sum_fn sum_fn, void *ctx, uint32_t n,
                    uint32_t grain, uint32_t chunks) {
  p->fn = fn;
  p->sum_fn = sum_fn;
  p->ctx = ctx;
  p->n = n;
  p->grain = grain;
  p->chunks = chunks;
  atomic_store_explicit(&p->next, 0, memory_order_relaxed);
  /* seq_cst (a release of the fields too): a worker that counted itself a sleeper before this sees
   * the new number, or we see it counted and wake it (both sides store, then load the other's
   * variable) */
  uint64_t number = JOB_NUMBER(atomic_load_explicit(&p->job, memory_order_relaxed)) + 1;
  atomic_store(&p->job, number << 32 | JOB_OPEN);
  if (atomic_load(&p->sleepers)) {
    pthread_mutex_lock(&p->mu);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
  }
  run_chunks(p);
  /* every chunk is claimed: close the job, then wait for those inside (acquire: their writes) */
  uint64_t w = atomic_fetch_and_explicit(&p->job, ~JOB_OPEN, memory_order_acq_rel);
  for (uint32_t spins = 0; JOB_INSIDE(w);) {
    pool_spin(p, &spins);
    w = atomic_load_explicit(&p->job, memory_order_acquire);
  }
}

void pool_for(tf_pool *p, uint32_t n, uint32_t grain, pool_fn fn, void *ctx) {
  if (n == 0) return;
  if (grain == 0) grain = 1;
  uint32_t chunks = n / grain + (n % grain != 0);
  if (!p || p->threads == 1 || chunks == 1) {
    /* inline: items are independent, so one call over the range is the same as its chunks */
    fn(ctx, 0, n);
    return;
  }
  run_job(p, fn, NULL, ctx, n, grain, chunks);
}

double pool_sum(tf_pool *p, uint32_t n, pool_sum_fn fn, void *ctx) {
  uint32_t k = sum_chunks(n);
  if (n == 0) return 0.0;
  if (k == 1) return fn(ctx, 0, n);
  double part[POOL_SUM_CHUNKS], *out = part;
  if (!p || p->threads == 1) {
    for (uint32_t c = 0; c < k; ++c) {
      uint32_t b, e;
      sum_range(n, k, c, &b, &e);
      part[c] = fn(ctx, b, e);
    }
  } else {
    run_job(p, NULL, fn, ctx, n, 0, k);
    out = p->partial;
  }
  double s = 0.0;
  for (uint32_t c = 0; c < k; ++c) s += out[c];
  return s;
}

uint32_t pool_threads(const tf_pool *p) { return p ? p->threads : 1; }

void pool_spin(const tf_pool *p, uint32_t *spins) {
  if (p && p->oversubscribed && ++*spins % SPIN_BEFORE_YIELD == 0)
    sched_yield();
  else
    cpu_relax();
}

static void stop_workers(tf_pool *p, uint32_t started) {
  pthread_mutex_lock(&p->mu);
  atomic_store(&p->stop, 1);
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
  for (uint32_t k = 0; k < started; ++k) pthread_join(p->tid[k], NULL);
}

tf_pool *pool_create(tf_mem *m, uint32_t threads) {
  if (threads < 1) threads = 1;
  if (threads > POOL_MAX_THREADS) threads = POOL_MAX_THREADS;
  tf_pool *p = mem_alloc(m, sizeof *p);
  if (!p) return NULL;
  p->threads = threads;
  if (threads == 1) return p;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  p->oversubscribed = cores > 0 && threads > (uint32_t)cores;
  p->tid = mem_array(m, threads - 1, sizeof *p->tid);
  p->args = mem_array(m, threads - 1, sizeof *p->args);
  if (!p->tid || !p->args) {
    MEM_FREE_ARRAY(m, p->tid, threads - 1);
    MEM_FREE_ARRAY(m, p->args, threads - 1);
    mem_free(m, p, sizeof *p);
    return NULL;
  }
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->cv, NULL);
  for (uint32_t k = 0; k + 1 < threads; ++k) {
    p->args[k] = (worker_arg){p, k + 1};
    if (pthread_create(&p->tid[k], NULL, worker, &p->args[k]) != 0) {
      stop_workers(p, k);
      pthread_cond_destroy(&p->cv);
      pthread_mutex_destroy(&p->mu);
      MEM_FREE_ARRAY(m, p->tid, threads - 1);
      MEM_FREE_ARRAY(m, p->args, threads - 1);
      mem_free(m, p, sizeof *p);
      m->failed = 1;
      return NULL;
    }
  }
  return p;
}

void pool_destroy(tf_mem *m, tf_pool *p) {
  if (!p) return;
  if (p->threads > 1) {
    stop_workers(p, p->threads - 1);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    MEM_FREE_ARRAY(m, p->tid, p->threads - 1);
    MEM_FREE_ARRAY(m, p->args, p->threads - 1);
  }
  mem_free(m, p, sizeof *p);
}
