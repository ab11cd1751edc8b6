/* cpu_isa: the x86-64 level the MC_CPU_CLONES functions run at, by the test GCC's resolver makes. */
#include "cpu_isa.h"

const char *mc_cpu_isa(void)
{
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("x86-64-v4")) return "x86-64-v4";
    if (__builtin_cpu_supports("x86-64-v3")) return "x86-64-v3";
#endif
    return "baseline";
}
