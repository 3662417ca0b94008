/* SPDX-License-Identifier: MIT
 * Which tangled parts may pass through which. Where the surface crosses itself at an advance's
 * start (self.c), the barrier must let the crossing come undone, so some pairs between tangled
 * vertices are left out of it. Which ones: the two sides of a crossing, and nothing else.
 *
 * The tangled vertices fall into patches, the pieces of the tangled set joined by mesh edges (a
 * band of one sheet along the intersection contour). Each crossing, an edge of one patch through
 * a triangle of another, links those two patches; a self pair is left out only when its two sides
 * hold tangled vertices of linked patches. So two crossed sheets pass back through each other
 * along their contour, but the band of one sheet never passes through itself, nor through a band
 * of a third sheet it does not cross. Before, every pair with a tangled vertex on each side was
 * left out: the bands crumpled through themselves once a step's solve converged (two crossed
 * sheets dropped on a floor with a Newton budget of 100: 35 crossings to 210 in a second, 135 of
 * them within one sheet, where the 20-iteration cap had hidden it). A patch whose own edge
 * crosses its own triangle (a sheet modelled through itself so tightly that the band is one piece
 * of mesh) links to itself and keeps the old rule. The links are kept in a set-up array of one per
 * vertex, sorted in place; a start with more distinct links than vertices falls back to the old
 * rule everywhere. */
#include "contact/contact.h"
#include "core/sorted.h"

/* union-find over the tangled vertices (path halving), the root the smaller index: the patch of
 * a vertex is then a function of the tangled set, not of the order crossings were found in */
static uint32_t root(uint32_t *p, uint32_t i) {
  while (p[i] != i) p[i] = p[p[i]], i = p[i];
  return i;
}

void contact_sides_patches(sim_contact *c) {
  uint32_t *p = c->patch;
  for (uint32_t i = 0; i < c->n; ++i) p[i] = c->tangled[i] ? i : UINT32_MAX;
  for (uint32_t i = 0; i < c->n; ++i) {
    if (!c->tangled[i]) continue;
    for (uint32_t e = c->vedge_start[i]; e < c->vedge_start[i + 1]; ++e) {
      uint32_t j = c->vedge[e];
      if (!c->tangled[j]) continue;
      uint32_t a = root(p, i), b = root(p, j);
      if (a < b) p[b] = a;
      if (b < a) p[a] = b;
    }
  }
  for (uint32_t i = 0; i < c->n; ++i)
    if (c->tangled[i]) p[i] = root(p, i);
  c->link_count = 0;
  c->links_full = 0;
}

static uint64_t key(uint32_t a, uint32_t b) {
  return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
}

void contact_sides_link(sim_contact *c, uint32_t edge_vertex, uint32_t tri_vertex) {
  if (c->link_count == c->n) /* full of repeats, most likely: keep each once */
    c->link_count = sorted_unique_u64(c->links, c->link_count);
  if (c->link_count == c->n) {
    c->links_full = 1;
    return;
  }
  c->links[c->link_count++] = key(c->patch[edge_vertex], c->patch[tri_vertex]);
}

void contact_sides_finish(sim_contact *c) {
  c->link_count = sorted_unique_u64(c->links, c->link_count);
}

int contact_sides_linked(const sim_contact *c, uint32_t a, uint32_t b) {
  if (!c->tangled[a] || !c->tangled[b]) return 0;
  if (c->links_full) return 1;
  if (!c->link_count) return 0;
  const uint64_t k = key(c->patch[a], c->patch[b]);
  return c->links[sorted_floor_u64(c->links, c->link_count, k)] == k;
}
