/* h5start: [system] start = h5, chains started from the last frame of an earlier mcens output (its
 * H5MD /particles). Everything that can be wrong with the file is found here, at setup, before any
 * chain, sweep or output exists; what is read goes into the plan's start frames (mc_plan.h), which
 * mc_chain_create takes the chains' starts from (mc_start_frame_points). */
#ifndef H5START_H
#define H5START_H

#include <stdio.h>

#include "ens.h"
#include "mc_err.h"
#include "mc_plan.h"

/* Collective over l->comm; a no-op unless p->start is CFG_START_H5. Checks p->start_file against
 * the run: an mcens output with /particles; its chain count (equal to the run's, or [system]
 * start_chain in range); per chain used, the particle count, the species of every particle (by
 * name), the boundary and the length unit; with molecules the molecule types, counts and site
 * geometry (/molecules). Then reads the last frame of each chain of this rank's block (or of chain
 * start_chain alone) into p->frames: atoms' positions, or molecules' centres and orientations, and
 * the box edge. Each message names the file and what differs. Every rank returns the same status.
 * log (rank 0, NULL for none): one line on what was read and on boxes scaled to the state points'. */
int h5start_load(mc_plan *p, const ens_layout *l, FILE *log, mc_err *err);

#endif
