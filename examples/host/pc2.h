/* SPDX-License-Identifier: MIT
 * PC2 point cache, the vertex-animation format Blender's Mesh Cache modifier reads: a 32-byte
 * header (12-byte signature "POINTCACHE2\0", int32 version 1, int32 point count, float32 start
 * frame, float32 sample rate, int32 sample count) followed by sample_count samples of
 * point_count little-endian float32 xyz. The writer rewrites the sample count after every sample,
 * so a cache cut short (crash, Ctrl-C) is still a valid file with the samples written so far. The
 * reader accepts only a file whose size matches its header exactly.
 */
#ifndef TAUFORM_EXAMPLE_PC2_H
#define TAUFORM_EXAMPLE_PC2_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PC2_HEADER_BYTES 32u
#define PC2_BYTES_PER_POINT 12u /* 3 x float32 */
#define PC2_FILE_VERSION 1

typedef struct pc2_writer {
  FILE *file;
  uint32_t point_count;
  uint32_t sample_count;   /* samples written so far */
  unsigned char *scratch;  /* (point_count x 12) bytes: one sample, encoded */
} pc2_writer;

/* Create (truncate) `path` and write a header with zero samples. Returns 0, or -1 with a message
 * in err (Nullable). On failure *w is left closed. */
int pc2_writer_open(pc2_writer *w, const char *path, uint32_t point_count, float start_frame,
                    float sample_rate, char *err, size_t err_size);
/* Append one sample. xyz: (point_count x 3). Returns 0 or -1 with a message. */
int pc2_writer_append(pc2_writer *w, const float *xyz, char *err, size_t err_size);
/* Flush and close; always releases the writer. Returns 0 or -1 with a message. */
int pc2_writer_close(pc2_writer *w, char *err, size_t err_size);

typedef struct pc2_cache {
  uint32_t version;
  uint32_t point_count;
  uint32_t sample_count;
  float start_frame;
  float sample_rate;
  uint64_t file_bytes; /* size of the file on disk */
  float *samples;      /* (sample_count x point_count x 3), host byte order */
} pc2_cache;

/* Read a whole cache. Checks the signature, the version and that the file size is exactly
 * header + sample_count * point_count * 12 bytes. Returns 0, or -1 with a message in err
 * (Nullable) and *out zeroed. */
int pc2_read(const char *path, pc2_cache *out, char *err, size_t err_size);
/* NULL-safe; leaves *c zeroed. */
void pc2_cache_free(pc2_cache *c);

#endif /* TAUFORM_EXAMPLE_PC2_H */
