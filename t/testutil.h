/* testutil: helpers shared by the C unit tests: plans from INI text, the NIST reference
 * configuration, and paths to t/refdata. */
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

#endif
