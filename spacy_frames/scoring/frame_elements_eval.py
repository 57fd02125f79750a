"""frame_elements on the converted FrameNet corpora (metrics/frame_elements.json), through
`nlp.evaluate` and the component's scorer: on gold targets and frames (open-sesame's setting:
frame_identifier disabled) and end to end from raw text; FN1.7 dev with the FN1.7 inventory
swapped in by the caller, all targets and those whose frame is new in FN1.7.
"""

from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set

import spacy
from spacy.language import Language
from spacy.training import Example

from ..corpora.readers import create_framenet_reader
from ..extensions import FRAMES_KEY, TARGETS_KEY, install_extensions
from ..inventory.frames import FrameInventory
from .frame_elements import OPEN_SESAME_KEYS
from .frames_eval import renaming_into, subset
from .prf import pct

N_TOP_TYPES = 30


def fe_examples(nlp: Language, path, gold_frames: bool = True) -> List[Example]:
    """Examples of a FrameNet DocBin, with the gold frames preset (`gold_frames`) or raw text;
    gold frames under the pipeline's names when its release differs from the corpus's."""
    path = Path(path)
    corpus = create_framenet_reader(
        str(path), gold_targets=gold_frames, gold_frames_key=FRAMES_KEY if gold_frames else None
    )
    if (path.parent / "frames.json").exists():
        corpus.renaming = renaming_into(path.parent / "frames.json", nlp.get_pipe("frame_elements").inventory)
    return list(corpus(nlp))


def evaluate_fe(
    nlp: Language, examples: List[Example], gold_frames: bool = True, trained: Optional[Set[str]] = None
) -> Dict:
    """FE P/R/F and open-sesame's (percent), core / non-core F, the most frequent FE names,
    counts, words/s; with `trained`, `fe_names_seen_or_new`."""
    disable = [name for name in ("frame_identifier",) if gold_frames and name in nlp.pipe_names]
    with nlp.select_pipes(disable=disable):
        scores = nlp.evaluate(examples, batch_size=32)
    per_type = scores.get("fe_per_type") or {}
    top = sorted(per_type.items(), key=lambda item: (-item[1]["n"], item[0]))[:N_TOP_TYPES]
    keys = ("fe_p", "fe_r", "fe_f", *OPEN_SESAME_KEYS, "fe_core_f", "fe_noncore_f")
    result = {
        **{key: pct(scores.get(key)) for key in keys},
        "targets": sum(len(eg.reference.spans.get(TARGETS_KEY, [])) for eg in examples),
        "gold_fes": sum(counts["n"] for counts in per_type.values()),
        "words_per_second": round(scores.get("speed", 0.0), 1),
        "top_fe_types": {name: {"p": pct(s["p"]), "r": pct(s["r"]), "f": pct(s["f"]), "n": s["n"]} for name, s in top},
    }
    if trained is not None:
        result["by_fe_name"] = fe_names_seen_or_new(per_type, trained)
    return result


def fe_names_seen_or_new(per_type: Dict[str, Dict], trained: Set[str]) -> Dict[str, Optional[float]]:
    """Gold and predicted FEs and recall of the FE names the model trained on ("seen") and of
    the others ("new"), from the scorer's `fe_per_type`."""
    by_kind: Dict[str, Counter] = {"seen": Counter(), "new": Counter()}
    for name, counts in per_type.items():
        by_kind["seen" if name in trained else "new"].update({k: counts[k] for k in ("n", "tp", "pred")})
    counts = {
        f"{what}_{kind}": c[k] for kind, c in by_kind.items() for what, k in (("gold", "n"), ("predicted", "pred"))
    }
    recall = {f"recall_{kind}": round(100 * c["tp"] / c["n"], 2) if c["n"] else None for kind, c in by_kind.items()}
    return {**counts, **recall}


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
    """FN1.5 `splits` on gold frames (dev tunes; test is reported once) and, with `end_to_end`,
    FN1.5 test from raw text; `model` names the pipeline in the result."""
    result: Dict = {"model": str(model), "setting": "gold targets and gold frames unless named end_to_end"}
    for split in splits:
        result[f"fn15_{split}"] = evaluate_fe(nlp, fe_examples(nlp, fn15_dir / f"{split}.spacy"))
    if end_to_end:
        raw = fe_examples(nlp, fn15_dir / "test.spacy", gold_frames=False)
        result["fn15_test_end_to_end"] = evaluate_fe(nlp, raw, gold_frames=False)
    return result


def evaluate_frame_elements_fn17(nlp: Language, fn15_dir: Path, fn17_dir: Path) -> Dict:
    """FN1.7 dev on gold frames, all targets and those whose frame FN1.5 lacks (split by whether
    FN1.5 has the FE name), of a pipeline that carries the FN1.7 inventory."""
    fn15 = FrameInventory().from_disk(fn15_dir / "frames.json")
    dev17 = fe_examples(nlp, fn17_dir / "dev.spacy")
    new = subset(dev17, lambda span: span.label_ not in fn15, FRAMES_KEY, match_label=True)
    trained = {fe for frame in fn15.names for fe in fn15.fe_names(frame)}
    return {
        "fn17_dev": evaluate_fe(nlp, dev17),
        "fn17_dev_new_frames": evaluate_fe(nlp, new, trained=trained) if new else None,
    }


# -- the decision thresholds `tune-fe-threshold` tries on dev -----------------------------------
DEFAULT_FE_THRESHOLDS = (-2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0)
