#!/usr/bin/env bash
# GPU call for issue 14's shape B: where an NPT launch's time goes against NVT's. Build; Nsight
# Systems on `mcens-bench --case 6` (every kernel's time and the launches' periods: the host's gap
# between them), if nsys is there; Nsight Compute's scheduler, warp-state and instruction sections
# on one launch each of the single-precision NVT and NPT chain kernels; then the tests in TESTS
# (default t/gpu_run.sh). Logs and reports under $OUT.
set -uo pipefail
. doc/device/build.sh
# only a few files come back from $OUT: everything but the Nsight Systems report, in one archive
trap 'cd "$out" && rm -f c6.nsys-rep c6.sqlite && tar czf logs.tgz --exclude logs.tgz . && find . -type f ! -name logs.tgz -delete' EXIT
if command -v nsys > /dev/null; then
  nsys profile -q -o "$out/c6" ./mcens-bench --case 6 > "$out/nsys-bench6.txt" 2>&1
  tail -4 "$out/nsys-bench6.txt"
  nsys stats -q --report cuda_gpu_trace --format csv -o "$out/c6" "$out/c6.nsys-rep" > /dev/null 2>&1
  python3 - "$out"/c6_cuda_gpu_trace.csv <<'PY'
import csv, sys, re
rows = list(csv.DictReader(open(sys.argv[1])))
ks = [r for r in rows if "sweep_chains_kernel" in r.get("Name", "")]
for name in sorted({r["Name"][:60] for r in ks}):
    k = [r for r in ks if r["Name"][:60] == name]
    st = [int(r["Start (ns)"]) for r in k]; du = [int(r["Duration (ns)"]) for r in k]
    per = [b - a for a, b in zip(st, st[1:])]
    print(name, "launches", len(k), "kernel ms", [round(d / 1e6, 1) for d in du], "periods ms", [round(p / 1e6, 1) for p in per])
PY
else
  echo "no nsys"
fi
echo "nsys done at $SECONDS s"
for e in 0 1; do
  ncu --kernel-name-base mangled --kernel-name regex:sweep_chains_kernelIfLb0ELb${e}E --launch-skip 1 --launch-count 1 \
      --section SchedulerStats --section WarpStateStats --section InstructionStats --section Occupancy \
      --section LaunchStats --section SpeedOfLight --section ComputeWorkloadAnalysis \
      -o "$out/k$e" ./mcens-bench --case 6 > "$out/ncu$e.txt" 2>&1
  ncu -i "$out/k$e.ncu-rep" --print-details all > "$out/k$e-details.txt" 2>&1
  grep -E "Duration|Executed Ipc Active|Issue Slots Busy|No Eligible|Active Warps Per|Eligible Warps|Warp Cycles Per Issued|Executed Instructions  |Achieved Occupancy|Registers Per|Block Limit" "$out/k$e-details.txt" | head -20
done
echo "ncu done at $SECONDS s"
[ -n "${NO_TESTS:-}" ] && exit 0
gpu_tests "t/gpu_run.sh"
grep -h "drift\|npt" t/gpu_run.log | cut -c1-200
echo "tests done at $SECONDS s"
