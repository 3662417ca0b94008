/* SPDX-License-Identifier: MIT
 * Minimal test harness: tests register with TF_TEST(name), fail with ENSURE / ENSURE_NEAR (which
 * print file:line and the values, then return from the test). tests/c/main.c runs them, optionally
 * filtered by a substring of the name: ./tf_tests energy */
#ifndef TF_TEST_H
#define TF_TEST_H

#include <math.h>
#include <stdio.h>

typedef void (*tf_test_fn)(int *failed);
void tf_test_register(const char *name, tf_test_fn fn);

#define TF_TEST(name)                                              \
  static void name(int *tf_failed_);                               \
  __attribute__((constructor)) static void name##_register(void) { \
    tf_test_register(#name, name);                                 \
  }                                                                \
  static void name(int *tf_failed_)

#define ENSURE(cond)                                                              \
  do {                                                                            \
    if (!(cond)) {                                                                \
      fprintf(stderr, "  %s:%d: ENSURE(%s) failed\n", __FILE__, __LINE__, #cond); \
      *tf_failed_ = 1;                                                            \
      return;                                                                     \
    }                                                                             \
  } while (0)

#define ENSURE_MSG(cond, ...)                                                     \
  do {                                                                            \
    if (!(cond)) {                                                                \
      fprintf(stderr, "  %s:%d: ENSURE(%s) failed: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                               \
      fprintf(stderr, "\n");                                                      \
      *tf_failed_ = 1;                                                            \
      return;                                                                     \
    }                                                                             \
  } while (0)

/* |a - b| <= tol, NaN fails */
#define ENSURE_NEAR(a, b, tol)                                                                    \
  do {                                                                                            \
    double tf_a_ = (double)(a), tf_b_ = (double)(b), tf_t_ = (double)(tol);                       \
    if (!(fabs(tf_a_ - tf_b_) <= tf_t_)) {                                                        \
      fprintf(stderr, "  %s:%d: ENSURE_NEAR(%s, %s, %s): %.17g vs %.17g (diff %.3g)\n", __FILE__, \
              __LINE__, #a, #b, #tol, tf_a_, tf_b_, fabs(tf_a_ - tf_b_));                         \
      *tf_failed_ = 1;                                                                            \
      return;                                                                                     \
    }                                                                                             \
  } while (0)

/* printed with the test's output, for the numbers a closing note quotes */
#define TF_NOTE(...)               \
  do {                             \
    fprintf(stdout, "    note: "); \
    fprintf(stdout, __VA_ARGS__);  \
    fprintf(stdout, "\n");         \
  } while (0)

#endif
