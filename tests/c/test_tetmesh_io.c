/* SPDX-License-Identifier: MIT
 * Tet mesh loaders: TetGen .node/.ele (0- and 1-based, attributes, markers, comments), Gmsh 2.2 and
 * 4.1 ASCII (sparse node tags, several blocks, non-tet elements skipped), and malformed files that
 * must name the file and line, with nothing leaked on any path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mesh/tetmesh_io.h"
#include "tf_test.h"

/* text into a fresh temporary file (the loaders do not look at the suffix); path filled in */
static void write_temp(char *path, size_t n, const char *suffix, const char *text) {
  const char *dir = getenv("TMPDIR");
  (void)suffix;
  snprintf(path, n, "%s/tf_tetio_XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(path);
  FILE *f = fdopen(fd, "w");
  fputs(text, f);
  fclose(f);
}

/* two tets sharing the face (1 2 3) of the unit tet, apex 4 on the other side */
static const double EXPECT_POS[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};

static void check_two_tets(int *tf_failed_, const tetmesh_data *d, int32_t r0, int32_t r1) {
  ENSURE(d->vert_count == 5 && d->tet_count == 2);
  for (int k = 0; k < 15; ++k) ENSURE(d->pos[k] == EXPECT_POS[k]);
  const uint32_t t[8] = {0, 1, 2, 3, 1, 2, 3, 4};
  for (int k = 0; k < 8; ++k) ENSURE(d->tets[k] == t[k]);
  ENSURE(d->region[0] == r0 && d->region[1] == r1);
}

TF_TEST(mesh_tetgen_load) {
  tf_mem m;
  mem_init(&m, NULL);
  char node[256], ele[256], err[256];
  /* 1-based, one point attribute and boundary markers, comments and blank lines */
  write_temp(node, sizeof node, ".node",
             "# made by hand\n5 3 1 1\n1 0 0 0 7 1\n2 1 0 0 7 1\n\n3 0 1 0 7 1  # corner\n4 0 0 1 "
             "7 1\n5 1 1 1 7 0\n");
  write_temp(ele, sizeof ele, ".ele", "2 4 1\n1 1 2 3 4 3\n2 2 3 4 5 5\n");
  tetmesh_data d;
  ENSURE_MSG(tetmesh_load_tetgen(&m, node, ele, &d, err, sizeof err) == TF_OK, "%s", err);
  check_two_tets(tf_failed_, &d, 3, 5);
  tetmesh_data_free(&m, &d);
  unlink(node);
  unlink(ele);
  /* 0-based, no attributes */
  write_temp(node, sizeof node, ".node", "5 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n4 1 1 1\n");
  write_temp(ele, sizeof ele, ".ele", "2 4 0\n0 0 1 2 3\n1 1 2 3 4\n");
  ENSURE_MSG(tetmesh_load_tetgen(&m, node, ele, &d, err, sizeof err) == TF_OK, "%s", err);
  check_two_tets(tf_failed_, &d, 0, 0);
  tetmesh_data_free(&m, &d);
  unlink(node);
  unlink(ele);
  ENSURE(m.live_bytes == 0);
}

TF_TEST(mesh_gmsh_load_22_and_41) {
  tf_mem m;
  mem_init(&m, NULL);
  char path[256], err[256];
  tetmesh_data d;
  /* 2.2: sparse node tags, a line and a triangle element to skip, physical tags 11 and 12 */
  write_temp(
      path, sizeof path, ".msh",
      "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n1\n3 11 \"belly\"\n$EndPhysicalNames\n"
      "$Nodes\n5\n10 0 0 0\n20 1 0 0\n30 0 1 0\n40 0 0 1\n50 1 1 1\n$EndNodes\n"
      "$Elements\n4\n1 1 2 0 1 10 20\n2 2 2 0 1 10 20 30\n3 4 2 11 1 10 20 30 40\n4 4 2 12 1 20 30 "
      "40 50\n$EndElements\n");
  ENSURE_MSG(tetmesh_load_gmsh(&m, path, &d, err, sizeof err) == TF_OK, "%s", err);
  check_two_tets(tf_failed_, &d, 11, 12);
  ENSURE(d.name_count == 1 && d.names[0].region == 11 && !strcmp(d.names[0].name, "belly"));
  tetmesh_data_free(&m, &d);
  unlink(path);
  /* 4.1: $Entities (volume 2 carries physical tag 42), named regions with spaces, two node
   * blocks, a surface block and two volume blocks */
  write_temp(path, sizeof path, ".msh",
             "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Entities\n0 0 1 2\n1 0 0 0 1 1 1 0 0\n"
             "1 0 0 0 1 1 1 0 0\n2 0 0 0 1 1 1 1 42 0\n$EndEntities\n"
             "$PhysicalNames\n2\n2 7 \"skin\"\n3 42 \"left cheek\"\n$EndPhysicalNames\n"
             "$Nodes\n2 5 1 5\n0 1 0 3\n1\n2\n3\n0 0 0\n1 0 0\n0 1 0\n3 1 0 2\n4\n5\n0 0 1\n1 1 "
             "1\n$EndNodes\n"
             "$Elements\n3 4 1 4\n2 1 2 2\n1 1 2 3\n2 2 3 4\n3 1 4 1\n3 1 2 3 4\n3 2 4 1\n4 2 3 4 "
             "5\n$EndElements\n");
  ENSURE_MSG(tetmesh_load_gmsh(&m, path, &d, err, sizeof err) == TF_OK, "%s", err);
  check_two_tets(tf_failed_, &d, 1, 42); /* volume 1 has no physical tag: its entity tag */
  ENSURE(d.name_count == 1 && d.names[0].region == 42 && !strcmp(d.names[0].name, "left cheek"));
  tetmesh_data_free(&m, &d);
  unlink(path);
  ENSURE(m.live_bytes == 0);
}

/* a malformed file: the status, and "path:line:" plus a phrase in the message */
static void expect_bad(int *tf_failed_, tf_mem *m, const char *suffix, const char *text,
                       const char *ele_text, int line, const char *phrase) {
  char path[256], ele[256] = "", err[512], where[300];
  tetmesh_data d = {0};
  write_temp(path, sizeof path, suffix, text);
  tf_status st;
  if (ele_text) {
    write_temp(ele, sizeof ele, ".ele", ele_text);
    st = tetmesh_load_tetgen(m, path, ele, &d, err, sizeof err);
  } else {
    st = tetmesh_load_gmsh(m, path, &d, err, sizeof err);
  }
  snprintf(where, sizeof where, "%s:%d: ", ele_text && line < 0 ? ele : path,
           line < 0 ? -line : line);
  TF_NOTE("%s", err);
  ENSURE_MSG(st == TF_E_BAD_MESH, "status %d: %s", st, err);
  ENSURE_MSG(strstr(err, where) == err, "expected '%s' at the start of '%s'", where, err);
  ENSURE_MSG(strstr(err, phrase), "expected '%s' in '%s'", phrase, err);
  ENSURE(d.pos == NULL && d.tets == NULL);
  unlink(path);
  if (*ele) unlink(ele);
}

TF_TEST(mesh_tet_loaders_reject_malformed) {
  tf_mem m;
  mem_init(&m, NULL);
  const char *node = "5 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n4 1 1 1\n";
  expect_bad(tf_failed_, &m, ".node", "5 3 0 0\n0 0 0 0\n1 1 0x 0\n", "", 3, "coordinate");
  expect_bad(tf_failed_, &m, ".node", "5 2 0 0\n", "", 1, "dimension 2");
  expect_bad(tf_failed_, &m, ".node", "5 3 0 0\n0 0 0 0\n1 1 0 0\n", "", 3, "end of file");
  expect_bad(tf_failed_, &m, ".node", "2 3 0 0\n0 0 0 0\n2 1 0 0\n", "", 3,
             "point index 2, expected 1");
  expect_bad(tf_failed_, &m, ".node", node, "2 4 0\n0 0 1 2 3\n1 1 2 3 9\n", -3,
             "vertex 9 is not in the .node file");
  expect_bad(tf_failed_, &m, ".node", node, "1 4 0\n0 0 1 1 3\n", -2, "repeats vertex 1");
  expect_bad(tf_failed_, &m, ".node", node, "1 3 0\n", -1, "3 nodes per tetrahedron");
  expect_bad(tf_failed_, &m, ".msh", "$MeshFormat\n3.0 0 8\n$EndMeshFormat\n", NULL, 2,
             "version 3.0");
  expect_bad(tf_failed_, &m, ".msh", "$MeshFormat\n2.2 1 8\n$EndMeshFormat\n", NULL, 2, "binary");
  expect_bad(tf_failed_, &m, ".msh", "hello\n", NULL, 1, "unexpected 'hello'");
  expect_bad(tf_failed_, &m, ".msh",
             "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n1\n3 1 belly\n", NULL, 6,
             "expected a quoted name");
  expect_bad(tf_failed_, &m, ".msh",
             "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n2\n1 0 0 0\n1 1 0 0\n$EndNodes\n", NULL,
             7, "node tag 1 appears twice");
  expect_bad(tf_failed_, &m, ".msh",
             "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 "
             "1\n$EndNodes\n"
             "$Elements\n2\n1 4 0 1 2 3 4\n2 4 0 1 2 3 7\n$EndElements\n",
             NULL, 14, "refers to node 7");
  expect_bad(
      tf_failed_, &m, ".msh",
      "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n3\n1 0 0 0\n2 1 0 0\n3 0 1 0\n$EndNodes\n"
      "$Elements\n1\n1 2 0 1 2 3\n$EndElements\n",
      NULL, 13, "no linear tetrahedra");
  expect_bad(tf_failed_, &m, ".msh",
             "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 1 1 1\n0 1 1 1\n", NULL, 6,
             "parametric");
  /* a missing file is an I/O error naming it */
  char err[256];
  tetmesh_data d;
  ENSURE(tetmesh_load_gmsh(&m, "/nonexistent/x.msh", &d, err, sizeof err) == TF_E_IO);
  ENSURE(strstr(err, "/nonexistent/x.msh: cannot open"));
  ENSURE(m.live_bytes == 0);
}

/* an allocator with a budget, that records the peak it lent */
typedef struct budget {
  size_t live, peak, limit;
} budget;

static void *budget_alloc(size_t size, size_t align, void *ud) {
  budget *b = ud;
  if (size > b->limit - b->live) return NULL;
  void *p = aligned_alloc(align, (size + align - 1) / align * align);
  if (!p) return NULL;
  b->live += size;
  if (b->live > b->peak) b->peak = b->live;
  return p;
}

static void budget_free(void *p, size_t size, void *ud) {
  budget *b = ud;
  free(p);
  b->live -= size;
}

/* Load text as TetGen (ele_text given) or Gmsh with at most limit bytes; status, err filled. */
static tf_status load_text(budget *b, const char *text, const char *ele_text, tetmesh_data *d,
                           char *err, size_t n, char *path, size_t path_n) {
  tf_allocator a = {budget_alloc, budget_free, b};
  tf_mem m;
  mem_init(&m, &a);
  char ele[256] = "";
  write_temp(path, path_n, "", text);
  tf_status st;
  if (ele_text) {
    write_temp(ele, sizeof ele, ".ele", ele_text);
    st = tetmesh_load_tetgen(&m, path, ele, d, err, n);
    unlink(ele);
  } else {
    st = tetmesh_load_gmsh(&m, path, d, err, n);
  }
  unlink(path);
  if (st == TF_OK) tetmesh_data_free(&m, d);
  return st;
}

/* Issue 14: headers' counts are not trusted. A two-line .node declaring 10^8 points allocated
 * 2.3 GB before reading one; a 60-byte Gmsh 4.1 file declaring 2^30 nodes with tags up to 1.7e9
 * allocated 25 GB and cleared a 6.7 GB tag map (23 s). Now both read what is there and report the
 * missing data, lending less than 64 kB. */
TF_TEST(mesh_tet_loaders_grow_with_the_data) {
  char err[512], path[256];
  tetmesh_data d;
  budget b = {0, 0, (size_t)64 << 20};
  tf_status st =
      load_text(&b, "100000000 3 0 0\n0 0 0 0\n", "", &d, err, sizeof err, path, sizeof path);
  TF_NOTE("%s (peak %zu bytes)", err, b.peak);
  ENSURE_MSG(st == TF_E_BAD_MESH && strstr(err, "end of file"), "%d: %s", st, err);
  ENSURE(strstr(err, path) == err);
  ENSURE(b.peak < 65536 && b.live == 0);
  b = (budget){0, 0, (size_t)64 << 20};
  st = load_text(&b, "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 1073741823 1 1700000000\n",
                 NULL, &d, err, sizeof err, path, sizeof path);
  TF_NOTE("%s (peak %zu bytes)", err, b.peak);
  ENSURE_MSG(st == TF_E_BAD_MESH && strstr(err, "end of file"), "%d: %s", st, err);
  ENSURE(b.peak < 65536 && b.live == 0);
  /* 2.2: the same, and elements that declare a billion */
  b = (budget){0, 0, (size_t)64 << 20};
  st = load_text(&b,
                 "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n1000000000\n1 0 0 0\n2 1 0 0\n3 0 "
                 "1 0\n4 0 0 1\n",
                 NULL, &d, err, sizeof err, path, sizeof path);
  ENSURE_MSG(st == TF_E_BAD_MESH && strstr(err, "end of file"), "%d: %s", st, err);
  ENSURE(b.peak < 65536 && b.live == 0);
  b = (budget){0, 0, (size_t)64 << 20};
  st = load_text(&b, "4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n", "1000000000 4 0\n0 0 1 2 3\n",
                 &d, err, sizeof err, path, sizeof path);
  ENSURE_MSG(st == TF_E_BAD_MESH && strstr(err, "end of file"), "%d: %s", st, err);
  ENSURE(b.peak < 65536 && b.live == 0);
}

/* an allocation failure is TF_E_NOMEM "out of memory", still naming the file, never a bad mesh */
TF_TEST(mesh_tet_loaders_out_of_memory) {
  char err[512], path[256];
  tetmesh_data d;
  const char *node = "5 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n4 1 1 1\n",
             *ele = "2 4 0\n0 0 1 2 3\n1 1 2 3 4\n";
  const char *msh =
      "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n5\n10 0 0 0\n20 1 0 0\n30 0 1 0\n40 0 0 1\n50 "
      "1 1 1\n"
      "$EndNodes\n$Elements\n2\n3 4 2 11 1 10 20 30 40\n4 4 2 12 1 20 30 40 50\n$EndElements\n";
  for (int gmsh = 0; gmsh < 2; ++gmsh) {
    budget b = {0, 0, 0};
    tf_status st =
        load_text(&b, gmsh ? msh : node, gmsh ? NULL : ele, &d, err, sizeof err, path, sizeof path);
    TF_NOTE("%s", err);
    ENSURE_MSG(st == TF_E_NOMEM && strstr(err, "out of memory"), "%d: %s", st, err);
    ENSURE(strstr(err, path) == err && b.live == 0);
    b = (budget){0, 0, (size_t)1 << 20};
    ENSURE(load_text(&b, gmsh ? msh : node, gmsh ? NULL : ele, &d, err, sizeof err, path,
                     sizeof path) == TF_OK);
    ENSURE(b.live == 0);
  }
}

/* Issue 14 (UBSan): a TetGen region attribute beyond int32 was converted to int32 (undefined) */
TF_TEST(mesh_tetgen_region_attribute_out_of_range) {
  tf_mem m;
  mem_init(&m, NULL);
  const char *node = "5 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n4 1 1 1\n";
  expect_bad(tf_failed_, &m, ".node", node, "2 4 1\n0 0 1 2 3 1e300\n1 1 2 3 4 1\n", -2,
             "region attribute 1e+300");
  expect_bad(tf_failed_, &m, ".node", node, "2 4 1\n0 0 1 2 3 1\n1 1 2 3 4 -3e9\n", -3,
             "out of the int32 range");
  expect_bad(tf_failed_, &m, ".node", node, "2 4 1\n0 0 1 2 3 1\n1 1 2 3 4 nan\n", -3,
             "not finite");
  ENSURE(m.live_bytes == 0);
}

/* the in-memory entries (the fuzz targets') read like the file ones */
TF_TEST(mesh_tet_loaders_from_memory) {
  tf_mem m;
  mem_init(&m, NULL);
  char err[256];
  tetmesh_data d;
  const char *node = "5 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n4 1 1 1\n",
             *ele = "2 4 1\n0 0 1 2 3 3\n1 1 2 3 4 5\n";
  ENSURE_MSG(tetmesh_load_tetgen_mem(&m, "a.node", node, strlen(node), "a.ele", ele, strlen(ele),
                                     &d, err, sizeof err) == TF_OK,
             "%s", err);
  check_two_tets(tf_failed_, &d, 3, 5);
  tetmesh_data_free(&m, &d);
  const char *msh =
      "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n5\n10 0 0 0\n20 1 0 0\n30 0 1 0\n40 0 0 1\n50 "
      "1 1 1\n"
      "$EndNodes\n$Elements\n2\n3 4 2 11 1 10 20 30 40\n4 4 2 12 1 20 30 40 50\n$EndElements\n";
  ENSURE_MSG(tetmesh_load_gmsh_mem(&m, "a.msh", msh, strlen(msh), &d, err, sizeof err) == TF_OK,
             "%s", err);
  check_two_tets(tf_failed_, &d, 11, 12);
  tetmesh_data_free(&m, &d);
  ENSURE(tetmesh_load_gmsh_mem(&m, "empty.msh", "", 0, &d, err, sizeof err) == TF_E_BAD_MESH);
  ENSURE_MSG(strstr(err, "empty.msh:0: not a Gmsh file") == err, "%s", err);
  ENSURE(m.live_bytes == 0);
}
