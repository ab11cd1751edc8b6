/* mc_start: reading a start file's text into the plan; a chain's points from an h5 start's frame. */
#include "mc_start.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One molecule's line: its eight fields checked, the centre and unit quaternion stored. */
static int parse_molecule(mc_plan *p, int m, const char *line, int ln, double box, mc_err *err)
{
    const char *file = p->start_file, *want = p->mol.type[p->mol.mol_type[m]].name;
    char name[64], extra[2];
    double v[7];
    int got = sscanf(line, "%63s %lf %lf %lf %lf %lf %lf %lf %1s", name, &v[0], &v[1], &v[2], &v[3], &v[4],
                     &v[5], &v[6], extra);
    int finite = got >= 8;
    for (int i = 0; finite && i < 7; i++) finite = isfinite(v[i]);
    double norm = finite ? sqrt(v[3] * v[3] + v[4] * v[4] + v[5] * v[5] + v[6] * v[6]) : NAN;
    if (got != 8 || !finite || !(fabs(norm - 1.0) < 1e-6))
        MC_FAIL(err, MC_EINVAL, "%s:%d: expected: type x y z qw qx qy qz (finite numbers, a unit quaternion)",
                file, ln);
    if (strcmp(name, want) != 0)
        MC_FAIL(err, MC_EINVAL, "%s:%d: molecule %d: expected type %s (the [molecules] order), got %s", file, ln,
                m, want, name);
    for (int d = 0; p->periodic && d < 3; d++)
        if (v[d] < 0 || v[d] >= box)
            MC_FAIL(err, MC_EINVAL, "%s:%d: centre outside the box [0, %g) (the smallest of the state points)",
                    file, ln, box);
    for (int d = 0; d < 3; d++) p->start_centres[3 * m + d] = v[d];
    for (int d = 0; d < 4; d++) p->start_orientations[4 * m + d] = v[3 + d] / norm;
    return MC_OK;
}

int mc_start_load(mc_plan *p, const char *text, mc_err *err)
{
    size_t nm = (size_t)p->nmol;
    free(p->start_centres);
    free(p->start_orientations);
    p->start_centres = malloc(3 * nm * sizeof *p->start_centres);
    p->start_orientations = malloc(4 * nm * sizeof *p->start_orientations);
    if (!p->start_centres || !p->start_orientations)
        MC_FAIL(err, MC_ENOMEM, "out of memory for the %d molecules of %s", p->nmol, p->start_file);
    double box = mc_plan_smallest_box(p);
    int m = 0, ln = 0;
    for (const char *at = text; *at;) {
        size_t len = strcspn(at, "\n");
        char line[512];
        ln++;
        if (len >= sizeof line) MC_FAIL(err, MC_EINVAL, "%s:%d: line longer than %zu characters", p->start_file, ln, sizeof line - 1);
        memcpy(line, at, len);
        line[len] = '\0';
        at += len + (at[len] == '\n');
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        if (strspn(line, " \t\r") == strlen(line)) continue;
        if (m == p->nmol)
            MC_FAIL(err, MC_EINVAL, "%s:%d: more molecules than the %d of [molecules] counts", p->start_file, ln,
                    p->nmol);
        MC_TRY(parse_molecule(p, m, line, ln, box, err));
        m++;
    }
    if (m != p->nmol) MC_FAIL(err, MC_EINVAL, "%s: %d molecules, expected %d", p->start_file, m, p->nmol);
    return MC_OK;
}

int mc_start_frame_points(const mc_plan *p, int id, double box, double *out, const double **quats, double *scale,
                          mc_err *err)
{
    const mc_start_frames *f = &p->frames;
    int k = f->first_chain < 0 ? 0 : id - f->first_chain;
    if (f->nframes == 0 || k < 0 || k >= f->nframes)
        MC_FAIL(err, MC_EINVAL, "internal: start = %s, but chain %d's frame of %s was not loaded", p->start == CFG_START_H5 ? "h5" : "xyz",
                id, p->start_file);
    size_t np = (size_t)f->npoints;
    const double *in = f->points + (size_t)k * np * 3;
    /* the ratio of two boxes: every coordinate scales alike, so the configuration is the same in
     * units of the box edge (the affine map NPT's volume moves also make) */
    double s = box > 0 && f->box[k] > 0 && box != f->box[k] ? box / f->box[k] : 1.0;
    for (size_t i = 0; i < 3 * np; i++) {
        double v = s == 1.0 ? in[i] : in[i] * s;
        /* the product can round up to the box edge itself: fold, so that points lie in [0, box) */
        if (box > 0 && (v < 0 || v >= box)) v -= box * floor(v / box);
        if (box > 0 && v >= box) v = 0.0;
        out[i] = v;
    }
    *quats = f->quats ? f->quats + (size_t)k * np * 4 : NULL;
    *scale = s;
    return MC_OK;
}
