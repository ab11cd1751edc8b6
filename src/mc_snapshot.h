/* mc_snapshot: which production samples become trajectory frames (H5MD /particles, io/traj.c).
 * With [output] snapshot_every = K > 0, frame j is the configuration at sample (j + 1) K while that
 * comes before the last sample; the last frame is always the end of the run. K = 0 keeps the final
 * configuration only. Pure arithmetic on the plan, so that the writer, the checkpoint (which frames
 * exist when a run resumes) and the size checks agree. */
#ifndef MC_SNAPSHOT_H
#define MC_SNAPSHOT_H

#include "mc_plan.h"

/* Frames before the final one. */
static inline long mc_snapshot_regular_frames(const mc_plan *p)
{
    return p->snapshot_every > 0 && p->nsamples > 0 ? (p->nsamples - 1) / p->snapshot_every : 0;
}

static inline long mc_snapshot_frames(const mc_plan *p) { return mc_snapshot_regular_frames(p) + 1; }

/* The number of samples taken when frame j was (the final frame: all of them). */
static inline long mc_snapshot_samples_at(const mc_plan *p, long j)
{
    return j < mc_snapshot_regular_frames(p) ? (j + 1) * p->snapshot_every : p->nsamples;
}

/* The sweep count (equilibration included) at frame j. */
static inline long mc_snapshot_sweep_at(const mc_plan *p, long j)
{
    return p->equilibration_sweeps + mc_snapshot_samples_at(p, j) * p->sample_every_sweeps;
}

/* The regular frame that falls due once `samples` samples are taken, or -1. */
static inline long mc_snapshot_due(const mc_plan *p, long samples)
{
    if (p->snapshot_every <= 0 || samples <= 0 || samples % p->snapshot_every != 0) return -1;
    long j = samples / p->snapshot_every - 1;
    return j < mc_snapshot_regular_frames(p) ? j : -1;
}

/* Bytes of one frame of every chain: positions, box vectors (3 x 3), and for molecules centres and
 * quaternions (float64). */
static inline double mc_snapshot_frame_bytes(const mc_plan *p)
{
    double per_chain = 24.0 * p->n + (p->periodic ? 72.0 : 0.0) + (p->rigid ? 56.0 * p->nmol : 0.0);
    return per_chain * p->nchains;
}

#endif
