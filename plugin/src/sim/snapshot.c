/* SPDX-License-Identifier: MIT
 * State snapshots: everything that decides the next step, as one position-independent byte
 * buffer a host can keep in memory or write to disk and load into another process (issue 21).
 * A restart through tf_sim_set_state is a teleport: it restarts the pins' carrier and its
 * low-passed changes (pins.c), and knows nothing of contact's adaptive stiffness or of vertices
 * being pushed out of a body; a snapshot carries all of it, so a run saved at frame 50 and loaded
 * into a new simulation of the same mesh ends bit for bit where the uninterrupted run ends.
 *
 * Layout: a header (magic, format, byte order, library version, kind, sizes, the mesh's
 * fingerprint, the payload's length and checksum), then the payload in a fixed order: the
 * parameters (sim_params as bytes: the library version pins its layout), the frame count, the
 * state arrays (with the plastic rest state), the pins, the bending rigidities and the plastic
 * limits (keyed maps), tearing's state (broken edges, the vertices' lineage, its map), the
 * host's external forces and the response's shares per vertex and level (levels/), and
 * contact's persistent state (colliders' poses, adaptive stiffness, vertices inside bodies, the
 * self-contact map). What a step recomputes from these (the pieces' pinned flags, held triangles, the friction lag, the
 * multigrid hierarchy, which has no history across steps) is not saved. Loading checks the
 * whole buffer before it changes anything, so a refused snapshot leaves the simulation as it was.
 * Checksums are FNV-1a (64 bit): a guard against truncation and damage, not against forgery. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "contact/contact.h"
#include "energy/plastic_flow.h"
#include "sim/sim.h"

static const char SNAP_MAGIC[8] = {'t', 'a', 'u', 'f', 'o', 'r', 'm', 'S'};
enum { SNAP_FORMAT = 1 };
/* snap_header.has_contact's bits: what the payload holds besides the state every simulation has
 * (a field of format 1, whose bit 0 it was) */
enum { SNAP_CONTACT = 1u, SNAP_TEAR = 2u, SNAP_TEAR_MAP = 4u, SNAP_LEVELS = 8u };
static const uint32_t SNAP_ENDIAN = 0x01020304u;

typedef struct snap_header {
  char magic[8];
  uint32_t format, endian, version, kind;
  uint32_t n, comp, tris, pins, bends, colliders, contact_n, has_contact;
  uint64_t mesh, payload, checksum;
} snap_header;

static uint64_t fnv1a(uint64_t h, const void *p, size_t bytes) {
  const unsigned char *b = p;
  for (size_t k = 0; k < bytes; ++k) h = (h ^ b[k]) * 0x100000001b3ull;
  return h;
}
static const uint64_t FNV_START = 0xcbf29ce484222325ull;

/* the meshes a snapshot belongs to: the simulation's rest positions and surface triangles, and
 * each collider's size and rest pose (a collider's poses are saved as arrays of its size) */
static uint64_t mesh_fingerprint(const tf_sim *s) {
  uint64_t h = fnv1a(FNV_START, s->model.rest, sizeof(double) * 3 * s->model.n);
  h = fnv1a(h, s->model.mesh.tris, sizeof(uint32_t) * 3 * s->model.mesh.tri_count);
  for (uint32_t k = 0; s->contact && k < s->contact->col_count; ++k) {
    const contact_collider *c = s->contact->col[k];
    h = fnv1a(h, &c->nv, sizeof c->nv);
    h = fnv1a(h, c->rest, sizeof(double) * 3 * c->nv);
  }
  return h;
}

static uint32_t bend_count(const tf_sim *s) {
  return s->hinge ? s->hinge->count : s->shell ? s->shell->count : 0;
}
static double *bend_values(const tf_sim *s) {
  return s->hinge ? s->hinge->bend : s->shell ? s->shell->bend : NULL;
}

/* the membrane's (k = 0) or the structural springs' (1) stretch stiffness; NULL when none */
static elem_stiffness *stretch_of(const tf_sim *s, int k) {
  if (k == 0) return s->membrane ? &s->membrane->stretch : NULL;
  return s->spring ? &s->spring->stretch : NULL;
}

/* One list of the payload's fields (io_payload) serves size, save and load: io_bytes counts,
 * writes into out, or reads from in (bounds-checked) */
typedef struct snap_io {
  unsigned char *out;      /* writing: the buffer, or NULL to count */
  const unsigned char *in; /* reading */
  size_t pos, size;        /* bytes done; reading: bytes available */
  int reading, short_read; /* a read past the end sets short_read (the sizes are checked first) */
} snap_io;

static void io_bytes(snap_io *io, void *p, size_t bytes) {
  if (io->reading) {
    if (io->pos + bytes > io->size) {
      io->short_read = 1;
      return;
    }
    memcpy(p, io->in + io->pos, bytes);
  } else if (io->out) {
    memcpy(io->out + io->pos, p, bytes);
  }
  io->pos += bytes;
}

/* the contact section of one collider (its vertex count is checked against the header's sizes
 * before anything is read into the simulation) */
static void io_collider(snap_io *io, contact_collider *k) {
  io_bytes(io, &k->thickness, sizeof k->thickness);
  io_bytes(io, &k->friction, sizeof k->friction);
  io_bytes(io, k->prev, sizeof(double) * 3 * k->nv);
  io_bytes(io, k->next, sizeof(double) * 3 * k->nv);
}

/* the payload after the parameters, in place: s's arrays are read into directly, so this runs
 * on a load only once the whole buffer has been checked */
static void io_payload(snap_io *io, tf_sim *s) {
  size_t n3 = sizeof(double) * 3 * s->model.n;
  io_bytes(io, &s->frames, sizeof s->frames);
  io_bytes(io, s->state.x, n3);
  io_bytes(io, s->state.v, n3);
  io_bytes(io, s->state.vref, n3);
  io_bytes(io, s->state.afict, n3);
  io_bytes(io, s->state.carrier, sizeof(double) * 9 * s->model.mesh.comp_count);
  io_bytes(io, s->state.plastic, sizeof(double) * s->size.plastic);
  uint32_t np = s->pins.host; /* the derived pins follow from them (pins_derive) */
  io_bytes(io, &s->pins.targets_fresh, sizeof s->pins.targets_fresh);
  io_bytes(io, s->pins.idx, sizeof(uint32_t) * np);
  io_bytes(io, s->pins.w, sizeof(double) * np);
  io_bytes(io, s->pins.prev, sizeof(double) * 3 * np);
  io_bytes(io, s->pins.next, sizeof(double) * 3 * np);
  if (bend_count(s)) io_bytes(io, bend_values(s), sizeof(double) * bend_count(s));
  for (uint32_t k = 0; k < s->set_count; ++k) /* plastic limits: keyable maps, like the bending */
    for (int bend = 0; bend < 2; ++bend) {
      elem_plastic *p = elem_set_plastic(&s->sets[k], bend);
      if (!p) continue;
      io_bytes(io, p->yield, sizeof(double) * p->count);
      io_bytes(io, p->limit, sizeof(double) * p->count);
    }
  for (int k = 0; k < 2; ++k) { /* the stretch stiffness per element: a keyable map too */
    elem_stiffness *st = stretch_of(s, k);
    if (!st || st->count == 0) continue;
    io_bytes(io, st->value, sizeof(double) * st->count);
    io_bytes(io, &st->mapped, sizeof st->mapped);
  }
  sim_tear *t = s->tear; /* tearing: its broken edges, counts, the vertices' lineage, its map */
  if (t) {
    io_bytes(io, t->cut, 3 * (size_t)t->tris);
    io_bytes(io, &t->torn, sizeof t->torn);
    io_bytes(io, &t->serial, sizeof t->serial);
    io_bytes(io, t->origin, sizeof(uint32_t) * t->n);
    io_bytes(io, t->parent, sizeof(uint32_t) * t->n);
    if (t->has_map) io_bytes(io, t->map, sizeof(double) * t->n);
  }
  sim_levels *lv = s->levels; /* the host's forces and the response */
  if (lv) {
    io_bytes(io, lv->share, sizeof(double) * lv->n * lv->count);
    io_bytes(io, lv->force, sizeof(double) * 3 * lv->n);
  }
  sim_contact *c = s->contact;
  if (!c) return;
  for (uint32_t k = 0; k < c->col_count; ++k) io_collider(io, c->col[k]);
  io_bytes(io, &c->kappa_scale, sizeof c->kappa_scale);
  io_bytes(io, &c->inside_check, sizeof c->inside_check);
  io_bytes(io, &c->tangle_check, sizeof c->tangle_check);
  io_bytes(io, &c->tangles, sizeof c->tangles);
  io_bytes(io, c->below, c->n);
  io_bytes(io, c->inside, sizeof(int32_t) * c->n);
  io_bytes(io, c->inside_frames, c->n);
  io_bytes(io, c->outside, sizeof(double) * 3 * c->n);
  io_bytes(io, c->self_off, c->n);
  io_bytes(io, c->tangled, c->n);
  io_bytes(io, c->poking, c->n);
  io_bytes(io, c->untangle, sizeof(double) * 3 * c->n);
  /* crossings of colliders are found again while inside_check is set; without, there are none */
  if (io->reading)
    for (uint32_t i = 0; i < c->n; ++i) c->col_tangled[i] = -1;
}

static snap_header header_of(const tf_sim *s) {
  snap_header h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, SNAP_MAGIC, sizeof h.magic);
  h.format = SNAP_FORMAT;
  h.endian = SNAP_ENDIAN;
  h.version = TF_VERSION;
  h.kind = (uint32_t)s->kind;
  h.n = s->model.n;
  h.comp = s->model.mesh.comp_count;
  h.tris = s->model.mesh.tri_count;
  h.pins = s->pins.host;
  h.bends = bend_count(s);
  h.has_contact = (s->contact ? SNAP_CONTACT : 0u) | (s->tear ? SNAP_TEAR : 0u) |
                  (s->tear && s->tear->has_map ? SNAP_TEAR_MAP : 0u) |
                  (s->levels ? SNAP_LEVELS : 0u);
  h.colliders = s->contact ? s->contact->col_count : 0;
  h.contact_n = s->contact ? s->contact->n : 0;
  h.mesh = mesh_fingerprint(s);
  return h;
}

size_t sim_snapshot_size(const tf_sim *s) {
  snap_io io = {0};
  io_payload(&io, (tf_sim *)s);
  return sizeof(snap_header) + sizeof(sim_params) + io.pos;
}

void sim_snapshot_save(const tf_sim *s, void *buf) {
  unsigned char *b = buf;
  snap_header h = header_of(s);
  snap_io io = {.out = b + sizeof h + sizeof(sim_params)};
  io_payload(&io, (tf_sim *)s);
  memcpy(b + sizeof h, &s->par, sizeof(sim_params));
  h.payload = sizeof(sim_params) + io.pos;
  h.checksum = fnv1a(FNV_START, b + sizeof h, h.payload);
  memcpy(b, &h, sizeof h);
}

#define REFUSE(...) return sim_fail(s, TF_E_INVALID_ARG, "tf_sim_load_state: " __VA_ARGS__)

tf_status sim_snapshot_check(tf_sim *s, const void *buf, size_t size, sim_params *par_out) {
  const unsigned char *b = buf;
  snap_header h, mine = header_of(s);
  if (size < sizeof h) REFUSE("the buffer holds %zu bytes, less than a snapshot's header", size);
  memcpy(&h, b, sizeof h);
  if (memcmp(h.magic, SNAP_MAGIC, sizeof h.magic) != 0) REFUSE("not a tauform state snapshot");
  if (h.endian != SNAP_ENDIAN) REFUSE("the snapshot was written on a machine of other byte order");
  if (h.format != SNAP_FORMAT)
    REFUSE("snapshot format %u, this library reads format %u", h.format, SNAP_FORMAT);
  if (h.version != TF_VERSION)
    REFUSE("the snapshot was saved by tauform %u.%u.%u, this is %u.%u.%u", h.version >> 16,
           (h.version >> 8) & 255u, h.version & 255u, TF_VERSION_MAJOR, TF_VERSION_MINOR,
           TF_VERSION_PATCH);
  if (h.kind != mine.kind)
    REFUSE("the snapshot is of a %s simulation, this is %s",
           h.kind == SIM_FLESH ? "flesh" : "cloth", mine.kind == SIM_FLESH ? "flesh" : "cloth");
  if (h.n != mine.n || h.tris != mine.tris || h.comp != mine.comp || h.bends != mine.bends)
    REFUSE(
        "the snapshot is of a mesh of %u vertices and %u triangles, this simulation has %u "
        "and %u",
        h.n, h.tris, mine.n, mine.tris);
  if (h.colliders != mine.colliders)
    REFUSE("the snapshot has %u colliders, this simulation %u: add the same colliders first",
           h.colliders, mine.colliders);
  if (h.mesh != mine.mesh)
    REFUSE(
        "the snapshot is of another mesh or other colliders (same sizes, other rest positions "
        "or triangles)");
  if (h.pins > s->model.host_n)
    REFUSE("the snapshot's pin count %u is more than its vertices", h.pins);
  if (h.payload != size - sizeof h)
    REFUSE("the buffer holds %zu bytes, the snapshot %llu (truncated or padded)", size,
           (unsigned long long)(sizeof h + h.payload));
  if (fnv1a(FNV_START, b + sizeof h, h.payload) != h.checksum)
    REFUSE("the snapshot is damaged (its checksum does not match)");
  if ((h.has_contact & SNAP_CONTACT) && s->contact && h.contact_n != s->contact->n)
    REFUSE("the snapshot's contact surface has %u vertices, this %u", h.contact_n, s->contact->n);
  if (h.has_contact & ~(SNAP_CONTACT | SNAP_TEAR | SNAP_TEAR_MAP | SNAP_LEVELS) ||
      ((h.has_contact & SNAP_TEAR_MAP) && !(h.has_contact & SNAP_TEAR)))
    REFUSE("the snapshot's sections (%u) are not a combination this library writes", h.has_contact);
  if ((h.has_contact & SNAP_TEAR) && s->kind != SIM_CLOTH)
    REFUSE("the snapshot has tearing, which only cloth has");
  sim_params par;
  memcpy(&par, b + sizeof h, sizeof par);
  if (par.integrator != TF_INTEGRATOR_TAU && par.integrator != TF_INTEGRATOR_STRAIN_RATE)
    REFUSE("the snapshot's integrator %d is not a tf_integrator", (int)par.integrator);
  /* dry run: the payload's length as this simulation would read it with the snapshot's pins
   * and contact, without touching it */
  {
    tf_sim probe = *s;
    probe.pins.count = probe.pins.host = h.pins;
    sim_contact cprobe;
    if ((h.has_contact & SNAP_CONTACT) && !s->contact) {
      memset(&cprobe, 0, sizeof cprobe);
      cprobe.n = h.contact_n;
      probe.contact = &cprobe;
    } else if (!(h.has_contact & SNAP_CONTACT)) {
      probe.contact = NULL;
    }
    sim_tear tprobe = {.n = s->model.n, .tris = s->model.mesh.tri_count};
    tprobe.has_map = (h.has_contact & SNAP_TEAR_MAP) != 0;
    probe.tear = (h.has_contact & SNAP_TEAR) ? &tprobe : NULL;
    sim_levels lprobe = {.n = s->model.n, .count = levels_count(s, NULL)};
    probe.levels = (h.has_contact & SNAP_LEVELS) ? &lprobe : NULL;
    snap_io io = {0};
    io_payload(&io, &probe);
    if (sizeof par + io.pos != h.payload)
      REFUSE(
          "the snapshot's payload is %llu bytes, this simulation reads %zu: saved from another "
          "configuration",
          (unsigned long long)h.payload, sizeof par + io.pos);
  }
  if (par_out) *par_out = par;
  return TF_OK;
}

/* what a saved state can hold: positions within 1000 km and speeds below 100 km/s (every real
 * cloth is orders of magnitude inside; a resealed damaged buffer with a speed of 1e116 m/s made
 * one advance spend minutes in continuous collision detection, found by fuzzing) */
static const double SNAP_MAX_POS = 1e6, SNAP_MAX_SPEED = 1e5, SNAP_MAX_ACC = 1e9;
/* 1/m: the largest bend_plastic_limit (api_params.c) */
static const double SNAP_MAX_CURVATURE = 1e6;
/* N m: the largest bend_stiffness (api_params.c; a resealed rigidity of 1e132 made one frame of
 * 16 vertices take 14 s under the sanitizers, found by fuzzing) */
static const double SNAP_MAX_BEND = 1e3;

static int within(const double *a, size_t count, double bound) {
  for (size_t k = 0; k < count; ++k)
    if (!(fabs(a[k]) <= bound)) return 0; /* NaN too */
  return 1;
}

/* the payload's values that index, divide or size work: refused after reading them, the
 * simulation then restored from its own snapshot (a checksum proves no more than that the bytes
 * came through) */
static const char *payload_mistake(const tf_sim *s) {
  size_t n3 = 3 * (size_t)s->model.n;
  if (!within(s->state.x, n3, SNAP_MAX_POS)) return "a position is not finite or beyond 1000 km";
  if (!within(s->state.v, n3, SNAP_MAX_SPEED) || !within(s->state.vref, n3, SNAP_MAX_SPEED))
    return "a velocity is not finite or beyond 100 km/s";
  if (!within(s->state.afict, n3, SNAP_MAX_ACC)) return "an acceleration is not finite or absurd";
  if (!within(s->state.carrier, 9 * (size_t)s->model.mesh.comp_count, SNAP_MAX_POS))
    return "a carrier is not finite or absurd";
  for (uint32_t q = 0; q < s->pins.count; ++q) {
    uint32_t i = s->pins.idx[q];
    if (i >= s->model.host_n) return "a pin's vertex is out of range";
    if (s->pins.mark[i]) return "a vertex is pinned twice";
    s->pins.mark[i] = 1;
    if (!(s->pins.w[q] > 0.0 && s->pins.w[q] <= 1.0)) return "a pin's weight is not in (0, 1]";
    if (!within(s->pins.prev + 3 * q, 3, SNAP_MAX_POS) ||
        !within(s->pins.next + 3 * q, 3, SNAP_MAX_POS))
      return "a pin's target is not finite or beyond 1000 km";
  }
  for (uint32_t q = 0; q < s->pins.count; ++q) s->pins.mark[s->pins.idx[q]] = 0;
  for (uint32_t k = 0; k < bend_count(s); ++k)
    if (!(bend_values(s)[k] >= 0.0 && bend_values(s)[k] <= SNAP_MAX_BEND))
      return "a bending rigidity is negative, above 1e3 N m or not finite";
  /* the plastic rest state, within what plasticity can make of the rest mesh's (the parameters'
   * ranges: a rest length within 90 % of its own, a rest curvature within 1e6 /m, a rest angle
   * within a turn; a rest curvature of -1e116 /m made one frame of 16 vertices take 12 s) */
  const elem_spring *sp = s->spring;
  for (uint32_t e = 0; sp && e < sp->sp.count; ++e) {
    if (!(fabs(sp->rest[e] - sp->rest0[e]) <= 0.9 * sp->rest0[e]))
      return "a spring's rest length is beyond its plastic range or not finite";
  }
  /* the limits within the parameters' ranges (api_params.c) */
  const double max_yield[2] = {10.0, SNAP_MAX_CURVATURE}, max_limit[2] = {0.9, SNAP_MAX_CURVATURE};
  for (uint32_t k = 0; k < s->set_count; ++k)
    for (int bend = 0; bend < 2; ++bend) {
      const elem_plastic *p = elem_set_plastic(&s->sets[k], bend);
      for (uint32_t e = 0; p && e < p->count; ++e)
        if (!(p->yield[e] > 0.0 && p->yield[e] <= max_yield[bend]) ||
            !(p->limit[e] >= 0.0 && p->limit[e] <= max_limit[bend]))
          return "an elastic or plastic limit is out of range";
    }
  const elem_shell *sh = s->shell;
  for (uint32_t k = 0; sh && k < sh->count; ++k)
    for (int c3 = 0; c3 < 3; ++c3)
      if (!(fabs(sh->b0[3 * (size_t)k + c3] - sh->rest[k].b0[c3]) <= SNAP_MAX_CURVATURE))
        return "a rest curvature is beyond the bending's plastic range or not finite";
  /* a triangle's rest frame and a tet's rest shape: principal stretches within the largest
   * plastic limit's (0.9: a triangle's within 0.1 .. 1.9 of its own, a tet's equivalent strain
   * within 0.9), a tet's volume kept, a triangle's rest area its frame's */
  const elem_membrane *mb = s->membrane;
  for (uint32_t t = 0; mb && t < mb->count; ++t) {
    const membrane_rest *r = &mb->rest[t], *r0 = &mb->rest0[t];
    if (!(r0->area > 0.0)) {
      if (memcmp(r, r0, sizeof *r)) return "a degenerate triangle's rest frame moved";
      continue;
    }
    double lp[3];
    const double det = plastic_stretches(r->dm_inv, r0->dm_inv, 2, lp);
    if (!(lp[0] >= log(0.1) - 1e-9 && lp[1] <= log(1.9) + 1e-9) ||
        !(fabs(r->area / (r0->area * det) - 1.0) < 1e-9))
      return "a triangle's rest frame or area is beyond its plastic range or not finite";
  }
  const sim_flesh *fl = s->flesh;
  for (uint32_t t = 0; fl && t < fl->tet.tet_count; ++t) {
    double lp[3];
    const double det = plastic_stretches(fl->dm + 9 * (size_t)t, fl->rest[t].dm_inv, 3, lp);
    const double mean = (lp[0] + lp[1] + lp[2]) / 3.0;
    const double eq = sqrt(2.0 / 3.0 *
                           ((lp[0] - mean) * (lp[0] - mean) + (lp[1] - mean) * (lp[1] - mean) +
                            (lp[2] - mean) * (lp[2] - mean)));
    if (!(fabs(det - 1.0) < 1e-9) || !(eq <= 0.9 + 1e-9))
      return "a tet's rest shape is beyond its plastic range, changes its volume or is not finite";
  }
  const elem_hinge *hg = s->hinge;
  for (uint32_t k = 0; hg && k < hg->count; ++k)
    if (!(fabs(hg->theta[k] - hg->theta0[k]) <= 2.0 * TF_PI))
      return "a hinge's rest angle is beyond a turn from its own or not finite";
  for (int k = 0; k < 2; ++k) { /* the parameter's range (api_params.c) */
    const elem_stiffness *st = stretch_of(s, k);
    for (uint32_t e = 0; st && e < st->count; ++e)
      if (!(st->value[e] > 0.0 && st->value[e] <= 1e9))
        return "a stretch stiffness is out of range";
    if (st && st->count && st->mapped != 0 && st->mapped != 1)
      return "a map flag is neither 0 nor 1";
  }
  const sim_tear *t = s->tear; /* a lineage that points back, flags that are flags */
  for (uint32_t i = 0; t && i < t->n; ++i)
    if (t->origin[i] > i || t->parent[i] > i || t->origin[t->parent[i]] != t->origin[i] ||
        (t->has_map && !(t->map[i] >= 0.0 && t->map[i] <= 10.0)))
      return "a vertex's original or parent vertex, or its tear strain, is not one tearing makes";
  for (size_t k = 0; t && k < 3 * (size_t)t->tris; ++k)
    if (t->cut[k] > 1) return "a broken-edge flag is neither 0 nor 1";
  const sim_levels *lv = s->levels; /* shares that are fractions summing to 1, forces in range */
  for (uint32_t i = 0; lv && i < lv->n; ++i) {
    double sum = 0.0;
    for (uint32_t k = 0; k < lv->count; ++k) {
      const double p = lv->share[(size_t)i * lv->count + k];
      if (!(p >= 0.0 && p <= 1.0)) return "a response share is not in [0, 1]";
      sum += p;
    }
    if (!(fabs(sum - 1.0) <= 1e-9)) return "a vertex's response shares do not sum to 100 %";
  }
  if (lv && !within(lv->force, 3 * (size_t)lv->n, LEVELS_MAX_FORCE))
    return "an external force is not finite or beyond 1e9 N";
  const sim_contact *c = s->contact;
  if (!c) return NULL;
  if (!(c->kappa_scale >= 1.0) || !isfinite(c->kappa_scale))
    return "contact's stiffness scale is below 1 or not finite";
  for (uint32_t i = 0; i < c->n; ++i)
    if (c->inside[i] < -1 || c->inside[i] >= (int32_t)c->col_count)
      return "a vertex is inside a collider that does not exist";
  for (uint32_t i = 0; i < c->n; ++i)
    if (c->poking[i] > 12 || !within(c->untangle + 3 * (size_t)i, 3, SNAP_MAX_POS))
      return "a vertex's push back through the surface is not one self-contact makes";
  for (uint32_t k = 0; k < c->col_count; ++k) {
    const contact_collider *col = c->col[k];
    if (!(col->thickness >= 0.0 && col->thickness <= CONTACT_MAX_THICKNESS) ||
        !(col->friction >= 0.0 && col->friction <= CONTACT_MAX_FRICTION))
      return "a collider's thickness or friction is out of range or not finite";
    if (!within(col->prev, 3 * (size_t)col->nv, SNAP_MAX_POS) ||
        !within(col->next, 3 * (size_t)col->nv, SNAP_MAX_POS))
      return "a collider's pose is not finite or beyond 1000 km";
  }
  return NULL;
}

/* a checked buffer into s (its storage ready): nothing here can fail */
static void apply(tf_sim *s, const unsigned char *b) {
  snap_header h;
  memcpy(&h, b, sizeof h);
  memcpy(&s->par, b + sizeof h, sizeof s->par);
  sim_params_derive(s);
  s->pins.count = s->pins.host = h.pins;
  sim_contact *keep = s->contact;
  if (!(h.has_contact & SNAP_CONTACT)) s->contact = NULL; /* nothing of contact in the payload */
  sim_tear *tkeep = s->tear;
  if (!(h.has_contact & SNAP_TEAR)) s->tear = NULL; /* nor of tearing */
  sim_levels *lkeep = s->levels;
  if (!(h.has_contact & SNAP_LEVELS)) s->levels = NULL; /* nor of forces and response */
  if (tkeep) tkeep->has_map = (h.has_contact & SNAP_TEAR_MAP) != 0;
  snap_io io = {.in = b + sizeof h + sizeof(sim_params),
                .size = h.payload - sizeof(sim_params),
                .reading = 1};
  io_payload(&io, s);
  for (int k = 0; k < 2; ++k) /* constants from the loaded stiffness */
    if (stretch_of(s, k)) stretch_of(s, k)->changed = 1;
  sim_params_derive(s);
  s->contact = keep;
  s->tear = tkeep;
  s->levels = lkeep;
  if (lkeep && !(h.has_contact & SNAP_LEVELS)) { /* saved before any: no forces, all local */
    memset(lkeep->share, 0, sizeof(double) * lkeep->n * lkeep->count);
    memset(lkeep->force, 0, sizeof(double) * 3 * lkeep->n);
    for (size_t i = 0; i < lkeep->n; ++i) lkeep->share[i * lkeep->count] = 1.0;
  }
  if (lkeep) levels_refresh(lkeep);
  if (tkeep) tkeep->changed = 0;
  if (tkeep && !(h.has_contact & SNAP_TEAR)) { /* saved before tearing existed: the mesh as made */
    memset(tkeep->cut, 0, 3 * (size_t)tkeep->tris);
    tkeep->torn = 0;
    tkeep->serial = 0;
    for (uint32_t i = 0; i < tkeep->n; ++i) tkeep->origin[i] = tkeep->parent[i] = i;
  }
  if (keep && !(h.has_contact &
                SNAP_CONTACT)) { /* saved before contact existed: as contact_init leaves it */
    keep->cover_valid = 0;
    keep->kappa_scale = 1.0;
    keep->inside_check = keep->tangle_check = 1;
    keep->tangles = 0;
    memset(keep->below, 0, keep->n);
    memset(keep->inside_frames, 0, keep->n);
    memset(keep->self_off, 0, keep->n);
    memset(keep->tangled, 0, keep->n);
    for (uint32_t i = 0; i < keep->n; ++i) keep->inside[i] = -1;
  }
}

tf_status sim_snapshot_load(tf_sim *s, const void *buf) {
  const unsigned char *b = buf;
  snap_header h;
  sim_params par;
  memcpy(&h, b, sizeof h);
  memcpy(&par, b + sizeof h, sizeof par);
  /* what to go back to when the payload's values are refused */
  size_t own = sim_snapshot_size(s);
  unsigned char *backup = mem_array(&s->mem, own, 1);
  if (!backup) return sim_fail(s, TF_E_NOMEM, "tf_sim_load_state: out of memory");
  sim_snapshot_save(s, backup);
  /* storage the snapshot's parameters need, before anything changes (out of memory: nothing
   * changed but spare storage) */
  const char *why = NULL;
  if (par.air_density > 0.0 && elem_drag_enable_air(s, s->drag) != TF_OK)
    why = "out of memory for the air model";
  else if ((h.has_contact & SNAP_CONTACT) && contact_enable(s) != TF_OK)
    why = "out of memory for contact";
  else if ((h.has_contact & SNAP_TEAR) && tear_enable(s) != TF_OK)
    why = "out of memory for tearing";
  else if ((h.has_contact & SNAP_LEVELS) && (levels_enable(s) != TF_OK || levels_build(s) != TF_OK))
    why = "out of memory for the response's levels";
  if (why) {
    MEM_FREE_ARRAY(&s->mem, backup, own);
    return sim_fail(s, TF_E_NOMEM, "tf_sim_load_state: %s", why);
  }
  if ((h.has_contact & SNAP_CONTACT) && h.contact_n != s->contact->n) {
    MEM_FREE_ARRAY(&s->mem, backup, own);
    REFUSE("the snapshot's contact surface has %u vertices, this %u", h.contact_n, s->contact->n);
  }
  apply(s, b);
  why = payload_mistake(s);
  if (why) apply(s, backup); /* back as it was: its own snapshot (same sizes, its own values) */
  for (uint32_t k = 0; k < s->set_count; ++k) /* whether a set is plastic follows its limits */
    for (int bend = 0; bend < 2; ++bend) {
      elem_plastic *p = elem_set_plastic(&s->sets[k], bend);
      if (p) elem_plastic_refresh(p);
    }
  MEM_FREE_ARRAY(&s->mem, backup, own);
  pins_derive(s);
  if (why) REFUSE("the snapshot's values are not a state: %s", why);
  pins_refresh_components(s);
  return TF_OK;
}
