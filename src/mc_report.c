/* mc_report: what mcens prints for a person: the plan, the memory and files and the wall time of
 * a run (mcens --dry-run), and the tables of results at its end. */
#include "mc_report.h"

#include <math.h>
#include <stdio.h>

#include "mc_chain_state.h"
#include "mc_equilibration.h"
#include "mc_exchange.h"
#include "mc_gibbs.h"
#include "mc_observable.h"
#include "mc_snapshot.h"

/* What the run will hold and write, from the table of a chain's state (mc_chain_state): the host
 * copy of the chains of the largest rank, the GPU copy (positions in the kernel precision and the
 * RDF histograms), and the files. Estimates: scratch and HDF5 metadata come on top. */
static void print_footprint(const cfg *c, const mc_plan *p, const char *output, int chains_per_rank)
{
    double state = (double)mc_state_bytes_per_chain(p), host = (double)mc_plan_host_bytes_per_chain(p);
    double real_bytes = p->precision == CFG_PRECISION_SINGLE ? 4.0 : 8.0;
    double gpu = 3.0 * p->n * real_bytes + 8.0 * mc_chain_rdf_rows(p) * p->rdf_bins +
                 (p->rigid ? 7.0 * p->nmol * real_bytes : 0.0);
    printf("\nmemory per rank (the largest, %d chains): host about %.4g MB of chains, GPU about %.4g MB\n",
           chains_per_rank, chains_per_rank * host / 1e6, chains_per_rank * gpu / 1e6);
    printf("files: %s about %.4g MB (trajectory: %ld frames of %.4g MB); checkpoint %s.ckpt about %.4g MB, %s\n",
           output, (p->nchains * state + mc_snapshot_frames(p) * mc_snapshot_frame_bytes(p)) / 1e6,
           mc_snapshot_frames(p), mc_snapshot_frame_bytes(p) / 1e6, output, p->nchains * state / 1e6,
           c->run.checkpoint_every_min > 0 ? "rewritten every [run] checkpoint_every minutes"
                                           : "only on a stop signal ([run] checkpoint_every = 0)");
}

/* A duration for a person: seconds, minutes, hours or days, three digits. */
static void print_duration(double s)
{
    if (s < 120.0) printf("%.3g s", s);
    else if (s < 7200.0) printf("%.3g min", s / 60.0);
    else if (s < 172800.0) printf("%.3g h", s / 3600.0);
    else printf("%.3g days", s / 86400.0);
}

/* The wall time on this machine, and what it rests on. */
static void print_wall_time(const mc_plan *p, const mc_report_time *t)
{
    if (!isfinite(t->seconds)) {
        printf("time: not estimated%s%s\n", t->why_not ? ": " : "", t->why_not ? t->why_not : "");
        return;
    }
    printf("time: about ");
    print_duration(t->seconds);
    printf(" on this machine with %d rank%s%s (rank 0's chains: %.3g ms a sweep over %ld timed sweeps, %.3g ms a "
           "measurement", t->ranks, t->ranks == 1 ? "" : "s", t->restart ? ", the whole run (a restart runs only what is left)" : "",
           1e3 * t->cost.sweep_seconds, t->cost.sweeps_timed, 1e3 * t->cost.measure_seconds);
    if (p->widom_insertions) printf(", %.3g ms a sample's Widom insertions", 1e3 * t->cost.widom_seconds);
    printf("; timed from the starting configuration, which an NPT or Gibbs run leaves; replica exchange, checkpoints "
           "and the output come on top)\n");
}

void mc_report_plan(const cfg *c, const mc_plan *p, const char *output, int chains_per_rank,
                    const mc_report_time *time)
{
    if (p->ensemble->open) {
        printf("\nstate points: %d x %d replicas x %d windows = %d chains of up to n_max = %d particles in a box of "
               "edge %g; ln Pi over N = %d..%d%s\n", p->nstatepoints, p->replicas / p->tmmc_windows, p->tmmc_windows,
               p->nchains, p->tmmc_n_max, p->statepoint[0].box_len, p->tmmc_n_min, p->tmmc_n_max,
               p->tmmc_bias ? ", moves biased by each chain's estimate" : "");
    for (int a = 0; p->ensemble->open && p->species.n > 1 && a < p->species.n; a++)
        printf("%s species %s at ln z + %g%s", a ? "," : "gcmc:", p->species.name[a], p->kind_lnz[a],
               a + 1 < p->species.n ? "" : " (n_max slots each)\n");
    } else {
        printf("\nstate points: %d x %d replicas = %d chains of n = %d\n", p->nstatepoints, p->replicas, p->nchains,
               p->n);
    }
    printf("units: %s\n", p->units.system);
    if (p->exchange_every)
        printf("replica exchange: %d ladders of %d rungs along %s, neighbours try to swap every %ld sweeps\n",
               mc_exchange_ladders(p), mc_exchange_rungs(p), mc_exchange_axis_name(p), p->exchange_every);
    if (p->ensemble->boxes > 1)
        printf("gibbs: two boxes per chain, total volume %g (the box column: each box's starting edge, half the "
               "volume each); trial moves %g displacements, %g transfers, %g volume exchanges\n", p->total_volume,
               p->move_fraction[0], p->move_fraction[1], p->move_fraction[2]);
    if (p->ensemble->open)
        printf("gcmc: trial moves %g displacements, %g insertions and deletions (half each), a sweep n_max = %d "
               "of them\n", p->move_fraction[0], p->move_fraction[1], p->tmmc_n_max);
    printf("%6s %12s %12s %12s%s\n", "point", "T", p->ensemble->open ? "ln z" : "density", "box",
           p->ensemble->imposed_pressure ? "            P" : "");
    for (int s = 0; s < p->nstatepoints; s++) {
        printf("%6d %12.6g %12.6g %12.6g", s, p->statepoint[s].temperature_given,
               p->ensemble->open ? p->statepoint[s].lnz : p->statepoint[s].density, p->statepoint[s].box_len);
        if (p->ensemble->imposed_pressure) printf(" %12.6g", p->statepoint[s].pressure_given);
        printf("\n");
    }
    print_footprint(c, p, output, chains_per_rank);
    print_wall_time(p, time);
    printf("\nsettings (defaults marked):\n");
    cfg_print(c, stdout);
}

void mc_report_energy(const mc_plan *p, const double (*terms)[MC_NENERGY_TERMS])
{
    printf("\nenergy of each chain's starting configuration (%s):\n%6s %6s", p->units.energy, "chain", "point");
    for (int t = 0; t < MC_NENERGY_TERMS; t++)
        if (mc_energy_applies(p, t)) printf(" %22s", mc_energy_rows[t].name);
    printf("\n");
    for (int k = 0; k < p->nchains; k++) {
        printf("%6d %6d", k, mc_plan_statepoint_of(p, k));
        for (int t = 0; t < MC_NENERGY_TERMS; t++)
            if (mc_energy_applies(p, t)) printf(" %22.15g", terms[k][t]);
        printf("\n");
    }
}

/* An open cluster has no volume, hence no density or pressure: its columns are C_V/N and the
 * Lindemann index instead, the observables that mark melting (the index not with exchange). */
static void print_cluster_summary(const mc_plan *p, const mc_results *r)
{
    const mc_estimate *lindemann = r->obs[MC_OBS_LINDEMANN];
    printf("\n%6s %10s %24s %24s %18s %8s\n", "point", "T", "U/N", "C_V/N", lindemann ? "Lindemann" : "",
           "accept");
    for (int s = 0; s < p->nstatepoints; s++) {
        /* one chain per temperature has no spread over replicas: the Lindemann error is absent */
        char lindemann_text[40] = "";
        if (lindemann && isfinite(lindemann[s].error))
            snprintf(lindemann_text, sizeof lindemann_text, "%8.4f +- %.4f", lindemann[s].mean, lindemann[s].error);
        else if (lindemann)
            snprintf(lindemann_text, sizeof lindemann_text, "%8.4f", lindemann[s].mean);
        printf("%6d %10.5g %12.6f +- %-9.6f %12.4f +- %-9.4f %-18s %8.4f\n", s, p->statepoint[s].temperature_given,
               r->obs[MC_OBS_ENERGY][s].mean, r->obs[MC_OBS_ENERGY][s].error, r->obs[MC_OBS_HEAT_CAPACITY][s].mean,
               r->obs[MC_OBS_HEAT_CAPACITY][s].error, lindemann_text, r->obs[MC_OBS_ACCEPTANCE][s].mean);
    }
}

/* Replica exchange: each state point's swap acceptance with the next rung up, and how far the
 * walkers travelled (a ladder a walker never crosses has not mixed its ends). */
static void print_exchange_summary(const mc_plan *p, const mc_results *r)
{
    printf("\nreplica exchange every %ld sweeps along %s; each state point's swaps with the next rung up its "
           "ladder accepted:\n", p->exchange_every, mc_exchange_axis_name(p));
    for (int s = 0, shown = 0; s < p->nstatepoints; s++) {
        if (isnan(r->exchange_acceptance[s])) continue;
        printf("  %d: %.3f%s", s, r->exchange_acceptance[s], ++shown % 8 == 0 ? "\n" : "");
    }
    double trips = 0.0, fewest = INFINITY;
    for (int w = 0; w < p->nchains; w++)
        trips += 0.5 * (double)r->walker_traversals[w], fewest = fmin(fewest, 0.5 * (double)r->walker_traversals[w]);
    printf("\nround trips per walker over the whole run (bottom to top and back): mean %.1f, fewest %.1f\n",
           trips / p->nchains, fewest);
}

/* Gibbs: the coexisting phases over the chains whose boxes separated (the others are counted). */
static void print_gibbs_summary(const mc_plan *p, const mc_results *r)
{
    printf("\n%6s %10s %5s %22s %22s %22s %22s %22s %22s\n", "point", "T", "sep", "rho_liquid", "rho_vapour",
           "U/N liquid", "U/N vapour", "P liquid", "P vapour");
    static const int cols[] = {MC_OBS_LIQUID_DENSITY, MC_OBS_VAPOUR_DENSITY, MC_OBS_LIQUID_ENERGY,
                               MC_OBS_VAPOUR_ENERGY, MC_OBS_LIQUID_PRESSURE, MC_OBS_VAPOUR_PRESSURE};
    for (int s = 0; s < p->nstatepoints; s++) {
        int separated = 0;
        for (int k = s * p->replicas; k < (s + 1) * p->replicas; k++)
            separated += r->chain_obs[MC_OBS_SEPARATION][k].mean > MC_GIBBS_SEPARATED;
        printf("%6d %10.5g %2d/%-2d", s, p->statepoint[s].temperature_given, separated, p->replicas);
        for (int i = 0; i < 6; i++) {
            double f = mc_unit_factor(&p->units, mc_observables[cols[i]].unit);
            printf(" %10.6f +- %-8.6f", r->obs[cols[i]][s].mean * f, r->obs[cols[i]][s].error * f);
        }
        printf("\n");
    }
    printf("\n%6s %10s %22s %22s %10s %10s %10s\n", "point", "T", "mu liquid", "mu vapour", "displace", "transfer",
           "volume");
    for (int s = 0; s < p->nstatepoints; s++) {
        const mc_estimate *mu = p->widom_insertions ? &r->mu_excess[(size_t)s * p->widom_kinds] : NULL;
        char text[2][48] = {"(widom = 0)", "(widom = 0)"};
        for (int ph = 0; mu && ph < 2; ph++) /* species 0 of each phase */
            snprintf(text[ph], sizeof text[ph], "%10.6f +- %-8.6f", mu[ph * p->species.n].mean, mu[ph * p->species.n].error);
        printf("%6d %10.5g %22s %22s %10.4f %10.4f %10.4f\n", s, p->statepoint[s].temperature_given, text[0], text[1],
               r->obs[MC_OBS_DISPLACEMENT_ACCEPTANCE][s].mean, r->obs[MC_OBS_TRANSFER_ACCEPTANCE][s].mean,
               r->obs[MC_OBS_VOLUME_ACCEPTANCE][s].mean);
    }
    printf("sep: chains whose boxes separated into two phases (/chains/separation > %g), the only ones pooled above\n",
           MC_GIBBS_SEPARATED);
}

/* gcmc: what ln Pi(N) says at each state point's own activity (its reweighting, the isotherm and
 * the coexistence: mcens-analyze tmmc), how complete it is, and the moves' acceptance. */
static void print_gcmc_summary(const mc_plan *p, const mc_results *r)
{
    const mc_tmmc_results *t = r->tmmc;
    const double volume = pow(p->statepoint[0].box_len, 3);
    printf("\n%6s %10s %10s %10s %12s %8s %22s %10s %10s\n", "point", "T", "ln z", "<N>", "density", "missing",
           "ln Pi stderr (max)", "displace", "in/out");
    for (int s = 0; s < p->nstatepoints; s++) {
        double worst = 0.0;
        for (int i = 0; i < t->nmacro; i++) worst = fmax(worst, t->ln_pi_stderr[(size_t)s * t->nmacro + i]);
        printf("%6d %10.5g %10.5g %10.4f %12.6g %8d %22.4g %10.4f %10.4f\n", s, p->statepoint[s].temperature_given,
               p->statepoint[s].lnz, t->n_mean[s], t->n_mean[s] / volume, t->missing[s],
               p->replicas / p->tmmc_windows > 1 ? worst : NAN, r->obs[MC_OBS_DISPLACEMENT_ACCEPTANCE][s].mean,
               r->obs[MC_OBS_TRANSFER_ACCEPTANCE][s].mean);
    }
    printf("<N>, density: of ln Pi at the point's own ln z (/results/tmmc); missing: transitions N -> N + 1 without "
           "data (0: ln Pi is complete); reweight and find coexistence with mcens-analyze tmmc\n");
}

void mc_report_summary(const mc_plan *p, const mc_results *r)
{
    printf("\nunits: %s", p->units.system);
    if (p->ensemble->open) {
        print_gcmc_summary(p, r);
    } else if (p->ensemble->boxes > 1) {
        print_gibbs_summary(p, r);
    } else if (p->rigid && !p->periodic) {
        print_cluster_summary(p, r);
    } else {
        /* a state point's axis: its density, or under an imposed pressure that pressure (the start
         * density is not the state's; the density measured is in the table below) */
        const int npt = p->ensemble->imposed_pressure != 0;
        printf("\n%6s %10s %10s %24s %24s %8s\n", "point", "T", npt ? "P imposed" : "density", "U/N", "P", "accept");
        for (int s = 0; s < p->nstatepoints; s++)
            printf("%6d %10.5g %10.5g %12.6f +- %-9.6f %12.6f +- %-9.6f %8.4f\n", s, p->statepoint[s].temperature_given,
                   npt ? p->statepoint[s].pressure_given : p->statepoint[s].density, r->obs[MC_OBS_ENERGY][s].mean,
                   r->obs[MC_OBS_ENERGY][s].error, r->obs[MC_OBS_PRESSURE][s].mean * p->units.pressure_factor,
                   r->obs[MC_OBS_PRESSURE][s].error * p->units.pressure_factor, r->obs[MC_OBS_ACCEPTANCE][s].mean);
    }
    if (p->ensemble->imposed_pressure) {
        printf("\n%6s %10s %10s %24s %24s %8s\n", "point", "T", "P", "density", "H/N", "V acc");
        for (int s = 0; s < p->nstatepoints; s++)
            printf("%6d %10.5g %10.5g %12.6f +- %-9.6f %12.6f +- %-9.6f %8.4f\n", s,
                   p->statepoint[s].temperature_given, p->statepoint[s].pressure_given,
                   r->obs[MC_OBS_DENSITY][s].mean, r->obs[MC_OBS_DENSITY][s].error, r->obs[MC_OBS_ENTHALPY][s].mean,
                   r->obs[MC_OBS_ENTHALPY][s].error, r->obs[MC_OBS_VOLUME_ACCEPTANCE][s].mean);
    }
    if (p->exchange_every) print_exchange_summary(p, r);
}

/* Replica exchange whose neighbouring rungs never swapped: the ladder is broken there, and each
 * side samples alone. Names the pair and a rung to put between them (the geometric mean of two
 * temperatures, where a ladder's acceptance is roughly even; the middle of two pressures). */
void mc_report_warn_no_exchange(const mc_plan *p, const mc_results *r)
{
    if (!p->exchange_every) return;
    const int axis = p->exchange_axis; /* a new rung: T's geometric mean, else the middle */
    const char *name = axis == CFG_EXCHANGE_TEMPERATURE ? "T" : mc_exchange_axis_name(p);
    for (int s = 0; s < p->nstatepoints; s++) {
        const int chain = s * p->replicas, rung = mc_exchange_rung_of(p, chain);
        if (isnan(r->exchange_acceptance[s]) || r->exchange_acceptance[s] > 0 || rung + 1 >= mc_exchange_rungs(p))
            continue;
        const int up = mc_exchange_chain(p, mc_exchange_ladder_of(p, chain), rung + 1) / p->replicas;
        const double a = axis == CFG_EXCHANGE_PRESSURE ? p->statepoint[s].pressure_given
                         : axis == CFG_EXCHANGE_LNZ    ? p->statepoint[s].lnz
                                                       : p->statepoint[s].temperature_given,
                     b = axis == CFG_EXCHANGE_PRESSURE ? p->statepoint[up].pressure_given
                         : axis == CFG_EXCHANGE_LNZ    ? p->statepoint[up].lnz
                                                       : p->statepoint[up].temperature_given;
        fprintf(stderr, "mcens: warning: replica exchange between state points %d and %d (%s %g and %g) accepted none "
                "of its swaps: the rungs are too far apart and the ladder is broken there; add a rung between them, "
                "e.g. %s %.4g, or more\n", s, up, name, a, b, name,
                axis == CFG_EXCHANGE_TEMPERATURE ? sqrt(a * b) : 0.5 * (a + b));
    }
}

/* Chemical potentials that are infinite, each named with its likely cause: +inf where every test
 * insertion overlapped a particle (exp(-beta dU) was 0 in all of them: the fluid is too dense for
 * Widom insertion, and the value is only bounded below). They are written as they are, and the
 * run's exit status says so (main.c: EXIT_NOT_FINITE). (NaN stands for "absent", as elsewhere in
 * /results: the Gibbs ensemble's value where no chain's boxes separated, which the liquid_ and
 * vapour_ rows show too.) Every rank holds the same pooled results and counts alike; rank 0 (say)
 * prints. Returns how many values. */
long mc_report_warn_not_finite(const mc_plan *p, const mc_results *r, int say)
{
    if (!p->widom_insertions) return 0;
    const int gibbs = p->ensemble->boxes > 1, K = p->widom_kinds;
    long bad = 0;
    for (int s = 0; s < p->nstatepoints; s++)
        for (int k = 0; k < K; k++) {
            double mu = r->mu_excess[(size_t)s * K + k].mean;
            if (!isinf(mu)) continue;
            if (say && bad < 8)
                fprintf(stderr, "mcens: warning: /results/%s/mean[%d][%d] (T = %g, %s %d) is %g: %s\n",
                        gibbs ? "chemical_potential" : "mu_excess", s, k, p->statepoint[s].temperature_given,
                        gibbs ? "column" : "kind", k, mu,
                        mu > 0 ? "every test insertion overlapped a particle (exp(-beta dU) = 0 in all of them): "
                                   "the fluid is too dense for Widom insertion; the value is only bounded below"
                               : "a test insertion's Boltzmann factor overflowed (a temperature too low?)");
            bad++;
        }
    if (say && bad > 8) fprintf(stderr, "mcens: warning: ... %ld infinite values in all\n", bad);
    return bad;
}

/* Chains whose production was not stationary (mc_equilibration): their first and last thirds
 * differ beyond what chance allows over all the tests of the run (a 1% false alarm for the whole
 * run). Their averages stand in the file, but a warning names them. */
void mc_report_warn_not_stationary(const mc_plan *p, const mc_results *r)
{
    /* a biased gcmc chain walks over its window's N on purpose: its series drift by design */
    if (p->ensemble->open && p->tmmc_bias) return;
    long tests = 0, flagged = 0;
    for (int o = 0; o < MC_NOBS; o++)
        if (r->chain_equilibration[o] && p->nsamples >= MC_EQUILIBRATION_MIN_SAMPLES) tests += p->nchains;
    double z = mc_equilibration_threshold(tests, 0.01), worst = 0.0;
    int worst_chain = -1, worst_obs = 0;
    for (int o = 0; o < MC_NOBS; o++)
        for (int k = 0; r->chain_equilibration[o] && k < p->nchains; k++) {
            double d = fabs(r->chain_equilibration[o][k].drift_sigmas);
            if (!(d > z)) continue;
            flagged++;
            if (d > worst) worst = d, worst_chain = k, worst_obs = o;
        }
    if (!flagged) return;
    const mc_statepoint *sp = &p->statepoint[mc_plan_statepoint_of(p, worst_chain)];
    fprintf(stderr, "mcens: warning: %ld of %ld chain series were not stationary in production (their first and last "
            "thirds differ by more than %.2f standard errors); the worst, %s of chain %d (T = %g), by %.1f: "
            "equilibrate longer, or start nearer the state (/chains/NAME_drift, NAME_equilibration)\n", flagged, tests,
            z, mc_observables[worst_obs].name, worst_chain, sp->temperature_given, worst);
}
