# base.sh (sourced before build.sh by the before/after scripts here): base_build_start unpacks
# .base/base.tar (carried: `git archive` of the commit to compare with) into /tmp/base and builds
# its mcens and mcens-bench in the background; base_build_wait waits and prints its status;
# bench_both runs mcens-bench in both trees.
base=/tmp/base
base_build_start() {
  rm -rf $base; mkdir -p $base; tar -xf .base/base.tar -C $base
  local kit0=$PWD/.devkit
  (cd $base && ln -s "$kit0" .devkit && export CC=mpicc CPPFLAGS="-I$kit0/include" LDFLAGS="-L$kit0/lib -Wl,-rpath,$kit0/lib" &&
    autoreconf -fi > /tmp/base-autoreconf.log 2>&1 && ./configure > /tmp/base-configure.log 2>&1 &&
    make git_revision.h > /tmp/base-build.log 2>&1 && make -j6 mcens mcens-bench >> /tmp/base-build.log 2>&1; echo $? > /tmp/base-rc) &
}
base_build_wait() { wait; echo "base build: rc $(cat /tmp/base-rc)"; }
# bench_both ARGS...: ./mcens-bench ARGS in the base tree, then in this one, the lines that match
# $BENCH_LINES (default: all) labelled "before: " and "after: ".
bench_both() {
  local tree here=$PWD
  for tree in $base $here; do
    (cd $tree && ./mcens-bench "$@" 2>&1) | grep -E "${BENCH_LINES:-.}" | cut -c1-120 |
      sed "s|^|$([ $tree = $here ] && echo after || echo before): |"
  done
}
