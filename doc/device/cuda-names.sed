# cuda-names.sed: old kernel names to new (the commit after performance.md version 34), for sass-same.sh
s/\bcells_trials_kernel\b/cells_trial_energy_kernel/g
s/\bcells_accept_kernel\b/cells_decide_kernel/g
s/\bbatch_trials_kernel\b/batch_trial_energy_kernel/g
s/\bbatch_accept_kernel\b/batch_decide_kernel/g
s/\brigid_batch_trials_kernel\b/rigid_batch_trial_energy_kernel/g
s/\brigid_batch_accept_kernel\b/rigid_batch_decide_kernel/g
