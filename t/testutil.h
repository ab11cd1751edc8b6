/* testutil: helpers shared by the C unit tests: plans from INI text, the NIST reference
 * configuration, paths to t/refdata, and the separations the minimum-image tests fold. */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cfg.h"
#include "mc_plan.h"

/* A plan from INI text; fails the test on error. The cfg is freed before return. */
mc_plan *tu_plan(const char *ini);

/* NIST SRSW LJ configuration 4 (N = 30, L = 8), shifted into [0, 8). Returns N. */
int tu_load_nist4(double x[30], double y[30], double z[30]);

/* Path of a file in t/refdata (T_SRCDIR from the test environment, else ./t). */
const char *tu_refdata(const char *name);

/* The separations that t/lj.c (the host's fold) and t/gpu_parity (the kernels') fold: for each of
 * TU_FOLD_BOXES boxes (binary fractions and not, tiny, large, and 0: no periodic boundary),
 * per_box values, first the fold's switch points in double and in float (0, +-box/2, +-box and
 * their neighbours; float's as doubles, so (float)d gives them exactly; and -0), then separations
 * uniform in +-1.6 box (xorshift64 from a fixed seed). d and box receive TU_FOLD_BOXES * per_box
 * values, per_box >= TU_FOLD_EDGES. */
enum { TU_FOLD_BOXES = 6, TU_FOLD_EDGES = 22 };
void tu_fold_separations(double *d, double *box, int per_box);

#endif
