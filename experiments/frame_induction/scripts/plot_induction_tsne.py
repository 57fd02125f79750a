"""2-D t-SNE of one test fold's instances, coloured by gold frame (the 10 most frequent),
vanilla beside fine-tuned, as a PNG (the paper's Figure 2).

    python scripts/plot_induction_tsne.py metrics/frame_inducer_tsne.png \
        vanilla=training/frame_induction/vanilla/embeddings/fold0.npz \
        triplet=training/frame_induction/triplet/fold0/test_fold0.npz

Each NAME=EMBEDDINGS.npz is a panel (v_word, alpha 0: the vector the clustering starts from).
"""

from collections import Counter
from pathlib import Path
from typing import List

import numpy
import typer


def main(
    output: Path = typer.Argument(..., help="PNG to write"),
    panels: List[str] = typer.Argument(..., help="NAME=embeddings.npz, one per panel"),
    top: int = typer.Option(10, "--top", help="Most frequent gold frames shown"),
    per_frame: int = typer.Option(150, "--per-frame", help="At most this many instances per frame (seeded)"),
):
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt
    from sklearn.manifold import TSNE

    from spacy_frames.scoring.induction_eval import load_embeddings, mixed

    loaded = []
    for panel in panels:
        if "=" not in panel:
            raise typer.BadParameter(f"expected NAME=PATH, got {panel!r}")
        name, path = panel.split("=", 1)
        loaded.append((name, load_embeddings(path)))
    frames = loaded[0][1]["frames"]
    if any(len(data["frames"]) != len(frames) or (data["frames"] != frames).any() for _, data in loaded):
        raise typer.BadParameter("the panels must embed the same instances (the same fold)")
    chosen = [frame for frame, _ in Counter(frames.tolist()).most_common(top)]
    rng = numpy.random.default_rng(0)
    rows = numpy.concatenate([rng.permutation(numpy.flatnonzero(frames == frame))[:per_frame] for frame in chosen])
    colours = plt.get_cmap("tab10")
    fig, axes = plt.subplots(1, len(loaded), figsize=(6 * len(loaded), 6), squeeze=False)
    for ax, (name, data) in zip(axes[0], loaded):
        points = TSNE(n_components=2, init="pca", random_state=0, perplexity=30).fit_transform(mixed(data, 0.0)[rows])
        for i, frame in enumerate(chosen):
            mask = frames[rows] == frame
            ax.scatter(points[mask, 0], points[mask, 1], s=6, color=colours(i % 10), label=frame)
        ax.set_title(name)
        ax.set_xticks([])
        ax.set_yticks([])
    axes[0][-1].legend(loc="center left", bbox_to_anchor=(1.0, 0.5), markerscale=3, fontsize=8)
    fig.tight_layout()
    output.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(output, dpi=110)
    typer.echo(f"wrote {output} ({len(rows)} instances, {len(chosen)} frames)")


if __name__ == "__main__":
    typer.run(main)
