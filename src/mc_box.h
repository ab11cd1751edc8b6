/* mc_box: periodic cubic box helpers shared by the CPU loops and the CUDA kernels. Positions are kept
 * in [0, box), so any separation is below one box edge and a single fold gives the minimum image. */
#ifndef MC_BOX_H
#define MC_BOX_H

#include "mc_hd.h"

/* Selects, not rint(): without SSE4.1 rint is a library call that stops vectorisation. */
MC_HD double mc_min_image(double d, double box, double half_box)
{
    d -= d > half_box ? box : 0.0;
    d += d < -half_box ? box : 0.0;
    return d;
}

/* Fold a coordinate displaced by at most one box edge back into [0, box). */
MC_HD double mc_wrap(double x, double box)
{
    if (x < 0.0) x += box;
    if (x >= box) x -= box; /* also catches -tiny + box rounding up to exactly box */
    return x;
}

#endif
