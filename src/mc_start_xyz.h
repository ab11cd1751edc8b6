/* mc_start_xyz: [system] start = xyz, a chain's start from the last frame of an extended XYZ file
 * (what `mcens-analyze export --xyz` writes, so that export and start round-trip; packmol's and
 * Open Babel's files too). The frame lists every site: atoms in species order, or the molecules in
 * [molecules] order, each with its type's sites in their order, each named as the config names its
 * species (atoms of a run without [mixture] by any name). A molecule's centre and
 * orientation are the rigid placement of its type's geometry nearest its sites (least squares:
 * Horn's quaternion, J. Opt. Soc. Am. A 4, 629 (1987)), refused where a site is more than
 * MC_START_XYZ_TOLERANCE from it. The comment line's Lattice="L 0 0 0 L 0 0 0 L" gives the cubic
 * box (its density where [ensemble] gives none); without one a periodic run takes the frame to lie in
 * its smallest state point's box, an open cluster in none (pbc="F F F" or no Lattice); unit= the
 * length unit as [molecules] geometry files take it (mc_xyz.h). The frame becomes the plan's one
 * start frame, shared by every chain (p->frames, as start = h5 fills it), which each chain's box
 * scales affinely where it differs (mc_start_frame_points). The caller reads the file (rank 0,
 * broadcast) and hands its text here on every rank. */
#ifndef MC_START_XYZ_H
#define MC_START_XYZ_H

#include "cfg.h"
#include "mc_err.h"
#include "mc_plan.h"

/* How far (length unit) a site may lie from its molecule's fitted geometry: above a file's
 * rounding (six decimals of A, or of nm) and far below any bond. */
#define MC_START_XYZ_TOLERANCE 1e-4

/* Before the plan: the last frame's layout checked (its site count, its box) and, where neither
 * [ensemble] density nor mass_density is given, the density set from its box: N / L^3, N the
 * molecules (or atoms). */
int mc_start_xyz_density(cfg *c, const char *text, mc_err *err);

/* After the plan: the last frame into p->frames: atoms' positions, or molecules' centres and
 * orientations; every site's species checked against the plan's. */
int mc_start_xyz_load(mc_plan *p, const cfg *c, const char *text, mc_err *err);

#endif
