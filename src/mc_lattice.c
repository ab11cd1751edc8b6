/* mc_lattice: fcc and simple-cubic starting lattices. */
#include "mc_lattice.h"

#include <math.h>

#include "cfg.h"

static int sites_per_cell(int lattice) { return lattice == CFG_LATTICE_FCC ? 4 : 1; }

static int cells_per_edge(int lattice, int n)
{
    int per = sites_per_cell(lattice);
    int m = (int)cbrt((double)n / per);
    while ((long)per * m * m * m < n) m++;
    return m;
}

double mc_lattice_spacing(int lattice, int n, double box_len)
{
    double a = box_len / cells_per_edge(lattice, n);
    return lattice == CFG_LATTICE_FCC ? a / sqrt(2.0) : a;
}

void mc_lattice_fill(int lattice, int n, double box_len, double *x, double *y, double *z)
{
    static const double fcc[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    int m = cells_per_edge(lattice, n), per = sites_per_cell(lattice);
    double a = box_len / m;
    int i = 0;
    for (int cx = 0; cx < m && i < n; cx++)
        for (int cy = 0; cy < m && i < n; cy++)
            for (int cz = 0; cz < m && i < n; cz++)
                for (int b = 0; b < per && i < n; b++, i++) {
                    /* the quarter-cell offset keeps every site off the box faces */
                    x[i] = (cx + fcc[b][0] + 0.25) * a;
                    y[i] = (cy + fcc[b][1] + 0.25) * a;
                    z[i] = (cz + fcc[b][2] + 0.25) * a;
                }
}
