/* Checkpoints and output round trips (io/ckpt.c, io/h5out*.c, io/traj.c, io/h5start.c), on
 * MPI_COMM_WORLD of one rank: a checkpoint written part-way through production and read back into
 * fresh chains gives every field of the state table (mc_chain_state.h) bit for bit, for an nvt
 * fluid with Widom insertion, an npt fluid, a Gibbs chain and an open cluster of molecules with
 * replica exchange; a run resumed from it ends bit-identical to the uninterrupted run; another
 * config is refused. An output written as main() writes it gives back, read with HDF5, each chain's
 * energy series, and started from (start = h5) puts every chain at its final positions. */
#include "testutil.h"

#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ckpt.h"
#include "ens.h"
#include "h5out.h"
#include "h5start.h"
#include "mc_backend.h"
#include "mc_chain.h"
#include "mc_chain_state.h"
#include "mc_results.h"
#include "mc_run.h"
#include "traj.h"

static char dir[4096];

static const char *path_in(const char *name)
{
    static char p[2][4200];
    static int k;
    k = !k;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static mc_run *run_to(const mc_plan *p, long sweeps)
{
    mc_err err = {0, ""};
    mc_run *r = mc_run_create(p, &mc_backend_cpu, 0, p->nchains, &err);
    if (!r) fail_msg("run: %s", err.msg);
    while (mc_run_sweeps_done(r) < sweeps && !mc_run_finished(r))
        if (mc_run_round(r, &err) != MC_OK) fail_msg("round: %s", err.msg);
    if (mc_run_fetch(r, &err) != MC_OK) fail_msg("fetch: %s", err.msg);
    return r;
}

/* Every field of the state table of chains a and b equal byte for byte (a per-sample field: the
 * first nsamples columns of each of its [rows][plan->nsamples] rows, the samples taken); returns
 * the fields compared. */
static int compare_state(const mc_plan *p, mc_chain *a, mc_chain *b)
{
    int compared = 0;
    assert_int_equal(a->nsamples, b->nsamples);
    for (int k = 0; k < mc_state_nfields; k++) {
        const mc_state_field *f = &mc_state_fields[k];
        for (int o = 0; o < (f->series ? MC_NOBS : 1); o++) {
            if (!mc_state_present(f, p, o)) continue;
            size_t rows = f->per_sample ? f->count(p) : 1, len = f->per_sample ? (size_t)a->nsamples : f->count(p);
            size_t stride = f->per_sample ? (size_t)p->nsamples : 0;
            if (rows * len == 0) continue;
            const char *va = mc_state_values(f, a, o), *vb = mc_state_values(f, b, o);
            assert_non_null(va);
            assert_non_null(vb);
            for (size_t r = 0; r < rows; r++)
                if (memcmp(va + 8 * r * stride, vb + 8 * r * stride, 8 * len) != 0)
                    fail_msg("chain %d: field %s%s%s (row %zu) differs after the round trip", a->id, f->name,
                             f->series ? "_" : "", f->series ? mc_observables[o].name : "", r);
            compared++;
        }
    }
    return compared;
}

/* ckpt_restore, then chain 0's running energy made 1e-6 relative off what its positions give. */
static int restore_with_wrong_energy(void *ctx, mc_chain *const *chains, int nchains, long *sweeps_done, mc_err *err)
{
    int rc = ckpt_restore(ctx, chains, nchains, sweeps_done, err);
    chains[0]->energy_pair *= 1.0 + 1e-6;
    return rc;
}

/* min_fields: the fields (series: per observable) the plan's state has at 4d397f8, so a field
 * dropped from the table fails here */
static void ckpt_round_trip(const char *ini, int min_fields)
{
    mc_plan *p = tu_plan(ini);
    mc_err err = {0, ""};
    const long half = p->equilibration_sweeps + p->production_sweeps / 2;
    mc_run *r = run_to(p, half);
    assert_true(mc_run_sweeps_done(r) >= half && !mc_run_finished(r));
    assert_true(mc_run_chain(r, 0)->nsamples > 0);
    const char *path = path_in("state.ckpt");
    ckpt_info info = {ini, "test", "test-revision", "cpu", "double", p->production_sweeps, 0, 0};
    double bytes = 0, seconds = 0;
    if (ckpt_write(MPI_COMM_WORLD, path, &info, r, 0, &bytes, &seconds, &err) != MC_OK) fail_msg("write: %s", err.msg);
    assert_true(bytes > 0);

    ckpt *ck = ckpt_open(MPI_COMM_WORLD, path, &err);
    if (!ck) fail_msg("open: %s", err.msg);
    assert_int_equal(ckpt_sweeps_done(ck), mc_run_sweeps_done(r));
    assert_int_equal(ckpt_production_sweeps(ck), p->production_sweeps);
    assert_false(ckpt_finished(ck, p->equilibration_sweeps));
    assert_int_equal(ckpt_check(ck, &info, "test.ini", &err), MC_OK);
    ckpt_info other = info;
    other.config_text = "[run]\nseed = 1\n";
    assert_int_not_equal(ckpt_check(ck, &other, "test.ini", &err), MC_OK); /* another config: refused */
    ckpt_bind(ck, p, 0);
    mc_chain **fresh = calloc((size_t)p->nchains, sizeof *fresh);
    for (int k = 0; k < p->nchains; k++) {
        fresh[k] = mc_chain_create(p, k, &err);
        assert_non_null(fresh[k]);
    }
    long done = -1;
    if (ckpt_restore(ck, fresh, p->nchains, &done, &err) != MC_OK) fail_msg("restore: %s", err.msg);
    assert_int_equal(done, mc_run_sweeps_done(r));
    int fields = 0;
    for (int k = 0; k < p->nchains; k++) fields = compare_state(p, (mc_chain *)mc_run_chain(r, k), fresh[k]);
    if (fields < min_fields) fail_msg("only %d fields compared, expected at least %d", fields, min_fields);

    /* a running energy that the positions do not give (damage the checksums missed, a state saved
     * inconsistently) is refused on resuming, naming the chain */
    err = (mc_err){0, ""};
    mc_run *damaged = mc_run_resume(p, &mc_backend_cpu, 0, p->nchains, restore_with_wrong_energy, ck, &err);
    assert_null(damaged);
    assert_int_equal(err.code, MC_ECHECK);
    if (!strstr(err.msg, "the checkpoint's chain 0 after sweep") || !strstr(err.msg, "recomputed from its positions"))
        fail_msg("message: %s", err.msg);
    err = (mc_err){0, ""};

    /* resumed from the checkpoint, the run ends as the uninterrupted one does */
    mc_run *resumed = mc_run_resume(p, &mc_backend_cpu, 0, p->nchains, ckpt_restore, ck, &err);
    if (!resumed) fail_msg("resume: %s", err.msg);
    while (!mc_run_finished(r)) assert_int_equal(mc_run_round(r, &err), MC_OK);
    while (!mc_run_finished(resumed)) assert_int_equal(mc_run_round(resumed, &err), MC_OK);
    assert_int_equal(mc_run_fetch(r, &err), MC_OK);
    assert_int_equal(mc_run_fetch(resumed, &err), MC_OK);
    for (int k = 0; k < p->nchains; k++)
        compare_state(p, (mc_chain *)mc_run_chain(r, k), (mc_chain *)mc_run_chain(resumed, k));

    for (int k = 0; k < p->nchains; k++) mc_chain_destroy(fresh[k]);
    free(fresh);
    ckpt_close(ck);
    mc_run_destroy(resumed);
    mc_run_destroy(r);
    mc_plan_destroy(p);
    unlink(path);
}

static void ckpt_nvt_widom(void **state)
{
    (void)state;
    ckpt_round_trip("[system]\nn = 64\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1.2, 1.5\n"
                    "density = 0.5\nreplicas = 2\nwidom = 10\n[run]\nseed = 41\nequilibration = 20\n"
                    "production = 40\nsample_every = 5\n", 16);
}

static void ckpt_npt(void **state)
{
    (void)state;
    ckpt_round_trip("[system]\nn = 64\n[potential]\ncutoff = 2.5\n[ensemble]\ntype = npt\ntemperature = 1.5\n"
                    "pressure = 1.0\ndensity = 0.5\nreplicas = 2\n[run]\nseed = 42\nequilibration = 20\n"
                    "production = 40\nsample_every = 5\n", 23);
}

static void ckpt_gibbs(void **state)
{
    (void)state;
    ckpt_round_trip("[system]\nn = 100\n[potential]\ncutoff = 2.5\n[ensemble]\ntype = gibbs\ntemperature = 1.1\n"
                    "density = 0.3\nreplicas = 2\nwidom = 10\n[run]\nseed = 43\nequilibration = 10\n"
                    "production = 20\nsample_every = 5\n", 42);
}

static void ckpt_cluster_exchange(void **state)
{
    (void)state;
    ckpt_round_trip("[system]\nboundary = none\nstart = lattice\nlattice_constant = 1.5\n[molecules]\ntypes = Ar\n"
                    "counts = 13\ngeometry = Ar 0 0 0\n[potential]\ncutoff = 3.0\ntail_correction = no\n"
                    "[wall]\nradius = 6\nstrength = 1\n[ensemble]\ntemperature = 0.2, 0.3, 0.4\nreplicas = 2\n"
                    "exchange_every = 5\n[run]\nseed = 44\nequilibration = 20\nproduction = 40\nsample_every = 5\n", 32);
}

/* An output file as main() writes it (trajectory, pooled results, layout), read back with HDF5 and
 * started from. */
static void output_round_trip(void **state)
{
    (void)state;
    static const char *ini = "[system]\nn = 64\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1.2, 1.5\n"
                             "density = 0.5\nreplicas = 2\n[run]\nseed = 45\nequilibration = 20\nproduction = 40\n"
                             "sample_every = 5\n";
    mc_plan *p = tu_plan(ini);
    mc_err err = {0, ""};
    ens_layout l;
    assert_int_equal(ens_layout_init(&l, MPI_COMM_WORLD, p->nchains, &err), MC_OK);
    mc_run *r = run_to(p, 0);
    const char *out = path_in("out.h5");
    h5out *f = h5out_create(MPI_COMM_WORLD, out, 1, &err);
    if (!f) fail_msg("create: %s", err.msg);
    traj *t = traj_create(f, p, r, 0, "test", "test", &err);
    if (!t) fail_msg("traj: %s", err.msg);
    while (!mc_run_finished(r)) {
        assert_int_equal(mc_run_round(r, &err), MC_OK);
        if (traj_after_round(t, r, &err) != MC_OK) fail_msg("frame: %s", err.msg);
    }
    assert_int_equal(mc_run_fetch(r, &err), MC_OK);
    if (traj_write_final(t, r, &err) != MC_OK) fail_msg("final frame: %s", err.msg);
    mc_results *res = mc_results_create(p, &err);
    assert_non_null(res);
    if (ens_pool(&l, p, r, res, &err) != MC_OK) fail_msg("pool: %s", err.msg);
    h5out_info info = {ini, "test.ini", "test", "test-revision", "localhost", "cpu", "reduced", "scalar", "all-pairs",
                       1, 0, 0, 1.0, 1.0};
    if (h5out_write(f, &info, p, r, 0, res, &err) != MC_OK) fail_msg("write: %s", err.msg);
    assert_int_equal(traj_write_observables(t, r, &err), MC_OK);
    traj_close(t);
    if (h5out_close(f, H5OUT_COMMIT, &err) != MC_OK) fail_msg("close: %s", err.msg);

    /* /chains/energy [C, K] holds each chain's series, bit for bit */
    hid_t h = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(h >= 0);
    hid_t d = H5Dopen2(h, "/chains/energy", H5P_DEFAULT);
    assert_true(d >= 0);
    const long K = p->nsamples;
    double *e = malloc(sizeof *e * (size_t)(p->nchains * K));
    assert_true(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, e) >= 0);
    H5Dclose(d);
    H5Fclose(h);
    for (int k = 0; k < p->nchains; k++) {
        const mc_chain *c = mc_run_chain(r, k);
        assert_int_equal(c->nsamples, K);
        if (memcmp(e + k * K, c->series[MC_OBS_ENERGY], sizeof *e * (size_t)K) != 0)
            fail_msg("chain %d: /chains/energy differs from its series", k);
    }
    free(e);

    /* start = h5 from that file: every chain starts where its namesake ended */
    char ini2[1024];
    snprintf(ini2, sizeof ini2, "%s[system]\nstart = h5\nstart_file = %s\n", ini, out);
    cfg c2; /* kept until the plan is gone: the plan borrows its start_file */
    if (cfg_parse(&c2, ini2, "test.ini", &err) != MC_OK) fail_msg("config: %s", err.msg);
    mc_plan *p2 = mc_plan_create(&c2, &err);
    if (!p2) fail_msg("plan: %s", err.msg);
    if (h5start_load(p2, &l, NULL, &err) != MC_OK) fail_msg("h5start: %s", err.msg);
    for (int k = 0; k < p->nchains; k++) {
        const mc_chain *c = mc_run_chain(r, k);
        mc_chain *c2 = mc_chain_create(p2, k, &err);
        if (!c2) fail_msg("chain %d from h5: %s", k, err.msg);
        assert_true(c2->box_len == c->box_len);
        for (int i = 0; i < c->n; i++)
            if (c2->x[i] != c->x[i] || c2->y[i] != c->y[i] || c2->z[i] != c->z[i])
                fail_msg("chain %d particle %d: (%.17g %.17g %.17g) started, (%.17g %.17g %.17g) ended", k, i, c2->x[i],
                         c2->y[i], c2->z[i], c->x[i], c->y[i], c->z[i]);
        mc_chain_destroy(c2);
    }
    mc_plan_destroy(p2);
    cfg_fini(&c2);
    mc_results_destroy(res);
    mc_run_destroy(r);
    ens_layout_fini(&l);
    mc_plan_destroy(p);
    unlink(out);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    snprintf(dir, sizeof dir, "%s/mcens-ckpt-io.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) return 99;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ckpt_nvt_widom),
        cmocka_unit_test(ckpt_npt),
        cmocka_unit_test(ckpt_gibbs),
        cmocka_unit_test(ckpt_cluster_exchange),
        cmocka_unit_test(output_round_trip),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(dir);
    h5out_library_close(); /* before MPI_Finalize, as main() does */
    MPI_Finalize();
    return failed;
}
