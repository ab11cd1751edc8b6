/* mc_rng: counter-based random numbers. Every number a chain uses is Philox4x32-10 of the counter
 * {step_lo, step_hi, chain, stream} under the key {seed_lo, seed_hi}, so a trajectory depends only on
 * (seed, chain) and resumes exactly from its step count. On the GPU the same block comes from cuRAND's
 * curand_Philox4x32_10 (equal to curand_init(seed, chain | stream << 32, 4 * step) then curand4);
 * on the host from Random123's philox4x32; t/rng.c pins the host values. */
#ifndef MC_RNG_H
#define MC_RNG_H

#include <stdint.h>

#include "mc_hd.h"

#ifdef __CUDA_ARCH__
#include <curand_philox4x32_x.h>
#else
#include <Random123/philox.h>
#endif

/* Which use a block serves; one block per (step, stream), so uses never share numbers. */
enum mc_rng_stream {
    MC_RNG_TRIAL = 0,  /* trial move: particle index and displacement */
    MC_RNG_ACCEPT = 1, /* Metropolis acceptance uniform */
    MC_RNG_SETUP = 2,  /* initial configuration (step = particle index) */
    MC_RNG_WIDOM = 3,  /* test-particle positions (step = sample * insertions + insertion) */
    MC_RNG_VOLUME = 4, /* npt volume move: ln V step and its acceptance (step = volume move) */
    MC_RNG_RIGID = 5,  /* rigid-body move: its displacement or rotation (the trial stream picks the
                          molecule and the kind) */
    MC_RNG_WIDOM_ORIENTATION = 6, /* a Widom test molecule's orientation (the step of its position) */
    MC_RNG_EXCHANGE = 7, /* replica exchange: the chain word is the ladder, the step exchange step x rungs
                            + the pair's lower rung (mc_exchange.c) */
    MC_RNG_GIBBS = 8 /* Gibbs ensemble: a step's kind of move, source box, particle, species or volume
                        step (mc_gibbs.h) */
};

typedef struct mc_rng4 {
    uint32_t v[4];
} mc_rng4;

MC_HD mc_rng4 mc_rng_block(uint64_t seed, uint32_t chain, uint32_t stream, uint64_t step)
{
    mc_rng4 out;
#ifdef __CUDA_ARCH__
    uint4 c = make_uint4((uint32_t)step, (uint32_t)(step >> 32), chain, stream);
    uint2 k = make_uint2((uint32_t)seed, (uint32_t)(seed >> 32));
    uint4 r = curand_Philox4x32_10(c, k);
    out.v[0] = r.x; out.v[1] = r.y; out.v[2] = r.z; out.v[3] = r.w;
#else
    philox4x32_ctr_t c = {{(uint32_t)step, (uint32_t)(step >> 32), chain, stream}};
    philox4x32_key_t k = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
    philox4x32_ctr_t r = philox4x32(c, k);
    for (int i = 0; i < 4; i++) out.v[i] = r.v[i];
#endif
    return out;
}

/* Uniform on the open interval (0, 1): never 0, so log(u) is finite. */
MC_HD double mc_rng_uniform(uint32_t x)
{
    return ((double)x + 0.5) * (1.0 / 4294967296.0);
}

/* Index in [0, n) by multiply-shift (bias below n / 2^32). */
MC_HD uint32_t mc_rng_index(uint32_t x, uint32_t n)
{
    return (uint32_t)(((uint64_t)x * n) >> 32);
}

#endif
