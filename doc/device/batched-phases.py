# batched-phases.py: writes .base/cu_batched_prof.cu, a copy of cuda/cu_batched.cu with clock64() phase
# counters in the decide kernel (thread 0 prints them every 40th batch), for doc/device/batched-scan.sh.
s=open('cuda/cu_batched.cu').read()
def after(anchor, text, count=1):
    global s
    assert anchor in s, anchor
    s=s.replace(anchor, anchor+text, count)
def before(anchor, text):
    global s
    assert anchor in s, anchor
    s=s.replace(anchor, text+anchor, 1)
before("    double *sdE = (double *)smem","    long long ph[7] = {0, 0, 0, 0, 0, 0, 0}, last = clock64(); int nfull = 0, nwins = 0;\n#define PH(i) do { if (k == 0) { long long now_ = clock64(); ph[i] += now_ - last; last = now_; } } while (0)\n")
after("    stage(scorner, 0, 0, k, K);\n    __syncthreads();\n","    PH(0);\n")
before("        if (k < WINDOW) {\n            const int trial = base + lane;","        PH(1);\n")
before("        __syncthreads();\n        const int end = s_end[parity];","        PH(2);\n")
after("        __syncthreads();\n        const int end = s_end[parity];\n","        PH(3);\n")
after("        if (end < base + w) { /* uniform: trial `end`'s particle moved earlier in the batch, or its sum is NaN */\n","            PH(4);\n")
before("            if (sacc[end] && k > end && k < trials && sp[k] != i)","            PH(5); nfull++;\n")
after("            s = base + w;\n        }\n","        PH(6); nwins++;\n")
before("    if (k == 0) {\n        cd->step = step0 + trials;","    if (k == 0 && (step0 / K) % 40 == 1) printf(\"phases K %d: prologue %lld stage %lld scan %lld bar %lld corr %lld full %lld end %lld; windows %d fulls %d\\n\", K, ph[0], ph[1], ph[2], ph[3], ph[4], ph[5], ph[6], nwins, nfull);\n")
open('.base/cu_batched_prof.cu','w').write(s)
