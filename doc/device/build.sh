# build.sh (sourced by the other scripts here, from the project root on the GPU machine): the kit's
# environment, $out for the logs, and the build through .devkit/gpu-check; exits on a failed build.
kit=$PWD/.devkit
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export CC=mpicc; unset CFLAGS
export CPPFLAGS="-I$kit/include" LDFLAGS="-L$kit/lib -Wl,-rpath,$kit/lib" LD_LIBRARY_PATH="$kit/lib:${LD_LIBRARY_PATH:-}"
out=${OUT:-/tmp/out}; mkdir -p "$out"
SECONDS=0
bash .devkit/gpu-check all > "$out/gpu-check.txt" 2>&1 || { tail -30 "$out/gpu-check.txt"; exit 1; }
echo "built in $SECONDS s"
