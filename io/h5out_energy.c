/* h5out_energy: /energy, the terms of every chain's configuration (h5out_energy.h). */
#include "h5out_energy.h"

#include "h5out_coulomb.h"

#include <stdlib.h>

int h5out_energy_write(const h5ds *f, const mc_plan *plan, const double (*terms)[MC_NENERGY_TERMS],
                       const char *config_text, mc_err *err)
{
    hid_t g = h5ds_make_group(f->file, "energy");
    if (g < 0) MC_FAIL(err, MC_EHDF5, "%s: cannot create /energy", f->part);
    const hsize_t dims[1] = {(hsize_t)plan->nchains};
    double *column = malloc((size_t)plan->nchains * sizeof *column);
    long *statepoint = malloc((size_t)plan->nchains * sizeof *statepoint);
    int rc = column && statepoint ? MC_OK : mc_err_set(err, MC_ENOMEM, "out of memory for /energy");
    for (int t = 0; rc == MC_OK && t < MC_NENERGY_TERMS; t++) {
        if (!mc_energy_applies(plan, t)) continue;
        for (int k = 0; k < plan->nchains; k++) column[k] = terms[k][t];
        rc = h5ds_write_whole(f, g, mc_energy_rows[t].name, H5T_NATIVE_DOUBLE, 1, dims, column, plan->units.energy,
                              mc_energy_rows[t].what, err);
    }
    for (int k = 0; rc == MC_OK && k < plan->nchains; k++) statepoint[k] = mc_plan_statepoint_of(plan, k);
    if (rc == MC_OK)
        rc = h5ds_write_whole(f, g, "statepoint", H5T_NATIVE_LONG, 1, dims, statepoint, "",
                              "each chain's state point, 0-based in the order the config's axes give them (mcens --dry-run lists them)", err);
    if (rc == MC_OK) rc = h5ds_set_string_attr(g, "config", config_text, err);
    if (rc == MC_OK) rc = h5ds_set_string_attr(g, "unit", plan->units.energy, err);
    free(column);
    free(statepoint);
    rc = h5ds_close_group(g, "/energy", rc, err);
    return rc == MC_OK ? h5out_coulomb_write(f, plan, err) : rc; /* the terms' alpha and cutoff beside them */
}
