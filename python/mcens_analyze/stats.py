"""Time-series statistics of per-chain samples: pymbar's statistical inefficiency and
equilibration detection, with mcens's fallbacks."""



def inefficiency(x):
    """pymbar's statistical inefficiency g >= 1 of one series; 1 for a constant one (an ideal gas's
    energy), whose samples are as good as independent."""
    from pymbar import timeseries
    try:
        return max(1.0, float(timeseries.statisticalInefficiency(x)))
    except Exception:  # ParameterError: zero variance
        return 1.0


def equilibration_cut(run, values, chains):
    """{chain: first equilibrated sample} for the chains shown: /chains/equilibration_sample
    where the file has it, else pymbar's detectEquilibration (Chodera, JCTC 12, 1799 (2016)) on the
    series, trying every nskip-th origin (at most about 500: its cost grows as the square of the
    length). Returns (cuts, source)."""
    if "chains/equilibration_sample" in run.f:
        cut = run.ds("chains/equilibration_sample")[:]
        return {k: int(cut[k]) for k in chains}, "mcens's cut"
    from pymbar import timeseries
    cuts = {}
    for k in chains:
        try:
            cuts[k] = int(timeseries.detectEquilibration(values[k],
                                                         nskip=max(1, len(values[k]) // 500))[0])
        except Exception:  # a constant or too short series: nothing to cut
            cuts[k] = 0
    return cuts, "pymbar's detection"
