"""Write the discourse corpora (GDTB and DiscoGeM implicit relations) as DocBins, with counts.

    python scripts/convert_discourse.py assets/discourse corpus/discourse --summary metrics/discourse_data.json

Each relation becomes a Doc "Arg1 Arg2" with doc.spans["discourse_args"] and its gold in
doc._.discourse_gold (spacy_frames/corpora/discourse.py). Implicit relations with a
PDTB-3 sense are written (the training and evaluation data); GDTB reddit documents,
whose text the release blanks, are skipped. GDTB's DISRPT test file is copied as read
(gdtb_test.rels relations) so predictions can be written back for the DISRPT scorer.
"""

from pathlib import Path
from typing import Optional

import spacy
import srsly
import typer

from spacy_frames.corpora.discourse import (
    SPLITS,
    corpus_counts,
    read_discogem,
    read_gdtb,
    relations_to_docbin,
    sense_counts,
    split_relations,
)
from spacy_frames.inventory.senses import SenseHierarchy


# fmt: off
def main(
    assets: Path = typer.Argument(..., help="assets/discourse (with gdtb/ and discogem/)"),
    output_dir: Path = typer.Argument(..., help="Output directory for {gdtb,discogem}_{train,dev,test}.spacy"),
    summary: Optional[Path] = typer.Option(None, "--summary", help="JSON file for the counts"),
):
    # fmt: on
    """Convert GDTB (PDTB-3 standoff) and DiscoGeM to DocBins of implicit relations."""
    nlp = spacy.blank("en")
    hierarchy = SenseHierarchy()
    output_dir.mkdir(parents=True, exist_ok=True)
    counts = {}
    for corpus, reader in (("gdtb", read_gdtb), ("discogem", read_discogem)):
        for split in SPLITS:
            relations = reader(assets / corpus, split, hierarchy)
            kept, dropped = split_relations(relations)
            if not kept:
                raise ValueError(f"{corpus} {split}: no implicit relations with a sense")
            relations_to_docbin(nlp, kept).to_disk(output_dir / f"{corpus}_{split}.spacy")
            counts[f"{corpus}_{split}"] = {
                "relations_by_type": corpus_counts(relations), "implicit_kept": len(kept), "dropped": dropped,
                "with_connective": sum(1 for r in kept if r.connective), "with_soft_labels": sum(1 for r in kept if r.soft),
                "two_senses": sum(1 for r in kept if len(r.senses) > 1),
                "level1": sense_counts(kept, hierarchy, 1), "level2": sense_counts(kept, hierarchy, 2),
            }
            typer.echo(f"{corpus}_{split}: {len(kept)} implicit relations ({dropped} other or without a sense)")
    if summary is not None:
        summary.parent.mkdir(parents=True, exist_ok=True)
        srsly.write_json(summary, counts)
        typer.echo(f"Summary written to {summary}")


if __name__ == "__main__":
    typer.run(main)
