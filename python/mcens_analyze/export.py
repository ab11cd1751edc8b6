"""mcens-analyze export: the pooled results as CSV, a chain's H5MD frames as extended XYZ."""

from .errors import AnalyzeError
from .outputs import open_out


def write_csv(run, out):
    """One row per state point; every float as repr, so it reads back bit-identical."""
    import csv
    axes = run.axes()
    head = ["statepoint"] + ["%s [%s]" % (a[0], a[2]) for a in axes]
    cols = []
    for n in run.observables():
        r = run.result(n)
        for suffix, col in run.columns(n):
            cols.append((r, col))
            u = r["unit"]
            head += ["%s%s_mean [%s]" % (n, suffix, u), "%s%s_stderr [%s]" % (n, suffix, u),
                     "%s%s_blocking_converged" % (n, suffix)]
    w = csv.writer(out, lineterminator="\n")
    w.writerow(head)
    for s in range(run.nstate):
        row = [s] + [repr(float(a[1][s])) for a in axes]
        for r, col in cols:
            row += [repr(float(r[k][s] if col is None else r[k][s, col])) for k in ("mean", "stderr")]
            row.append(int(r["converged"][s] if col is None else r["converged"][s, col]))
        w.writerow(row)


def write_xyz(run, chain, out):
    """Extended XYZ (OVITO, VMD, ASE) of chain K's H5MD frames: one frame per position/step."""
    import numpy as np
    nchains = run.ds("chains/statepoint").shape[0]
    if not 0 <= chain < nchains:
        run.fail("no chain %d: the file has chains 0 to %d" % (chain, nchains - 1))
    base = "particles/chain_%06d/" % chain
    if "particles" not in run.f:
        run.fail("no /particles (H5MD trajectories): written by an older mcens; "
                 "rerun it with this mcens to export snapshots")
    pos = run.ds(base + "position/value")
    steps = run.ds(base + "position/step")[:]
    names = run.strings("species/name")
    species = np.array(names, dtype=object)[run.ds(base + "species")[:]]
    edges = run.ds(base + "box/edges/value")[:] if not run.cluster else None
    # H5MD leaves the unit out in reduced units; the XYZ header names it (unit=sigma, as the
    # [molecules] geometry reader takes it), so that a file says what its numbers are
    unit = run.unit(base + "position/value") or "sigma"
    # a grand-canonical run's frames hold every slot: a frame's particles are the slots its id
    # marks present (>= 0; absent slots are -1, their positions NaN); files of mcens before the id
    # element hold the final frame only, with /chains/tmmc/present
    ids = None
    if run.gcmc:
        if base + "id/value" in run.f:
            ids = run.ds(base + "id/value")[:]
        elif pos.shape[0] == 1:
            ids = np.where(run.ds("chains/tmmc/present")[chain].astype(bool), 0, -1)[np.newaxis, :]
        else:
            run.fail("chain %d: %d frames in a grand-canonical output without /particles/chain_%06d/id"
                     % (chain, pos.shape[0], chain))
    for j in range(pos.shape[0]):
        frame, frame_species = pos[j], species
        if ids is not None:
            here = ids[j] >= 0
            frame, frame_species = frame[here], species[here]
        if edges is not None:  # H5MD box vectors as rows [3][3]: extended XYZ's Lattice, row by row
            cell = 'Lattice="%s" pbc="T T T"' % " ".join(repr(float(x)) for x in np.ravel(edges[j]))
        else:
            cell = 'pbc="F F F"'
        out.write("%d\n%s Properties=species:S:1:pos:R:3 Time=%d chain=%d unit=%s\n" % (
            frame.shape[0], cell, steps[j], chain, unit))
        out.write("".join("%s %r %r %r\n" % (s, x, y, z)
                          for s, (x, y, z) in zip(frame_species, frame.tolist())))


def cmd_export(run, args):
    if not args.csv and not args.xyz:
        raise AnalyzeError("%s: export: nothing to write: give --csv OUT and/or --xyz OUT"
                           % run.path)
    if args.csv:
        with open_out(args.csv) as out:
            write_csv(run, out)
    if args.xyz:
        with open_out(args.xyz) as out:
            write_xyz(run, args.chain, out)
    return 0


def add_parser(sub):
    p = sub.add_parser("export", help="CSV of the pooled results; extended XYZ of a chain's frames")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--csv", metavar="OUT", help="pooled results, one row per state point ('-': stdout)")
    p.add_argument("--xyz", metavar="OUT", help="chain K's snapshots as extended XYZ ('-': stdout)")
    p.add_argument("--chain", metavar="K", type=int, default=0, help="the chain for --xyz (default 0)")


main = cmd_export
