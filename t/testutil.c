/* testutil: see testutil.h. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

mc_plan *tu_plan(const char *ini)
{
    cfg c;
    mc_err err = {0, ""};
    if (cfg_parse(&c, ini, "test.ini", &err) != MC_OK) fail_msg("config: %s", err.msg);
    mc_plan *p = mc_plan_create(&c, &err);
    cfg_fini(&c);
    if (!p) fail_msg("plan: %s", err.msg);
    return p;
}

const char *tu_refdata(const char *name)
{
    static char path[4096];
    const char *dir = getenv("T_SRCDIR");
    snprintf(path, sizeof path, "%s/refdata/%s", dir ? dir : "t", name);
    return path;
}

int tu_load_nist4(double x[30], double y[30], double z[30])
{
    FILE *f = fopen(tu_refdata("nist_srsw_lj_config4.csv"), "r");
    if (!f) fail_msg("cannot open %s", tu_refdata("nist_srsw_lj_config4.csv"));
    char line[512];
    int n = 0;
    const double box = 8.0;
    while (fgets(line, sizeof line, f)) {
        int idx;
        double a, b, c;
        if (line[0] == '#' || sscanf(line, "%d,%lf,%lf,%lf", &idx, &a, &b, &c) != 4) continue;
        if (n >= 30) fail_msg("more than 30 particles in config 4");
        /* centred coordinates (about -L/2..L/2) folded into [0, L) */
        x[n] = a - box * floor(a / box);
        y[n] = b - box * floor(b / box);
        z[n] = c - box * floor(c / box);
        n++;
    }
    fclose(f);
    assert_int_equal(n, 30);
    return n;
}

void tu_fold_separations(double *d, double *box, int per_box)
{
    const double boxes[TU_FOLD_BOXES] = {8.0, 8.549879733383484, 10.0 / 3.0, 1e-3, 123456.789, 0.0};
    uint64_t r = 0x9e3779b97f4a7c15ull;
    for (int b = 0; b < TU_FOLD_BOXES; b++) {
        const double bx = boxes[b], half = 0.5 * bx;
        const float bf = (float)bx, hf = 0.5f * bf;
        /* double's switch points, then float's (which double's neighbours round onto) */
        const double edges[TU_FOLD_EDGES] = {
            0.0, half, -half, bx, -bx, nextafter(half, 0.0), nextafter(half, 2.0 * bx), nextafter(-half, 0.0),
            nextafter(-half, -2.0 * bx), nextafter(bx, 0.0), -nextafter(bx, 0.0), -0.0, hf, -hf, bf, -bf,
            nextafterf(hf, 0.0f), nextafterf(hf, 2.0f * bf), nextafterf(-hf, 0.0f), nextafterf(-hf, -2.0f * bf),
            nextafterf(bf, 0.0f), -nextafterf(bf, 0.0f)};
        for (int k = 0; k < per_box; k++) {
            double dk;
            if (k < TU_FOLD_EDGES) {
                dk = edges[k];
            } else {
                r ^= r << 13, r ^= r >> 7, r ^= r << 17; /* xorshift64 */
                dk = ((double)(r >> 11) / 9007199254740992.0 * 3.2 - 1.6) * (bx > 0.0 ? bx : 1.0);
            }
            d[b * per_box + k] = dk, box[b * per_box + k] = bx;
        }
    }
}
