/* mc_xyz: what every XYZ reader of mcens shares (mc_xyz.h). */
#include "mc_xyz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A coordinate's text times 10^shift, as the decimal number it writes: the exponent is moved, not
 * the value multiplied, so that "1.39" read with shift -1 is the double nearest 0.139, the same as
 * reading "0.139" (a file converted from nm to A gives the doubles it gave before). 0 and 1 on a
 * number that is not one, or not finite. */
int mc_xyz_coordinate(const char *text, int shift, double *out)
{
    char buf[96], *end;
    const char *e = strpbrk(text, "eE");
    long exponent = e ? strtol(e + 1, &end, 10) : 0;
    if (e && (*end || end == e + 1)) return 0;
    if (snprintf(buf, sizeof buf, "%.*se%ld", (int)(e ? e - text : (long)strlen(text)), text, exponent + shift) >=
        (int)sizeof buf)
        return 0;
    *out = strtod(buf, &end);
    return !*end && end != buf && isfinite(*out);
}

/* The length unit of an XYZ file's coordinates as a power of ten to the run's unit: A by the
 * format's convention (what Avogadro, Open Babel and packmol write), or the comment line's
 * "unit=A", "unit=nm" or (reduced units) "unit=sigma". Real units take A and nm; reduced units
 * only sigma (the default there), since an A has no size in them. */
int mc_xyz_unit_shift(const cfg *c, const char *path, int line, const char *comment, int *shift, mc_err *err)
{
    const int real = c->system.units == CFG_UNITS_REAL;
    const char *u = strstr(comment, "unit=");
    char unit[16] = "";
    if (u) sscanf(u + 5, "%15[A-Za-z]", unit);
    if (!*unit) snprintf(unit, sizeof unit, "%s", real ? "A" : "sigma");
    if (real && (strcmp(unit, "A") == 0 || strcmp(unit, "Angstrom") == 0)) *shift = -1;
    else if (real && strcmp(unit, "nm") == 0) *shift = 0;
    else if (!real && strcmp(unit, "sigma") == 0) *shift = 0;
    else
        MC_FAIL(err, MC_EINVAL, "%s:%d: unit=%s: expected %s", path, line, unit,
                real ? "A (the default) or nm" : "sigma in reduced units (no comment, or unit=sigma)");
    return MC_OK;
}
