"""Evaluation of trained pipelines on the converted corpora, written to metrics/*.json.

Frame identification is scored with the component's registered scorer through
`nlp.evaluate`, on examples whose predicted docs carry the gold targets (the
standard gold-target setting) or not (raw text: target detection included).
"""
from collections import Counter, defaultdict
from pathlib import Path
from typing import Dict, Iterable, List, Optional

import spacy
from spacy.language import Language
from spacy.tokens import DocBin, Span
from spacy.training import Example

from .corpora.framenet import FrameInventory
from .corpora.readers import create_framenet_reader
from .extensions import TARGETS_KEY, install_extensions


def frame_examples(nlp: Language, path, gold_targets: bool) -> List[Example]:
    return list(create_framenet_reader(str(path), gold_targets=gold_targets)(nlp))


def evaluate_frames(nlp: Language, examples: List[Example], batch_size: int = 64) -> Dict[str, Optional[float]]:
    scores = nlp.evaluate(examples, batch_size=batch_size)
    keys = ("frame_acc", "frame_r1", "frame_r3", "frame_r5", "frame_overall", "frame_acc_ambiguous",
            "target_p", "target_r", "target_f")
    out = {k: _pct(scores.get(k)) for k in keys}
    out["targets"] = sum(len(eg.reference.spans.get(TARGETS_KEY, [])) for eg in examples)
    out["words_per_second"] = round(scores.get("speed", 0.0), 1)
    return out


def _pct(value):
    return None if value is None else round(100 * value, 2)


def subset(examples: Iterable[Example], keep) -> List[Example]:
    """Examples restricted to the gold targets for which keep(span) is true."""
    out = []
    for eg in examples:
        gold = [s for s in eg.reference.spans.get(TARGETS_KEY, []) if keep(s)]
        if not gold:
            continue
        reference = eg.reference.copy()
        reference.spans[TARGETS_KEY] = [Span(reference, s.start, s.end, label=s.label_) for s in gold]
        predicted = eg.predicted.copy()
        offsets = {(g.start_char, g.end_char) for g in gold}
        predicted.spans[TARGETS_KEY] = [
            Span(predicted, s.start, s.end, label=s.label_)
            for s in eg.predicted.spans.get(TARGETS_KEY, [])
            if (s.start_char, s.end_char) in offsets
        ]
        out.append(Example(predicted, reference))
    return out


# -- the lookup-table baseline -------------------------------------------------------------
def lu_frame_counts(paths: Iterable[Path]) -> Dict[str, Counter]:
    """How often each lexical unit evokes each frame in the given DocBins."""
    install_extensions()
    vocab = spacy.blank("en").vocab
    counts: Dict[str, Counter] = defaultdict(Counter)
    for path in paths:
        for doc in DocBin().from_disk(path).get_docs(vocab):
            for span in doc.spans.get(TARGETS_KEY, []):
                if span._.lexical_unit:
                    counts[span._.lexical_unit][span.label_] += 1
    return counts


def score_lookup_baseline(examples: List[Example], counts: Dict[str, Counter], inventory: FrameInventory) -> Dict:
    """Most frequent frame of the gold LU (counts from training data); an LU never
    seen in training takes the first of its lexicon frames. Acc only: it needs the LU."""
    n = correct = ambiguous = ambiguous_correct = 0
    for eg in examples:
        for span in eg.reference.spans.get(TARGETS_KEY, []):
            lu = span._.lexical_unit
            candidates = inventory.frames_for_lu(lu) if lu else []
            if counts.get(lu):
                guess = counts[lu].most_common(1)[0][0]
            else:
                guess = candidates[0] if candidates else None
            ok = guess == span.label_
            n += 1
            correct += ok
            if len(candidates) > 1:
                ambiguous += 1
                ambiguous_correct += ok
    return {
        "frame_acc": _pct(correct / n) if n else None,
        "frame_acc_ambiguous": _pct(ambiguous_correct / ambiguous) if ambiguous else None,
        "targets": n,
    }


def evaluate_frame_identifier(
    model: str,
    fn15_dir: Path,
    fn17_dir: Optional[Path] = None,
    split: str = "test",
    baseline: bool = True,
) -> Dict:
    """All frame-identification numbers of one trained pipeline (see README/metrics)."""
    install_extensions()
    nlp = spacy.load(model)
    result: Dict = {"model": str(model), "split": f"framenet15/{split}"}
    gold = frame_examples(nlp, fn15_dir / f"{split}.spacy", gold_targets=True)
    result["fn15_gold_targets"] = evaluate_frames(nlp, gold)
    raw = frame_examples(nlp, fn15_dir / f"{split}.spacy", gold_targets=False)
    detection = evaluate_frames(nlp, raw)
    result["fn15_target_detection"] = {k: detection[k] for k in ("target_p", "target_r", "target_f", "frame_acc")}
    fn15 = FrameInventory().from_disk(fn15_dir / "frames.json")
    if baseline:
        counts = lu_frame_counts([fn15_dir / "train.spacy", fn15_dir / "exemplars.spacy"])
        result["lookup_baseline"] = score_lookup_baseline(gold, counts, fn15)
    if fn17_dir is not None and (fn17_dir / "dev.spacy").exists():
        nlp.get_pipe("frame_identifier").set_inventory(FrameInventory().from_disk(fn17_dir / "frames.json"))
        dev17 = frame_examples(nlp, fn17_dir / "dev.spacy", gold_targets=True)
        result["fn17_dev"] = evaluate_frames(nlp, dev17)

        def is_new(span):
            return span.label_ not in fn15 or span.label_ not in fn15.frames_for_lu(span._.lexical_unit or "")

        new = subset(dev17, is_new)
        result["fn17_dev_new_frame_or_lu"] = evaluate_frames(nlp, new) if new else None
    return result
