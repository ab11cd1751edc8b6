/* h5out_coulomb: the Coulomb method's parameters as the run took them (h5out_coulomb.h). */
#include "h5out_coulomb.h"

/* Charged sites: the Ewald sum's parameters as the run took them (chosen from ewald_precision
 * where the config did not give them), as attributes of /ewald. */
static int write_ewald(const h5ds *f, const mc_plan *plan, mc_err *err)
{
    hid_t g = h5ds_make_group(f->file, "ewald");
    if (g < 0) MC_FAIL(err, MC_EHDF5, "cannot create /ewald");
    const ewald_kspace *k = &plan->kspace;
    const long kmax = k->kmax, ksq_max = k->ksq_max, vectors = k->nk;
    int rc = h5ds_set_scalar_attr(g, "alpha", H5T_NATIVE_DOUBLE, &k->alpha, err);
    if (rc == MC_OK) rc = h5ds_set_scalar_attr(g, "coulomb_cutoff", H5T_NATIVE_DOUBLE, &plan->species.coulomb_cutoff, err);
    if (rc == MC_OK) rc = h5ds_set_scalar_attr(g, "kmax", H5T_NATIVE_LONG, &kmax, err);
    if (rc == MC_OK) rc = h5ds_set_scalar_attr(g, "ksq_max", H5T_NATIVE_LONG, &ksq_max, err);
    if (rc == MC_OK) rc = h5ds_set_scalar_attr(g, "wave_vectors", H5T_NATIVE_LONG, &vectors, err);
    if (rc == MC_OK) rc = h5ds_set_scalar_attr(g, "coulomb_constant", H5T_NATIVE_DOUBLE, &k->k_e, err);
    if (rc == MC_OK)
        rc = h5ds_set_string_attr(g, "description", "the Ewald sum as run: alpha (1/length), the real-space cutoff "
                                  "(length), the wave vectors k = 2 pi n / L with every n_i in -kmax..kmax and n^2 <= "
                                  "ksq_max (wave_vectors: the half set), Coulomb's constant (energy x length / e^2)", err);
    return h5ds_close_group(g, "/ewald", rc, err);
}

/* coulomb = dsf: the damped shifted force as run (dsf_alpha chosen from the cutoff where the config
 * did not give it), as attributes of /dsf. */
static int write_dsf(const h5ds *f, const mc_plan *plan, mc_err *err)
{
    hid_t g = h5ds_make_group(f->file, "dsf");
    if (g < 0) MC_FAIL(err, MC_EHDF5, "cannot create /dsf");
    const mc_species *sp = &plan->species;
    int rc = h5ds_set_scalar_attr(g, "alpha", H5T_NATIVE_DOUBLE, &sp->coulomb_alpha, err);
    if (rc == MC_OK) rc = h5ds_set_scalar_attr(g, "coulomb_cutoff", H5T_NATIVE_DOUBLE, &sp->coulomb_cutoff, err);
    if (rc == MC_OK) rc = h5ds_set_scalar_attr(g, "coulomb_constant", H5T_NATIVE_DOUBLE, &sp->coulomb_k_e, err);
    if (rc == MC_OK)
        rc = h5ds_set_string_attr(g, "description", "the damped shifted force as run (Fennell and Gezelter 2006): "
                                  "alpha, the damping (1/length), the cutoff (length), Coulomb's constant (energy x "
                                  "length / e^2)", err);
    return h5ds_close_group(g, "/dsf", rc, err);
}

int h5out_coulomb_write(const h5ds *f, const mc_plan *plan, mc_err *err)
{
    if (plan->ewald) return write_ewald(f, plan, err);
    if (plan->charged) return write_dsf(f, plan, err);
    return MC_OK;
}
