/* SPDX-License-Identifier: MIT
 * Software rasterizer for looking at cloth: a perspective camera, z-buffered triangles with flat
 * two-sided Lambert shading (front or back colour by which side faces the eye), an optional
 * wireframe drawn over the surface where it is not hidden, and pins as dots on top. World is Z up
 * (like Blender); the image is row-major RGB, top row first, pixel (x, y) centred at
 * (x + 0.5, y + 0.5). Triangles are clipped against a near plane, so a camera inside the mesh is
 * fine; triangles with a non-finite or out-of-range vertex, and zero-area ones, are skipped.
 * Nothing is allocated: the caller passes the image and the depth buffer. */
#ifndef TF_RENDER_RASTER_H
#define TF_RENDER_RASTER_H

#include "core/common.h"

/* Perspective camera looking from eye at target; up need not be orthogonal to the view. */
typedef struct render_camera {
  double eye[3], target[3], up[3]; /* m; up default {0, 0, 1} */
  double fov_deg;                  /* vertical field of view, degrees in (0, 180) */
} render_camera;

typedef struct render_style {
  uint8_t background[3], front[3], back[3], wire[3], pin[3]; /* RGB */
  int wireframe;                                             /* nonzero: draw triangle edges */
  double light[3]; /* direction towards the light (world), need not be unit; e.g. {0.3, -0.5, 1} */
  int pin_radius;  /* pixels; 0 draws no pins */
} render_style;

/* Field of view render_camera_fit sets, degrees. */
#define RENDER_FIT_FOV_DEG 35.0

/* Light grey background, blue front, orange back, dark wire, red pins of 4 px, wireframe on. */
TF_LOCAL void render_style_default(render_style *s);

/* Frame the mesh: look at the centre of the bounding box of its finite vertices from direction dir
 * (from the target towards the eye, e.g. {1, -1.5, 0.8}; Nullable, that default) with up
 * (Nullable: {0, 0, 1}), far enough that the bounding sphere fits the vertical field of view
 * RENDER_FIT_FOV_DEG with a margin: every vertex is in the image when width >= height.
 * pos: (vert_count x 3). Sets every field of c. */
TF_LOCAL void render_camera_fit(render_camera *c, const double *pos, uint32_t vert_count,
                                const double dir[3], const double up[3]);

/* Project world point p into a width x height image: out_xy gets pixel coordinates (x right, y
 * down; pixel centres at +0.5), out_depth (Nullable) the distance along the view direction in m.
 * Returns 1 when p is finite and in front of the near plane, else 0 (outputs untouched). */
TF_LOCAL int render_project(const render_camera *cam, uint32_t width, uint32_t height,
                            const double p[3], double out_xy[2], double *out_depth);

/* Clear rgb (width x height x 3) to the background and zbuf (width x height, view depth in m) to
 * +infinity, then draw the triangles (flat shaded), the wireframe (if style->wireframe; 1 px lines
 * where not hidden) and the pins (dots of style->pin_radius px with a 1 px ring in the wire colour,
 * drawn over everything, also when the vertex is hidden).
 * pos: (vert_count x 3) m; tris: (tri_count x 3) vertex indices, counter-clockwise seen from the
 * front; pins: (pin_count) vertex indices, Nullable when pin_count is 0. A degenerate camera
 * (eye == target, non-finite) leaves the cleared image. */
TF_LOCAL void render_mesh(uint8_t *rgb, double *zbuf, uint32_t width, uint32_t height,
                          const render_camera *cam, const render_style *style, const double *pos,
                          uint32_t vert_count, const uint32_t *tris, uint32_t tri_count,
                          const uint32_t *pins, uint32_t pin_count);

#endif
