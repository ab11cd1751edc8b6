/* mc_backend_table: the (engine x device) table (mc_backend_table.h). */
#include "mc_backend_table.h"

#include <stdio.h>

typedef struct backend_row {
    int device;                 /* enum cfg_backend: CFG_BACKEND_GPU or CFG_BACKEND_CPU */
    const char *what;           /* for messages */
    const mc_backend_ops *ops;
    unsigned supports[MC_NENGINES]; /* MC_FEATURE_* bits per engine */
} backend_row;

/* In the order auto prefers them. */
static const backend_row rows[] = {
    {CFG_BACKEND_GPU, "the GPU backend", &mc_backend_cuda, {0, MC_FEATURE_CHARGES, MC_FEATURE_GCMC, 0}},
    {CFG_BACKEND_CPU, "the CPU backend", &mc_backend_cpu,
     {0, MC_FEATURE_CHARGES, MC_FEATURE_GCMC | MC_FEATURE_OPEN_EXCHANGE,
      MC_FEATURE_GCMC | MC_FEATURE_CHARGES | MC_FEATURE_OPEN_EXCHANGE}},
};
enum { NROWS = sizeof rows / sizeof rows[0] };

/* Each feature: its bit, what it is, and the key that asks for it. */
static const struct feature {
    unsigned bit;
    const char *what, *section, *key;
} features[] = {
    {MC_FEATURE_CHARGES, "charged sites", "potential", "coulomb"},
    {MC_FEATURE_GCMC, "grand-canonical moves", "ensemble", "type"},
    {MC_FEATURE_OPEN_EXCHANGE, "replica exchange of grand-canonical chains", "ensemble", "exchange_every"},
};
enum { NFEATURES = sizeof features / sizeof features[0] };

/* What each engine moves, for messages. */
static const char *const engine_particles[MC_NENGINES] = {"atoms", "molecules", "atoms", "molecules"};

mc_engine mc_plan_engine(const mc_plan *p)
{
    if (mc_plan_labelled(p)) return p->rigid ? MC_ENGINE_GIBBS_MOLECULES : MC_ENGINE_GIBBS_ATOMS;
    return p->rigid ? MC_ENGINE_MOLECULES : MC_ENGINE_ATOMS;
}

static unsigned plan_features(const mc_plan *p)
{
    return (p->charged ? MC_FEATURE_CHARGES : 0u) | (p->ensemble->open ? MC_FEATURE_GCMC : 0u) |
           (p->ensemble->open && p->exchange_every ? MC_FEATURE_OPEN_EXCHANGE : 0u);
}

/* The first feature of `needs` that the row lacks for the engine, or NULL. */
static const struct feature *lacking(const backend_row *r, mc_engine engine, unsigned needs)
{
    for (int f = 0; f < NFEATURES; f++)
        if ((needs & features[f].bit) && !(r->supports[engine] & features[f].bit)) return &features[f];
    return NULL;
}

int mc_backend_choose(const mc_plan *p, const cfg *c, int have_gpu, const char *no_gpu_reason, int rank, const char *host,
                      const mc_backend_ops **out, char *note, size_t len, mc_err *err)
{
    const mc_engine engine = mc_plan_engine(p);
    const unsigned needs = plan_features(p);
    snprintf(note, len, "%s", "");
    *out = NULL;
    for (int i = 0; i < NROWS; i++) {
        const backend_row *r = &rows[i];
        const int named = c->run.backend == r->device;
        if (c->run.backend != CFG_BACKEND_AUTO && !named) continue;
        const struct feature *f = lacking(r, engine, needs);
        /* a feature another engine of the row has is named with this engine's particles, and where
         * the row has it for these particles in one box of fixed N, with the ensemble too */
        int elsewhere = 0;
        for (int e = 0; f && e < MC_NENGINES; e++) elsewhere |= (r->supports[e] & f->bit) != 0;
        const int one_box_has_it = f && engine >= MC_ENGINE_GIBBS_ATOMS &&
                                   (r->supports[engine - MC_ENGINE_GIBBS_ATOMS] & f->bit);
        char of[96] = "";
        if (elsewhere)
            snprintf(of, sizeof of, " of %s%s", engine_particles[engine],
                     one_box_has_it ? " in the Gibbs or grand-canonical ensemble" : "");
        if (f && named)
            MC_FAIL(err, MC_EINVAL, "%s:%d: [run] backend = %s: %s has no %s%s yet (asked for by [%s] %s, line %d); "
                    "use backend = cpu or auto", c->filename, cfg_line(c, "run", "backend"),
                    r->device == CFG_BACKEND_GPU ? "gpu" : "cpu", r->what, f->what, of, f->section, f->key,
                    cfg_line(c, f->section, f->key));
        if (r->device == CFG_BACKEND_GPU && !have_gpu) {
            if (named)
                MC_FAIL(err, MC_ENODEV, "%s:%d: [run] backend = gpu, but rank %d on %s cannot use a GPU: %s",
                        c->filename, cfg_line(c, "run", "backend"), rank, host, no_gpu_reason);
            continue;
        }
        if (f) { /* auto: a GPU there, but not for this run */
            snprintf(note, len, "%s has no %s%s yet ([%s] %s): this run takes the CPU backend", r->what, f->what, of,
                     f->section, f->key);
            continue;
        }
        *out = r->ops;
        return MC_OK;
    }
    MC_FAIL(err, MC_EINVAL, "%s: no backend runs this configuration", c->filename); /* the CPU row runs what cfg admits */
}
