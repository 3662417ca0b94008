/* SPDX-License-Identifier: MIT
 * PNG previews of a simulation (render/raster.c, render/png.c, render/contact_sheet.c): argument
 * checks, framing one camera on every shape shown, and scratch from the simulation's allocator. */
#include <math.h>
#include <string.h>

#include "api/api_common.h"
#include "mesh/tet_embed.h"
#include "render/contact_sheet.h"
#include "render/png.h"
#include "render/raster.h"

static const uint32_t RENDER_MAX_DIM = 16384; /* px per side */
static const uint32_t SHEET_SEPARATOR = 4;    /* px between tiles */

void tf_render_def_init_(tf_render_def *def, uint32_t struct_size) {
  if (!def) return;
  tf_render_def d;
  memset(&d, 0, sizeof d);
  d.struct_size = (uint32_t)sizeof d;
  d.width = 800;
  d.height = 600;
  d.view[0] = 1.0;
  d.view[1] = -1.5;
  d.view[2] = 0.8;
  d.up[2] = 1.0;
  d.fov_deg = 35.0;
  d.wireframe = 1;
  d.show_pins = 1;
  api_def_init(def, &d, sizeof d, struct_size);
}

/* checks the def and frames the camera on all the given shapes */
static tf_status setup(tf_sim *sim, const tf_render_def *in, const double *const *frames,
                       uint32_t count, tf_render_def *d, render_camera *cam, render_style *style) {
  tf_render_def_init(d);
  if (in) {
    if (in->struct_size == 0)
      return sim_fail(sim, TF_E_DEF_INIT, "render: def.struct_size is 0: use tf_render_def_init");
    memcpy(d, in, in->struct_size < sizeof *d ? in->struct_size : sizeof *d);
  }
  FAIL_IF(sim,
          d->width < 1 || d->height < 1 || d->width > RENDER_MAX_DIM || d->height > RENDER_MAX_DIM,
          TF_E_INVALID_ARG, "render: image size %ux%u must be within 1..%u px", d->width, d->height,
          RENDER_MAX_DIM);
  FAIL_IF(sim, !(d->fov_deg > 0.0 && d->fov_deg < 180.0), TF_E_INVALID_ARG,
          "render: fov_deg must be in (0, 180), got %g", d->fov_deg);
  FAIL_IF(sim,
          !api_all_finite(d->view, 3) || !api_all_finite(d->eye, 3) ||
              !api_all_finite(d->target, 3) || !api_all_finite(d->up, 3),
          TF_E_INVALID_ARG, "render: camera vectors must be finite");
  render_style_default(style);
  style->wireframe = d->wireframe;
  if (!d->show_pins) style->pin_radius = 0;
  int fixed = d->eye[0] != d->target[0] || d->eye[1] != d->target[1] || d->eye[2] != d->target[2];
  if (fixed) {
    memcpy(cam->eye, d->eye, sizeof cam->eye);
    memcpy(cam->target, d->target, sizeof cam->target);
    memcpy(cam->up, d->up, sizeof cam->up);
  } else {
    /* frame the union of all shapes: fit each, keep the farthest framing along the view */
    size_t n3 = 3 * (size_t)sim->model.host_n;
    double *all = mem_array(&sim->mem, n3 * count, sizeof *all);
    if (!all) return sim_fail(sim, TF_E_NOMEM, "render: out of memory");
    for (uint32_t k = 0; k < count; ++k) memcpy(all + k * n3, frames[k], n3 * sizeof *all);
    render_camera_fit(cam, all, sim->model.host_n * count, d->view, d->up);
    MEM_FREE_ARRAY(&sim->mem, all, n3 * count);
  }
  cam->fov_deg = d->fov_deg;
  /* a light over the camera's shoulder: the side the camera sees is the lit side */
  for (int k = 0; k < 3; ++k)
    style->light[k] = cam->eye[k] - cam->target[k] +
                      0.5 * cam->up[k] *
                          (fabs(cam->eye[0] - cam->target[0]) + fabs(cam->eye[1] - cam->target[1]) +
                           fabs(cam->eye[2] - cam->target[2]));
  return TF_OK;
}

static void hard_pins(const tf_sim *sim, uint32_t *out, uint32_t *count) {
  *count = 0;
  for (uint32_t q = 0; q < sim->pins.count; ++q) out[(*count)++] = sim->pins.idx[q];
}

/* frames of the host's vertices, or (nodes) of all the simulation's: quadratic flesh's frames from
 * the host get their edge nodes at their edges' middles */
static tf_status render_sheet(tf_sim *sim, const tf_render_def *def, const double *const *frames,
                              uint32_t frame_count, uint32_t columns, const char *path, int nodes) {
  FAIL_IF(sim, !path, TF_E_INVALID_ARG, "render: path is NULL");
  FAIL_IF(sim, frame_count < 1 || !frames, TF_E_INVALID_ARG, "render: no frames to draw");
  FAIL_IF(sim, columns < 1, TF_E_INVALID_ARG, "render: columns must be >= 1");
  for (uint32_t k = 0; k < frame_count; ++k)
    FAIL_IF(sim, !frames[k], TF_E_INVALID_ARG, "render: frame %u is NULL", k);
  tf_render_def d;
  render_camera cam;
  render_style style;
  tf_status st = setup(sim, def, frames, frame_count, &d, &cam, &style);
  if (st != TF_OK) return st;
  contact_sheet cs = {d.width,
                      d.height,
                      columns < frame_count ? columns : frame_count,
                      SHEET_SEPARATOR,
                      {255, 255, 255}};
  uint32_t sw = d.width, sh = d.height;
  if (frame_count > 1 && contact_sheet_size(&cs, frame_count, &sw, &sh) != TF_OK)
    return sim_fail(sim, TF_E_INVALID_ARG, "render: the sheet would be too large");
  size_t tile = 3 * (size_t)d.width * d.height, npix = (size_t)d.width * d.height;
  size_t sheet = 3 * (size_t)sw * sh;
  uint8_t *tiles = mem_array(&sim->mem, tile * frame_count, 1);
  uint8_t *out = frame_count > 1 ? mem_array(&sim->mem, sheet, 1) : NULL;
  const uint8_t **ptrs = mem_array(&sim->mem, frame_count, sizeof *ptrs);
  double *zbuf = mem_array(&sim->mem, npix, sizeof *zbuf);
  uint32_t *pins = mem_array(&sim->mem, sim->pins.count ? sim->pins.count : 1, sizeof *pins);
  const sim_flesh *F = sim->flesh;
  size_t surf_len = F && F->surf_tri_count ? 3 * (size_t)F->surf_n : 0;
  double *surf = surf_len ? mem_array(&sim->mem, surf_len, sizeof *surf) : NULL;
  size_t all_len = nodes || (sim->model.n == sim->model.host_n && !sim->model.host_of)
                       ? 0
                       : 3 * (size_t)sim->model.n;
  double *all = all_len ? mem_array(&sim->mem, all_len, sizeof *all) : NULL;
  if (!tiles || !ptrs || !zbuf || !pins || (frame_count > 1 && !out) || (surf_len && !surf) ||
      (all_len && !all)) {
    st = sim_fail(sim, TF_E_NOMEM, "render: out of memory for a %ux%u image", sw, sh);
  } else {
    uint32_t pin_count;
    hard_pins(sim, pins, &pin_count);
    for (uint32_t k = 0; k < frame_count && st == TF_OK; ++k) {
      const double *x = frames[k];
      if (all) sim_from_host(sim, frames[k], all, 3), x = all;
      if (surf) { /* flesh: the host's skin, carried by the tets of this shape */
        tet_embed_apply(x, F->nodes, (int)F->npt, F->surf_tet, F->surf_w, F->surf_n, surf);
        render_mesh(tiles + k * tile, zbuf, d.width, d.height, &cam, &style, surf, F->surf_n,
                    F->surf_tris, F->surf_tri_count, NULL, 0);
      } else {
        render_mesh(tiles + k * tile, zbuf, d.width, d.height, &cam, &style, x, sim->model.n,
                    sim->model.mesh.tris, sim->model.mesh.tri_count, pins, pin_count);
      }
      ptrs[k] = tiles + k * tile;
    }
    if (frame_count > 1) contact_sheet_compose(&cs, ptrs, frame_count, out);
    char err[SIM_ERR_SIZE];
    st = png_write(path, frame_count > 1 ? out : tiles, sw, sh, err, sizeof err);
    if (st != TF_OK) sim_fail(sim, st, "%s", err);
  }
  MEM_FREE_ARRAY(&sim->mem, tiles, tile * frame_count);
  if (out) MEM_FREE_ARRAY(&sim->mem, out, sheet);
  MEM_FREE_ARRAY(&sim->mem, ptrs, frame_count);
  MEM_FREE_ARRAY(&sim->mem, zbuf, npix);
  MEM_FREE_ARRAY(&sim->mem, pins, sim->pins.count ? sim->pins.count : 1);
  if (surf) MEM_FREE_ARRAY(&sim->mem, surf, surf_len);
  if (all) MEM_FREE_ARRAY(&sim->mem, all, all_len);
  return st;
}

tf_status tf_sim_render_sheet_png(tf_sim *sim, const tf_render_def *def,
                                  const double *const *frames, uint32_t frame_count,
                                  uint32_t columns, const char *path) {
  if (!sim) return TF_E_INVALID_ARG;
  return render_sheet(sim, def, frames, frame_count, columns, path, 0);
}

tf_status tf_sim_render_png(tf_sim *sim, const tf_render_def *def, const char *path) {
  if (!sim) return TF_E_INVALID_ARG;
  const double *frame = sim->state.x;
  return render_sheet(sim, def, &frame, 1, 1, path, 1);
}
