/* SPDX-License-Identifier: MIT
 * Triangle rasterizer. Vertices go to camera space (right, up, forward = depth z), triangles are
 * clipped to z >= near (Sutherland-Hodgman against one plane: at most a quad, drawn as two
 * triangles), projected, and filled by testing pixel centres against the three edge functions
 * (barycentrics, Pineda 1988). 1/z is affine in screen space, so it is interpolated there and the
 * depth test keeps the smaller z. Each triangle gets one colour: its front or back colour (by the
 * side its normal n = (b - a) x (c - a) shows the eye) times ambient + diffuse * max(0, n.l) with
 * n turned towards the eye. Wire edges and pins come after all triangles, so they see the final
 * depth buffer. Coordinates are checked in double before any cast to int, so huge or non-finite
 * positions never index outside the image. */
#include "render/raster.h"

#include <math.h>
#include <string.h>

#include "core/vec3.h"

/* shading: a face lit head-on shows exactly its style colour (AMBIENT + DIFFUSE = 1) */
static const double AMBIENT = 0.3;
static const double DIFFUSE = 0.7;
/* near plane at this fraction of the eye-target distance */
static const double NEAR_FRACTION = 1e-3;
/* a wire pixel shows when its depth is within this fraction of the surface depth there: the line
 * and the surface are sampled at slightly different points, so an exact test would break lines */
static const double WIRE_DEPTH_TOL = 0.01;
/* projected triangles below this area (px^2) are skipped: edge-on or zero area */
static const double AREA_EPS = 1e-12;
/* barycentric slack so pixel centres on an edge shared by two triangles are never missed by both */
static const double BARY_EPS = 1e-9;
/* below this |a x b| / (|a| |b|) the camera's up is taken as parallel to the view direction */
static const double PARALLEL_EPS = 1e-6;
static const double FOV_MIN_DEG = 1e-3, FOV_MAX_DEG = 179.0;
/* px: larger pin radii are clamped (a dot this size already covers any sensible image) */
static const int PIN_MAX_RADIUS = 1 << 16;
/* camera_fit: distance so the bounding sphere fills 1 / FIT_MARGIN of the vertical field of view */
static const double FIT_MARGIN = 1.1;
static const double FIT_MIN_RADIUS = 1e-6; /* m: a single point still gets a camera distance */
static const double FIT_DIR_DEFAULT[3] = {1.0, -1.5, 0.8};
static const double Z_UP[3] = {0.0, 0.0, 1.0};
static const double Y_UP[3] = {0.0, 1.0, 0.0};

/* camera basis and projection for one image */
typedef struct view {
  double eye[3], right[3], up[3], fwd[3];
  double focal, cx, cy; /* px */
  double near;          /* m */
  uint32_t width, height;
} view;

/* screen point: pixel coordinates and w = 1/z */
typedef struct spt {
  double x, y, w;
} spt;

void render_style_default(render_style *s) {
  static const render_style D = {
      .background = {236, 238, 242},
      .front = {74, 128, 199},
      .back = {214, 137, 72},
      .wire = {36, 38, 46},
      .pin = {222, 36, 48},
      .wireframe = 1,
      .light = {0.3, -0.5, 1.0},
      .pin_radius = 4,
  };
  *s = D;
}

/* unit a x b when a and b are far enough from parallel */
static int unit_cross(double *r, const double *a, const double *b) {
  double na = v3_norm(a), nb = v3_norm(b);
  v3_cross(r, a, b);
  double nr = v3_norm(r);
  if (!(nr > PARALLEL_EPS * na * nb) || !isfinite(nr)) return 0;
  v3_scale(r, r, 1.0 / nr);
  return 1;
}

static int view_init(view *v, const render_camera *c, uint32_t width, uint32_t height) {
  if (!c || !tf_isfinite3(c->eye) || !tf_isfinite3(c->target)) return 0;
  double f[3];
  v3_sub(f, c->target, c->eye);
  double dist = v3_norm(f);
  if (!(dist > 0.0) || !isfinite(dist)) return 0;
  v3_copy(v->eye, c->eye);
  v3_scale(v->fwd, f, 1.0 / dist);
  /* right = fwd x up; an unusable up falls back to Z, then Y */
  if (!(tf_isfinite3(c->up) && unit_cross(v->right, v->fwd, c->up)) &&
      !unit_cross(v->right, v->fwd, Z_UP))
    unit_cross(v->right, v->fwd, Y_UP);
  v3_cross(v->up, v->right, v->fwd);
  double fov =
      c->fov_deg > FOV_MIN_DEG && c->fov_deg < FOV_MAX_DEG ? c->fov_deg : RENDER_FIT_FOV_DEG;
  v->focal = 0.5 * height / tan(0.5 * fov * TF_PI / 180.0);
  v->cx = 0.5 * width;
  v->cy = 0.5 * height;
  v->near = NEAR_FRACTION * dist;
  v->width = width;
  v->height = height;
  return 1;
}

static void to_camera(const view *v, const double *p, double *out) {
  double d[3];
  v3_sub(d, p, v->eye);
  out[0] = v3_dot(d, v->right);
  out[1] = v3_dot(d, v->up);
  out[2] = v3_dot(d, v->fwd);
}

/* camera space (z >= near) to pixels; y grows downwards */
static spt project(const view *v, const double *c) {
  spt s;
  s.w = 1.0 / c[2];
  s.x = v->cx + v->focal * c[0] * s.w;
  s.y = v->cy - v->focal * c[1] * s.w;
  return s;
}

/* world point to pixels; 0 when non-finite or not in front of the near plane */
static int view_project(const view *v, const double *p, double out_xy[2], double *out_depth) {
  if (!tf_isfinite3(p)) return 0;
  double c[3];
  to_camera(v, p, c);
  if (!(c[2] >= v->near)) return 0;
  spt s = project(v, c);
  if (!isfinite(s.x) || !isfinite(s.y)) return 0;
  out_xy[0] = s.x;
  out_xy[1] = s.y;
  if (out_depth) *out_depth = c[2];
  return 1;
}

int render_project(const render_camera *cam, uint32_t width, uint32_t height, const double p[3],
                   double out_xy[2], double *out_depth) {
  view v;
  return p && out_xy && view_init(&v, cam, width, height) && view_project(&v, p, out_xy, out_depth);
}

static void put_pixel(uint8_t *rgb, uint32_t width, uint32_t x, uint32_t y, const uint8_t col[3]) {
  uint8_t *p = rgb + 3 * ((size_t)y * width + x);
  p[0] = col[0];
  p[1] = col[1];
  p[2] = col[2];
}

/* pixel index range [lo, hi] whose centres (i + 0.5) lie in [a, b], clamped to [0, n - 1] */
static int pixel_range(double a, double b, uint32_t n, uint32_t *lo, uint32_t *hi) {
  double l = fmax(0.0, ceil(a - 0.5)), h = fmin((double)n - 1.0, floor(b - 0.5));
  if (!(l <= h)) return 0;
  *lo = (uint32_t)l;
  *hi = (uint32_t)h;
  return 1;
}

static void fill_triangle(uint8_t *rgb, double *zbuf, const view *v, const spt *a, const spt *b,
                          const spt *c, const uint8_t col[3]) {
  double area = (b->x - a->x) * (c->y - a->y) - (b->y - a->y) * (c->x - a->x);
  if (!(fabs(area) > AREA_EPS) || !isfinite(area)) return;
  uint32_t x0, x1, y0, y1;
  if (!pixel_range(fmin(a->x, fmin(b->x, c->x)), fmax(a->x, fmax(b->x, c->x)), v->width, &x0,
                   &x1) ||
      !pixel_range(fmin(a->y, fmin(b->y, c->y)), fmax(a->y, fmax(b->y, c->y)), v->height, &y0, &y1))
    return;
  double inv = 1.0 / area;
  for (uint32_t y = y0; y <= y1; ++y) {
    double py = y + 0.5;
    for (uint32_t x = x0; x <= x1; ++x) {
      double px = x + 0.5;
      /* barycentrics from the edge functions, normalized so they sum to 1 whatever the winding */
      double l0 = ((c->x - b->x) * (py - b->y) - (c->y - b->y) * (px - b->x)) * inv;
      double l1 = ((a->x - c->x) * (py - c->y) - (a->y - c->y) * (px - c->x)) * inv;
      double l2 = 1.0 - l0 - l1;
      if (l0 < -BARY_EPS || l1 < -BARY_EPS || l2 < -BARY_EPS) continue;
      double z = 1.0 / (l0 * a->w + l1 * b->w + l2 * c->w);
      size_t i = (size_t)y * v->width + x;
      if (z < zbuf[i]) {
        zbuf[i] = z;
        put_pixel(rgb, v->width, x, y, col);
      }
    }
  }
}

/* polygon of tri (camera space) with z >= near: Sutherland-Hodgman against one plane */
static int clip_near(const double tri[3][3], double near, double out[4][3]) {
  int n = 0;
  for (int i = 0; i < 3; ++i) {
    const double *p = tri[i], *q = tri[(i + 1) % 3];
    int pin = p[2] >= near, qin = q[2] >= near;
    if (pin) v3_copy(out[n++], p);
    if (pin != qin) {
      double t = (near - p[2]) / (q[2] - p[2]);
      double d[3];
      v3_sub(d, q, p);
      v3_copy(out[n], p);
      v3_axpy(out[n], t, d);
      out[n][2] = near; /* exactly on the plane despite rounding */
      n++;
    }
  }
  return n;
}

/* the triangle's three positions when its indices are valid and its positions finite */
static int gather(const double *pos, uint32_t vert_count, const uint32_t *t, const double *p[3]) {
  for (int k = 0; k < 3; ++k) {
    if (t[k] >= vert_count) return 0;
    p[k] = pos + 3 * (size_t)t[k];
    if (!tf_isfinite3(p[k])) return 0;
  }
  return 1;
}

static uint8_t shade(uint8_t c, double intensity) {
  double v = c * intensity + 0.5;
  return (uint8_t)(v >= 255.0 ? 255.0 : v <= 0.0 ? 0.0 : v);
}

/* flat two-sided Lambert colour of triangle p; 0 for zero area */
static int face_colour(const view *v, const render_style *st, const double *light,
                       const double *p[3], uint8_t out[3]) {
  double e1[3], e2[3], n[3], to_eye[3];
  v3_sub(e1, p[1], p[0]);
  v3_sub(e2, p[2], p[0]);
  v3_cross(n, e1, e2);
  double len = v3_norm(n);
  if (!(len > 0.0) || !isfinite(len)) return 0;
  v3_sub(to_eye, v->eye, p[0]);
  int front = v3_dot(n, to_eye) > 0.0;
  /* the lit side is the one the eye sees */
  v3_scale(n, n, (front ? 1.0 : -1.0) / len);
  double intensity = AMBIENT + DIFFUSE * fmax(0.0, v3_dot(n, light));
  const uint8_t *base = front ? st->front : st->back;
  for (int k = 0; k < 3; ++k) out[k] = shade(base[k], intensity);
  return 1;
}

static void draw_triangle(uint8_t *rgb, double *zbuf, const view *v, const double *p[3],
                          const uint8_t col[3]) {
  double cam[3][3], poly[4][3];
  for (int k = 0; k < 3; ++k) to_camera(v, p[k], cam[k]);
  int n = clip_near((const double(*)[3])cam, v->near, poly);
  if (n < 3) return;
  spt s[4];
  for (int k = 0; k < n; ++k) s[k] = project(v, poly[k]);
  /* the clipped polygon is convex: a fan from its first vertex */
  for (int k = 1; k + 1 < n; ++k) fill_triangle(rgb, zbuf, v, &s[0], &s[k], &s[k + 1], col);
}

/* clip the segment a + t (b - a), t in [t0, t1], to lo <= a + t d <= hi (Liang-Barsky, one axis) */
static int clip_axis(double a, double d, double lo, double hi, double *t0, double *t1) {
  if (d == 0.0) return a >= lo && a <= hi;
  double ta = (lo - a) / d, tb = (hi - a) / d;
  if (ta > tb) {
    double t = ta;
    ta = tb;
    tb = t;
  }
  *t0 = fmax(*t0, ta);
  *t1 = fmin(*t1, tb);
  return *t0 <= *t1;
}

/* depth-tested line between camera-space points a and b */
static void draw_line(uint8_t *rgb, const double *zbuf, const view *v, const double *ca,
                      const double *cb, const uint8_t col[3]) {
  double a[3], b[3], d[3];
  v3_copy(a, ca);
  v3_copy(b, cb);
  if (a[2] < v->near && b[2] < v->near) return;
  /* move the end behind the near plane onto it */
  if (a[2] < v->near || b[2] < v->near) {
    double *behind = a[2] < v->near ? a : b;
    const double *other = a[2] < v->near ? b : a;
    double t = (v->near - behind[2]) / (other[2] - behind[2]);
    v3_sub(d, other, behind);
    v3_axpy(behind, t, d);
    behind[2] = v->near;
  }
  spt p = project(v, a), q = project(v, b);
  double dx = q.x - p.x, dy = q.y - p.y, dw = q.w - p.w;
  if (!isfinite(dx) || !isfinite(dy)) return;
  /* only the part inside the image is stepped through, so the loop is at most width + height long
   */
  double t0 = 0.0, t1 = 1.0;
  if (!clip_axis(p.x, dx, 0.0, v->width, &t0, &t1) || !clip_axis(p.y, dy, 0.0, v->height, &t0, &t1))
    return;
  double span = (t1 - t0) * fmax(fabs(dx), fabs(dy));
  uint32_t steps = (uint32_t)ceil(span) + 1;
  for (uint32_t i = 0; i <= steps; ++i) {
    double t = t0 + (t1 - t0) * i / steps;
    double x = floor(p.x + t * dx), y = floor(p.y + t * dy);
    if (x < 0.0 || y < 0.0 || x >= v->width || y >= v->height) continue;
    size_t k = (size_t)y * v->width + (size_t)x;
    double z = 1.0 / (p.w + t * dw);
    if (z <= zbuf[k] * (1.0 + WIRE_DEPTH_TOL))
      put_pixel(rgb, v->width, (uint32_t)x, (uint32_t)y, col);
  }
}

/* filled disc of radius r (px) around (x, y), no depth test */
static void draw_disc(uint8_t *rgb, const view *v, double x, double y, int r,
                      const uint8_t col[3]) {
  double cx = floor(x), cy = floor(y);
  /* r (r + 1) rather than r^2: small discs look round instead of diamond-shaped */
  double r2 = (double)r * (r + 1);
  uint32_t x0, x1, y0, y1;
  if (!pixel_range(cx - r + 0.5, cx + r + 0.5, v->width, &x0, &x1) ||
      !pixel_range(cy - r + 0.5, cy + r + 0.5, v->height, &y0, &y1))
    return;
  for (uint32_t py = y0; py <= y1; ++py)
    for (uint32_t px = x0; px <= x1; ++px) {
      double ddx = px - cx, ddy = py - cy;
      if (ddx * ddx + ddy * ddy <= r2) put_pixel(rgb, v->width, px, py, col);
    }
}

void render_mesh(uint8_t *rgb, double *zbuf, uint32_t width, uint32_t height,
                 const render_camera *cam, const render_style *style, const double *pos,
                 uint32_t vert_count, const uint32_t *tris, uint32_t tri_count,
                 const uint32_t *pins, uint32_t pin_count) {
  if (!rgb || !zbuf || !style || width == 0 || height == 0 || height > SIZE_MAX / 3 / width) return;
  size_t npix = (size_t)width * height;
  for (size_t i = 0; i < npix; ++i) {
    memcpy(rgb + 3 * i, style->background, 3);
    zbuf[i] = INFINITY;
  }
  view v;
  if (!view_init(&v, cam, width, height) || !pos) return;

  /* light direction; unusable: a headlight from the eye */
  double light[3];
  double ln = tf_isfinite3(style->light) ? v3_norm(style->light) : 0.0;
  if (ln > 0.0 && isfinite(ln))
    v3_scale(light, style->light, 1.0 / ln);
  else
    v3_scale(light, v.fwd, -1.0);

  /* surfaces */
  for (uint32_t t = 0; tris && t < tri_count; ++t) {
    const double *p[3];
    uint8_t col[3];
    if (!gather(pos, vert_count, tris + 3 * (size_t)t, p) || !face_colour(&v, style, light, p, col))
      continue;
    draw_triangle(rgb, zbuf, &v, p, col);
  }

  /* wireframe over the finished depth buffer; interior edges are drawn twice, to the same pixels */
  for (uint32_t t = 0; style->wireframe && tris && t < tri_count; ++t) {
    const double *p[3];
    double cam3[3][3];
    if (!gather(pos, vert_count, tris + 3 * (size_t)t, p)) continue;
    for (int k = 0; k < 3; ++k) to_camera(&v, p[k], cam3[k]);
    for (int k = 0; k < 3; ++k) draw_line(rgb, zbuf, &v, cam3[k], cam3[(k + 1) % 3], style->wire);
  }

  /* pins on top: a wire-coloured ring one pixel wider makes them stand out on any face colour */
  int r = style->pin_radius;
  if (r <= 0 || !pins) return;
  if (r > PIN_MAX_RADIUS) r = PIN_MAX_RADIUS;
  for (uint32_t i = 0; i < pin_count; ++i) {
    double xy[2];
    if (pins[i] >= vert_count || !view_project(&v, pos + 3 * (size_t)pins[i], xy, NULL)) continue;
    /* far outside the image: nothing to draw (and no huge loop bounds) */
    double margin = r + 2.0;
    if (xy[0] < -margin || xy[1] < -margin || xy[0] > width + margin || xy[1] > height + margin)
      continue;
    draw_disc(rgb, &v, xy[0], xy[1], r + 1, style->wire);
    draw_disc(rgb, &v, xy[0], xy[1], r, style->pin);
  }
}

void render_camera_fit(render_camera *c, const double *pos, uint32_t vert_count,
                       const double dir[3], const double up[3]) {
  /* bounding box of the finite vertices */
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  int any = 0;
  for (uint32_t i = 0; pos && i < vert_count; ++i) {
    const double *p = pos + 3 * (size_t)i;
    if (!tf_isfinite3(p)) continue;
    any = 1;
    for (int k = 0; k < 3; ++k) {
      lo[k] = fmin(lo[k], p[k]);
      hi[k] = fmax(hi[k], p[k]);
    }
  }
  double centre[3] = {0.0, 0.0, 0.0}, radius = 1.0;
  if (any) {
    double diag[3];
    v3_add(centre, lo, hi);
    v3_scale(centre, centre, 0.5);
    v3_sub(diag, hi, lo);
    radius = 0.5 * v3_norm(diag);
  }
  radius = fmax(radius, FIT_MIN_RADIUS);

  double d[3];
  double dn = dir && tf_isfinite3(dir) ? v3_norm(dir) : 0.0;
  if (dn > 0.0 && isfinite(dn)) {
    v3_scale(d, dir, 1.0 / dn);
  } else {
    v3_copy(d, FIT_DIR_DEFAULT);
    v3_scale(d, d, 1.0 / v3_norm(d));
  }
  /* up must not be parallel to the view: fall back to Z, then Y */
  double tmp[3];
  const double *u = up && tf_isfinite3(up) && unit_cross(tmp, d, up) ? up
                    : unit_cross(tmp, d, Z_UP)                       ? Z_UP
                                                                     : Y_UP;

  /* the sphere's tangent cone has half-angle asin(radius / distance) */
  double half = 0.5 * RENDER_FIT_FOV_DEG * TF_PI / 180.0;
  double dist = FIT_MARGIN * radius / sin(half);
  v3_copy(c->target, centre);
  v3_copy(c->eye, centre);
  v3_axpy(c->eye, dist, d);
  v3_copy(c->up, u);
  c->fov_deg = RENDER_FIT_FOV_DEG;
}
