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
