/* mc_size: checked arithmetic for every count that sizes memory (sites, state points, chains,
 * samples, histogram bins), and what the machine can hold. A product that wraps around allocates
 * a small buffer that is then written past; these return "overflows" instead, so the caller can
 * refuse the config key at fault by file:line. Host C only (the kernels never size memory). */
#ifndef MC_SIZE_H
#define MC_SIZE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "mc_test_hooks.h"

/* The largest particle (site) total of a chain, the schema's bound on [system] n; mixtures and
 * molecules are held to it too, so 3 n and 4 nmol index an int everywhere. */
#define MC_MAX_PARTICLES 100000000
/* The most chains (state points x replicas) a run may have: keeps every per-chain MPI count,
 * chains x the largest per-chain record, within an int. */
#define MC_MAX_CHAINS 1000000

/* 1 when a * b does not fit a size_t (then *out is unspecified), else 0 with *out = a * b. */
static inline int mc_mul_overflows(size_t a, size_t b, size_t *out)
{
    return __builtin_mul_overflow(a, b, out);
}

/* 1 when a + b does not fit a size_t, else 0 with *out = a + b. */
static inline int mc_add_overflows(size_t a, size_t b, size_t *out)
{
    return __builtin_add_overflow(a, b, out);
}

/* a * b, or SIZE_MAX where it overflows: estimates then stay "too large" however they combine. */
static inline size_t mc_mul_sat(size_t a, size_t b)
{
    size_t r;
    return mc_mul_overflows(a, b, &r) ? SIZE_MAX : r;
}

static inline size_t mc_add_sat(size_t a, size_t b)
{
    size_t r;
    return mc_add_overflows(a, b, &r) ? SIZE_MAX : r;
}

/* Whether a * b fits an int: the counts MPI calls take (MPI_Allreduce's count is an int). */
static inline int mc_mul_fits_int(size_t a, size_t b)
{
    size_t r;
    return !mc_mul_overflows(a, b, &r) && r <= (size_t)INT_MAX;
}

/* Physical memory of this machine in bytes (SIZE_MAX where the system does not say): no rank can
 * hold more than this, so a plan that needs more is refused before it allocates. The test hook
 * MC_TEST_HOST_MEMORY stands in a smaller machine, so the refusals are testable anywhere. */
static inline size_t mc_host_memory_bytes(void)
{
    const char *test = mc_test_hook(MC_TEST_HOST_MEMORY);
    if (test) return (size_t)strtoull(test, NULL, 10);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return SIZE_MAX;
    return mc_mul_sat((size_t)pages, (size_t)page);
}

#endif
