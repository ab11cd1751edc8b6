# U(T) and C_V(T) of the argon cluster: plain chains and replica exchange, each from the lattice and from the melt
import sys
import h5py, numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
runs = [("plain_lattice.h5", "no exchange, lattice start", "C0", "o", "--"), ("plain_melt.h5", "no exchange, melt start", "C1", "s", "--"),
        ("pt_lattice-small.h5", "exchange, lattice start", "C0", "o", "-"), ("pt_melt-small.h5", "exchange, melt start", "C1", "s", "-")]
fig, axs = plt.subplots(1, 2, figsize=(7, 2.9))
for path, label, colour, marker, ls in runs:
    with h5py.File(path, "r") as f:
        T = f["statepoints/temperature"][...]
        for ax, name in zip(axs, ("energy", "heat_capacity")):
            m, e = f["results/%s/mean" % name][...], f["results/%s/stderr" % name][...]
            ax.errorbar(T, m, yerr=e, color=colour, marker=marker, ms=2.5, ls=ls, lw=0.8, capsize=1.5,
                        mfc="white" if ls == "--" else colour, label=label)
axs[0].set_xlabel("$T$ (K)"); axs[0].set_ylabel("$U/N$ (kJ/mol)")
axs[1].set_xlabel("$T$ (K)"); axs[1].set_ylabel("$C_V/N$ ($k_B$)"); axs[1].set_ylim(0, 30)
axs[0].legend(fontsize=6, loc="upper left")
fig.suptitle("864-atom argon cluster, 48 temperatures x 2 replicas, 2000 + 4000 sweeps (H100)", fontsize=8)
fig.tight_layout()
fig.savefig(sys.argv[1], dpi=180)
