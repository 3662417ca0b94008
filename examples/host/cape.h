/* SPDX-License-Identifier: MIT
 * The cape scene of the example host, shared by the host (which simulates it) and the PC2 checker
 * (which verifies the written cache against it): a 0.8 m x 1.0 m rectangle of 24 x 30 quads
 * hanging in the x-z plane below a shoulder line at z = 1.5 m, whose top row is pinned to an
 * animated path (walk forward along +y with a side-to-side sway and shoulder yaw, then stop).
 * Vertex (i, j), i = 0..24 across, j = 0..30 down, has index j * CAPE_COLS + i; row j = 0 is the
 * pinned shoulder line, so the pins are vertices 0..CAPE_COLS-1 in order.
 */
#ifndef TAUFORM_EXAMPLE_CAPE_H
#define TAUFORM_EXAMPLE_CAPE_H

#include <stdint.h>

#define CAPE_QUADS_X 24 /* across the shoulders */
#define CAPE_QUADS_Z 30 /* down the back */
#define CAPE_COLS (CAPE_QUADS_X + 1)
#define CAPE_ROWS (CAPE_QUADS_Z + 1)
#define CAPE_VERT_COUNT (CAPE_COLS * CAPE_ROWS)
#define CAPE_TRI_COUNT (2 * CAPE_QUADS_X * CAPE_QUADS_Z)
/* horizontal + vertical + diagonal edges */
#define CAPE_EDGE_COUNT \
  (CAPE_QUADS_X * CAPE_ROWS + CAPE_QUADS_Z * CAPE_COLS + CAPE_QUADS_X * CAPE_QUADS_Z)
#define CAPE_PIN_COUNT CAPE_COLS

#define CAPE_DEFAULT_FPS 24.0
#define CAPE_DEFAULT_FRAMES 72 /* 3 s at 24 fps: 2 s of walking, 1 s of settling */

/* PC2 sample k (0-based) holds the state at the end of frame k + 1, time (k + 1) / fps. */
#define CAPE_PC2_START_FRAME 1.0f
#define CAPE_PC2_SAMPLE_RATE 1.0f /* one sample per frame */

/* Rest (and start) positions. out: (CAPE_VERT_COUNT x 3) m */
void cape_rest_positions(double *out);
/* Two triangles per quad, split along (i,j)-(i+1,j+1), wound so the rest normals point along +y.
 * out: (CAPE_TRI_COUNT x 3) */
void cape_triangles(uint32_t *out);
/* Every mesh edge once. out: (CAPE_EDGE_COUNT x 2) vertex indices */
void cape_edges(uint32_t *out);
/* Targets of the pinned top row at time t (s); equals the rest top row at t <= 0 and stays put
 * after the walk ends. out: (CAPE_PIN_COUNT x 3) m */
void cape_pin_targets(double t, double *out);
/* Largest |len/rest - 1| over `edges` (CAPE_EDGE_COUNT x 2); rest: (CAPE_VERT_COUNT x 3) m,
 * pos: (CAPE_VERT_COUNT x 3) m. NaN if a length is not finite. */
double cape_max_edge_strain(const uint32_t *edges, const double *rest, const float *pos);

#endif /* TAUFORM_EXAMPLE_CAPE_H */
