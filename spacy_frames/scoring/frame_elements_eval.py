"""Evaluation of frame_elements on the converted FrameNet corpora (metrics/frame_elements.json).

Settings, each scored with the component's registered scorer through `nlp.evaluate`:
- gold targets and gold frames (the argument-identification measure of open-sesame and
  frame-semantic-transformer): the reader puts the gold frames in doc.spans["frames"]
  and frame_identifier is disabled;
- end to end from raw text: frame_identifier finds the targets and their frames, and an
  FE counts only when its target, span and name are all right.
FN1.7 dev is scored with the FN1.7 inventory swapped into both components (no
retraining; the caller swaps it, `spacy_frames.set_inventory`), on all targets and on the
targets whose frame is new in 1.7.
Each setting gets the strict measure (fe_p / fe_r / fe_f) and open-sesame's labeled
argument-identification measure beside it (fe_os_p / fe_os_r / fe_os_f,
`score_frame_elements_open_sesame`), both from the registered scorer.
"""

from collections import Counter
from pathlib import Path
from typing import Dict, List, Sequence, Set

import spacy
from spacy.language import Language
from spacy.training import Example

from ..corpora.readers import create_framenet_reader
from ..extensions import FRAMES_KEY, TARGETS_KEY, install_extensions
from ..inventory.frames import FrameInventory
from .frame_elements import OPEN_SESAME_KEYS, fe_tuples
from .frames_eval import renaming_into, subset
from .prf import pct

N_TOP_TYPES = 30


def fe_examples(nlp: Language, path, gold_frames: bool = True) -> List[Example]:
    """Examples of a FrameNet DocBin: with the gold targets and frames as preset frames
    (`gold_frames`), or raw text. A pipeline trained against another release than the
    corpus's (its frames.json beside it) gets the gold frames under its own names."""
    path = Path(path)
    corpus = create_framenet_reader(
        str(path), gold_targets=gold_frames, gold_frames_key=FRAMES_KEY if gold_frames else None
    )
    if (path.parent / "frames.json").exists():
        corpus.renaming = renaming_into(path.parent / "frames.json", nlp.get_pipe("frame_elements").inventory)
    return list(corpus(nlp))


def evaluate_fe(nlp: Language, examples: List[Example], gold_frames: bool = True, batch_size: int = 32) -> Dict:
    """FE P/R/F (percent) and open-sesame's fe_os_p / fe_os_r / fe_os_f beside them, core /
    non-core F, the most frequent FE names, counts, words/s."""
    disable = [name for name in ("frame_identifier",) if gold_frames and name in nlp.pipe_names]
    with nlp.select_pipes(disable=disable):
        scores = nlp.evaluate(examples, batch_size=batch_size)
    per_type = scores.get("fe_per_type") or {}
    top = sorted(per_type.items(), key=lambda item: (-item[1]["n"], item[0]))[:N_TOP_TYPES]
    result = {
        "fe_p": pct(scores.get("fe_p")),
        "fe_r": pct(scores.get("fe_r")),
        "fe_f": pct(scores.get("fe_f")),
        **{key: pct(scores.get(key)) for key in OPEN_SESAME_KEYS},
        "fe_core_f": pct(scores.get("fe_core_f")),
        "fe_noncore_f": pct(scores.get("fe_noncore_f")),
        "targets": sum(len(eg.reference.spans.get(TARGETS_KEY, [])) for eg in examples),
        "gold_fes": sum(_n_gold_fes(eg) for eg in examples),
        "words_per_second": round(scores.get("speed", 0.0), 1),
        "top_fe_types": {name: {"p": pct(s["p"]), "r": pct(s["r"]), "f": pct(s["f"]), "n": s["n"]} for name, s in top},
    }
    return result


def _n_gold_fes(eg: Example) -> int:
    """The gold FEs of the example's gold targets (as the scorer counts them)."""
    offsets = {(t.start_char, t.end_char) for t in eg.reference.spans.get(TARGETS_KEY, [])}
    return sum(1 for key in fe_tuples(eg.reference) if (key[0], key[1]) in offsets)


def load_frame_parser(model: str) -> Language:
    """The pipeline of `model` with frame_elements, and frame_identifier enabled (it may
    have been saved disabled: frame_elements is trained on gold frames)."""
    install_extensions()
    nlp = spacy.load(model)
    if "frame_elements" not in nlp.component_names:
        raise ValueError(f"{model} has no frame_elements component (components: {nlp.component_names})")
    if "frame_identifier" in nlp.disabled:
        nlp.enable_pipe("frame_identifier")
    return nlp


def evaluate_frame_elements(
    nlp: Language,
    model: str,
    fn15_dir: Path,
    splits: Sequence[str] = ("dev",),
    end_to_end: bool = False,
) -> Dict:
    """The FN1.5 frame_elements numbers of one trained pipeline (see the module docstring).
    `splits`: FN1.5 splits on gold frames (dev for tuning; test is reported once);
    `end_to_end`: also raw text on FN1.5 test. `model`: its name in the result."""
    result: Dict = {"model": str(model), "setting": "gold targets and gold frames unless named end_to_end"}
    for split in splits:
        examples = fe_examples(nlp, fn15_dir / f"{split}.spacy")
        result[f"fn15_{split}"] = evaluate_fe(nlp, examples)
    if end_to_end:
        result["fn15_test_end_to_end"] = evaluate_fe(
            nlp, fe_examples(nlp, fn15_dir / "test.spacy", gold_frames=False), gold_frames=False
        )
    return result


def evaluate_frame_elements_fn17(nlp: Language, fn15_dir: Path, fn17_dir: Path) -> Dict:
    """FN1.7 dev on gold frames, all targets and those whose frame FN1.5 lacks, of a
    pipeline that carries the FN1.7 inventory."""
    fn15 = FrameInventory().from_disk(fn15_dir / "frames.json")
    dev17 = fe_examples(nlp, fn17_dir / "dev.spacy")
    result = {"fn17_dev": evaluate_fe(nlp, dev17)}
    new = subset(dev17, lambda span: span.label_ not in fn15, FRAMES_KEY, match_label=True)
    result["fn17_dev_new_frames"] = evaluate_fe(nlp, new) if new else None
    if new:
        trained = {fe for frame in fn15.names for fe in fn15.fe_names(frame)}
        result["fn17_dev_new_frames"]["by_fe_name"] = fe_names_seen_or_new(nlp, new, trained)
    return result


def fe_names_seen_or_new(nlp: Language, examples: List[Example], trained: Set[str]) -> Dict:
    """Gold and predicted FEs (exact span and name) of `examples` on gold frames, split by
    whether the FE name is one the model was trained on (`trained`) or new to it: gold and
    predicted counts and recall of each."""
    with nlp.select_pipes(disable=[n for n in ("frame_identifier",) if n in nlp.pipe_names]):
        docs = list(nlp.pipe((eg.predicted.copy() for eg in examples), batch_size=32))
    counts: Counter = Counter()
    for doc, eg in zip(docs, examples):
        targets = {(t.start_char, t.end_char) for t in eg.reference.spans.get(TARGETS_KEY, [])}
        predicted = {key for key in fe_tuples(doc) if key[:2] in targets}
        for key in fe_tuples(eg.reference):
            if key[:2] in targets:
                kind = "seen" if key[4] in trained else "new"
                counts[f"gold_{kind}"] += 1
                counts[f"found_{kind}"] += key in predicted
        counts.update(f"predicted_{'seen' if key[4] in trained else 'new'}" for key in predicted)
    result = {f"{what}_{kind}": counts[f"{what}_{kind}"] for kind in ("seen", "new") for what in ("gold", "predicted")}
    for kind in ("seen", "new"):
        gold = counts[f"gold_{kind}"]
        result[f"recall_{kind}"] = round(100 * counts[f"found_{kind}"] / gold, 2) if gold else None
    return result


# -- the decision threshold and the candidates (tuned on dev) ----------------------------------
DEFAULT_FE_THRESHOLDS = (-2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0)
