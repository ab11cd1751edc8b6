/* mc_chain: what a chain's counters and records say (acceptance ratios, the RDF norm); creation is
 * mc_chain_create.c. */
#include "mc_chain.h"

double mc_chain_production_acceptance(const mc_chain *c)
{
    uint64_t moves = c->step - c->production_step0;
    return moves ? (double)(c->accepted - c->production_accepted0) / (double)moves : 0.0;
}

double mc_chain_production_volume_acceptance(const mc_chain *c)
{
    uint64_t moves = c->volume_moves - c->production_volume_moves0;
    return moves ? (double)(c->volume_accepted - c->production_volume_accepted0) / (double)moves : 0.0;
}

void mc_chain_add_rdf_sample(mc_chain *c, const mc_plan *p)
{
    const mc_species *s = &p->species;
    double volume = c->box_len > 0 ? c->box_len * c->box_len * c->box_len : p->rdf_volume;
    for (int a = 0; a < s->n; a++)
        for (int b = a; b < s->n; b++) {
            int k = mc_species_pair_index(s, a, b);
            c->rdf_norm[k] += p->rigid ? p->mol.inter_pairs[k] / volume
                              : a == b ? 0.5 * s->count[a] * (s->count[a] - 1.0) / volume
                                       : (double)s->count[a] * s->count[b] / volume;
        }
    if (p->rigid) c->rdf_norm[s->npairs] += 0.5 * p->nmol * (p->nmol - 1.0) / volume;
}

double mc_chain_production_displacement_acceptance(const mc_chain *c)
{
    uint64_t moves = (c->step - c->production_step0) - (c->transfers - c->production_transfers0) -
                     (c->volume_moves - c->production_volume_moves0);
    uint64_t acc = (c->accepted - c->production_accepted0) - (c->transfers_accepted - c->production_transfers_accepted0) -
                   (c->volume_accepted - c->production_volume_accepted0);
    return moves ? (double)acc / (double)moves : 0.0;
}

double mc_chain_production_transfer_acceptance(const mc_chain *c)
{
    uint64_t moves = c->transfers - c->production_transfers0;
    return moves ? (double)(c->transfers_accepted - c->production_transfers_accepted0) / (double)moves : 0.0;
}

double mc_chain_production_translation_acceptance(const mc_chain *c)
{
    /* a Gibbs chain's transfers and volume exchanges are trial moves too (npt's volume moves are not) */
    int gibbs = c->in_box != NULL;
    uint64_t moves = (c->step - c->production_step0) - (c->rotations - c->production_rotations0) -
                     (c->transfers - c->production_transfers0) -
                     (gibbs ? c->volume_moves - c->production_volume_moves0 : 0);
    uint64_t acc = (c->accepted - c->production_accepted0) -
                   (c->rotations_accepted - c->production_rotations_accepted0) -
                   (c->transfers_accepted - c->production_transfers_accepted0) -
                   (gibbs ? c->volume_accepted - c->production_volume_accepted0 : 0);
    return moves ? (double)acc / (double)moves : 0.0;
}

double mc_chain_production_rotation_acceptance(const mc_chain *c)
{
    uint64_t moves = c->rotations - c->production_rotations0;
    return moves ? (double)(c->rotations_accepted - c->production_rotations_accepted0) / (double)moves : 0.0;
}
