/* SPDX-License-Identifier: MIT
 * Fuzz target: the Gmsh .msh reader (2.2 and 4.1 ASCII) on arbitrary bytes. A file either loads
 * (every index in range, every position finite) or fails with a message naming it; nothing leaks.
 */
#include "fuzz_common.h"
#include "mesh/tetmesh_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tf_mem m;
  mem_init(&m, NULL);
  tetmesh_data d;
  char err[512] = "";
  tf_status st = tetmesh_load_gmsh_mem(&m, "fuzz.msh", data, size, &d, err, sizeof err);
  if (st == TF_OK) {
    FUZZ_CHECK(d.tet_count > 0, "no tets");
    for (size_t k = 0; k < 3 * (size_t)d.vert_count; ++k)
      FUZZ_CHECK(isfinite(d.pos[k]), "position %zu", k);
    for (size_t k = 0; k < 4 * (size_t)d.tet_count; ++k)
      FUZZ_CHECK(d.tets[k] < d.vert_count, "tet index %zu", k);
    tetmesh_data_free(&m, &d);
  } else {
    FUZZ_CHECK(st == TF_E_BAD_MESH || st == TF_E_NOMEM || st == TF_E_IO, "status %d", st);
    FUZZ_CHECK(strncmp(err, "fuzz.msh:", 9) == 0, "message '%s'", err);
  }
  FUZZ_CHECK(m.live_bytes == 0, "%zu bytes leaked", m.live_bytes);
  return 0;
}
