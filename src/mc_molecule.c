/* mc_molecule: molecule types from the config (inline sites or XYZ files) and the site tables. */
#include "mc_molecule.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mc_size.h"
#include "mc_xyz.h"

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1])) *--end = '\0';
    return s;
}

/* Where a geometry's sites come from, for messages: the config line or the XYZ file's. */
typedef struct site_source {
    const char *file;
    int line;
} site_source;

/* The species of a site named `name`, or -1 with err set. Without [mixture] every site is of the one [potential]
 * species, which takes the name of the first site seen. */
static int site_species(mc_species *s, const cfg *c, const char *name, site_source at, mc_err *err)
{
    if (!c->mixture.species) {
        if (strcmp(s->name[0], "all") == 0 && strlen(name) < sizeof s->name[0]) strcpy(s->name[0], name);
        if (strcmp(s->name[0], name) == 0) return 0;
        mc_err_set(err, MC_EINVAL, "%s:%d: site species '%s': without [mixture] every site is the "
                   "[potential] species ('%s'); name more in [mixture] species", at.file, at.line, name,
                   s->name[0]);
        return -1;
    }
    for (int a = 0; a < s->n; a++)
        if (strcmp(s->name[a], name) == 0) return a;
    mc_err_set(err, MC_EINVAL, "%s:%d: site species '%s' is not in [mixture] species (%s)", at.file, at.line,
               name, c->mixture.species);
    return -1;
}

/* One site "SPECIES x y z" into site k of t, its coordinates times 10^shift (XYZ files in A read
 * into nm: shift -1). */
static int parse_site(mc_moltype *t, mc_species *s, const cfg *c, char *text, int shift, site_source at, mc_err *err)
{
    char name[64], coord[3][64], extra[2];
    double v[3];
    int ok = sscanf(text, "%63s %63s %63s %63s %1s", name, coord[0], coord[1], coord[2], extra) == 4;
    for (int d = 0; ok && d < 3; d++) ok = mc_xyz_coordinate(coord[d], shift, &v[d]);
    if (!ok) MC_FAIL(err, MC_EINVAL, "%s:%d: site '%s': expected SPECIES x y z", at.file, at.line, trim(text));
    if (t->nsites == MC_MAX_SITES)
        MC_FAIL(err, MC_EINVAL, "%s:%d: molecule %s: at most %d sites", at.file, at.line, t->name, MC_MAX_SITES);
    int a = site_species(s, c, name, at, err);
    if (a < 0) return err->code;
    t->species[t->nsites] = a;
    for (int d = 0; d < 3; d++) t->body[t->nsites][d] = v[d];
    t->nsites++;
    return MC_OK;
}

/* Relative to the config's directory unless absolute. */
static void sibling_path(const char *config, const char *name, char *out, size_t len)
{
    const char *slash = strrchr(config, '/');
    if (name[0] == '/' || !slash) snprintf(out, len, "%s", name);
    else snprintf(out, len, "%.*s/%s", (int)(slash - config), config, name);
}

/* An XYZ file: a count, a comment line (which may name the unit: xyz_unit_shift), then count lines
 * of SPECIES x y z. */
static int read_xyz(mc_moltype *t, mc_species *s, const cfg *c, const char *name, mc_err *err)
{
    char path[1024], line[512];
    sibling_path(c->filename, name, path, sizeof path);
    FILE *f = fopen(path, "r");
    if (!f)
        MC_FAIL(err, MC_EIO, "%s:%d: [molecules] geometry: cannot open '%s'", c->filename,
                cfg_line(c, "molecules", "geometry"), path);
    int count = -1, ln = 0, rc = MC_OK, shift = 0;
    while (rc == MC_OK && fgets(line, sizeof line, f)) {
        ln++;
        site_source at = {path, ln};
        if (ln == 1) {
            char *end;
            count = (int)strtol(line, &end, 10);
            if (end == line || *trim(end) || count < 1)
                rc = mc_err_set(err, MC_EINVAL, "%s:1: expected the number of sites", path);
        } else if (ln == 2) {
            rc = mc_xyz_unit_shift(c, path, 2, line, &shift, err);
        } else if (ln > 2 && ln <= count + 2) {
            rc = parse_site(t, s, c, line, shift, at, err);
        }
    }
    fclose(f);
    if (rc == MC_OK && t->nsites != count)
        rc = mc_err_set(err, MC_EINVAL, "%s: expected %d sites after the comment line, found %d", path,
                        count, t->nsites);
    return rc;
}

/* Inline "SPECIES x y z; SPECIES x y z". */
static int parse_inline(mc_moltype *t, mc_species *s, const cfg *c, char *text, mc_err *err)
{
    site_source at = {c->filename, cfg_line(c, "molecules", "geometry")};
    char *save = NULL;
    for (char *site = strtok_r(text, ";", &save); site; site = strtok_r(NULL, ";", &save))
        MC_TRY(parse_site(t, s, c, site, 0, at, err)); /* in the run's length unit */
    return MC_OK;
}

/* Recentre on the centre of mass and total the mass. */
static void recentre(mc_moltype *t, const mc_species *s)
{
    double com[3] = {0, 0, 0};
    t->mass = 0.0;
    for (int k = 0; k < t->nsites; k++) {
        double m = s->mass[t->species[k]];
        t->mass += m;
        for (int d = 0; d < 3; d++) com[d] += m * t->body[k][d];
    }
    for (int k = 0; k < t->nsites; k++)
        for (int d = 0; d < 3; d++) t->body[k][d] -= com[d] / t->mass;
}

static int list_names(mc_molecules *m, const cfg *c, mc_err *err)
{
    int line = cfg_line(c, "molecules", "types");
    char buf[512], *save = NULL;
    snprintf(buf, sizeof buf, "%s", c->molecules.types);
    m->ntypes = 0;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *name = trim(tok);
        if (m->ntypes == MC_MAX_MOLTYPES)
            MC_FAIL(err, MC_EINVAL, "%s:%d: [molecules] types: at most %d types", c->filename, line,
                    MC_MAX_MOLTYPES);
        if (!*name || strlen(name) >= sizeof m->type[0].name)
            MC_FAIL(err, MC_EINVAL, "%s:%d: [molecules] types: '%s': expected a name of 1 to 31 characters",
                    c->filename, line, name);
        strcpy(m->type[m->ntypes++].name, name);
    }
    const cfg_list *n = &c->molecules.counts;
    if (n->n != m->ntypes)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [molecules] counts: expected %d values, one per type, got %d",
                c->filename, cfg_line(c, "molecules", "counts"), m->ntypes, n->n);
    for (int t = 0; t < m->ntypes; t++) {
        if (n->v[t] != floor(n->v[t]))
            MC_FAIL(err, MC_EINVAL, "%s:%d: [molecules] counts: %g: expected whole numbers", c->filename,
                    cfg_line(c, "molecules", "counts"), n->v[t]);
        m->type[t].count = (int)n->v[t];
    }
    return MC_OK;
}

static int types_from_config(mc_molecules *m, mc_species *s, const cfg *c, mc_err *err)
{
    MC_TRY(list_names(m, c, err));
    char buf[4096], *save = NULL;
    if (strlen(c->molecules.geometry) >= sizeof buf)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [molecules] geometry: too long", c->filename,
                cfg_line(c, "molecules", "geometry"));
    strcpy(buf, c->molecules.geometry);
    int t = 0;
    for (char *tok = strtok_r(buf, "|", &save); tok; tok = strtok_r(NULL, "|", &save), t++) {
        char *g = trim(tok);
        if (t == m->ntypes) break;
        size_t len = strlen(g);
        if (len > 4 && strcmp(g + len - 4, ".xyz") == 0) MC_TRY(read_xyz(&m->type[t], s, c, g, err));
        else MC_TRY(parse_inline(&m->type[t], s, c, g, err));
    }
    if (t != m->ntypes)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [molecules] geometry: expected %d entries separated by |, one per type, "
                "got %d", c->filename, cfg_line(c, "molecules", "geometry"), m->ntypes, t);
    return MC_OK;
}

/* An open cluster of atoms: one single-site type per species. */
static void types_from_species(mc_molecules *m, const mc_species *s)
{
    m->ntypes = s->n;
    for (int a = 0; a < s->n; a++) {
        mc_moltype *t = &m->type[a];
        snprintf(t->name, sizeof t->name, "%s", s->name[a]);
        t->count = s->count[a];
        t->nsites = 1;
        t->species[0] = a;
    }
}

static int hard_cores(mc_molecules *m, const mc_species *s, const cfg *c, mc_err *err)
{
    const cfg_list *l = &c->mixture.hard_core;
    if (l->n && l->n != s->n)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [mixture] hard_core: expected %d values, one per species, got %d",
                c->filename, cfg_line(c, "mixture", "hard_core"), s->n, l->n);
    for (int a = 0; a < s->n; a++)
        for (int b = 0; b < s->n; b++) {
            double d = l->n ? l->v[a] + l->v[b] : 0.0;
            m->hard_core2[a][b] = d * d;
        }
    return MC_OK;
}

/* Site counts per species (the species' counts) and the intermolecular pairs of each species
 * pair. */
static void count_sites(mc_molecules *m, mc_species *s)
{
    int per_mol[MC_MAX_MOLTYPES][MC_MAX_SPECIES] = {{0}};
    memset(s->count, 0, sizeof s->count);
    for (int t = 0; t < m->ntypes; t++)
        for (int k = 0; k < m->type[t].nsites; k++) {
            per_mol[t][m->type[t].species[k]]++;
            s->count[m->type[t].species[k]] += m->type[t].count;
        }
    s->first[0] = 0; /* cumulative counts: the species fractions; sites are not in species blocks */
    for (int a = 0; a < s->n; a++) s->first[a + 1] = s->first[a] + s->count[a];
    for (int a = 0; a < s->n; a++)
        for (int b = a; b < s->n; b++) {
            double within = 0.0;
            for (int t = 0; t < m->ntypes; t++)
                within += (double)m->type[t].count * per_mol[t][a] * per_mol[t][b];
            double all = (double)s->count[a] * s->count[b];
            m->inter_pairs[mc_species_pair_index(s, a, b)] = a == b ? 0.5 * (all - within) : all - within;
        }
}

/* Molecule and site totals, summed in size_t: counts up to 1e8 per type of up to 64 sites wrapped
 * an int around (a 3.2e9-site total became a small buffer that the tables overran). Sites are held
 * to MC_MAX_PARTICLES, the bound of [system] n, so every site index and 4 nmol fit an int. */
static int count_totals(mc_molecules *m, const cfg *c, mc_err *err)
{
    size_t nmol = 0, nsites = 0;
    m->max_sites = 0;
    for (int t = 0; t < m->ntypes; t++) {
        nmol += (size_t)m->type[t].count; /* each at most 1e8 (the schema), four types: no wrap */
        nsites = mc_add_sat(nsites, mc_mul_sat((size_t)m->type[t].count, (size_t)m->type[t].nsites));
        if (m->type[t].nsites > m->max_sites) m->max_sites = m->type[t].nsites;
    }
    if (nsites > MC_MAX_PARTICLES)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [molecules] counts: the molecules have %zu sites in all; expected at most "
                "%d (the bound of [system] n)", c->filename, cfg_line(c, "molecules", "counts"), nsites,
                MC_MAX_PARTICLES);
    m->nmol = (int)nmol;
    m->nsites = (int)nsites;
    if (m->nmol < 1 || m->nsites < 2)
        MC_FAIL(err, MC_EINVAL, "%s: expected at least two sites in all (have %d molecules, %d sites)",
                c->filename, m->nmol, m->nsites);
    return MC_OK;
}

static int site_tables(mc_molecules *m, mc_err *err)
{
    m->mol_type = malloc((size_t)m->nmol * sizeof *m->mol_type);
    m->first = malloc((size_t)(m->nmol + 1) * sizeof *m->first);
    m->site_mol = malloc((size_t)m->nsites * sizeof *m->site_mol);
    m->site_species = malloc((size_t)m->nsites * sizeof *m->site_species);
    m->site_body = malloc(3 * (size_t)m->nsites * sizeof *m->site_body);
    if (!m->mol_type || !m->first || !m->site_mol || !m->site_species || !m->site_body)
        MC_FAIL(err, MC_ENOMEM, "out of memory for %d molecules", m->nmol);
    int mol = 0, site = 0;
    for (int t = 0; t < m->ntypes; t++)
        for (int i = 0; i < m->type[t].count; i++, mol++) {
            m->mol_type[mol] = t;
            m->first[mol] = site;
            for (int k = 0; k < m->type[t].nsites; k++, site++) {
                m->site_mol[site] = mol;
                m->site_species[site] = m->type[t].species[k];
                for (int d = 0; d < 3; d++) m->site_body[3 * site + d] = m->type[t].body[k][d];
            }
        }
    m->first[m->nmol] = site;
    return MC_OK;
}

/* Rotational degrees of freedom: 0 for one site, 2 for sites on a line, else 3. */
static int rotational_dof(const mc_moltype *t)
{
    if (t->nsites == 1) return 0;
    const double *a = t->body[0];
    int k = 1;
    double u[3] = {0, 0, 0};
    for (; k < t->nsites && u[0] * u[0] + u[1] * u[1] + u[2] * u[2] < 1e-20; k++)
        for (int d = 0; d < 3; d++) u[d] = t->body[k][d] - a[d];
    for (; k < t->nsites; k++) {
        double v[3] = {t->body[k][0] - a[0], t->body[k][1] - a[1], t->body[k][2] - a[2]};
        double cx = u[1] * v[2] - u[2] * v[1], cy = u[2] * v[0] - u[0] * v[2], cz = u[0] * v[1] - u[1] * v[0];
        double scale = (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (cx * cx + cy * cy + cz * cz > 1e-18 * scale) return 3;
    }
    return 2;
}

int mc_molecules_build(mc_molecules *m, mc_species *s, const cfg *c, mc_err *err)
{
    memset(m, 0, sizeof *m);
    if (c->molecules.types) MC_TRY(types_from_config(m, s, c, err));
    else types_from_species(m, s);
    for (int t = 0; t < m->ntypes; t++) recentre(&m->type[t], s);
    MC_TRY(hard_cores(m, s, c, err));
    MC_TRY(count_totals(m, c, err));
    count_sites(m, s);
    MC_TRY(site_tables(m, err));
    double kinetic = 0.0;
    for (int t = 0; t < m->ntypes; t++) kinetic += m->type[t].count * 0.5 * (3 + rotational_dof(&m->type[t]));
    m->kinetic_per_site = kinetic / m->nsites;
    if (c->molecules.types && cfg_line(c, "system", "n") && c->system.n != m->nsites)
        MC_FAIL(err, MC_EINVAL, "%s:%d: [system] n = %ld: the molecules have %d sites; give one or make "
                "them agree", c->filename, cfg_line(c, "system", "n"), c->system.n, m->nsites);
    return MC_OK;
}

void mc_molecules_fini(mc_molecules *m)
{
    if (!m) return;
    free(m->mol_type);
    free(m->first);
    free(m->site_mol);
    free(m->site_species);
    free(m->site_body);
    memset(m, 0, sizeof *m);
}

int mc_molecule_table_sites(const mc_molecules *m)
{
    return m->max_sites > MC_MOLECULE_TABLE_SITES ? m->max_sites : MC_MOLECULE_TABLE_SITES;
}

double mc_molecules_radius(const mc_molecules *m)
{
    double r = 0.0;
    for (int t = 0; t < m->ntypes; t++)
        for (int k = 0; k < m->type[t].nsites; k++) {
            const double *b = m->type[t].body[k];
            r = fmax(r, sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]));
        }
    return r;
}
