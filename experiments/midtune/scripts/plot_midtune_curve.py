"""The size curve as a PNG: each measure of the mid-tuning report, E1 minus the base
encoder's paired runs, against the sentences E1 saw; one line per family of encoders (form
and objective), zero (the base encoder) dashed.

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
        # E1 minus the base encoder's paired runs: the base differs between points where the
        # runs paired differ (seeds, rotations, a form's own held-out examples)
        for colour, (family, points) in zip(colours, curve.items()):
            paired = [p for p in points if measure in p["e1"] and measure in p["base"]]
            if paired:
                ax.plot(
                    [p["sentences_seen"] for p in paired],
                    [p["e1"][measure] - p["base"][measure] for p in paired],
                    marker="o",
                    color=colour,
                    label=family,
                )
        ax.axhline(0.0, color="grey", linestyle="--", label="base encoder")
        ax.set_xscale("log")
        ax.set_xticks(xs_all, [f"{x / 1000:.1f}k" for x in xs_all])
        ax.set_xlim(xs_all[0] / 1.4, xs_all[-1] * 1.4)
        ax.minorticks_off()
        ax.set_title(measure, fontsize=9)
        ax.set_xlabel("sentences seen (steps × 16)", fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(measures) :]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    fig.suptitle("Semantic mid-tuning: E1 minus the base encoder, by training size", fontsize=10)
    fig.tight_layout()
    output.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(output, dpi=110)
    typer.echo(f"✔ {output}")


if __name__ == "__main__":
    typer.run(main)
