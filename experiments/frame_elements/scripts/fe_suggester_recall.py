"""Recall of gold FE spans by the research frame_elements' candidate suggester
(frames_lab.fe_research, v1's settings and v2's phrases and clauses): the ceiling of
the component's recall, and the number of candidates per target it costs, per setting.
Corpora converted with the FEs on their own target (`--keep-target-fes`) count those
too; `on_target_recall` is the recall of those alone.

The docs get en_core_web_sm's parse (as the packaged pipeline will give them) over their
own tokens; each gold target is paired with its gold FEs (`Span._.frame_elements`).

    python scripts/fe_suggester_recall.py ../../corpus/framenet15/dev.spacy ../../corpus/framenet17/dev.spacy -o metrics/frame_elements_suggester.json
"""

import json
import time
from pathlib import Path
from typing import List

import typer
from spacy.tokens import Doc, DocBin

app = typer.Typer(add_completion=False)
# (max_ngram, window, subtrees, ngram_gap, include_target[, phrases, clauses]);
# ngram_gap None: every n-gram of the window; the last two: fe_candidate_suggester.v2's
# additions (v2 is the last)
SETTINGS = [
    (4, 30, False, None, False),
    (4, 30, True, None, False),
    (6, 30, True, None, False),
    (8, 30, True, None, False),
    (4, 50, True, None, False),
    (8, 50, True, None, False),
    (4, 30, True, 2, False),
    (4, 30, True, 0, False),
    (8, 30, True, 0, False),
    (4, 30, True, 0, True),
    (12, 30, True, None, True),
    (16, 30, True, None, True),
    (20, 30, True, None, True),
    (25, 40, True, None, True),
    (4, 30, True, 0, True, True, False),
    (4, 30, True, 0, True, False, True),
    (4, 30, True, 0, True, True, True),
]


@app.command()
def main(
    corpora: List[Path] = typer.Argument(..., help="Converted FrameNet DocBins with gold FEs"),
    output: Path = typer.Option(Path("metrics/frame_elements_suggester.json"), "-o"),
    parser: str = typer.Option("en_core_web_sm", "--parser", help="The pipeline whose parse the subtrees come from"),
):
    import spacy
    from frames_lab.fe_research.suggester import DocArrays, Extras, fe_candidates
    from tqdm import tqdm

    from spacy_frames.extensions import TARGETS_KEY, install_extensions

    install_extensions()
    nlp = spacy.load(parser, exclude=["ner"])
    result = {
        "parser": parser,
        "settings": "max_ngram, window, subtrees, ngram_gap ('-': every n-gram of the window)[, target: the target itself]",
        "corpora": {},
    }
    for path in corpora:
        start = time.time()
        docs = list(DocBin().from_disk(path).get_docs(nlp.vocab))
        parsed = nlp.pipe(
            [Doc(nlp.vocab, words=[t.text for t in d], spaces=[bool(t.whitespace_) for t in d]) for d in docs],
            batch_size=64,
        )
        pairs = []  # (parsed doc, target span on it, gold FE offsets)
        for gold, doc in tqdm(zip(docs, parsed), total=len(docs), desc=path.name):
            for target in gold.spans.get(TARGETS_KEY, []):
                fes = {(fe.start, fe.end) for fe in target._.frame_elements}
                if fes:
                    pairs.append((doc, doc[target.start : target.end], fes))
        arrays = {id(doc): DocArrays(doc) for doc, _, _ in pairs}  # the parse read once per doc
        n_gold = sum(len(fes) for _, _, fes in pairs)
        by_setting = {}
        n_on_target = sum(1 for _, target, fes in pairs for fe in fes if fe[0] < target.end and target.start < fe[1])
        for max_ngram, window, subtrees, ngram_gap, include_target, *more in SETTINGS:
            extra = Extras(*more)
            found = on_target = candidates = 0
            for doc, target, fes in pairs:
                cands = set(
                    fe_candidates(
                        doc, target, max_ngram, window, subtrees, ngram_gap, arrays[id(doc)], include_target, extra
                    )
                )
                hits = fes & cands
                found += len(hits)
                on_target += sum(1 for fe in hits if fe[0] < target.end and target.start < fe[1])
                candidates += len(cands)
            key = f"{max_ngram},{window},{subtrees}" + (f",{ngram_gap}" if ngram_gap is not None else ",-")
            key += ",target" if include_target else ""
            key += "".join(f",{name}" for name, on in extra._asdict().items() if on)
            by_setting[key] = {
                "recall": round(100.0 * found / max(n_gold, 1), 2),
                "on_target_recall": round(100.0 * on_target / n_on_target, 2) if n_on_target else None,
                "candidates_per_target": round(candidates / max(len(pairs), 1), 1),
            }
        result["corpora"][path.parent.name + "/" + path.name] = {
            "targets_with_fes": len(pairs),
            "gold_fes": n_gold,
            "gold_fes_on_target": n_on_target,
            "by_setting": by_setting,
            "seconds": round(time.time() - start, 1),
        }
        typer.echo(json.dumps(result["corpora"][path.parent.name + "/" + path.name], indent=1))
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    app()
