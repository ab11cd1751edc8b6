# build.sh (sourced by the other scripts here, from the project root on the GPU machine): the kit's
# environment, $out for the logs, the build through .devkit/gpu-check (exits on a failed build), and gpu_tests.
kit=$PWD/.devkit
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export CC=mpicc; unset CFLAGS
export CPPFLAGS="-I$kit/include" LDFLAGS="-L$kit/lib -Wl,-rpath,$kit/lib" LD_LIBRARY_PATH="$kit/lib:${LD_LIBRARY_PATH:-}"
out=${OUT:-/tmp/out}; mkdir -p "$out"
SECONDS=0
bash .devkit/gpu-check all > "$out/gpu-check.txt" 2>&1 || { tail -30 "$out/gpu-check.txt"; exit 1; }
echo "built in $SECONDS s"
# gpu_tests DEFAULT: make check of $TESTS (else of DEFAULT) on the GPU machine, its log in
# $out/tests.log; prints the failures (the scripts' and their TAP lines) and the counts
gpu_tests() {
  make -j8 check TESTS="${TESTS:-$1}" > "$out/tests.log" 2>&1
  grep -E "^(FAIL|ERROR|XFAIL)" "$out/tests.log" | cut -c1-200
  grep -h "^not ok" t/*.log 2>/dev/null | cut -c1-160
  echo "$(grep -c '^PASS' "$out/tests.log") passed, $(grep -c '^FAIL' "$out/tests.log") failed, $(grep -c '^SKIP' "$out/tests.log") skipped"
}
