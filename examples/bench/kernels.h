/* SPDX-License-Identifier: MIT
 * The per-iteration roofline of a running simulation (issue 22, target 5): each phase of a Newton
 * iteration timed on its own, beside the memory traffic it cannot avoid, as a fraction of this
 * machine's bandwidth measured by a streaming loop. Reads the library's internals, so the benches
 * link its objects (as the white-box tests do), not the shared library. */
#ifndef TF_BENCH_KERNELS_H
#define TF_BENCH_KERNELS_H

#include "tauform.h"

/* Time every phase on sim (advanced at least one step, so its step data and Hessian are live) and
 * print one markdown table under the title `scene`. The simulation's state is left unchanged. */
void kernels_report(tf_sim *sim, const char *scene);

#endif
