/* SPDX-License-Identifier: MIT
 * A segment through a triangle: whether it crosses, and where. Pure geometry (no state, no
 * allocation), for finding a surface's crossings of itself (contact/self.c) and the contour they
 * trace (contact/untangle.c). Points are 3 doubles. */
#ifndef TF_GEOM_CROSSING_H
#define TF_GEOM_CROSSING_H

#include "core/common.h"

/* segment pq crosses triangle abc, closed (signed volumes in double: a report, not a guarantee;
 * an end within rounding of the plane counts as in it, so a flat sheet's neighbours do not cross) */
TF_LOCAL int geom_segment_crosses(const double p[3], const double q[3], const double a[3],
                                  const double b[3], const double c[3]);

/* where segment pq meets the plane of triangle abc: the fraction s along pq, the point's
 * barycentric weights w on the triangle (may lie outside [0, 1]) and the triangle's unit normal
 * n (a x b order). 0 when the triangle is degenerate or pq is parallel to its plane */
TF_LOCAL int geom_segment_plane_point(const double p[3], const double q[3], const double a[3],
                                      const double b[3], const double c[3], double *s, double w[3],
                                      double n[3]);

#endif
