/* SPDX-License-Identifier: MIT
 * Independent intersection checks for the contact tests: an exact-sign segment-triangle test
 * and a count of edge-triangle crossings between two triangle meshes or within one. Shares no
 * code with plugin/src/geom on purpose, so a bug there cannot hide itself here. */
#ifndef TF_INTERSECT_CHECK_H
#define TF_INTERSECT_CHECK_H

/* Sign (-1, 0, 1) of det[b - a, c - a, d - a]: positive when d is on the side of the plane
 * (a, b, c) that (b - a) x (c - a) points to. Evaluated in long double, exact for coordinates
 * of similar magnitude with 20 or fewer significant bits and a correct sign far beyond that. */
int ic_orient3d(const double a[3], const double b[3], const double c[3], const double d[3]);

/* 1 when the closed segment pq meets the closed triangle abc (touching counts), else 0;
 * coplanar configurations (both ends within 1e-12, relative, of the plane) are decided in the
 * plane. The answer for a degenerate (collinear) triangle is unspecified; the tests' meshes have
 * none. */
int ic_segment_triangle(const double p[3], const double q[3], const double a[3], const double b[3],
                        const double c[3]);

/* Edge-triangle crossings between mesh A (xa: na_verts x 3, tris_a: na_tris x 3) and mesh B:
 * every edge of A against every triangle of B and every edge of B against every triangle of A.
 * xb NULL: self crossings of A, each edge against the triangles that share no vertex with it.
 * Edges are the triangles' unique edges. Returns the count, -1 if out of memory. */
long ic_count_crossings(const double *xa, int na_verts, const int *tris_a, int na_tris,
                        const double *xb, int nb_verts, const int *tris_b, int nb_tris);

#endif
