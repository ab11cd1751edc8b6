/* cu_rigid: the CUDA backend's path for molecules (plan->rigid), called from cu_backend.cu, which
 * holds the one mc_backend_ops of the GPU. Its state is opaque; every call returns an mc status. */
#ifndef CU_RIGID_H
#define CU_RIGID_H

#include "mc_backend.h"
#include "mc_chain.h"
#include "mc_err.h"
#include "mc_plan.h"

typedef struct cu_rigid cu_rigid;

/* Device copies of the chains' sites, centres and orientations and the molecule tables; the
 * chains' running energies are set from a host recomputation. NULL on failure. */
cu_rigid *cu_rigid_create(const mc_plan *plan, mc_chain **chains, int nchains, mc_err *err);
void cu_rigid_destroy(cu_rigid *r);
/* molecules-batched (cu_rigid_batch.cu) or molecules-resident: mc_backend_ops.path's word */
const char *cu_rigid_path(const cu_rigid *r);

/* nsweeps sweeps of nmol molecule moves on every chain; the chains' counters and running energies
 * come back to the host. */
int cu_rigid_sweep(cu_rigid *r, long nsweeps, mc_err *err);

/* Energy and virial of every chain recomputed on the device in the run's pair precision (the
 * running energies restart from them); with add_sample also, on the device, the sample's RDF counts
 * (added to the host chains' at once) and an open cluster's Lindemann sums (kept on the device:
 * cu_rigid_fetch_sums), counted and binned as mc_rigid_measure counts them. */
int cu_rigid_measure(cu_rigid *r, int add_sample, mc_measurement *out, mc_err *err);

/* npt, trial: each chain's energy scaled by scale[k] (mc_rigid_scale on the host, the energy on
 * the device in the run's precision) into energy[k] for scale[k] != 1. Changes no chain. */
int cu_rigid_volume_energy(cu_rigid *r, const double *scale, double *energy, mc_err *err);

/* The Boltzmann factor sums of `insertions` test molecules of `type` in each chain (the host's
 * mc_rigid_widom_sum on the chains' sites, fetched, with charges on each chain's structure factors
 * as the device keeps them) into sums[chain]. */
int cu_rigid_widom(cu_rigid *r, int type, int insertions, long draw, double *sums, mc_err *err);

/* Sites, centres and orientations to the host chains. */
int cu_rigid_fetch(cu_rigid *r, mc_err *err);

/* An open cluster's Lindemann sums to the host chains (nothing otherwise): before the host reads
 * the chains' state (checkpoints, trajectories, results). */
int cu_rigid_fetch_sums(cu_rigid *r, mc_err *err);

/* The host chains' scalars (boxes, steps, energies) to the device, and with positions their
 * sites, centres and orientations too (after the host changed them: a volume move), and the
 * structure factors of the chains with changed[k] (host memory; NULL: every chain). */
int cu_rigid_upload(cu_rigid *r, int positions, const unsigned char *changed, mc_err *err);

/* The backend's mask of changed chains ([nchains], host memory), cleared: the caller marks the
 * chains it changed (a swap, a volume step) and passes it to cu_rigid_upload. */
unsigned char *cu_rigid_changed_mask(cu_rigid *r);

#endif
