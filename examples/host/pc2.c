/* SPDX-License-Identifier: MIT
 * PC2 point cache writer and reader (format in pc2.h). Values are encoded byte by byte as
 * little-endian, so the files are the same on any host; floats are assumed IEEE-754 binary32.
 */
#include "pc2.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char PC2_SIGNATURE[12] = "POINTCACHE2"; /* 11 chars + the terminating NUL */
/* byte offset of the int32 sample count: signature, version, points, start, rate */
static const long PC2_SAMPLE_COUNT_OFFSET = 28;

_Static_assert(sizeof(float) == 4, "PC2 stores IEEE-754 binary32 floats");

static void set_err(char *err, size_t err_size, const char *fmt, ...) {
  if (err == NULL || err_size == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, err_size, fmt, ap);
  va_end(ap);
}

static void put_u32(unsigned char *p, uint32_t v) {
  p[0] = (unsigned char)(v & 0xffu);
  p[1] = (unsigned char)((v >> 8) & 0xffu);
  p[2] = (unsigned char)((v >> 16) & 0xffu);
  p[3] = (unsigned char)((v >> 24) & 0xffu);
}

static uint32_t get_u32(const unsigned char *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void put_f32(unsigned char *p, float f) {
  uint32_t v;
  memcpy(&v, &f, sizeof v);
  put_u32(p, v);
}

static float get_f32(const unsigned char *p) {
  uint32_t v = get_u32(p);
  float f;
  memcpy(&f, &v, sizeof f);
  return f;
}

int pc2_writer_open(pc2_writer *w, const char *path, uint32_t point_count, float start_frame,
                    float sample_rate, char *err, size_t err_size) {
  memset(w, 0, sizeof *w);
  if (point_count == 0 || point_count > UINT32_MAX / PC2_BYTES_PER_POINT) {
    set_err(err, err_size, "pc2: bad point count %u", (unsigned)point_count);
    return -1;
  }
  w->scratch = malloc((size_t)point_count * PC2_BYTES_PER_POINT);
  if (w->scratch == NULL) {
    set_err(err, err_size, "pc2: out of memory");
    return -1;
  }
  w->file = fopen(path, "wb");
  if (w->file == NULL) {
    set_err(err, err_size, "pc2: cannot create %s: %s", path, strerror(errno));
    free(w->scratch);
    w->scratch = NULL;
    return -1;
  }
  w->point_count = point_count;

  unsigned char header[PC2_HEADER_BYTES];
  memcpy(header, PC2_SIGNATURE, sizeof PC2_SIGNATURE);
  put_u32(header + 12, PC2_FILE_VERSION);
  put_u32(header + 16, point_count);
  put_f32(header + 20, start_frame);
  put_f32(header + 24, sample_rate);
  put_u32(header + 28, 0);
  if (fwrite(header, 1, sizeof header, w->file) != sizeof header) {
    set_err(err, err_size, "pc2: cannot write %s: %s", path, strerror(errno));
    fclose(w->file);
    free(w->scratch);
    memset(w, 0, sizeof *w);
    return -1;
  }
  return 0;
}

int pc2_writer_append(pc2_writer *w, const float *xyz, char *err, size_t err_size) {
  if (w->file == NULL) {
    set_err(err, err_size, "pc2: writer is not open");
    return -1;
  }
  const size_t n = (size_t)w->point_count * 3;
  for (size_t k = 0; k < n; ++k) put_f32(w->scratch + 4 * k, xyz[k]);
  if (fwrite(w->scratch, 4, n, w->file) != n) {
    set_err(err, err_size, "pc2: write failed: %s", strerror(errno));
    return -1;
  }
  w->sample_count++;

  /* keep the header's count current so the file is valid after every sample */
  unsigned char count[4];
  put_u32(count, w->sample_count);
  if (fseek(w->file, PC2_SAMPLE_COUNT_OFFSET, SEEK_SET) != 0 ||
      fwrite(count, 1, sizeof count, w->file) != sizeof count || fseek(w->file, 0, SEEK_END) != 0) {
    set_err(err, err_size, "pc2: cannot update the sample count: %s", strerror(errno));
    return -1;
  }
  return 0;
}

int pc2_writer_close(pc2_writer *w, char *err, size_t err_size) {
  int rc = 0;
  if (w->file != NULL && fclose(w->file) != 0) {
    set_err(err, err_size, "pc2: close failed: %s", strerror(errno));
    rc = -1;
  }
  free(w->scratch);
  memset(w, 0, sizeof *w);
  return rc;
}

int pc2_read(const char *path, pc2_cache *out, char *err, size_t err_size) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    set_err(err, err_size, "pc2: cannot open %s: %s", path, strerror(errno));
    return -1;
  }

  /* file size first, so the header can be checked against it before allocating */
  long size = -1;
  if (fseek(f, 0, SEEK_END) == 0) size = ftell(f);
  if (size < 0 || fseek(f, 0, SEEK_SET) != 0) {
    set_err(err, err_size, "pc2: cannot seek in %s", path);
    fclose(f);
    return -1;
  }

  unsigned char header[PC2_HEADER_BYTES];
  if (fread(header, 1, sizeof header, f) != sizeof header) {
    set_err(err, err_size, "pc2: %s is %ld bytes, shorter than the %u-byte header", path, size,
            PC2_HEADER_BYTES);
    fclose(f);
    return -1;
  }
  if (memcmp(header, PC2_SIGNATURE, sizeof PC2_SIGNATURE) != 0) {
    set_err(err, err_size, "pc2: %s does not start with the signature \"POINTCACHE2\\0\"", path);
    fclose(f);
    return -1;
  }
  pc2_cache c;
  memset(&c, 0, sizeof c);
  c.version = get_u32(header + 12);
  c.point_count = get_u32(header + 16);
  c.start_frame = get_f32(header + 20);
  c.sample_rate = get_f32(header + 24);
  c.sample_count = get_u32(header + 28);
  c.file_bytes = (uint64_t)size;
  if (c.version != PC2_FILE_VERSION) {
    set_err(err, err_size, "pc2: %s has file version %u, expected %d", path, (unsigned)c.version,
            PC2_FILE_VERSION);
    fclose(f);
    return -1;
  }
  /* int32 fields: a count >= 2^31 is a negative number in the file */
  if (c.point_count > INT32_MAX || c.sample_count > INT32_MAX) {
    set_err(err, err_size, "pc2: %s has a negative point or sample count", path);
    fclose(f);
    return -1;
  }
  const uint64_t data_bytes = (uint64_t)c.sample_count * c.point_count * PC2_BYTES_PER_POINT;
  if ((uint64_t)size != PC2_HEADER_BYTES + data_bytes) {
    set_err(err, err_size,
            "pc2: %s is %ld bytes but its header (%u points x %u samples) implies %llu", path, size,
            (unsigned)c.point_count, (unsigned)c.sample_count,
            (unsigned long long)(PC2_HEADER_BYTES + data_bytes));
    fclose(f);
    return -1;
  }
  if (data_bytes > SIZE_MAX / 2) {
    set_err(err, err_size, "pc2: %s is too large for this host", path);
    fclose(f);
    return -1;
  }

  const size_t value_count = (size_t)data_bytes / 4;
  unsigned char *raw = malloc(data_bytes > 0 ? (size_t)data_bytes : 1);
  c.samples = malloc(value_count > 0 ? value_count * sizeof(float) : 1);
  if (raw == NULL || c.samples == NULL) {
    set_err(err, err_size, "pc2: out of memory reading %s", path);
    free(raw);
    free(c.samples);
    fclose(f);
    return -1;
  }
  if (fread(raw, 1, (size_t)data_bytes, f) != (size_t)data_bytes) {
    set_err(err, err_size, "pc2: short read in %s", path);
    free(raw);
    free(c.samples);
    fclose(f);
    return -1;
  }
  fclose(f);
  for (size_t k = 0; k < value_count; ++k) c.samples[k] = get_f32(raw + 4 * k);
  free(raw);
  *out = c;
  return 0;
}

void pc2_cache_free(pc2_cache *c) {
  if (c == NULL) return;
  free(c->samples);
  memset(c, 0, sizeof *c);
}
