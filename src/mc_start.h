/* mc_start: a start file ([system] start = file) turned into the plan's starting molecules, once per
 * run and before any chain or output file exists. The caller reads the file (rank 0, broadcast:
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

#ifdef __cplusplus
}
#endif
#endif
