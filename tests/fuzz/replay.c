/* SPDX-License-Identifier: MIT
 * Replays inputs through a fuzz target without libFuzzer (any compiler): each argument is a file,
 * or a directory whose files are all fed to LLVMFuzzerTestOneInput. A crash is the test failing. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "%s: cannot open\n", path);
    return 1;
  }
  size_t cap = 1 << 16, n = 0;
  uint8_t *buf = malloc(cap);
  for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
    n += got;
    if (n == cap) buf = realloc(buf, cap *= 2);
  }
  fclose(f);
  if (!buf) return 1;
  /* a copy of exactly n bytes, so a read past the end is caught as under libFuzzer */
  uint8_t *exact = malloc(n ? n : 1);
  memcpy(exact, buf, n);
  free(buf);
  LLVMFuzzerTestOneInput(exact, n);
  free(exact);
  return 0;
}

int main(int argc, char **argv) {
  int runs = 0, bad = 0;
  for (int a = 1; a < argc; ++a) {
    struct stat s;
    if (stat(argv[a], &s) != 0) continue; /* a target may have no regressions yet */
    if (!S_ISDIR(s.st_mode)) {
      bad |= run_file(argv[a]), ++runs;
      continue;
    }
    DIR *d = opendir(argv[a]);
    for (struct dirent *e; d && (e = readdir(d));) {
      if (e->d_name[0] == '.') continue;
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", argv[a], e->d_name);
      bad |= run_file(path), ++runs;
    }
    if (d) closedir(d);
  }
  printf("%d inputs replayed\n", runs);
  return bad;
}
