/* mc_start: a start file ([system] start = file) turned into the plan's starting molecules, once per
 * run and before any chain or output file exists; and a chain's start from an earlier output's last
 * frame (start = h5, read by io/h5start.c). The caller reads the file (rank 0, broadcast:
 * ens_read_text) and hands its text here on every rank, so every rank reaches the same verdict. */
#ifndef MC_START_H
#define MC_START_H

#include "mc_err.h"
#include "mc_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parse `text` (per molecule "type x y z qw qx qy qz"; blank lines and '#' comments skipped) into
 * p->start_centres [3 nmol] and p->start_orientations [4 nmol] (normalised). Refused with
 * start_file:line: a line that is not eight fields, a non-finite number, a quaternion whose norm
 * is not 1 to 1e-6, a molecule of another type than [molecules] puts there, a periodic centre
 * outside [0, L) of the smallest box of the state points, more or fewer molecules than counted. */
int mc_start_load(mc_plan *p, const char *text, mc_err *err);

/* Whether the chains start from p->frames: an earlier output's (start = h5) or an XYZ file's
 * (start = xyz, mc_start_xyz.h). */
static inline int mc_start_from_frames(const mc_plan *p) { return p->start == CFG_START_H5 || p->start == CFG_START_XYZ; }

/* start = h5 or xyz: chain `id`'s starting points (atoms' positions, molecules' centres) from the plan's
 * frames (h5start_load) into out [3 npoints], xyz per point. A periodic frame whose box differs
 * from `box` is scaled affinely by box / frame box and folded into [0, box); an equal box copies
 * the frame bit for bit, and an open cluster (box 0) keeps its coordinates. *quats points at the
 * frame's orientations (rigid engine; else NULL) and *scale gets the factor (1: none). */
int mc_start_frame_points(const mc_plan *p, int id, double box, double *out, const double **quats, double *scale,
                          mc_err *err);

#ifdef __cplusplus
}
#endif
#endif
