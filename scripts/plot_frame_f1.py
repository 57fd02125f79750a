"""Per-frame F1 bars from an evaluate-frames metrics file, as a PNG.

    python scripts/plot_frame_f1.py metrics/frame_identifier.json metrics/frame_identifier_per_frame_f1.png [--top 40]

Shows the `top` most frequent gold frames of the split (gold targets), each bar
labelled with its number of targets, so a reader sees where the model fails.
"""

from pathlib import Path

import srsly
import typer


def main(
    metrics: Path,
    output: Path,
    top: int = typer.Option(40, "--top"),
    section: str = typer.Option("fn15_gold_targets", "--section"),
):
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    result = srsly.read_json(metrics)
    per_type = result.get(section, {}).get("frame_per_type")
    if not per_type:
        typer.echo(f"✘ {metrics} has no {section}.frame_per_type: re-run `spacy project run evaluate-frames`", err=True)
        raise typer.Exit(1)
    rows = sorted(per_type.items(), key=lambda item: (-item[1]["n"], item[0]))[:top]
    rows.reverse()  # most frequent on top
    labels = [f"{frame} ({scores['n']})" for frame, scores in rows]
    f1 = [scores["f"] for _, scores in rows]
    fig, ax = plt.subplots(figsize=(8, 0.25 * len(rows) + 1.5))
    ax.barh(labels, f1, color="#4c72b0")
    overall = result[section].get("frame_acc")
    if overall is not None:
        ax.axvline(overall, color="#c44e52", linestyle="--", label=f"Acc over all targets ({overall})")
        ax.legend(loc="lower right", fontsize=8)
    ax.set_xlim(0, 100)
    ax.set_xlabel("F1 (%)")
    ax.set_title(f"frame_identifier: F1 of the {len(rows)} most frequent frames, {result.get('split', '')}", fontsize=9)
    ax.tick_params(axis="y", labelsize=7)
    fig.tight_layout()
    output.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(output, dpi=120)
    typer.echo(f"✔ {output}")


if __name__ == "__main__":
    typer.run(main)
