/* SPDX-License-Identifier: MIT
 * Allocation, freeing and copying of every array a simulation holds, expanded from the lists in
 * sim.h: adding an array is one line there, and its size, allocation, release and (for the
 * state) rollback copy follow from it. */
#include <stdio.h>
#include <string.h>

#include "sim/sim.h"

#define ALLOC_ONE(type, field, count) p->field = mem_array(m, count(z), sizeof(type));
#define FREE_ONE(type, field, count) mem_free(m, p->field, count(z) * sizeof(type));
#define COPY_ONE(type, field, count) sim_copy(s, dst->field, src->field, count(z) * sizeof(type));

/* bytes per chunk of a copy across the pool */
static const size_t COPY_CHUNK = 32768;

typedef struct copy_pass {
  char *dst;
  const char *src;
  size_t bytes;
} copy_pass;

static void copy_range(void *ctx, uint32_t b, uint32_t e) {
  const copy_pass *c = ctx;
  size_t from = b * COPY_CHUNK, to = e * COPY_CHUNK < c->bytes ? e * COPY_CHUNK : c->bytes;
  memcpy(c->dst + from, c->src + from, to - from);
}

void sim_copy(const tf_sim *s, void *dst, const void *src, size_t bytes) {
  if (!bytes) return;
  copy_pass c = {dst, src, bytes};
  pool_for(s->pool, (uint32_t)((bytes + COPY_CHUNK - 1) / COPY_CHUNK), 1, copy_range, &c);
}

static void model_alloc(tf_mem *m, sim_model *p, const sim_sizes *z) { SIM_MODEL_ARRAYS(ALLOC_ONE) }
static void model_free(tf_mem *m, sim_model *p, const sim_sizes *z) { SIM_MODEL_ARRAYS(FREE_ONE) }
static void state_alloc(tf_mem *m, sim_state *p, const sim_sizes *z) { SIM_STATE_ARRAYS(ALLOC_ONE) }
static void state_free(tf_mem *m, sim_state *p, const sim_sizes *z) { SIM_STATE_ARRAYS(FREE_ONE) }
static void pins_alloc(tf_mem *m, sim_pins *p, const sim_sizes *z) { SIM_PIN_ARRAYS(ALLOC_ONE) }
static void pins_free(tf_mem *m, sim_pins *p, const sim_sizes *z) { SIM_PIN_ARRAYS(FREE_ONE) }
static void work_alloc(tf_mem *m, sim_work *p, const sim_sizes *z) { SIM_WORK_ARRAYS(ALLOC_ONE) }
static void work_free(tf_mem *m, sim_work *p, const sim_sizes *z) { SIM_WORK_ARRAYS(FREE_ONE) }
static void solver_alloc(tf_mem *m, sim_solver *p, const sim_sizes *z) {
  SIM_SOLVER_ARRAYS(ALLOC_ONE)
}
static void solver_free(tf_mem *m, sim_solver *p, const sim_sizes *z){SIM_SOLVER_ARRAYS(FREE_ONE)}

tf_status sim_arrays_alloc(tf_sim *s, char *err, size_t errn) {
  tf_mem *m = &s->mem;
  const sim_sizes *z = &s->size;
  model_alloc(m, &s->model, z);
  state_alloc(m, &s->state, z);
  state_alloc(m, &s->saved, z);
  pins_alloc(m, &s->pins, z);
  work_alloc(m, &s->work, z);
  solver_alloc(m, &s->solver, z);
  if (m->failed)
    return snprintf(err, errn, "out of memory allocating simulation arrays (%u vertices)", z->n),
           TF_E_NOMEM;
  return TF_OK;
}

void sim_arrays_free(tf_sim *s) {
  tf_mem *m = &s->mem;
  const sim_sizes *z = &s->size;
  model_free(m, &s->model, z);
  state_free(m, &s->state, z);
  state_free(m, &s->saved, z);
  pins_free(m, &s->pins, z);
  work_free(m, &s->work, z);
  solver_free(m, &s->solver, z);
}

/* The plastic rest shapes move only in a set's post_step while its plasticity is on, and whether
 * it is on changes only between advances (the limits are parameters): with none on they are the
 * same in both copies and are left alone. That copy was every element's rest shape, a frame's
 * largest serial piece of work (FLESH-20k: 1.45 MB, 0.3 ms of an 8 ms frame on two threads). */
void sim_state_copy(const tf_sim *s, sim_state *dst, const sim_state *src) {
  sim_sizes live = s->size;
  if (!sim_plastic_live(s)) live.plastic = 0;
  const sim_sizes *z = &live;
  SIM_STATE_ARRAYS(COPY_ONE)
}
