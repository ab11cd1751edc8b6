/* cfg_check: the checks of a parsed config that span keys: keys that need or exclude each other
 * (morse_r0 only with type = morse), values the physics cannot take (pressure <= 0 in npt, a
 * replica-exchange ladder out of order, Gibbs move fractions not adding up to 1), and the values
 * derived from others (sigma from rmin or the argon preset, epsilon from epsilon_k, number
 * densities from mass_density, tail_correction off where it does not apply), and cfg_parse, which
 * reads the config (cfg_read, cfg.c) and then makes these checks; each message names file:line, the key
 * and what was expected. */
#ifndef CFG_CHECK_H
#define CFG_CHECK_H

#include "cfg.h"
#include "mc_err.h"

/* Check c and complete its derived values; on failure c is left for the caller to free. */
int cfg_check(cfg *c, mc_err *err);

#endif
