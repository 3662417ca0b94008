/* SPDX-License-Identifier: MIT
 * Runs every registered test whose name contains argv[1] (all when absent); prints
 * "N passed, M failed" and exits non-zero on any failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tf_test.h"

#define MAX_TESTS 512
static struct {
  const char *name;
  tf_test_fn fn;
} g_tests[MAX_TESTS];
static int g_count;

void tf_test_register(const char *name, tf_test_fn fn) {
  if (g_count < MAX_TESTS) {
    g_tests[g_count].name = name;
    g_tests[g_count].fn = fn;
    g_count++;
  }
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int main(int argc, char **argv) {
  const char *filter = argc > 1 ? argv[1] : "";
  int passed = 0, failed = 0;
  qsort(g_tests, (size_t)g_count, sizeof g_tests[0], by_name);
  for (int i = 0; i < g_count; ++i) {
    if (!strstr(g_tests[i].name, filter)) continue;
    int bad = 0;
    clock_t t0 = clock();
    fprintf(stdout, "[ RUN  ] %s\n", g_tests[i].name);
    fflush(stdout);
    g_tests[i].fn(&bad);
    double ms = 1000.0 * (double)(clock() - t0) / CLOCKS_PER_SEC;
    fprintf(stdout, "[ %s ] %s (%.0f ms)\n", bad ? "FAIL" : " OK ", g_tests[i].name, ms);
    fflush(stdout);
    if (bad)
      failed++;
    else
      passed++;
  }
  fprintf(stdout, "%d passed, %d failed\n", passed, failed);
  if (passed + failed == 0) {
    fprintf(stderr, "no test matches '%s'\n", filter);
    return 2;
  }
  return failed ? 1 : 0;
}
