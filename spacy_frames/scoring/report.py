"""`spacy-frames evaluate`: the scores of a pipeline on gold data as one table a person
can read.

`spacy evaluate` runs the same registered scorers, but its console table knows only
spaCy's own keys. Here the scores come from `nlp.evaluate` (every component's
registered scorer; its Scorer also scores the induced frames with
`score_induced_frames`, on the evaluated copies it does not return), and a row is
shown only when the gold docs hold the annotation it needs and the pipeline has the
component that gives it. The data may mix tasks (FrameNet sentences, discourse
relations, articles): each scorer scores only the docs with its gold.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

from spacy.language import Language
from spacy.scorer import Scorer
from spacy.tokens import Doc, DocBin
from spacy.training import Example

from ..extensions import ARGS_KEY, FE_KEY, TARGETS_KEY, install_extensions
from .induction import score_induced_frames

# the gold annotations a row can need, as messages name them
ANNOTATIONS = {
    "frames": "gold targets with frames",
    "frame_elements": "frame elements",
    "discourse": "discourse relations with gold senses",
    "media": "articles with gold media frames",
}
# which component scores which annotation (by factory, so any component name works)
SCORED_BY = {
    "frames": ("frame_identifier", "frame_inducer"),
    "frame_elements": ("frame_elements",),
    "discourse": ("discourse_sense",),
    "media": ("media_framer",),
}

OURS = tuple(factory for factories in SCORED_BY.values() for factory in factories)


@dataclass(frozen=True)
class Metric:
    name: str  # what the table says
    key: str  # the score key in nlp.evaluate's scores (and the JSON)
    annotation: str  # the gold annotation it needs (ANNOTATIONS)
    factory: str  # the component that gives it


METRICS = (
    Metric("Target P", "target_p", "frames", "frame_identifier"),
    Metric("Target R", "target_r", "frames", "frame_identifier"),
    Metric("Target F", "target_f", "frames", "frame_identifier"),
    Metric("Frame accuracy", "frame_acc", "frames", "frame_identifier"),
    Metric("Frame R@1", "frame_r1", "frames", "frame_identifier"),
    Metric("Frame R@5", "frame_r5", "frames", "frame_identifier"),
    Metric("FE P", "fe_p", "frame_elements", "frame_elements"),
    Metric("FE R", "fe_r", "frame_elements", "frame_elements"),
    Metric("FE F", "fe_f", "frame_elements", "frame_elements"),
    Metric("FE P (open-sesame)", "fe_os_p", "frame_elements", "frame_elements"),
    Metric("FE R (open-sesame)", "fe_os_r", "frame_elements", "frame_elements"),
    Metric("FE F (open-sesame)", "fe_os_f", "frame_elements", "frame_elements"),
    Metric("Induced frames BcF", "induce_bcf", "frames", "frame_inducer"),
    Metric("Discourse L1 accuracy", "disc_l1_acc", "discourse", "discourse_sense"),
    Metric("Discourse L1 macro-F1", "disc_l1_macro_f1", "discourse", "discourse_sense"),
    Metric("Discourse L2 accuracy", "disc_l2_acc", "discourse", "discourse_sense"),
    Metric("Discourse L2 macro-F1", "disc_l2_macro_f1", "discourse", "discourse_sense"),
    Metric("Media micro-F1", "media_micro_f1", "media", "media_framer"),
    Metric("Media macro-F1", "media_macro_f1", "media", "media_framer"),
)
# with the gold targets given to the pipeline, target detection is trivially perfect
TARGET_DETECTION = ("target_p", "target_r", "target_f")
SPEED = Metric("Words/s", "speed", "", "")


def check_data(path: Union[str, Path]) -> Path:
    """The path of a gold DocBin, or a clear error (before any model is loaded)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"Evaluation data '{path}' not found.")
    if path.is_dir() or path.suffix != ".spacy":
        raise ValueError(
            f"Evaluation data '{path}' is not a .spacy file (a DocBin of gold docs, as `spacy convert` writes)."
        )
    return path


def read_gold(path: Union[str, Path], vocab) -> List[Doc]:
    path = check_data(path)
    install_extensions()  # before get_docs, so the gold extension values can be read
    try:
        docs = list(DocBin().from_disk(path).get_docs(vocab))
    except Exception as err:  # msgpack / zlib errors of a file that is no DocBin
        raise ValueError(f"Evaluation data '{path}' could not be read as a DocBin: {err}") from err
    if not docs:
        raise ValueError(f"Evaluation data '{path}' holds no documents.")
    return docs


def components(nlp: Language) -> Dict[str, str]:
    """factory -> name of the pipeline's first component built by it."""
    out: Dict[str, str] = {}
    for name in nlp.pipe_names:
        out.setdefault(nlp.get_pipe_meta(name).factory, name)
    return out


def _cfg(nlp: Language, found: Dict[str, str], factory: str, key: str, default: Any) -> Any:
    return nlp.get_pipe(found[factory]).cfg.get(key, default) if factory in found else default


def gold_keys(nlp: Language) -> Dict[str, str]:
    """The span keys of the gold, as the pipeline's components are configured."""
    found = components(nlp)
    targets_key = _cfg(
        nlp, found, "frame_identifier", "targets_key", _cfg(nlp, found, "frame_inducer", "targets_key", TARGETS_KEY)
    )
    return {"targets_key": targets_key, "fe_key": _cfg(nlp, found, "frame_elements", "fe_key", FE_KEY)}


def gold_annotations(docs: Sequence[Doc], *, targets_key: str = TARGETS_KEY, fe_key: str = FE_KEY) -> Dict[str, int]:
    """How much of each annotation the gold docs hold (ANNOTATIONS; 0 = absent)."""
    counts = dict.fromkeys(ANNOTATIONS, 0)
    for doc in docs:
        counts["frames"] += sum(1 for span in doc.spans.get(targets_key, []) if span.label_)
        counts["frame_elements"] += len(doc.spans.get(fe_key, []))
        gold = doc._.discourse_gold
        counts["discourse"] += bool(gold and gold.get("senses"))
        counts["media"] += bool(doc.cats)
    return counts


def select_metrics(annotations: Dict[str, int], factories: Sequence[str], gold_targets: bool = False) -> List[Metric]:
    """The rows: data with the annotation, pipeline with the component."""
    return [
        m
        for m in METRICS
        if annotations.get(m.annotation) and m.factory in factories and not (gold_targets and m.key in TARGET_DETECTION)
    ]


def describe(annotations: Dict[str, int]) -> str:
    found = [f"{n} {ANNOTATIONS[name]}" for name, n in annotations.items() if n]
    return ", ".join(found) if found else "no gold annotation of any of " + ", ".join(ANNOTATIONS.values())


def make_examples(
    nlp: Language, docs: Sequence[Doc], *, gold_targets: bool = False, targets_key: str = TARGETS_KEY
) -> List[Example]:
    """Examples as the components' readers make them: raw text, except a discourse
    relation's two argument spans (the task's input, with the component's separator)
    and, with `gold_targets`, the gold targets."""
    from ..corpora.discourse import input_doc, with_separator
    from ..corpora.readers import copy_targets
    from .discourse_eval import component_separator

    separator = component_separator(nlp)
    examples = []
    for ref in docs:
        if ref._.discourse_gold and len(ref.spans.get(ARGS_KEY, [])) == 2:
            ref = with_separator(nlp, ref, separator)
            predicted = input_doc(nlp, ref)
        else:
            predicted = nlp.make_doc(ref.text)
        if gold_targets and targets_key in ref.spans:
            copy_targets(ref, predicted, targets_key)
        examples.append(Example(predicted, ref))
    return examples


class ReportScorer(Scorer):
    """nlp.evaluate's Scorer (every component's registered scorer), plus the B-cubed
    scores of the induced frames: nlp.evaluate scores copies of the examples and does
    not return them, so they are scored here."""

    def __init__(self, nlp: Language, induction: Optional[Dict[str, Any]] = None, **cfg) -> None:
        super().__init__(nlp=nlp, **cfg)
        self.induction = induction

    def score(self, examples, *, per_component: bool = False) -> Dict[str, Any]:
        scores = super().score(examples, per_component=per_component)
        if self.induction is not None:
            induced = score_induced_frames(examples, **self.induction)
            scores.update({"frame_inducer": induced} if per_component else induced)
        return scores


def evaluate_report(
    nlp: Language, data_path: Union[str, Path], *, gold_targets: bool = False, batch_size: Optional[int] = None
) -> Dict[str, Any]:
    """Evaluate `nlp` on a gold DocBin: {"data", "documents", "annotations" (counts),
    "components", "rows" ([{"name", "key", "value"}], the table, words/s last),
    "scores" (all of nlp.evaluate's), "words_per_second"}. Raises ValueError when the
    data holds nothing the pipeline can score, before running it."""
    docs = read_gold(data_path, nlp.vocab)
    keys = gold_keys(nlp)
    annotations = gold_annotations(docs, **keys)
    found = components(nlp)
    metrics = select_metrics(annotations, list(found), gold_targets)
    if not metrics:
        ours = ", ".join(f"{a} by {' / '.join(f)}" for a, f in SCORED_BY.items())
        raise ValueError(
            f"'{data_path}' holds no annotation this pipeline can score. Found: {describe(annotations)}. "
            f"Pipeline components: {', '.join(nlp.pipe_names) or 'none'}. Scored: {ours}."
        )
    induction = None
    if "frame_inducer" in found and any(m.factory == "frame_inducer" for m in metrics):
        inducer = nlp.get_pipe(found["frame_inducer"])
        induction = {"targets_key": keys["targets_key"], "pos": inducer.cfg.get("pos", ["VERB"])}
    examples = make_examples(nlp, docs, gold_targets=gold_targets, targets_key=keys["targets_key"])
    scores = nlp.evaluate(examples, batch_size=batch_size, scorer=ReportScorer(nlp, induction))
    rows = [{"name": m.name, "key": m.key, "value": scores.get(m.key)} for m in metrics + [SPEED]]
    return {
        "data": str(data_path),
        "documents": len(docs),
        "annotations": annotations,
        "gold_targets": gold_targets,
        "components": {factory: name for factory, name in found.items() if factory in OURS},
        "rows": rows,
        "scores": scores,
        "words_per_second": scores.get("speed"),
    }


def format_value(key: str, value: Optional[float]) -> str:
    """As `spacy evaluate` prints: percentages with 2 decimals, words/s whole, "-" for none."""
    if value is None:
        return "-"
    return f"{value:.0f}" if key == SPEED.key else f"{100 * value:.2f}"


def print_report(report: Dict[str, Any], printer=None) -> None:
    """The rows as one wasabi table (spaCy's CLI style), after what the data holds."""
    from wasabi import Printer

    msg = printer if printer is not None else Printer()
    msg.info(
        f"{report['data']}: {report['documents']} docs; {describe(report['annotations'])}"
        + (" (gold targets given)" if report.get("gold_targets") else "")
    )
    data = [(row["name"], format_value(row["key"], row["value"]), row["key"]) for row in report["rows"]]
    msg.table(data, header=("", "score", "key"), aligns=("l", "r", "l"), divider=True, title="Results")
