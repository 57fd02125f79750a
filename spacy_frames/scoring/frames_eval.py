"""Evaluation of trained pipelines on the converted corpora, written to metrics/*.json.

Frame identification is scored with the component's registered scorer through
`nlp.evaluate`, on examples whose predicted docs carry the gold targets (the
standard gold-target setting) or not (raw text: target detection included).
"""

from collections import Counter, defaultdict
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple

import spacy
from spacy.language import Language
from spacy.tokens import DocBin, Span
from spacy.training import Example

from ..corpora.readers import create_framenet_reader, rename_frames
from ..extensions import TARGETS_KEY, install_extensions
from ..inventory.frames import FrameInventory, renamed_frames
from ..util import parse_skipped
from .frames import FRAME_SCORE_KEYS
from .prf import pct, prf

# Frame identification does not read frame_elements (trained with it in the main job's
# stage 2, so part of training/frames_final) nor the parser that feeds its suggester:
# they are left out when only frames are scored, and the speed is frame_identifier's.
NOT_FRAME_IDENTIFICATION = ("frame_elements", "parser")


def frame_examples(nlp: Language, path, gold_targets: bool) -> List[Example]:
    return list(create_framenet_reader(str(path), gold_targets=gold_targets)(nlp))


def renaming_into(corpus_frames: Path, inventory: FrameInventory) -> Optional[Dict[str, Optional[str]]]:
    """How a corpus labelled with the frames of `corpus_frames` (its frames.json) is renamed
    into a pipeline's `inventory` (by frame ID); None when the two are the same release."""
    source = FrameInventory().from_disk(corpus_frames)
    return None if source.frames == inventory.frames else renamed_frames(source, inventory)


def evaluate_frames(nlp: Language, examples: List[Example], batch_size: int = 64, per_type: bool = False) -> Dict:
    scores = nlp.evaluate(examples, batch_size=batch_size)
    out = {k: pct(scores.get(k)) for k in FRAME_SCORE_KEYS}
    out["targets"] = sum(len(eg.reference.spans.get(TARGETS_KEY, [])) for eg in examples)
    out["words_per_second"] = round(scores.get("speed", 0.0), 1)
    if per_type:
        out["frame_per_type"] = {
            frame: {"p": pct(s["p"]), "r": pct(s["r"]), "f": pct(s["f"]), "n": s["n"]}
            for frame, s in scores.get("frame_per_type", {}).items()
        }
    return out


def subset(
    examples: Iterable[Example], keep, predicted_key: str = TARGETS_KEY, match_label: bool = False
) -> List[Example]:
    """Examples restricted to the gold targets for which keep(span) is true; the predicted
    spans under `predicted_key` are kept where they sit on one of them (and, with
    `match_label`, carry its frame)."""

    def key(span: Span) -> Tuple:
        return (span.start_char, span.end_char, span.label_ if match_label else None)

    out = []
    for eg in examples:
        gold = [s for s in eg.reference.spans.get(TARGETS_KEY, []) if keep(s)]
        if not gold:
            continue
        reference = eg.reference.copy()
        reference.spans[TARGETS_KEY] = [Span(reference, s.start, s.end, label=s.label_) for s in gold]
        predicted = eg.predicted.copy()
        offsets = {key(g) for g in gold}
        predicted.spans[predicted_key] = [
            Span(predicted, s.start, s.end, label=s.label_)
            for s in eg.predicted.spans.get(predicted_key, [])
            if key(s) in offsets
        ]
        out.append(Example(predicted, reference))
    return out


def relabel(examples: Iterable[Example], mapping: Dict[str, Optional[str]]) -> Tuple[List[Example], int]:
    """The examples with each gold target's frame renamed by `mapping` (old name -> new
    name; None: the frame is gone and its targets are dropped), as the corpus reader renames
    them (`rename_frames`); returns them and how many targets were dropped. Predicted docs
    are left as they are."""
    out, dropped = [], 0
    for eg in examples:
        reference = eg.reference.copy()
        dropped += sum(mapping.get(s.label_, s.label_) is None for s in reference.spans.get(TARGETS_KEY, []))
        if rename_frames(reference, mapping):
            out.append(Example(eg.predicted, reference))
    return out, dropped


def new_in_release(old: FrameInventory, exact: bool = True):
    """Whether a gold target's frame, or its frame for this lexical unit, is not in the
    `old` release; `exact`: LUs by exact name (the "new in 1.7" targets of the FN1.7 rows),
    else under any spelling (`lu_spelling_key`)."""

    def is_new(span: Span) -> bool:
        return span.label_ not in old or span.label_ not in old.frames_for_lu(span._.lexical_unit or "", exact=exact)

    return is_new


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
        "frame_acc": pct(correct / n) if n else None,
        "frame_acc_ambiguous": pct(ambiguous_correct / ambiguous) if ambiguous else None,
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
    nlp = spacy.load(model, exclude=list(NOT_FRAME_IDENTIFICATION))
    for _, proc in nlp.pipeline:
        if hasattr(proc, "skip"):  # installed_syntax: its parser too
            proc.skip(["parser"])
    result: Dict = {"model": str(model), "split": f"framenet15/{split}"}
    fn15 = FrameInventory().from_disk(fn15_dir / "frames.json")
    shipped = nlp.get_pipe("frame_identifier").inventory
    gold = gold15 = frame_examples(nlp, fn15_dir / f"{split}.spacy", gold_targets=True)
    raw = frame_examples(nlp, fn15_dir / f"{split}.spacy", gold_targets=False)
    result["inventory"] = {"frames": len(shipped), "source": shipped.source}
    renaming = renaming_into(fn15_dir / "frames.json", shipped)
    if renaming is not None:
        # a pipeline shipping another release (FN1.7): FN1.5's gold frames under its names
        gold, result["inventory"]["fn15_targets_of_gone_frames"] = relabel(gold, renaming)
        raw, _ = relabel(raw, renaming)
    result["fn15_gold_targets"] = evaluate_frames(nlp, gold, per_type=True)
    detection = evaluate_frames(nlp, raw)
    result["fn15_target_detection"] = {k: detection[k] for k in ("target_p", "target_r", "target_f", "frame_acc")}
    if baseline:
        counts = lu_frame_counts([fn15_dir / "train.spacy", fn15_dir / "exemplars.spacy"])
        result["lookup_baseline"] = score_lookup_baseline(gold15, counts, fn15)
    if fn17_dir is not None and (fn17_dir / "dev.spacy").exists():
        fn17 = FrameInventory().from_disk(fn17_dir / "frames.json")
        if fn17.frames != shipped.frames:
            nlp.get_pipe("frame_identifier").set_inventory(fn17)
        dev17 = frame_examples(nlp, fn17_dir / "dev.spacy", gold_targets=True)
        result["fn17_dev"] = evaluate_frames(nlp, dev17)
        new = subset(dev17, new_in_release(fn15))
        result["fn17_dev_new_frame_or_lu"] = evaluate_frames(nlp, new) if new else None
    return result


# -- target detection thresholds (tuned on dev) ----------------------------------------------
def detection_threshold_sweep(
    nlp: Language,
    examples: List[Example],
    thresholds: Iterable[float],
    oov_thresholds: Iterable[float],
    batch_size: int = 64,
    name: str = "frame_identifier",
) -> Dict:
    """Target P/R/F on raw text for every pair (threshold, oov_threshold) of the
    frame_identifier `name`.

    The pipeline runs once with both cut-offs at 0, so every lexicon candidate
    comes back with its detector probability (`doc.spans["frames"].attrs["target_probs"]`);
    the cut-offs are then applied offline. Counting follows the registered scorer:
    spans match by characters, over docs with at least one gold target."""
    pipe = nlp.get_pipe(name)
    saved = (pipe.cfg["threshold"], pipe.cfg["oov_threshold"])
    pipe.cfg["threshold"] = pipe.cfg["oov_threshold"] = 0.0
    docs_out = []
    skipped = [n for n in NOT_FRAME_IDENTIFICATION if n in nlp.pipe_names]
    try:
        with parse_skipped(nlp, skipped):
            annotated = list(nlp.pipe((eg.predicted for eg in examples), batch_size=batch_size))
        for eg, doc in zip(examples, annotated):
            gold = Counter((s.start_char, s.end_char) for s in eg.reference.spans.get(TARGETS_KEY, []))
            if not gold:
                continue
            group = doc.spans[pipe.cfg["spans_key"]]
            probs = group.attrs.get("target_probs", [])
            preds = [((s.start_char, s.end_char), p, s._.lexical_unit is not None) for s, p in zip(group, probs)]
            docs_out.append((gold, preds))
    finally:
        pipe.cfg["threshold"], pipe.cfg["oov_threshold"] = saved
    n_gold = sum(sum(g.values()) for g, _ in docs_out)
    rows = []
    for t in thresholds:
        for t_oov in oov_thresholds:
            n_pred = n_match = 0
            for gold, preds in docs_out:
                kept = Counter(o for o, p, in_lex in preds if p >= (t if in_lex else t_oov))
                n_pred += sum(kept.values())
                n_match += sum(min(c, gold[o]) for o, c in kept.items())
            p, r, f = prf(n_match, n_pred, n_gold)
            rows.append(
                {
                    "threshold": round(t, 3),
                    "oov_threshold": round(t_oov, 3),
                    "target_p": pct(p),
                    "target_r": pct(r),
                    "target_f": pct(f),
                }
            )
    best = max(rows, key=lambda row: row["target_f"])
    return {"targets": n_gold, "best": best, "grid": rows}


DEFAULT_THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(1, 20))
# 1.01 = never: no target outside the lexicon
DEFAULT_OOV_THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 1.01)
