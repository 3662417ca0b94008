/* SPDX-License-Identifier: MIT
 * See tetmesh_io.h. Both formats are read as whitespace-separated tokens with the line of each
 * token remembered for error messages. Counts in headers are not trusted for memory: arrays grow
 * as their data arrives (doubling), so a short file that declares 10^8 points costs nothing. */
#include "mesh/tetmesh_io.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
  FILE *f;
  const char *path;
  int line;          /* line of the last token returned */
  int next_line;     /* line the cursor is on */
  int hash_comments; /* TetGen: '#' starts a comment */
  char buf[4096];
  char *p; /* cursor in buf; NULL: read a new line */
  char *err;
  size_t err_size;
} reader;

static tf_status fail(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static tf_status fail(reader *r, const char *fmt, ...) {
  int k = snprintf(r->err, r->err_size, "%s:%d: ", r->path, r->line);
  if (k >= 0 && (size_t)k < r->err_size) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err + k, r->err_size - (size_t)k, fmt, ap);
    va_end(ap);
  }
  return TF_E_BAD_MESH;
}

/* an allocation failed: TF_E_NOMEM, the message still says where */
static tf_status fail_nomem(reader *r, const char *what) {
  fail(r, "out of memory for %s", what);
  return TF_E_NOMEM;
}

static tf_status open_reader(reader *r, const char *path, int hash_comments, char *err,
                             size_t err_size) {
  memset(r, 0, sizeof *r);
  r->path = path;
  r->hash_comments = hash_comments;
  r->err = err;
  r->err_size = err_size;
  r->f = fopen(path, "r");
  if (!r->f) {
    snprintf(err, err_size, "%s: cannot open: %s", path, strerror(errno));
    return TF_E_IO;
  }
  return TF_OK;
}

/* the same over bytes in memory (fmemopen), named `name` in messages; size 0 is an empty file */
static tf_status open_reader_mem(reader *r, const char *name, const void *data, size_t size,
                                 int hash_comments, char *err, size_t err_size) {
  memset(r, 0, sizeof *r);
  r->path = name;
  r->hash_comments = hash_comments;
  r->err = err;
  r->err_size = err_size;
  if (size == 0) return TF_OK; /* r->f NULL: no tokens */
  r->f = fmemopen((void *)data, size, "r");
  if (!r->f) {
    snprintf(err, err_size, "%s: cannot open: %s", name, strerror(errno));
    return errno == ENOMEM ? TF_E_NOMEM : TF_E_IO;
  }
  return TF_OK;
}

static void close_reader(reader *r) {
  if (r->f) fclose(r->f);
  r->f = NULL;
}

/* A block of new_n elements holding the first keep of p's old_n (p released, NULL is fine); NULL,
 * with p untouched, when memory runs out. The growth step of every array the files fill. */
static void *regrow(tf_mem *m, void *p, size_t old_n, size_t new_n, size_t keep, size_t elem) {
  void *q = mem_array(m, new_n ? new_n : 1, elem);
  if (!q) return NULL;
  if (keep) memcpy(q, p, keep * elem);
  if (p) mem_free(m, p, (old_n ? old_n : 1) * elem);
  return q;
}

/* room for element `i` in an array of *cap: doubled from min(hint, 1024) (hint: the header's count)
 */
static int reserve(tf_mem *m, void **p, size_t *cap, size_t i, size_t hint, size_t elem) {
  if (i < *cap) return 1;
  size_t nc = *cap ? 2 * *cap : (hint && hint < 1024 ? hint : 1024);
  while (nc <= i) nc *= 2;
  void *q = regrow(m, *p, *cap, nc, *cap, elem);
  if (!q) return 0;
  *p = q;
  *cap = nc;
  return 1;
}

/* next token (NUL-terminated, in buf) or NULL at end of file */
static const char *token(reader *r) {
  for (;;) {
    if (!r->p) {
      if (!r->f || !fgets(r->buf, sizeof r->buf, r->f)) return NULL;
      ++r->next_line;
      r->p = r->buf;
      if (r->hash_comments) {
        char *h = strchr(r->buf, '#');
        if (h) *h = '\0';
      }
    }
    while (*r->p == ' ' || *r->p == '\t' || *r->p == '\r' || *r->p == '\n') ++r->p;
    if (!*r->p) {
      r->p = NULL;
      continue;
    }
    char *t = r->p;
    while (*r->p && *r->p != ' ' && *r->p != '\t' && *r->p != '\r' && *r->p != '\n') ++r->p;
    if (*r->p) *r->p++ = '\0';
    r->line = r->next_line;
    return t;
  }
}

static tf_status read_long(reader *r, const char *what, long long *out) {
  *out = 0;
  const char *t = token(r);
  if (!t) {
    r->line = r->next_line;
    return fail(r, "unexpected end of file, expected %s", what);
  }
  char *end;
  errno = 0;
  long long v = strtoll(t, &end, 10);
  if (*end || errno) return fail(r, "expected %s (an integer), got '%s'", what, t);
  *out = v;
  return TF_OK;
}

static tf_status read_double(reader *r, const char *what, double *out) {
  *out = 0.0;
  const char *t = token(r);
  if (!t) {
    r->line = r->next_line;
    return fail(r, "unexpected end of file, expected %s", what);
  }
  char *end;
  double v = strtod(t, &end);
  if (*end) return fail(r, "expected %s (a number), got '%s'", what, t);
  if (v - v != 0.0) return fail(r, "%s is not finite ('%s')", what, t);
  *out = v;
  return TF_OK;
}

/* a "quoted name" that may contain spaces, from the rest of the current line */
static tf_status read_quoted(reader *r, char *out, size_t n) {
  char *q = r->p ? strchr(r->p, '"') : NULL;
  char *e = q ? strchr(q + 1, '"') : NULL;
  if (!e) return fail(r, "expected a quoted name");
  size_t len = (size_t)(e - q - 1);
  if (len >= n) return fail(r, "name longer than %zu characters", n - 1);
  memcpy(out, q + 1, len);
  out[len] = '\0';
  r->p = e + 1;
  return TF_OK;
}

static tf_status read_count(reader *r, const char *what, long long max, uint32_t *out) {
  long long v = 0;
  tf_status st = read_long(r, what, &v);
  if (st) return st;
  if (v < 0 || v > max) return fail(r, "%s %lld out of range [0, %lld]", what, v, max);
  *out = (uint32_t)v;
  return TF_OK;
}

void tetmesh_data_free(tf_mem *m, tetmesh_data *d) {
  if (d->pos) mem_free(m, d->pos, (size_t)(d->vert_count ? d->vert_count : 1) * 3 * sizeof(double));
  if (d->tets)
    mem_free(m, d->tets, (size_t)(d->tet_count ? d->tet_count : 1) * 4 * sizeof(uint32_t));
  if (d->region)
    mem_free(m, d->region, (size_t)(d->tet_count ? d->tet_count : 1) * sizeof(int32_t));
  memset(d, 0, sizeof *d);
}

/* every vertex index in range and distinct within its tet */
static tf_status check_tet(reader *r, const uint32_t *t, uint32_t vert_count, long long id) {
  for (int a = 0; a < 4; ++a) {
    if (t[a] >= vert_count) return fail(r, "tet %lld refers to a vertex that does not exist", id);
    for (int b = 0; b < a; ++b)
      if (t[a] == t[b]) return fail(r, "tet %lld repeats vertex %u", id, t[a]);
  }
  return TF_OK;
}

/* ---- TetGen ---------------------------------------------------------------------------------- */

static tf_status tetgen_nodes(tf_mem *m, reader *r, tetmesh_data *d, long long *base) {
  uint32_t count = 0, dim = 0, nattr = 0, nmark = 0;
  tf_status st;
  if ((st = read_count(r, "the number of points", 0x3fffffff, &count)) ||
      (st = read_count(r, "the dimension", 3, &dim)) ||
      (st = read_count(r, "the number of attributes", 1000, &nattr)) ||
      (st = read_count(r, "the boundary marker flag", 1, &nmark)))
    return st;
  if (dim != 3) return fail(r, "dimension %u, tets need 3", dim);
  d->tet_count = 0;
  double *pos = NULL;
  size_t cap = 0;
  for (uint32_t i = 0; i < count && !st; ++i) {
    long long id;
    if ((st = read_long(r, "a point index", &id))) break;
    if (i == 0) {
      if (id != 0 && id != 1) {
        st = fail(r, "the first point index is %lld, expected 0 or 1", id);
        break;
      }
      *base = id;
    }
    if (id != *base + (long long)i) {
      st = fail(r, "point index %lld, expected %lld", id, *base + (long long)i);
      break;
    }
    if (!reserve(m, (void **)&pos, &cap, i, count, 3 * sizeof(double))) {
      st = fail_nomem(r, "the points");
      break;
    }
    for (int k = 0; k < 3 && !st; ++k) st = read_double(r, "a coordinate", pos + 3 * (size_t)i + k);
    for (uint32_t a = 0; a < nattr + nmark && !st; ++a) {
      double skip;
      st = read_double(r, "a point attribute or marker", &skip);
    }
  }
  /* exact size: tetmesh_data_free releases vert_count entries */
  double *exact = st ? NULL : regrow(m, pos, cap, count, count, 3 * sizeof(double));
  if (!st && !exact) st = fail_nomem(r, "the points");
  if (st) {
    if (pos) mem_free(m, pos, cap * 3 * sizeof(double));
    return st;
  }
  d->pos = exact;
  d->vert_count = count;
  return TF_OK;
}

static tf_status tetgen_elements(tf_mem *m, reader *r, tetmesh_data *d, long long base) {
  uint32_t per = 0, nattr = 0, count = 0;
  tf_status st;
  if ((st = read_count(r, "the number of tetrahedra", 0x3fffffff, &count)) ||
      (st = read_count(r, "nodes per tetrahedron", 10, &per)) ||
      (st = read_count(r, "the number of attributes", 1000, &nattr)))
    return st;
  if (per != 4 && per != 10)
    return fail(r, "%u nodes per tetrahedron, expected 4 (or 10, of which the corners are used)",
                per);
  uint32_t *tets = NULL;
  int32_t *region = NULL;
  size_t tcap = 0, rcap = 0;
  for (uint32_t e = 0; e < count && !st; ++e) {
    long long id, v;
    if ((st = read_long(r, "a tetrahedron index", &id))) break;
    if (!reserve(m, (void **)&tets, &tcap, e, count, 4 * sizeof(uint32_t)) ||
        !reserve(m, (void **)&region, &rcap, e, count, sizeof(int32_t))) {
      st = fail_nomem(r, "the tetrahedra");
      break;
    }
    uint32_t *t = tets + 4 * (size_t)e;
    for (uint32_t a = 0; a < per && !st; ++a) {
      if ((st = read_long(r, "a vertex index", &v))) break;
      if (a >= 4) continue;
      if (v < base || v - base >= (long long)d->vert_count)
        st = fail(r, "tetrahedron %lld: vertex %lld is not in the .node file (%u points from %lld)",
                  id, v, d->vert_count, base);
      else
        t[a] = (uint32_t)(v - base);
    }
    if (st || (st = check_tet(r, t, d->vert_count, id))) break;
    for (uint32_t a = 0; a < nattr && !st; ++a) {
      double attr;
      if ((st = read_double(r, "a tetrahedron attribute", &attr))) break;
      /* the region number: an int32 (a bigger value would not convert) */
      if (a == 0 && !(attr > -2147483649.0 && attr < 2147483648.0))
        st = fail(r, "tetrahedron %lld: region attribute %g is out of the int32 range", id, attr);
      else if (a == 0)
        region[e] = (int32_t)attr;
    }
  }
  uint32_t *tx = st ? NULL : regrow(m, tets, tcap, count, count, 4 * sizeof(uint32_t));
  int32_t *rx = st || !tx ? NULL : regrow(m, region, rcap, count, count, sizeof(int32_t));
  if (!st && (!tx || !rx)) {
    st = fail_nomem(r, "the tetrahedra");
    if (tx) mem_free(m, tx, (count ? count : 1) * 4 * sizeof(uint32_t)), tets = NULL, tcap = 0;
  }
  if (st) {
    if (tets) mem_free(m, tets, tcap * 4 * sizeof(uint32_t));
    if (region) mem_free(m, region, rcap * sizeof(int32_t));
    return st;
  }
  d->tets = tx;
  d->region = rx;
  d->tet_count = count;
  return TF_OK;
}

static tf_status tetgen_parse(tf_mem *m, reader *node, reader *ele, tetmesh_data *out) {
  tetmesh_data d = {0};
  long long base = 0;
  tf_status st = tetgen_nodes(m, node, &d, &base);
  if (!st) st = tetgen_elements(m, ele, &d, base);
  if (st) {
    tetmesh_data_free(m, &d);
    return st;
  }
  *out = d;
  return TF_OK;
}

tf_status tetmesh_load_tetgen(tf_mem *m, const char *node_path, const char *ele_path,
                              tetmesh_data *out, char *err, size_t err_size) {
  reader node, ele;
  tf_status st = open_reader(&node, node_path, 1, err, err_size);
  if (st) return st;
  if ((st = open_reader(&ele, ele_path, 1, err, err_size))) {
    close_reader(&node);
    return st;
  }
  st = tetgen_parse(m, &node, &ele, out);
  close_reader(&node);
  close_reader(&ele);
  return st;
}

tf_status tetmesh_load_tetgen_mem(tf_mem *m, const char *node_name, const void *node_data,
                                  size_t node_size, const char *ele_name, const void *ele_data,
                                  size_t ele_size, tetmesh_data *out, char *err, size_t err_size) {
  reader node, ele;
  tf_status st = open_reader_mem(&node, node_name, node_data, node_size, 1, err, err_size);
  if (st) return st;
  if ((st = open_reader_mem(&ele, ele_name, ele_data, ele_size, 1, err, err_size))) {
    close_reader(&node);
    return st;
  }
  st = tetgen_parse(m, &node, &ele, out);
  close_reader(&node);
  close_reader(&ele);
  return st;
}

/* ---- Gmsh ------------------------------------------------------------------------------------ */

/* skip to the token end_tag ("$EndNodes") */
static tf_status skip_section(reader *r, const char *end_tag) {
  for (const char *t; (t = token(r));)
    if (!strcmp(t, end_tag)) return TF_OK;
  r->line = r->next_line;
  return fail(r, "unexpected end of file, expected %s", end_tag);
}

static tf_status expect(reader *r, const char *tag) {
  const char *t = token(r);
  if (!t) {
    r->line = r->next_line;
    return fail(r, "unexpected end of file, expected %s", tag);
  }
  if (strcmp(t, tag)) return fail(r, "expected %s, got '%s'", tag, t);
  return TF_OK;
}

/* node tags are arbitrary positive integers: map tag -> index */
typedef struct tagmap {
  uint32_t *idx; /* (max_tag + 1), UINT32_MAX: unused */
  size_t size;
} tagmap;

/* the map for the tags read (count of them): bounded by the data, not by a header's maximum */
static tf_status tagmap_build(tf_mem *m, reader *r, tagmap *map, const long long *tags,
                              uint32_t count) {
  long long max_tag = 0;
  for (uint32_t i = 0; i < count; ++i) {
    if (tags[i] < 1) return fail(r, "node tag %lld out of range", tags[i]);
    if (tags[i] > max_tag) max_tag = tags[i];
  }
  if (max_tag > 16LL * count + 1000000)
    return fail(r, "node tags up to %lld for %u nodes: too sparse", max_tag, count);
  map->size = (size_t)max_tag + 1;
  map->idx = mem_array(m, map->size, sizeof(uint32_t));
  if (!map->idx) return fail_nomem(r, "the node tag map");
  memset(map->idx, 0xff, map->size * sizeof(uint32_t));
  return TF_OK;
}

static tf_status gmsh_node(reader *r, tagmap *map, long long tag, uint32_t i) {
  if (tag < 1 || (size_t)tag >= map->size) return fail(r, "node tag %lld out of range", tag);
  if (map->idx[tag] != UINT32_MAX) return fail(r, "node tag %lld appears twice", tag);
  map->idx[tag] = i;
  return TF_OK;
}

static tf_status gmsh_elem_nodes(reader *r, const tagmap *map, uint32_t *t, long long id) {
  for (int a = 0; a < 4; ++a) {
    long long tag;
    tf_status st = read_long(r, "a node tag", &tag);
    if (st) return st;
    if (tag < 1 || (size_t)tag >= map->size || map->idx[tag] == UINT32_MAX)
      return fail(r, "element %lld refers to node %lld, which is not in $Nodes", id, tag);
    t[a] = map->idx[tag];
  }
  return TF_OK;
}

/* number of nodes of the Gmsh element types we may need to skip (first- and second-order) */
static int gmsh_type_nodes(long long type) {
  static const int n[] = {0, 2, 3, 4, 4, 8, 6, 5, 3, 6, 9, 10, 27, 18, 14, 1, 8, 20, 15, 13};
  return type >= 1 && type < (long long)(sizeof n / sizeof n[0]) ? n[type] : -1;
}

enum { GMSH_TET4 = 4 };

/* tets and regions moved to blocks of new_cap entries (0: released); returns 0, changing
 * nothing, when memory runs out */
static int resize_tets(tf_mem *m, tetmesh_data *d, uint32_t old_cap, uint32_t new_cap) {
  uint32_t *nt = NULL;
  int32_t *nr = NULL;
  if (new_cap) {
    nt = mem_array(m, new_cap, 4 * sizeof(uint32_t));
    nr = mem_array(m, new_cap, sizeof(int32_t));
    if (!nt || !nr) {
      if (nt) mem_free(m, nt, (size_t)new_cap * 4 * sizeof(uint32_t));
      if (nr) mem_free(m, nr, (size_t)new_cap * sizeof(int32_t));
      return 0;
    }
    uint32_t keep = d->tet_count < new_cap ? d->tet_count : new_cap;
    if (keep) {
      memcpy(nt, d->tets, (size_t)keep * 4 * sizeof(uint32_t));
      memcpy(nr, d->region, (size_t)keep * sizeof(int32_t));
    }
  }
  if (old_cap) {
    mem_free(m, d->tets, (size_t)old_cap * 4 * sizeof(uint32_t));
    mem_free(m, d->region, (size_t)old_cap * sizeof(int32_t));
  }
  d->tets = nt;
  d->region = nr;
  if (!new_cap) d->tet_count = 0;
  return 1;
}

/* One element whose tag, type and region are read: its node tags are skipped unless it is a
 * linear tet, which is appended (two passes over $Elements would need a seekable file). */
static tf_status gmsh_element(tf_mem *m, reader *r, tetmesh_data *d, const tagmap *map,
                              uint32_t *cap, long long id, long long type, int32_t region) {
  tf_status st;
  if (type != GMSH_TET4) {
    long long tag;
    for (int k = 0, nn = gmsh_type_nodes(type); k < nn; ++k)
      if ((st = read_long(r, "a node tag", &tag))) return st;
    return TF_OK;
  }
  uint32_t t[4];
  if ((st = gmsh_elem_nodes(r, map, t, id)) || (st = check_tet(r, t, d->vert_count, id))) return st;
  if (d->tet_count == *cap) {
    uint32_t nc = *cap ? 2 * *cap : 1024;
    if (!resize_tets(m, d, *cap, nc)) return fail_nomem(r, "the tetrahedra");
    *cap = nc;
  }
  memcpy(d->tets + 4 * (size_t)d->tet_count, t, 4 * sizeof(uint32_t));
  d->region[d->tet_count++] = region;
  return TF_OK;
}

static tf_status gmsh_physical_names(reader *r, tetmesh_data *d) {
  long long count, dim, tag;
  tf_status st = read_long(r, "the number of physical names", &count);
  for (long long i = 0; i < count && !st; ++i) {
    char name[TETMESH_NAME_SIZE];
    if ((st = read_long(r, "a physical dimension", &dim)) ||
        (st = read_long(r, "a physical tag", &tag)) || (st = read_quoted(r, name, sizeof name)))
      break;
    if (dim != 3) continue;
    if (d->name_count == TETMESH_MAX_NAMES)
      return fail(r, "more than %d named volume regions", TETMESH_MAX_NAMES);
    d->names[d->name_count].region = (int32_t)tag;
    memcpy(d->names[d->name_count++].name, name, sizeof name);
  }
  return st ? st : expect(r, "$EndPhysicalNames");
}

/* 4.1 $Entities: the first physical tag of each volume entity (0: none) */
typedef struct volume_map {
  long long *pairs; /* (count x 2): entity tag, physical tag */
  long long count;
} volume_map;

static tf_status gmsh_entities(tf_mem *m, reader *r, volume_map *vm, size_t *cap) {
  long long n[4], tag, nphys, phys, nb, skip;
  double box;
  tf_status st = TF_OK;
  for (int k = 0; k < 4 && !st; ++k) st = read_long(r, "an entity count", &n[k]);
  if (st) return st;
  for (int k = 0; k < 4; ++k)
    if (n[k] < 0) return fail(r, "%lld entities of dimension %d", n[k], k);
  for (int dim = 0; dim < 4; ++dim)
    for (long long i = 0; i < n[dim]; ++i) {
      if ((st = read_long(r, "an entity tag", &tag))) return st;
      for (int k = 0; k < (dim == 0 ? 3 : 6); ++k)
        if ((st = read_double(r, "an entity bounding box", &box))) return st;
      if ((st = read_long(r, "the number of physical tags", &nphys))) return st;
      if (nphys < 0) return fail(r, "negative physical tag count");
      long long first = 0;
      for (long long k = 0; k < nphys; ++k) {
        if ((st = read_long(r, "a physical tag", &phys))) return st;
        if (k == 0) first = phys;
      }
      if (dim > 0) {
        if ((st = read_long(r, "the number of bounding entities", &nb))) return st;
        if (nb < 0) return fail(r, "negative bounding entity count");
        for (long long k = 0; k < nb; ++k)
          if ((st = read_long(r, "a bounding entity tag", &skip))) return st;
      }
      if (dim == 3) {
        if (!reserve(m, (void **)&vm->pairs, cap, (size_t)vm->count, 0, 2 * sizeof(long long)))
          return fail_nomem(r, "the volume entities");
        vm->pairs[2 * vm->count] = tag;
        vm->pairs[2 * vm->count + 1] = first;
        ++vm->count;
      }
    }
  return expect(r, "$EndEntities");
}

static int32_t volume_region(const volume_map *vm, long long entity) {
  for (long long i = 0; i < vm->count; ++i)
    if (vm->pairs[2 * i] == entity && vm->pairs[2 * i + 1] != 0)
      return (int32_t)vm->pairs[2 * i + 1];
  return (int32_t)entity;
}

/* $Nodes: positions and tags grow as nodes arrive; the tag map is built from the tags read */
static tf_status gmsh_nodes_read(tf_mem *m, reader *r, tagmap *map, int v4, double **pos,
                                 long long **tags, size_t *pcap, size_t *tcap, uint32_t *n) {
  tf_status st;
  *n = 0;
  if (!v4) {
    uint32_t count = 0;
    if ((st = read_count(r, "the number of nodes", 0x3fffffff, &count))) return st;
    for (uint32_t i = 0; i < count; ++i) {
      if (!reserve(m, (void **)pos, pcap, i, count, 3 * sizeof(double)) ||
          !reserve(m, (void **)tags, tcap, i, count, sizeof(long long)))
        return fail_nomem(r, "the nodes");
      if ((st = read_long(r, "a node tag", *tags + i))) return st;
      for (int k = 0; k < 3; ++k)
        if ((st = read_double(r, "a coordinate", *pos + 3 * (size_t)i + k))) return st;
      *n = i + 1;
    }
  } else {
    long long blocks, total, min_tag, max_tag;
    if ((st = read_long(r, "the number of entity blocks", &blocks)) ||
        (st = read_long(r, "the number of nodes", &total)) ||
        (st = read_long(r, "the minimum node tag", &min_tag)) ||
        (st = read_long(r, "the maximum node tag", &max_tag)))
      return st;
    if (total < 0 || total > 0x3fffffff || blocks < 0)
      return fail(r, "bad node counts (%lld blocks, %lld nodes)", blocks, total);
    uint32_t next = 0;
    for (long long b = 0; b < blocks; ++b) {
      long long dim, ent, param, count;
      if ((st = read_long(r, "the entity dimension", &dim)) ||
          (st = read_long(r, "the entity tag", &ent)) ||
          (st = read_long(r, "the parametric flag", &param)) ||
          (st = read_long(r, "the block's node count", &count)))
        return st;
      if (param)
        return fail(r, "parametric nodes are not supported (save without parametric coordinates)");
      if (count < 0 || count > total - next)
        return fail(r, "node block of %lld nodes overflows the %lld declared", count, total);
      for (long long i = 0; i < count; ++i) {
        size_t at = next + (size_t)i;
        if (!reserve(m, (void **)tags, tcap, at, (size_t)total, sizeof(long long)))
          return fail_nomem(r, "the node tags");
        if ((st = read_long(r, "a node tag", *tags + at))) return st;
      }
      for (long long i = 0; i < count; ++i) {
        size_t at = next + (size_t)i;
        if (!reserve(m, (void **)pos, pcap, at, (size_t)total, 3 * sizeof(double)))
          return fail_nomem(r, "the nodes");
        for (int k = 0; k < 3; ++k)
          if ((st = read_double(r, "a coordinate", *pos + 3 * at + k))) return st;
      }
      next += (uint32_t)count;
      *n = next;
    }
    if (next != total) return fail(r, "%u nodes in the blocks, %lld declared", next, total);
  }
  if ((st = tagmap_build(m, r, map, *tags, *n))) return st;
  for (uint32_t i = 0; i < *n; ++i)
    if ((st = gmsh_node(r, map, (*tags)[i], i))) return st;
  return expect(r, "$EndNodes");
}

static tf_status gmsh_nodes(tf_mem *m, reader *r, tetmesh_data *d, tagmap *map, int v4) {
  double *pos = NULL;
  long long *tags = NULL;
  size_t pcap = 0, tcap = 0;
  uint32_t n = 0;
  tf_status st = gmsh_nodes_read(m, r, map, v4, &pos, &tags, &pcap, &tcap, &n);
  if (tags) mem_free(m, tags, tcap * sizeof(long long));
  /* exact size: tetmesh_data_free releases vert_count entries */
  double *exact = st ? NULL : regrow(m, pos, pcap, n, n, 3 * sizeof(double));
  if (!st && !exact) st = fail_nomem(r, "the nodes");
  if (st) {
    if (pos) mem_free(m, pos, (pcap ? pcap : 1) * 3 * sizeof(double));
    return st;
  }
  d->pos = exact;
  d->vert_count = n;
  return TF_OK;
}

static tf_status gmsh_elements_read(tf_mem *m, reader *r, tetmesh_data *d, const tagmap *map,
                                    const volume_map *vm, int v4, uint32_t *capp) {
  tf_status st;
  if (!v4) {
    long long count;
    if ((st = read_long(r, "the number of elements", &count))) return st;
    for (long long e = 0; e < count; ++e) {
      long long id, type, ntags, phys = 0, tag;
      if ((st = read_long(r, "an element tag", &id)) ||
          (st = read_long(r, "an element type", &type)) ||
          (st = read_long(r, "the number of tags", &ntags)))
        return st;
      int nn = gmsh_type_nodes(type);
      if (nn < 0) return fail(r, "element %lld has unknown type %lld", id, type);
      if (ntags < 0 || ntags > 100) return fail(r, "element %lld: %lld tags", id, ntags);
      for (long long k = 0; k < ntags; ++k) {
        if ((st = read_long(r, "an element tag value", &tag))) return st;
        if (k == 0) phys = tag;
      }
      if ((st = gmsh_element(m, r, d, map, capp, id, type, (int32_t)phys))) return st;
    }
  } else {
    long long blocks, total, lo, hi;
    if ((st = read_long(r, "the number of entity blocks", &blocks)) ||
        (st = read_long(r, "the number of elements", &total)) ||
        (st = read_long(r, "the minimum element tag", &lo)) ||
        (st = read_long(r, "the maximum element tag", &hi)))
      return st;
    for (long long b = 0; b < blocks; ++b) {
      long long dim, ent, type, count, id;
      if ((st = read_long(r, "the entity dimension", &dim)) ||
          (st = read_long(r, "the entity tag", &ent)) ||
          (st = read_long(r, "the element type", &type)) ||
          (st = read_long(r, "the block's element count", &count)))
        return st;
      int nn = gmsh_type_nodes(type);
      if (nn < 0) return fail(r, "element block of unknown type %lld", type);
      for (long long e = 0; e < count; ++e) {
        if ((st = read_long(r, "an element tag", &id)) ||
            (st = gmsh_element(m, r, d, map, capp, id, type, volume_region(vm, ent))))
          return st;
      }
    }
  }
  if ((st = expect(r, "$EndElements"))) return st;
  if (d->tet_count == 0) return fail(r, "no linear tetrahedra (element type 4) in $Elements");
  return TF_OK;
}

static tf_status gmsh_elements(tf_mem *m, reader *r, tetmesh_data *d, const tagmap *map,
                               const volume_map *vm, int v4) {
  uint32_t cap = 0;
  tf_status st = gmsh_elements_read(m, r, d, map, vm, v4, &cap);
  /* shrink the growth buffers to the exact size, so tetmesh_data_free knows the block sizes */
  if (!st && !resize_tets(m, d, cap, d->tet_count)) st = fail_nomem(r, "the tetrahedra");
  if (st) resize_tets(m, d, cap, 0);
  return st;
}

static tf_status gmsh_parse(tf_mem *m, reader *r, tetmesh_data *out) {
  tf_status st = TF_OK;
  tetmesh_data d = {0};
  tagmap map = {0};
  volume_map vm = {0};
  size_t vm_cap = 0;
  int v4 = -1, have_nodes = 0, have_elems = 0;
  for (const char *t; !st && (t = token(r));) {
    if (!strcmp(t, "$MeshFormat")) {
      const char *ver = token(r);
      long long file_type, dsize;
      if (!ver)
        st = fail(r, "unexpected end of file in $MeshFormat");
      else if (!strcmp(ver, "2.2"))
        v4 = 0;
      else if (!strcmp(ver, "4.1"))
        v4 = 1;
      else
        st = fail(r, "Gmsh format version %s is not supported (2.2 and 4.1 are)", ver);
      if (!st && !(st = read_long(r, "the file type", &file_type)) &&
          !(st = read_long(r, "the data size", &dsize))) {
        if (file_type != 0)
          st = fail(r, "binary .msh files are not supported; save as ASCII");
        else
          st = expect(r, "$EndMeshFormat");
      }
    } else if (!strcmp(t, "$Nodes")) {
      if (v4 < 0)
        st = fail(r, "$Nodes before $MeshFormat");
      else if (have_nodes)
        st = fail(r, "a second $Nodes section");
      else
        st = gmsh_nodes(m, r, &d, &map, v4), have_nodes = 1;
    } else if (!strcmp(t, "$Elements")) {
      if (!have_nodes)
        st = fail(r, "$Elements before $Nodes");
      else if (have_elems)
        st = fail(r, "a second $Elements section");
      else
        st = gmsh_elements(m, r, &d, &map, &vm, v4), have_elems = 1;
    } else if (!strcmp(t, "$PhysicalNames")) {
      st = gmsh_physical_names(r, &d);
    } else if (!strcmp(t, "$Entities") && v4 == 1 && !vm.pairs) {
      st = gmsh_entities(m, r, &vm, &vm_cap);
    } else if (t[0] == '$' && strncmp(t, "$End", 4)) {
      char end[64];
      snprintf(end, sizeof end, "$End%s", t + 1);
      st = skip_section(r, end);
    } else {
      st = fail(r, "unexpected '%s' outside a section", t);
    }
  }
  if (!st && !have_elems) {
    r->line = r->next_line;
    st = fail(r, v4 < 0 ? "not a Gmsh file (no $MeshFormat)" : "no $Elements section");
  }
  if (map.idx) mem_free(m, map.idx, map.size * sizeof(uint32_t));
  if (vm.pairs) mem_free(m, vm.pairs, vm_cap * 2 * sizeof(long long));
  if (st) {
    tetmesh_data_free(m, &d);
    return st;
  }
  *out = d;
  return TF_OK;
}

tf_status tetmesh_load_gmsh(tf_mem *m, const char *path, tetmesh_data *out, char *err,
                            size_t err_size) {
  reader r;
  tf_status st = open_reader(&r, path, 0, err, err_size);
  if (st) return st;
  st = gmsh_parse(m, &r, out);
  close_reader(&r);
  return st;
}

tf_status tetmesh_load_gmsh_mem(tf_mem *m, const char *name, const void *data, size_t size,
                                tetmesh_data *out, char *err, size_t err_size) {
  reader r;
  tf_status st = open_reader_mem(&r, name, data, size, 0, err, err_size);
  if (st) return st;
  st = gmsh_parse(m, &r, out);
  close_reader(&r);
  return st;
}
