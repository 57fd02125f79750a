"""Issue 26's size curve as a PNG: each measure of the mid-tuning report against the sentences
E1 saw, one line per family of encoders (form and objective), the base encoder dashed (in the
family's colour where the families' base values differ).

    python scripts/plot_midtune_curve.py metrics/midtune.json metrics/midtune_curve.png

Reads the `curve` of `scripts/midtune_experiment.py report`; a family with one point is a dot.
"""
from pathlib import Path

import srsly
import typer


def main(report: Path, output: Path):
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    curve = srsly.read_json(report).get("curve")
    if not curve:
        typer.echo(f"✘ {report} has no curve: re-run `spacy project run midtune-report`", err=True)
        raise typer.Exit(1)
    measures = []
    for points in curve.values():
        for point in points:
            measures += [m for m in point["e1"] if m not in measures]
    cols = 3
    rows = (len(measures) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    xs_all = sorted({p["sentences_seen"] for points in curve.values() for p in points})
    for ax, measure in zip(axes.flat, measures):
        bases = {}
        for colour, (family, points) in zip(colours, curve.items()):
            xs = [p["sentences_seen"] for p in points if measure in p["e1"]]
            ys = [p["e1"][measure] for p in points if measure in p["e1"]]
            if xs:
                ax.plot(xs, ys, marker="o", color=colour, label=family)
                bases[family] = (colour, next(p["base"][measure] for p in points if measure in p["base"]))
        # one grey line where every family has the same base value (the same measure on the
        # same data); else each family's own (held-out form accuracy differs by form)
        if len({value for _, value in bases.values()}) == 1:
            ax.axhline(next(iter(bases.values()))[1], color="grey", linestyle="--", label="base encoder")
        else:
            for colour, value in bases.values():
                ax.axhline(value, color=colour, linestyle="--", linewidth=0.8)
        ax.set_xscale("log")
        ax.set_xticks(xs_all, [f"{x / 1000:.1f}k" for x in xs_all])
        ax.set_xlim(xs_all[0] / 1.4, xs_all[-1] * 1.4)
        ax.minorticks_off()
        ax.set_title(measure, fontsize=9)
        ax.set_xlabel("sentences seen (steps × 16)", fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(measures):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    fig.suptitle("Semantic mid-tuning: E1 against the base encoder by training size", fontsize=10)
    fig.tight_layout()
    output.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(output, dpi=110)
    typer.echo(f"✔ {output}")


if __name__ == "__main__":
    typer.run(main)
