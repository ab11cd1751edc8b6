#!/bin/sh
# The grand-canonical ensemble with transition-matrix sampling (issue 43, [ensemble] type = gcmc):
# bad input refused before any output; the ideal gas's ln Pi against its exact transitions, with
# windows and the bias, and without the bias against the chains' own N; the Lennard-Jones fluid
# (rc = 3 with tail corrections, V = 512) against NIST's SRSW ln Pi and U(N) at T = 1.5, also as two
# identical species at half the activity each and as one-site molecules, an ideal binary and ideal
# diatomics; the bias
# flattening each window's visits; /results/tmmc the pool of /chains/tmmc; 1 and 3 ranks
# bit-identical; SPC/E water (charges, the Ewald sum) at 525 K against NIST's SRSW ln Pi; replica
# exchange along ln z (the ideal gas: Poisson N and the exact swap acceptance; ranks; a kill).
# t/gcmc_check.py reads the files; its bounds are Student-t quantiles of the
# replicas' spread (its docstring says which).
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 42

cat > base.ini <<'EOF'
[run]
output = base.h5
seed = 21
equilibration = 200
production = 4000
sample_every = 100
[system]
box_length = 6
[potential]
epsilon = 0
cutoff = 2.5
[ensemble]
type = gcmc
temperature = 1.0
lnz = -2.5, -1.5
n_max = 30
replicas = 16
[tmmc]
windows = 3
EOF

# 1. bad input: status 1, the message names file, line and key, and nothing is written
refused() { refused_edit base "$@"; } # refused NAME SED EXPECTED-TEXT
refused no_lnz '/^lnz = /d' "no_lnz.ini: missing required key 'lnz' in [ensemble] (type = gcmc)"
refused no_box '/^box_length = /d' "no_box.ini: missing required key 'box_length' in [system] (type = gcmc)"
refused no_n_max '/^n_max = /d' "no_n_max.ini: missing required key 'n_max' in [ensemble] (type = gcmc)"
refused n_min_high 's/^n_max = 30/n_max = 30\nn_min = 30/' "n_min_high.ini:17: [ensemble] n_min = 30: expected below n_max = 30"
refused windows 's/^windows = 3/windows = 31/' "windows.ini:19: [tmmc] windows = 31: expected at most n_max - n_min = 30"
refused density 's/^lnz = -2.5, -1.5/lnz = -2.5\ndensity = 0.3/' "density.ini:16: [ensemble] density: type = gcmc takes [system] box_length"
refused small_box 's/^box_length = 6/box_length = 4/' "small_box.ini:8: [system] box_length = 4: expected at least twice [potential] cutoff = 2.5"
refused packed 's/^n_max = 30/n_max = 400/' "packed.ini:16: [ensemble] n_max = 400: a box of edge 6 holds the 400 slots"
refused mixture_counts '/^epsilon = 0/d; s/^\[tmmc\]/[mixture]\nspecies = A, B\ncounts = 10, 10\nsigma = 1, 1\nepsilon = 1, 1\nlnz = 0, 0\n[tmmc]/' \
    "mixture_counts.ini:19: [mixture] counts: type = gcmc gives every species n_max slots"
refused mixture_no_lnz '/^epsilon = 0/d; s/^\[tmmc\]/[mixture]\nspecies = A, B\nsigma = 1, 1\nepsilon = 1, 1\n[tmmc]/' \
    "mixture_no_lnz.ini: missing required key 'lnz' in [mixture] (type = gcmc"
refused gcmc_keys_in_nvt 's/^type = gcmc/type = nvt\ndensity = 0.3/' "gcmc_keys_in_nvt.ini:16: [ensemble] lnz: expected [ensemble] type = gcmc"

# 2. the ideal gas: 16 replicas x 3 windows of N = 0..30 at two activities, the bias on
run_np 2 -q base.ini > base.txt 2>&1
ok $? "ideal gas: the run ends with status 0" || diag < base.txt
h5check layout base.h5 2 96 30 200 40
ok $? "ideal gas: the documented layout (the observables gcmc has, /statepoints/lnz, /results/tmmc, /chains/tmmc)"
pycheck gcmc_check.py pooled base.h5
ok $? "ideal gas: /results/tmmc/ln_pi, ln_pi_stderr and energy are the pool of every replica's windows in /chains/tmmc"
pycheck gcmc_check.py ideal base.h5
ok $? "ideal gas: each transition ln Pi(N+1) - ln Pi(N) equals ln(z V / (N + 1)) within the replicas' errors"

# 3. the same on 1 and 3 ranks: the same bits (windows on any rank)
sed 's/^output = base.h5/output = ranks.h5/' base.ini > ranks.ini
run_np 3 -q ranks.ini > ranks.txt 2>&1 && h5check same_results base.h5 ranks.h5
ok $? "ideal gas: 2 and 3 ranks give bit-identical /chains and /results" || diag < ranks.txt

# 4. no bias: the plain grand-canonical chain, whose N is the grand-canonical one (<N> = z V = 15)
sed -e 's/^lnz = -2.5, -1.5/lnz = -2.6603/' -e 's/^n_max = 30/n_max = 60/' -e 's/^windows = 3/windows = 1\nbias = no/' \
    -e 's/^replicas = 16/replicas = 8/' -e 's/^output = base.h5/output = plain.h5/' base.ini > plain.ini
run_np 2 -q plain.ini > plain.txt 2>&1
ok $? "bias = no: the run ends with status 0" || diag < plain.txt
pycheck gcmc_check.py plain plain.h5
ok $? "bias = no: the chains' mean N equals <N> of their ln Pi within the replicas' errors"
pycheck gcmc_check.py ideal plain.h5 1000
ok $? "bias = no: ln Pi's transitions are the ideal gas's where every chain went a thousand times"

# 4b. replica exchange along ln z (bias = no, one window): refused with the bias, with windows and on
# the GPU; the ideal gas at four activities, 8 replicas, a swap try every sweep: each state point's
# N Poisson (mean and variance z V) and each pair's acceptance the exact expectation over two
# Poisson N (t/gcmc_check.py exchange); 2 and 3 ranks (trades between ranks carry the present slots)
# bit-identical; killed on 2 ranks and restarted on 3, bit-identical
sed -e 's/^lnz = -2.5, -1.5/lnz = -2.9:-2.3:4/' -e 's/^n_max = 30/n_max = 60/' -e 's/^windows = 3/bias = no/' \
    -e 's/^replicas = 16/replicas = 8\nexchange_every = 1\nexchange_axis = lnz/' -e 's/^output = base.h5/output = exch.h5/' \
    -e 's/^sample_every = 100/sample_every = 20\ncheckpoint_every = 1e-6/' base.ini > exch.ini
refused_edit exch exchange_bias 's/^bias = no/bias = yes/' \
    "exchange_bias.ini:19: [ensemble] exchange_every = 1 with type = gcmc: expected [tmmc] bias = no"
refused_edit exch exchange_windows 's/^bias = no/bias = no\nwindows = 3/' \
    "exchange_windows.ini:23: [tmmc] windows = 3 with replica exchange: expected 1"
refused_edit exch exchange_temperature 's/^exchange_axis = lnz/exchange_axis = temperature/; s/^temperature = 1.0/temperature = 1.0, 1.1/' \
    "exchange_temperature.ini:19: [ensemble] exchange_every = 1 with type = gcmc: expected exchange_axis = lnz"
refused_edit exch exchange_gpu 's/^\[run\]/[run]\nbackend = gpu/' \
    "[run] backend = gpu: the GPU backend has no replica exchange of grand-canonical chains yet (asked for by [ensemble] exchange_every"
run_np 2 -q exch.ini > exch.txt 2>&1 && pycheck gcmc_check.py exchange exch.h5
ok $? "exchange along ln z, ideal gas: N Poisson at every state point, swaps accepted at the exact rate" || diag < exch.txt
run_np 3 -q -o exch3.h5 exch.ini > exch3.txt 2>&1 && h5check same_results exch.h5 exch3.h5
ok $? "exchange along ln z: 2 and 3 ranks give bit-identical /chains and /results" || diag < exch3.txt
MCENS_TEST_KILL_AT=1:2500 run_np 2 -q -o exchk.h5 exch.ini > exchk.txt 2>&1
killed=$?
run_np 3 -q --restart -o exchk.h5 exch.ini >> exchk.txt 2>&1 && [ $killed -ne 0 ] && h5check same_results exch.h5 exchk.h5
ok $? "exchange along ln z: killed at sweep 2500 on 2 ranks (status $killed), restarted on 3: bit-identical" || diag < exchk.txt

# 5. the LJ fluid at T = 1.5 (supercritical), N = 0..40 in two windows, against NIST
cat > nist.ini <<'EOF'
[run]
output = nist.h5
seed = 22
equilibration = 500
production = 20000
sample_every = 200
[system]
box_length = 8
[potential]
cutoff = 3.0
[ensemble]
type = gcmc
temperature = 1.5
lnz = -1.568214
n_max = 40
replicas = 16
[tmmc]
windows = 2
EOF
run_np 2 -q nist.ini > nist.txt 2>&1
ok $? "LJ T = 1.5: the run ends with status 0" || diag < nist.txt
pycheck gcmc_check.py nist nist.h5 1.50
ok $? "LJ T = 1.5: ln Pi's transitions and U(N), N = 0..40, match NIST's SRSW within the errors"
pycheck gcmc_check.py flat nist.h5 0.2
ok $? "LJ T = 1.5: the bias flattens each window's visits (ln Pi spans 84 there)"
pycheck gcmc_check.py pooled nist.h5
ok $? "LJ T = 1.5: /results/tmmc is the pool of /chains/tmmc, and no transition lacks data"

# 6. mcens-analyze tmmc on it: supercritical, one phase; its isotherm at ln z = -4.5 (where N stays well
# below n_max = 40) is ln Pi reweighted there; at the sampled ln z, where N reaches n_max, it is NaN
"$MCENS_ANALYZE" tmmc nist.h5 --lnz=-4.5,-1.568214 > analyze.txt 2>&1 && "$PYTHON3" - > analyze-check.txt 2>&1 <<'PY'
import math, sys, h5py, numpy as np
run, out = h5py.File("nist.h5", "r")["results/tmmc"], h5py.File("nist-tmmc.h5", "r")["tmmc"]
n, V = run["n"][:], run.attrs["volume"]
w = run["ln_pi"][0] + n * (-4.5 - run["lnz"][0])
p = np.exp(w - w.max()); p /= p.sum()
rho, want = out["isotherm/density"][0], (n * p).sum() / V
print("isotherm at ln z = -4.5:", rho[0], "ln Pi reweighted:", want, "; at the sampled ln z:", rho[1],
      "; coexistence ln z:", out["coexistence/lnz"][0])
sys.exit(not (abs(rho[0] - want) < 1e-10 * want and math.isnan(rho[1]) and math.isnan(out["coexistence/lnz"][0])))
PY
ok $? "mcens-analyze tmmc: T = 1.5 has one phase; its isotherm is ln Pi reweighted, NaN where N reaches n_max" ||
    cat analyze.txt analyze-check.txt | diag

# 7. mixtures, each species at its own activity: an ideal binary is the ideal gas of the summed
# activity; two identical LJ species at ln z - ln 2 each are NIST's pure fluid at ln z
sed -e 's/^\[tmmc\]/[mixture]\nspecies = A, B\nsigma = 1, 1\nepsilon = 0, 0\nlnz = -0.2, -1.1\n[tmmc]/' \
    -e '/^epsilon = 0$/d' -e 's/^output = base.h5/output = ideal_mix.h5/' -e 's/^lnz = -2.5, -1.5/lnz = -2.4/' base.ini > ideal_mix.ini
run_np 2 -q ideal_mix.ini > ideal_mix.txt 2>&1 && pycheck gcmc_check.py ideal ideal_mix.h5
ok $? "ideal binary at ln z -2.6 and -3.5: ln Pi(N total)'s transitions are ln((z_A + z_B) V / (N + 1))" || diag < ideal_mix.txt
sed -e 's/^\[tmmc\]/[mixture]\nspecies = A, B\nsigma = 1, 1\nepsilon = 1, 1\nlnz = -0.6931471805599453, -0.6931471805599453\n[tmmc]/' \
    -e 's/^output = nist.h5/output = nist_mix.h5/' -e 's/^replicas = 16/replicas = 8/' -e 's/^production = 20000/production = 10000/' \
    nist.ini > nist_mix.ini
run_np 2 -q nist_mix.ini > nist_mix.txt 2>&1 && pycheck gcmc_check.py nist nist_mix.h5 1.50
ok $? "two identical LJ species at ln z - ln 2 each: NIST's pure-fluid ln Pi and U(N) at T = 1.5" || diag < nist_mix.txt

# 8. rigid molecules, inserted in orientations uniform on SO(3): an ideal gas of diatomics is the
# ideal gas (orientations carry no weight); one-site molecules are NIST's LJ fluid; 2 and 3 ranks
cat > mol.ini <<'EOF'
[run]
output = mol.h5
seed = 24
equilibration = 200
production = 4000
sample_every = 100
[system]
box_length = 8
[potential]
epsilon = 0
cutoff = 3
[molecules]
types = AA
geometry = A 0 0 0; A 0 0 0.6
[ensemble]
type = gcmc
temperature = 1.0
lnz = -3.5
n_max = 30
replicas = 16
[tmmc]
windows = 3
EOF
run_np 2 -q mol.ini > mol.txt 2>&1 && pycheck gcmc_check.py ideal mol.h5
ok $? "ideal diatomics: ln Pi's transitions are the ideal gas's ln(z V / (N + 1))" || diag < mol.txt
sed 's/^output = mol.h5/output = mol3.h5/' mol.ini > mol3.ini
run_np 3 -q mol3.ini > mol3.txt 2>&1 && h5check same_results mol.h5 mol3.h5
ok $? "ideal diatomics: 2 and 3 ranks give bit-identical /chains and /results" || diag < mol3.txt
# trajectories of a varying N: every 5 samples a frame, its absent slots marked (id -1, NaN positions)
sed -e 's/^output = mol.h5/output = moltraj.h5/' -e 's/^replicas = 16/replicas = 2/' -e 's/^production = 4000/production = 2000/' \
    -e 's/^\[tmmc\]/[output]\nsnapshot_every = 5\n[tmmc]/' mol.ini > moltraj.ini
run_np 2 -q moltraj.ini > moltraj.txt 2>&1 && pycheck gcmc_check.py trajectory moltraj.h5 200 100 &&
    "$MCENS_ANALYZE" export moltraj.h5 --xyz moltraj.xyz --chain 1 >> moltraj.txt 2>&1 && "$PYTHON3" -c '
import sys, h5py
want = [int((r >= 0).sum()) for r in h5py.File("moltraj.h5", "r")["particles/chain_000001/id/value"][...]]
lines, got, i = open("moltraj.xyz").read().splitlines(), [], 0
while i < len(lines) and lines[i].strip():
    got.append(int(lines[i])); i += got[-1] + 2
print("# export --xyz: sites per frame", got, "present per id", want); sys.exit(got != want)'
ok $? "diatomics' trajectory: each frame's present slots (id >= 0) are /chains/particles's N, absent ones NaN; export --xyz writes each frame's present sites" || diag < moltraj.txt
sed -e 's/^\[tmmc\]/[molecules]\ntypes = LJ\ngeometry = A 0 0 0\n[tmmc]/' -e 's/^output = nist.h5/output = nist_mol.h5/' \
    -e 's/^replicas = 16/replicas = 8/' -e 's/^production = 20000/production = 10000/' nist.ini > nist_mol.ini
run_np 2 -q nist_mol.ini > nist_mol.txt 2>&1 && pycheck gcmc_check.py nist nist_mol.h5 1.50
ok $? "one-site molecules (the rigid-body path): NIST's LJ ln Pi and U(N) at T = 1.5" || diag < nist_mol.txt

# 9. a gcmc output's frames hold absent slots: no run starts from them
printf '[run]\noutput = from_gcmc.h5\nproduction = 20\n[system]\nn = 30\nstart = h5\nstart_file = base.h5\nstart_chain = 0\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1\ndensity = 0.1\n' > from_gcmc.ini
run_np 1 -q from_gcmc.ini > from_gcmc.txt 2>&1; rc=$?
[ $rc -eq 1 ] && grep -qF "base.h5: a grand-canonical (gcmc) output: its frames hold absent particle slots" from_gcmc.txt && [ ! -e from_gcmc.h5 ]
ok $? "start = h5 from a gcmc output is refused, naming why, before any output" || diag < from_gcmc.txt

# 10. mcens-analyze export --xyz writes a gcmc chain's present particles only
"$MCENS_ANALYZE" export nist.h5 --xyz last.xyz --chain 17 > export.txt 2>&1 &&
    "$PYTHON3" -c 'import sys, h5py
want = int(h5py.File("nist.h5", "r")["chains/tmmc/present"][17].sum()); got = int(open("last.xyz").readline())
print("xyz count", got, "present slots", want); sys.exit(got != want)' >> export.txt 2>&1
ok $? "export --xyz of a gcmc chain writes its present particles, as many as /chains/tmmc/present marks" || diag < export.txt

# 11. molecules on the GPU are not built: backend = gpu is refused by name, before any output
sed -e 's/^seed = 24/seed = 24\nbackend = gpu/' -e 's/^output = mol.h5/output = molgpu.h5/' mol.ini > molgpu.ini
run_np 1 -q molgpu.ini > molgpu.txt 2>&1; rc=$?
[ $rc -eq 1 ] && grep -qF "molgpu.ini:4: [run] backend = gpu: the GPU backend has no grand-canonical moves of molecules yet" molgpu.txt &&
    [ ! -e molgpu.h5 ]
ok $? "gcmc of molecules with backend = gpu: refused by name (the GPU has gcmc of atoms only)" || diag < molgpu.txt

# 12. charged molecules (the Ewald sum): SPC/E water at 525 K in NIST's 20 A box, N = 0..12, against
# NIST's SRSW ln Pi; each insertion and deletion changes the box's structure factors by the
# molecule's sites, and every sample's recomputation checks the running energy (t/gibbs_unit.c
# checks the structure factors themselves); 2 ranks and 1 the same bits
{ printf '[run]\noutput = spce.h5\nseed = 11\nequilibration = 1000\nproduction = 20000\nsample_every = 500\n'
  spce_model
  printf '[system]\nbox_length = 2.0\n[potential]\ncutoff = 1.0\ncoulomb = ewald\newald_alpha = 2.8\newald_kmax = 6\n'
  printf 'ewald_ksq_max = 38\n[ensemble]\ntype = gcmc\ntemperature = 525\nlnz = -1.232245\nn_max = 12\nreplicas = 8\n'; } > spce.ini
run_np 2 -q spce.ini > spce.txt 2>&1 && pycheck gcmc_check.py spce spce.h5
ok $? "SPC/E water (charges, Ewald) at 525 K, N = 0..12: every transition NIST's SRSW ln Pi's within the errors" ||
    diag < spce.txt
sed -e 's/^production = 20000/production = 400/' -e 's/^sample_every = 500/sample_every = 100/' -e 's/^output = spce.h5/output = spce2.h5/' spce.ini > spce2.ini
run_np 2 -q spce2.ini > spce2.txt 2>&1 && run_np 1 -q -o spce1.h5 spce2.ini > spce1.txt 2>&1 &&
    h5check same_results spce1.h5 spce2.h5
ok $? "SPC/E water in gcmc: 1 and 2 ranks bit-identical" || cat spce1.txt spce2.txt | diag
