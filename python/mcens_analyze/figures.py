"""Figure helpers shared by plot, mbar and coexistence: the paper style, panel grids, titles
and legends, colours, and the manifest the tests read."""

from .labels import value_label


def plot_setup():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"font.size": 9, "axes.titlesize": 9, "axes.labelsize": 9,
                         "legend.fontsize": 7.5, "xtick.labelsize": 8, "ytick.labelsize": 8,
                         "lines.linewidth": 1.2, "lines.markersize": 4, "savefig.dpi": 180,
                         "legend.frameon": False, "axes.grid": False})
    return plt


def grid(plt, n, ncols=3, w=2.45, h=2.05):
    """A figure of n panels, at most ncols wide, sized for a two-column paper page (7 in)."""
    ncols = max(1, min(ncols, n))
    nrows = -(-n // ncols)
    if n == 1:  # one panel alone: a single-column figure
        w, h = 3.6, 2.8
    fig, axs = plt.subplots(nrows, ncols, figsize=(w * ncols, h * nrows + 0.4), squeeze=False)
    flat = axs.ravel().tolist()
    for ax in flat[n:]:
        ax.remove()
    return fig, flat[:n]


def finish(fig, title, handles=None, ncol=4):
    """Title, then an optional figure-wide legend under it, then the panels below both (so no
    legend hides data). The legend takes at most ncol columns, and fewer where its row would be
    wider than the figure (measured, not guessed: labels differ in length)."""
    import textwrap
    width, height = fig.get_size_inches()
    # about 15 characters an inch at 8 pt: a long title wraps instead of running off the page
    title = "\n".join(textwrap.fill(t, int(width * 15)) for t in title.split("\n"))
    lines = title.count("\n") + 1
    fig.suptitle(title, fontsize=8, y=1 - 0.04 / height, va="top")
    top = 0
    if handles:
        anchor = (0.5, 1 - (0.08 + 0.14 * lines) / height)
        ncol = max(1, min(ncol, len(handles)))
        renderer = fig.canvas.get_renderer()
        while True:
            legend = fig.legend(handles=handles, loc="upper center", ncol=ncol, borderaxespad=0,
                                bbox_to_anchor=anchor)
            if ncol == 1 or legend.get_window_extent(renderer).width <= 0.98 * fig.bbox.width:
                break
            legend.remove()
            ncol -= 1
        # tight_layout keeps clear of the title by itself (and takes it off rect); the legend's
        # rows are reserved here
        top = 0.22 * -(-len(handles) // ncol)
    fig.tight_layout(rect=(0, 0, 1, 1 - top / height), h_pad=0.6, w_pad=0.8)


def colours(plt, n):
    """Distinct colours for a few curves; for more, an ordered map (the curves are ordered by
    their state point), stopping short of plasma's pale yellow end."""
    if n <= 4:
        return [plt.get_cmap("tab10")(i) for i in range(n)]
    return [plt.get_cmap("plasma")(0.85 * i / (n - 1)) for i in range(n)]


def groups(run):
    """[(group label or None, [state point indices in x order])] and the x axis."""
    import numpy as np
    x, g = run.layout()
    if g is None:
        return x, [(None, list(np.argsort(x[1], kind="stable")))]
    out = []
    for gv in sorted(set(g[1].tolist())):
        idx = [s for s in np.argsort(x[1], kind="stable") if g[1][s] == gv]
        out.append((value_label(g[0], gv, g[2]), idx))
    return x, out


def legends_inside(fig):
    """Whether every legend (the figure's and the panels') lies inside the figure: a legend cut
    off at the edge is a figure that does not say what its curves are."""
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    for leg in legends:
        e = leg.get_window_extent(renderer)
        if e.x0 < box.x0 - 1 or e.x1 > box.x1 + 1 or e.y0 < box.y0 - 1 or e.y1 > box.y1 + 1:
            return False
    return True


def figure_counts(fig):
    """What the tests check: per panel, the curves, bands, error-bar series and cut lines, its
    y range, the figure's title, and whether the figure's legends fit inside it."""
    inside = legends_inside(fig)
    figure_title = fig._suptitle.get_text() if fig._suptitle is not None else ""
    out = []
    for ax in fig.axes:
        arts = list(ax.lines) + list(ax.collections)
        gids = [a.get_gid() for a in arts]
        out.append({"title": ax.get_title(), "ylabel": ax.get_ylabel(),
                    "ylim": [float(v) for v in ax.get_ylim()], "legends_inside": inside,
                    "figure_title": figure_title,
                    **{k + "s": gids.count(k) for k in ("curve", "band", "errorbar", "cut")}})
    return out
