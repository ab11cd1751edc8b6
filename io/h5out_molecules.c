/* h5out_molecules: the molecular parts of the output file: molecule types and each chain's frozen
 * rotation step (their centres and orientations are the trajectory's, traj.c). Their acceptances and the
 * Lindemann index are rows of mc_observables, written with the others by h5out.c. */
#include "h5out_molecules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int h5out_molecules_tables(const h5ds *f, const mc_plan *plan, mc_err *err)
{
    const mc_molecules *m = &plan->mol;
    hid_t g = h5ds_make_group(f->file, "molecules");
    if (g < 0) MC_FAIL(err, MC_EHDF5, "cannot create /molecules");
    char names[MC_MAX_MOLTYPES][H5DS_NAME_LEN];
    int count[MC_MAX_MOLTYPES], nsites[MC_MAX_MOLTYPES], species[MC_MAX_MOLTYPES * MC_MAX_SITES];
    double mass[MC_MAX_MOLTYPES], body[MC_MAX_MOLTYPES * MC_MAX_SITES][3];
    memset(body, 0, sizeof body);
    const int W = mc_molecule_table_sites(m); /* the tables' rows, packed at this width */
    for (int t = 0; t < m->ntypes; t++) {
        snprintf(names[t], H5DS_NAME_LEN, "%s", m->type[t].name);
        count[t] = m->type[t].count, nsites[t] = m->type[t].nsites, mass[t] = m->type[t].mass;
        for (int k = 0; k < W; k++) {
            species[t * W + k] = k < m->type[t].nsites ? m->type[t].species[k] : -1;
            if (k < m->type[t].nsites) memcpy(body[t * W + k], m->type[t].body[k], sizeof body[0]);
        }
    }
    hsize_t T = (hsize_t)m->ntypes, d1[1] = {T}, d2[2] = {T, (hsize_t)W}, d3[3] = {T, (hsize_t)W, 3};
    hsize_t dn[1] = {(hsize_t)m->nsites}, dm[1] = {(hsize_t)m->nmol};
    const mc_units *u = &plan->units;
    int rc = h5ds_write_names(f, g, "name", names, T, "molecule type names", err);
    if (rc == MC_OK)
        rc = h5ds_write_whole(f, g, "count", H5T_NATIVE_INT, 1, d1, count, "1", "molecules of each type per chain", err);
    if (rc == MC_OK)
        rc = h5ds_write_whole(f, g, "nsites", H5T_NATIVE_INT, 1, d1, nsites, "1", "sites of each type", err);
    if (rc == MC_OK)
        rc = h5ds_write_whole(f, g, "mass", H5T_NATIVE_DOUBLE, 1, d1, mass, u->real ? "g/mol" : "mass",
                         "mass of each type (sum of its sites)", err);
    if (rc == MC_OK)
        rc = h5ds_write_whole(f, g, "site_species", H5T_NATIVE_INT, 2, d2, species, "1",
                         "species (index into /species) of each site of each type; -1 past its sites", err);
    if (rc == MC_OK)
        rc = h5ds_write_whole(f, g, "site_body", H5T_NATIVE_DOUBLE, 3, d3, body, u->length,
                         "site coordinates in the molecule frame, from the centre of mass (0 past its sites)", err);
    if (rc == MC_OK)
        rc = h5ds_write_whole(f, g, "molecule_type", H5T_NATIVE_INT, 1, dm, m->mol_type, "1",
                         "type of each molecule of a chain (the order of /particles/chain_NNNNNN/centre)", err);
    if (rc == MC_OK)
        rc = h5ds_write_whole(f, g, "site_molecule", H5T_NATIVE_INT, 1, dn, m->site_mol, "1",
                         "molecule of each site of a chain (the order of /particles/chain_NNNNNN/position)", err);
    return h5ds_close_group(g, "/molecules", rc, err);
}

int h5out_molecules_chains(const h5ds *f, hid_t g, const mc_plan *plan, const mc_results *res, mc_err *err)
{
    hsize_t d1[1] = {(hsize_t)plan->nchains};
    return h5ds_write_whole(f, g, "max_rotation", H5T_NATIVE_DOUBLE, 1, d1, res->chain_max_rotation, "rad",
                             "maximum rotation angle in production (adapted in equilibration)", err);
}
