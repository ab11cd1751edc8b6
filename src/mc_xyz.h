/* mc_xyz: the XYZ format's conventions as every mcens reader takes them ([molecules] geometry files
 * and [system] start = xyz): the length unit from the comment line, and coordinates read as the
 * decimal numbers they write. */
#ifndef MC_XYZ_H
#define MC_XYZ_H

#include "cfg.h"
#include "mc_err.h"

/* A coordinate's text times 10^shift into *out; 0 on a number that is not one, or not finite. */
int mc_xyz_coordinate(const char *text, int shift, double *out);

/* The power of ten from the comment line's unit (path:line, for the message) to the run's length
 * unit: A (the default in real units) -1, nm 0; in reduced units sigma (the default) 0. */
int mc_xyz_unit_shift(const cfg *c, const char *path, int line, const char *comment, int *shift, mc_err *err);

#endif
