/* SPDX-License-Identifier: MIT
 * Fuzz target: the TetGen .node/.ele reader. The input is the .node text, a NUL byte, then the
 * .ele text (no NUL: all .node, an empty .ele). Loads with indices in range and finite positions,
 * or fails with a message naming one of the two files; nothing leaks. */
#include "fuzz_common.h"
#include "mesh/tetmesh_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *nul = memchr(data, 0, size);
  size_t node_n = nul ? (size_t)(nul - data) : size;
  const uint8_t *ele = nul ? nul + 1 : data + size;
  size_t ele_n = size - node_n - (nul ? 1 : 0);
  tf_mem m;
  mem_init(&m, NULL);
  tetmesh_data d;
  char err[512] = "";
  tf_status st = tetmesh_load_tetgen_mem(&m, "fuzz.node", data, node_n, "fuzz.ele", ele, ele_n, &d,
                                         err, sizeof err);
  if (st == TF_OK) {
    for (size_t k = 0; k < 3 * (size_t)d.vert_count; ++k)
      FUZZ_CHECK(isfinite(d.pos[k]), "position %zu", k);
    for (size_t k = 0; k < 4 * (size_t)d.tet_count; ++k)
      FUZZ_CHECK(d.tets[k] < d.vert_count, "tet index %zu", k);
    tetmesh_data_free(&m, &d);
  } else {
    FUZZ_CHECK(st == TF_E_BAD_MESH || st == TF_E_NOMEM || st == TF_E_IO, "status %d", st);
    FUZZ_CHECK(!strncmp(err, "fuzz.node:", 10) || !strncmp(err, "fuzz.ele:", 9), "message '%s'",
               err);
  }
  FUZZ_CHECK(m.live_bytes == 0, "%zu bytes leaked", m.live_bytes);
  return 0;
}
