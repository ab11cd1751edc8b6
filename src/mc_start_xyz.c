/* mc_start_xyz: [system] start = xyz (mc_start_xyz.h). */
#include "mc_start_xyz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mc_rigid.h"
#include "mc_xyz.h"

/* The last frame of a file: its site count and where its lines are. */
typedef struct xyz_frame {
    int count;          /* sites */
    int count_line;     /* the line of the count (from 1) */
    char comment[4096]; /* the comment line, cut at its length */
    const char *sites;  /* the first site line */
} xyz_frame;

/* The line at *at (without its newline) into buf, *at moved past it; 0 where the text has ended. */
static int take_line(const char **at, char *buf, size_t size)
{
    if (!**at) return 0;
    size_t len = strcspn(*at, "\n"), keep = len < size - 1 ? len : size - 1;
    memcpy(buf, *at, keep);
    buf[keep] = '\0';
    *at += len + ((*at)[len] == '\n');
    return 1;
}

static int blank(const char *s) { return strspn(s, " \t\r") == strlen(s); }

/* Frames are a count line, a comment line and `count` site lines; blank lines between frames and at
 * the end are skipped. */
static int last_frame(const char *path, const char *text, xyz_frame *out, mc_err *err)
{
    const char *at = text;
    char line[4096];
    int ln = 0, found = 0;
    while (take_line(&at, line, sizeof line)) {
        ln++;
        if (blank(line)) continue;
        char *end;
        long count = strtol(line, &end, 10);
        if (end == line || !blank(end) || count < 1 || count > 100000000)
            MC_FAIL(err, MC_EINVAL, "%s:%d: expected the number of sites of a frame (extended XYZ: a count, a comment "
                    "line, then one line per site)", path, ln);
        out->count = (int)count, out->count_line = ln;
        if (!take_line(&at, out->comment, sizeof out->comment))
            MC_FAIL(err, MC_EINVAL, "%s:%d: the frame ends at its count line (expected a comment line and %ld sites)",
                    path, ln, count);
        ln++;
        out->sites = at;
        for (long k = 0; k < count; k++, ln++)
            if (!take_line(&at, line, sizeof line))
                MC_FAIL(err, MC_EINVAL, "%s: the frame of line %d has %ld of its %ld sites", path, out->count_line, k,
                        count);
        found = 1;
    }
    if (!found) MC_FAIL(err, MC_EINVAL, "%s: no frame (extended XYZ: a count, a comment line, then one line per site)", path);
    return MC_OK;
}

/* The box of a frame's comment line, in the run's length unit (10^shift of the file's): L from a cubic
 * Lattice="L 0 0 0 L 0 0 0 L", 0 without a Lattice or with pbc="F F F". */
static int frame_box(const char *path, const xyz_frame *f, int shift, double *box, mc_err *err)
{
    const int ln = f->count_line + 1;
    const char *pbc = strstr(f->comment, "pbc=\"");
    const char *lattice = strstr(f->comment, "Lattice=\"");
    *box = 0.0;
    if (!lattice || (pbc && pbc[5] == 'F')) return MC_OK;
    double v[9];
    const char *at = lattice + 9;
    for (int i = 0; i < 9; i++) {
        char tok[64];
        int used = 0;
        if (sscanf(at, " %63[^ \"]%n", tok, &used) != 1 || !mc_xyz_coordinate(tok, shift, &v[i]))
            MC_FAIL(err, MC_EINVAL, "%s:%d: Lattice: expected nine numbers, the box's edge vectors", path, ln);
        at += used;
    }
    const double L = v[0], slack = 1e-9 * fabs(L);
    int cubic = L > 0 && fabs(v[4] - L) <= slack && fabs(v[8] - L) <= slack;
    for (int i = 0; i < 9; i++) cubic &= i % 4 == 0 || fabs(v[i]) <= slack;
    if (!cubic)
        MC_FAIL(err, MC_EINVAL, "%s:%d: Lattice: expected a cubic box, \"L 0 0 0 L 0 0 0 L\" (mcens's boxes are cubic)",
                path, ln);
    *box = L;
    return MC_OK;
}

/* The frame's Properties, where given, must begin with the species and the positions. */
static int check_properties(const char *path, const xyz_frame *f, mc_err *err)
{
    const char *props = strstr(f->comment, "Properties=");
    if (props && strncmp(props + 11, "species:S:1:pos:R:3", 19) != 0)
        MC_FAIL(err, MC_EINVAL, "%s:%d: Properties: expected species:S:1:pos:R:3 first (each site's species, then its "
                "position)", path, f->count_line + 1);
    return MC_OK;
}

/* The file's last frame with its length unit (10^shift of the file's) and box (frame_box). */
static int read_frame(const cfg *c, const char *path, const char *text, xyz_frame *f, int *shift, double *box,
                      mc_err *err)
{
    MC_TRY(last_frame(path, text, f, err));
    MC_TRY(check_properties(path, f, err));
    MC_TRY(mc_xyz_unit_shift(c, path, f->count_line + 1, f->comment, shift, err));
    return frame_box(path, f, *shift, box, err);
}

/* The molecules (or atoms) a config counts. */
static double counted(const cfg *c)
{
    const cfg_list *l = c->molecules.types ? &c->molecules.counts : c->mixture.species ? &c->mixture.counts : NULL;
    double n = l ? 0.0 : (double)c->system.n;
    for (int i = 0; l && i < l->n; i++) n += l->v[i];
    return n;
}

int mc_start_xyz_density(cfg *c, const char *text, mc_err *err)
{
    const char *path = c->system.start_file;
    xyz_frame f;
    int shift;
    double box;
    MC_TRY(read_frame(c, path, text, &f, &shift, &box, err));
    const int periodic = c->system.boundary == CFG_BOUNDARY_PERIODIC;
    if (!periodic && box > 0)
        MC_FAIL(err, MC_EINVAL, "%s:%d: Lattice: a periodic box, for an open cluster (boundary = none): expected no "
                "Lattice, or pbc=\"F F F\"", path, f.count_line + 1);
    if (!periodic || cfg_line(c, "ensemble", "density") || cfg_line(c, "ensemble", "mass_density")) return MC_OK;
    if (box == 0)
        MC_FAIL(err, MC_EINVAL, "%s:%d: no Lattice (the box): give one, L 0 0 0 L 0 0 0 L, or [ensemble] density", path,
                f.count_line + 1);
    cfg_list *rho = &c->ensemble.density;
    free(rho->v);
    if (!(rho->v = malloc(sizeof *rho->v))) MC_FAIL(err, MC_ENOMEM, "out of memory");
    rho->n = 1;
    rho->v[0] = counted(c) / (box * box * box);
    return MC_OK;
}

/* The eigenvector of the largest eigenvalue of a symmetric 4 x 4 matrix a (destroyed), by cyclic
 * Jacobi rotations, into v. */
static void largest_eigenvector(double a[4][4], double out[4])
{
    double v[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
    for (int sweep = 0; sweep < 64; sweep++) {
        double off = 0.0, scale = 0.0;
        for (int p = 0; p < 4; p++)
            for (int q = 0; q < 4; q++) *(p == q ? &scale : &off) += a[p][q] * a[p][q];
        if (off <= 1e-30 * scale) break;
        for (int p = 0; p < 3; p++)
            for (int q = p + 1; q < 4; q++) {
                if (fabs(a[p][q]) < 1e-300) continue;
                const double theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                const double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                const double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (int k = 0; k < 4; k++) { /* A J: columns p and q */
                    const double kp = a[k][p], kq = a[k][q];
                    a[k][p] = c * kp - s * kq, a[k][q] = s * kp + c * kq;
                }
                for (int k = 0; k < 4; k++) { /* J^T (A J): rows p and q */
                    const double pk = a[p][k], qk = a[q][k];
                    a[p][k] = c * pk - s * qk, a[q][k] = s * pk + c * qk;
                }
                for (int k = 0; k < 4; k++) {
                    const double kp = v[k][p], kq = v[k][q];
                    v[k][p] = c * kp - s * kq, v[k][q] = s * kp + c * kq;
                }
            }
    }
    int best = 0;
    for (int i = 1; i < 4; i++)
        if (a[i][i] > a[best][best]) best = i;
    for (int k = 0; k < 4; k++) out[k] = v[k][best];
}

/* The rigid placement (centre, q) of body sites b nearest the sites s (ns of each, [k][3]) in the
 * least-squares sense (Horn 1987), and the largest distance of a site from it. */
static double fit_molecule(int ns, const double (*b)[3], const double *s, double centre[3], mc_quat *q)
{
    double bm[3] = {0, 0, 0}, sm[3] = {0, 0, 0}, S[3][3] = {{0}};
    for (int k = 0; k < ns; k++)
        for (int d = 0; d < 3; d++) bm[d] += b[k][d] / ns, sm[d] += s[3 * k + d] / ns;
    for (int k = 0; k < ns; k++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) S[i][j] += (b[k][i] - bm[i]) * (s[3 * k + j] - sm[j]);
    double N[4][4] = {{S[0][0] + S[1][1] + S[2][2], S[1][2] - S[2][1], S[2][0] - S[0][2], S[0][1] - S[1][0]},
                      {S[1][2] - S[2][1], S[0][0] - S[1][1] - S[2][2], S[0][1] + S[1][0], S[2][0] + S[0][2]},
                      {S[2][0] - S[0][2], S[0][1] + S[1][0], -S[0][0] + S[1][1] - S[2][2], S[1][2] + S[2][1]},
                      {S[0][1] - S[1][0], S[2][0] + S[0][2], S[1][2] + S[2][1], -S[0][0] - S[1][1] + S[2][2]}};
    double e[4];
    largest_eigenvector(N, e);
    const double norm = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3]), sign = e[0] < 0 ? -1.0 : 1.0;
    *q = (mc_quat){sign * e[0] / norm, sign * e[1] / norm, sign * e[2] / norm, sign * e[3] / norm};
    double rb[3], worst = 0.0;
    mc_quat_rotate(*q, bm, rb);
    for (int d = 0; d < 3; d++) centre[d] = sm[d] - rb[d];
    for (int k = 0; k < ns; k++) {
        double r[3], dist2 = 0.0;
        mc_quat_rotate(*q, b[k], r);
        for (int d = 0; d < 3; d++) dist2 += (centre[d] + r[d] - s[3 * k + d]) * (centre[d] + r[d] - s[3 * k + d]);
        worst = fmax(worst, sqrt(dist2));
    }
    return worst;
}

/* Site i's line: its species (the plan's name checked, unless any_name: atoms of the one species
 * of a run without [mixture], which has no name of the user's) and position, into pos[3]. */
static int read_site(const mc_plan *p, const char *path, int ln, const char *line, int i, int shift, int any_name,
                     double pos[3], mc_err *err)
{
    char name[64], coord[3][64];
    if (sscanf(line, "%63s %63s %63s %63s", name, coord[0], coord[1], coord[2]) != 4)
        MC_FAIL(err, MC_EINVAL, "%s:%d: expected SPECIES x y z", path, ln);
    for (int d = 0; d < 3; d++)
        if (!mc_xyz_coordinate(coord[d], shift, &pos[d]))
            MC_FAIL(err, MC_EINVAL, "%s:%d: '%s': expected a finite number", path, ln, coord[d]);
    const int a = p->rigid ? p->mol.site_species[i] : mc_species_of(&p->species, i);
    if (!any_name && strcmp(name, p->species.name[a]) != 0) {
        if (p->rigid)
            MC_FAIL(err, MC_EINVAL, "%s:%d: site %d is %s, expected %s: site %d of molecule %d (type %s) in [molecules] "
                    "order", path, ln, i, name, p->species.name[a], i - p->mol.first[p->mol.site_mol[i]],
                    p->mol.site_mol[i], p->mol.type[p->mol.mol_type[p->mol.site_mol[i]]].name);
        MC_FAIL(err, MC_EINVAL, "%s:%d: atom %d is %s, expected %s (atoms in [mixture] species order)", path, ln, i,
                name, p->species.name[a]);
    }
    return MC_OK;
}

/* Molecule m's sites (pos, [site][3]) made whole across the box (each by its minimum image from the
 * first), fitted, its centre folded into the box. */
static int place_molecule(mc_plan *p, const char *path, int ln, int m, const double *pos, double box, mc_err *err)
{
    const int f0 = p->mol.first[m], ns = p->mol.first[m + 1] - f0;
    const mc_moltype *type = &p->mol.type[p->mol.mol_type[m]];
    double s[3 * MC_MAX_SITES], centre[3];
    for (int k = 0; k < ns; k++)
        for (int d = 0; d < 3; d++) {
            const double v = pos[3 * (f0 + k) + d], first = pos[3 * f0 + d];
            s[3 * k + d] = box > 0 ? first + mc_rigid_separation(v - first, box) : v;
        }
    mc_quat q;
    const double off = fit_molecule(ns, (const double(*)[3])type->body, s, centre, &q);
    if (!(off <= MC_START_XYZ_TOLERANCE))
        MC_FAIL(err, MC_EINVAL, "%s:%d: molecule %d (type %s): a site lies %.3g %s from the type's geometry placed as "
                "near its sites as it goes (at most %g): expected the sites of [molecules] geometry, in their order",
                path, ln, m, type->name, off, p->units.length, MC_START_XYZ_TOLERANCE);
    for (int d = 0; d < 3; d++) {
        if (box > 0) centre[d] -= box * floor(centre[d] / box);
        if (box > 0 && centre[d] >= box) centre[d] = 0.0; /* -tiny folds to box itself */
        p->frames.points[3 * m + d] = centre[d];
    }
    memcpy(&p->frames.quats[4 * m], &q, sizeof q);
    return MC_OK;
}

int mc_start_xyz_load(mc_plan *p, const cfg *c, const char *text, mc_err *err)
{
    const char *path = p->start_file;
    xyz_frame f;
    int shift;
    double box;
    MC_TRY(read_frame(c, path, text, &f, &shift, &box, err));
    /* no Lattice in a periodic run: the frame is taken to lie in the smallest state point's box
     * (its density given), which its molecules are made whole in and the others scale it from */
    if (box == 0 && p->periodic) box = mc_plan_smallest_box(p);
    if (f.count != p->n)
        MC_FAIL(err, MC_EINVAL, "%s:%d: %d sites, expected %d (every %s the config counts, in its order)", path,
                f.count_line, f.count, p->n, p->rigid ? "site of the molecules" : "atom");
    mc_start_frames *fr = &p->frames;
    const size_t npoints = p->rigid ? (size_t)p->nmol : (size_t)p->n;
    double *pos = malloc(3 * (size_t)p->n * sizeof *pos);
    fr->points = malloc(3 * npoints * sizeof *fr->points);
    fr->quats = p->rigid ? malloc(4 * npoints * sizeof *fr->quats) : NULL;
    fr->box = malloc(sizeof *fr->box);
    if (!pos || !fr->points || (p->rigid && !fr->quats) || !fr->box) { /* (the plan frees the frames) */
        free(pos);
        MC_FAIL(err, MC_ENOMEM, "out of memory for the start of %s", path);
    }
    const char *at = f.sites;
    char line[4096];
    int rc = MC_OK, ln = f.count_line + 2;
    for (int i = 0; rc == MC_OK && i < p->n && take_line(&at, line, sizeof line); i++, ln++)
        rc = read_site(p, path, ln, line, i, shift, !p->rigid && !c->mixture.species, &pos[3 * i], err);
    for (int m = 0; rc == MC_OK && p->rigid && m < p->nmol; m++)
        rc = place_molecule(p, path, f.count_line + 2 + p->mol.first[m], m, pos, box, err);
    if (rc == MC_OK && !p->rigid) memcpy(fr->points, pos, 3 * npoints * sizeof *pos);
    free(pos);
    MC_TRY(rc);
    fr->box[0] = box;
    fr->first_chain = -1, fr->nframes = 1, fr->npoints = (int)npoints;
    return MC_OK;
}
