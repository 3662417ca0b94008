/* SPDX-License-Identifier: MIT
 * The external forces of a step that the animator's response shares among levels (levels.h):
 * the host's (tf_sim_set_forces: a rig's pokes and region pushes) and the air's (elements/drag.c,
 * its explicit value at the step's start). What is not shared, and why:
 * - gravity and the pins' carrier force (-m a_ref) are rigid pushes already: a uniform field by
 *   mass is what every level's prolongation gives back for it, so sharing changes nothing;
 * - the pins themselves (hard constraints, soft goal springs) and contact's barrier are part of
 *   the step's minimization: the implicit solve already spreads their pull over the whole body
 *   within the step, and a shared copy would count it twice (or, for contact, move the push away
 *   from where the barrier keeps the distance). */
#include <string.h>

#include "core/vec3.h"
#include "sim/sim.h"

void sim_external_forces(tf_sim *s, const double *x, const double *v, double *f) {
  sim_levels *lv = s->levels;
  const int air = wind_active(&s->par);
  const size_t m = 3 * (size_t)s->model.n;
  if (!lv || levels_local(lv)) { /* as they come, in the order they always were */
    if (air) elem_drag_forces(s, s->drag, x, v, s->work.time, f);
    if (lv && lv->any_force)
      for (size_t k = 0; k < m; ++k) f[k] += lv->force[k];
    return;
  }
  if (!air && !lv->any_force) return;
  memcpy(lv->dist, lv->force, sizeof(double) * m);
  if (air) elem_drag_forces(s, s->drag, x, v, s->work.time, lv->dist);
  levels_distribute(s, x, lv->dist, f);
}
