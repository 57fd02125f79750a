"""Split the SemEval-2023 st2 articles per language (seeded, label-stratified 70/15/15) and
write them as DocBins with gold doc.cats, with counts.

    python scripts/convert_media_frames.py assets/media_frames/semeval2023_st2 corpus/media_frames --summary metrics/media_frames_data.json

The split (article ids) goes to <output>/split.json. An existing split.json is reused, not
re-drawn, so the split stays fixed once written; --seed only matters the first time.
"""

from pathlib import Path
from typing import Optional

import spacy
import srsly
import typer

from spacy_frames.corpora.media_frames import (
    LANGUAGES,
    SPLITS,
    articles_to_docbin,
    label_counts,
    read_semeval_articles,
    split_articles,
)


# fmt: off
def main(
    assets: Path = typer.Argument(..., help="assets/media_frames/semeval2023_st2 (with en/ fr/ ge/ it/ po/)"),
    output_dir: Path = typer.Argument(..., help="Output directory for <lang>_<split>.spacy and split.json"),
    summary: Optional[Path] = typer.Option(None, "--summary", help="JSON file for the counts"),
    seed: int = typer.Option(0, "--seed", help="Seed of the split (first run only)"),
):
    # fmt: on
    """Convert the labelled SemEval-2023 st2 articles to split DocBins."""
    nlp = spacy.blank("en")
    output_dir.mkdir(parents=True, exist_ok=True)
    split_file = output_dir / "split.json"
    fixed = srsly.read_json(split_file) if split_file.exists() else None
    split_ids, counts = {}, {}
    for lang in LANGUAGES:
        articles = read_semeval_articles(assets, lang)
        if fixed is not None:
            by_id = {a.id: a for a in articles}
            missing = [i for s in SPLITS for i in fixed[lang][s] if i not in by_id]
            if missing or sum(len(fixed[lang][s]) for s in SPLITS) != len(articles):
                raise ValueError(f"{split_file} does not match the {lang} articles ({len(missing)} unknown ids): "
                                 "delete it only if the data really changed.")
            parts = {s: [by_id[i] for i in fixed[lang][s]] for s in SPLITS}
        else:
            parts = split_articles(articles, seed=seed)
        split_ids[lang] = {s: [a.id for a in parts[s]] for s in SPLITS}
        for split in SPLITS:
            articles_to_docbin(nlp, parts[split]).to_disk(output_dir / f"{lang}_{split}.spacy")
            counts[f"{lang}_{split}"] = {"articles": len(parts[split]), "frames": label_counts(parts[split]),
                                         "words": sum(len(a.text.split()) for a in parts[split])}
        typer.echo(f"{lang}: " + ", ".join(f"{s} {len(parts[s])}" for s in SPLITS))
    if fixed is None:
        srsly.write_json(split_file, {"seed": seed, "fractions": [0.7, 0.15, 0.15], **split_ids})
        typer.echo(f"Split written to {split_file}")
    if summary is not None:
        summary.parent.mkdir(parents=True, exist_ok=True)
        srsly.write_json(summary, counts)
        typer.echo(f"Summary written to {summary}")


if __name__ == "__main__":
    typer.run(main)
