/* cpu_isa: run-time dispatch of the CPU backend's inner loops to the widest vector unit the
 * machine has. A function marked MC_CPU_CLONES is compiled for x86-64-v4 (AVX-512), x86-64-v3
 * (AVX2, FMA) and the baseline, and the loader picks one by the CPU's features (GCC's
 * target_clones, an ifunc); elsewhere it is compiled once. mc_cpu_isa() names the level taken.
 *
 * What it changes: speed (doc/performance.md, CPU backend). What it may change: the last bits of a
 * sum, where vectors of another width add in another order or contract a multiply-add, and so,
 * rarely, a decision; runs and restarts on machines of one level are bit-identical, and
 * /parameters@cpu_isa records the level of every rank. MCENS_CPU_ISA is not read: the choice is
 * the hardware's. */
#ifndef CPU_ISA_H
#define CPU_ISA_H

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define MC_CPU_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define MC_CPU_CLONES
#endif

/* "x86-64-v4", "x86-64-v3" or "baseline": the level MC_CPU_CLONES functions run at. */
const char *mc_cpu_isa(void);

#endif
