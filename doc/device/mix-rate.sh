#!/usr/bin/env bash
# Sourced after engine2.sh's builds (base.sh's /tmp/base and this tree): the GPU's rate on a
# mixture (the MIX kernels, which no mcens-bench case runs): examples/mixture.ini with more
# replicas and no Widom, on the GPU in single and double precision, both trees alternating, REPEAT
# times; /parameters@moves_per_second of each run, into $out/mix.txt as it comes.
mix_rate() {
  local r tree label prec
  for prec in single double; do
    sed -e "s/^\[run\]/[run]\nbackend = gpu\nprecision = $prec/" -e 's/^replicas = 2/replicas = 64/' \
        -e 's/^widom = 200/widom = 0/' -e 's/^equilibration = .*/equilibration = 200/' \
        -e 's/^production = .*/production = 2000/' examples/mixture.ini > /tmp/mix-$prec.ini
    for ((r = 0; r < ${REPEAT:-2}; r++)); do
      for tree in $base $PWD; do
        label=$([ $tree = $PWD ] && echo after || echo before)
        rm -f /tmp/mix-out.h5*
        (cd $tree && timeout 120 mpirun -np 1 ./mcens -q -o /tmp/mix-out.h5 /tmp/mix-$prec.ini > /dev/null 2>&1)
        python3 -c "import h5py; a = h5py.File('/tmp/mix-out.h5')['parameters'].attrs
print('mixture $prec round $r $label: %.4g moves/s (%s)' % (a['moves_per_second'], a['paths']))" 2>&1 |
          tee -a "$out/mix.txt"
      done
    done
  done
}
