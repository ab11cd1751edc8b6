#!/usr/bin/env python3
"""same_bits: the digest t/same_bits.sh compares. `same_bits.py digest SHAPE FILE` prints one line per
dataset under /chains and /results of FILE, sorted by name: SHAPE, the dataset's path, its dtype, its
shape and the sha256 of its raw bytes (a string dataset: of its values, each UTF-8 encoded and
length-prefixed, since the raw bytes of variable-length strings are pointers). Exit status by
t/checkrun.py's convention (2: the checker broke, e.g. a missing file)."""
import hashlib
import sys

import h5py
import numpy as np

from checkrun import check, run

# Datasets that legitimately differ between two runs of the same config and binary, left out of the
# digest by name (a new one needs a reason here). Found by running every shape twice on 1, 2 and 3
# ranks and comparing: see t/same_bits.sh.
EXCLUDED = {
}


def digest_of(ds):
    a = ds[()]
    h = hashlib.sha256()
    if ds.dtype.kind in "OSU" or h5py.check_string_dtype(ds.dtype) is not None:
        for v in np.asarray(a, dtype=object).ravel():
            b = v if isinstance(v, bytes) else str(v).encode("utf-8")
            h.update(len(b).to_bytes(8, "little") + b)
    else:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def digest(shape, path):
    lines = []
    with h5py.File(path, "r") as f:
        def visit(name, o):
            if isinstance(o, h5py.Dataset) and name.split("/")[0] in ("chains", "results") and name not in EXCLUDED:
                lines.append(f"{shape} /{name} {o.dtype.str} {'x'.join(map(str, o.shape)) or '-'} {digest_of(o)}")
        f.visititems(visit)
    check(lines, f"{path}: no datasets under /chains or /results")
    print("\n".join(sorted(lines)))


if __name__ == "__main__":
    run({"digest": digest}, sys.argv)
