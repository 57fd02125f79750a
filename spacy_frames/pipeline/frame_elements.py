"""frame_elements: the arguments of every frame target (method and numbers: docs/frame_elements.md).

Per frame span of `doc.spans[spans_key]`, the suggester proposes candidate spans of its sentence
(the target itself included: FrameNet's incorporated FEs), the model scores each against "no FE"
and the FEs of the target's frame, and `span_decoding.exact` keeps the best valid set. The frame
inventory is frame_identifier's (`inventory_link.py`); frames it lacks get no FEs. Output: FE
spans in `doc.spans[fe_key]` (`extensions.make_fe_span`). Training reads the gold frames of
`targets_key` (teacher forcing) and the gold FEs of `fe_key`.
"""

import warnings
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple

import numpy
import srsly
from spacy.language import Language
from spacy.tokens import Doc, Span, SpanGroup
from spacy.training import Example, validate_get_examples
from spacy.util import registry
from spacy.vocab import Vocab
from thinc.api import Config, Model, set_dropout_rate
from thinc.types import Floats2d

from ..extensions import FE_KEY, FRAMES_KEY, TARGETS_KEY, align_target, fe_target_id, make_fe_span
from ..inventory.frames import FrameInventory
from ..losses import FrameElementLoss
from ..ml.frame_elements import FECandidates, option_mask, stacked_rows
from ..scoring.frame_elements import score_frame_elements
from ..scoring.prf import pct
from ..suggesters import to_numpy
from ..suggesters.frame_elements import build_fe_candidate_suggester
from ..util import consecutive_chunks
from .base import FramesPipe, default_tok2vec_config, set_runtime_settings
from .fe_table import FETableMixin
from .inventory_link import InventoryOwner
from .sharing import skip_batch
from .span_decoding import exact

# the shipped recipe (configs/frames_stage2_fe.cfg), a small CNN for the listener (offline)
default_model_config = """
[model]
@architectures = "spacy-frames.FrameElementScorer.v3"
hidden_width = 512
token_width = 128
query_width = 384
dropout = 0.1
""" + default_tok2vec_config(384)
DEFAULT_FRAME_ELEMENTS_MODEL = Config().from_str(default_model_config)["model"]
GOLD_FRAMES_KEY = "_frame_elements_gold"  # transient, during update only
# candidate rows per model call in prediction (bounds a long doc's memory)
MAX_ROWS = 20000


@Language.factory(
    "frame_elements",
    assigns=["doc.spans", "span._.frame_elements"],
    requires=["doc.spans"],
    default_config={
        "model": DEFAULT_FRAME_ELEMENTS_MODEL,
        "spans_key": FRAMES_KEY,
        "fe_key": FE_KEY,
        "targets_key": TARGETS_KEY,
        "inventory_component": "frame_identifier",
        "use_excludes": True,
        "threshold": 0.0,
        "head_lr_scale": 30.0,
        # the registered functions' defaults are the shipped recipe
        "loss": {"@losses": "spacy-frames.FrameElementLoss.v1"},
        "suggester": {"@misc": "spacy-frames.fe_candidate_suggester.v1"},
        "scorer": {"@scorers": "spacy-frames.frame_elements_scorer.v1"},
    },
    default_score_weights={
        "fe_os_f": 1.0,
        "fe_f": 0.0,
        "fe_p": 0.0,
        "fe_r": 0.0,
        "fe_core_f": None,
        "fe_noncore_f": None,
    },
)
def make_frame_elements(
    nlp: Language,
    name: str,
    model: Model,
    *,
    spans_key: str,
    fe_key: str,
    targets_key: str,
    inventory_component: str,
    use_excludes: bool,
    threshold: float,
    head_lr_scale: float,
    loss: Callable,
    suggester: Callable,
    scorer: Optional[Callable],
) -> "FrameElements":
    """inventory_component: the owner of the frame inventory read; use_excludes: forbid FE pairs
    FrameNet's Excludes forbids; threshold: the gain (log p(FE) - log p(no FE)) a candidate must
    exceed; head_lr_scale: the learning-rate multiplier of the fresh head beside the transformer."""
    return FrameElements(
        nlp.vocab,
        model,
        name,
        spans_key=spans_key,
        fe_key=fe_key,
        targets_key=targets_key,
        inventory_component=inventory_component,
        use_excludes=use_excludes,
        threshold=threshold,
        head_lr_scale=head_lr_scale,
        loss=loss,
        suggester=suggester,
        scorer=scorer,
    )


@registry.scorers("spacy-frames.frame_elements_scorer.v1")
def make_frame_elements_scorer() -> Callable:
    return score_frame_elements


class FrameElements(FETableMixin, FramesPipe):
    """Label the frame elements of frame spans (see the module docstring)."""

    runtime_settings = ("threshold", "use_excludes")

    def __init__(
        self,
        vocab: Vocab,
        model: Model,
        name: str = "frame_elements",
        *,
        spans_key: str = FRAMES_KEY,
        fe_key: str = FE_KEY,
        targets_key: str = TARGETS_KEY,
        inventory_component: str = "frame_identifier",
        use_excludes: bool = True,
        threshold: float = 0.0,
        head_lr_scale: float = 30.0,
        loss: Optional[Callable] = None,
        suggester: Optional[Callable] = None,
        scorer: Optional[Callable] = None,
    ) -> None:
        if head_lr_scale <= 0:
            raise ValueError(f"frame_elements: head_lr_scale must be > 0, got {head_lr_scale}")
        if not model.has_ref("options"):
            raise ValueError("frame_elements: the model must be a spacy-frames.FrameElementScorer.v3")
        cfg: Dict[str, Any] = {
            "spans_key": spans_key,
            "fe_key": fe_key,
            "targets_key": targets_key,
            "inventory_component": inventory_component,
            "use_excludes": use_excludes,
            "threshold": float(threshold),
            "head_lr_scale": head_lr_scale,
        }
        super().__init__(vocab, model, name, cfg, scorer)
        self.loss = loss if loss is not None else FrameElementLoss()
        self.suggester = suggester if suggester is not None else build_fe_candidate_suggester()
        self.inventory_owner: Optional[Any] = None  # frame_identifier, linked by name
        self.fe_names: List[str] = []  # row i + 1 of the model's FE table
        self._options: Optional[Dict[str, List[int]]] = None  # built from the table and the inventory
        self._indexed: Optional[FrameInventory] = None  # the inventory _options was built from
        self._excludes: Dict[str, Dict[str, Set[str]]] = {}
        self._warned: Set[str] = set()

    # -- candidates --------------------------------------------------------------------------
    def _candidates(self, docs: List[Doc], key: str) -> Tuple[List[List[Span]], FECandidates]:
        """Per doc its targets (the spans of `key` whose frames have FEs), and the batch's
        candidate rows, target after target (a repeated target gets its own copy)."""
        suggested = self.suggester(docs, ops=self.model.ops, frames_key=key)
        data, lengths = to_numpy(suggested.dataXd).reshape(-1, 4), to_numpy(suggested.lengths)
        frame_options = self._frame_options
        targets, rows, sizes, options = [], [], [], []
        offset = 0
        for doc, n in zip(docs, lengths.tolist()):
            doc_rows = data[offset : offset + n].astype("int64")
            offset += n
            # each target's rows: one stable sort by target offsets, then a slice each
            codes = doc_rows[:, 0] * (len(doc) + 1) + doc_rows[:, 1]
            order = numpy.argsort(codes, kind="stable")
            doc_targets = [t for t in doc.spans.get(key, []) if self._known(t.label_, frame_options)]
            target_codes = numpy.asarray([t.start * (len(doc) + 1) + t.end for t in doc_targets], dtype="int64")
            firsts = numpy.searchsorted(codes[order], target_codes)
            counts = numpy.searchsorted(codes[order], target_codes + 1) - firsts
            picked = numpy.repeat(firsts - numpy.cumsum(counts) + counts, counts) + numpy.arange(counts.sum())
            targets.append(doc_targets)
            rows.append(doc_rows[order[picked]].reshape(-1, 4))
            sizes.extend(counts.tolist())
            options.extend(numpy.asarray([0] + frame_options[t.label_], dtype="int64") for t in doc_targets)
        return targets, FECandidates(docs, rows, numpy.asarray(sizes, dtype="int64"), options)

    def _known(self, frame: str, frame_options: Dict[str, List[int]]) -> bool:
        if frame in frame_options:
            return True
        if frame not in self.inventory and frame not in self._warned:
            self._warned.add(frame)
            warnings.warn(
                f"[{self.name}] frame '{frame}' is not in the frame inventory: its targets get no frame elements.",
                stacklevel=3,
            )
        return False

    # -- prediction ----------------------------------------------------------------------------
    def predict(self, docs: Iterable[Doc]) -> Dict[str, Any]:
        """The targets, their candidates and each row's scores (n_rows, most options), from
        model calls of at most MAX_ROWS rows, cut between targets."""
        docs = list(docs)
        self._require_table()
        targets, candidates = self._candidates(docs, self.cfg["spans_key"])
        width = max((len(opts) for opts in candidates.options), default=1)
        scores = [self.model.ops.to_numpy(self.model.predict(chunk)) for chunk in row_chunks(candidates, MAX_ROWS)]
        padded = [numpy.zeros((0, width), "f")] + [numpy.pad(s, ((0, 0), (0, width - s.shape[1]))) for s in scores]
        return {"targets": targets, "candidates": candidates, "scores": numpy.concatenate(padded)}

    def set_annotations(self, docs: Iterable[Doc], predictions: Dict[str, Any]) -> None:
        per_target = iter(self._positive_candidates(predictions))
        for doc, doc_targets in zip(docs, predictions["targets"]):
            group = SpanGroup(doc, name=self.cfg["fe_key"])
            for target in doc_targets:
                for start, end, label, _ in exact(next(per_target), self.frame_excludes(target.label_)):
                    group.append(make_fe_span(target, start, end, label))
            doc.spans[self.cfg["fe_key"]] = group

    def _positive_candidates(self, predictions: Dict[str, Any]) -> List[List[Tuple[int, int, str, float]]]:
        """Per target: its candidates (start, end, FE name, gain) whose gain over "no FE"
        exceeds the threshold."""
        candidates, scores = predictions["candidates"], predictions["scores"]
        gains = (scores[:, 1:] - scores[:, :1]) / getattr(self.loss, "temperature", 1.0) - self.cfg["threshold"]
        exists = self.model.ops.to_numpy(option_mask(self.model.ops, candidates, scores.shape[1]))[:, 1:] > 0
        row, option = numpy.nonzero((gains > 0) & exists)  # by row, so target after target
        flat, names = stacked_rows(candidates), numpy.asarray(["", *self.fe_names], dtype=object)
        ends = numpy.searchsorted(row, numpy.cumsum(candidates.target_sizes)).tolist()
        per_target = []
        for opts, first, last in zip(candidates.options, [0, *ends], ends):
            r, o = row[first:last], option[first:last]
            fields = (flat[r, 2], flat[r, 3], names[opts[o + 1]], gains[r, o])
            per_target.append(list(zip(*(f.tolist() for f in fields))))
        return per_target

    # -- training ------------------------------------------------------------------------------
    def _update(self, examples: List[Example], drop: float) -> Optional[float]:
        self._require_table()
        docs = [eg.predicted for eg in examples]
        # the gold frames on the predicted tokens, under a key of our own for the suggester:
        # the predicted docs' own groups (which other components read) stay as they are
        for eg in examples:
            gold = (align_target(t, eg.predicted) for t in eg.reference.spans.get(self.cfg["targets_key"], []))
            eg.predicted.spans[GOLD_FRAMES_KEY] = [s for s in gold if s is not None]
        try:
            targets, candidates = self._candidates(docs, GOLD_FRAMES_KEY)
        finally:
            for doc in docs:
                del doc.spans[GOLD_FRAMES_KEY]
        if not int(candidates.target_sizes.sum()):
            skip_batch(self.model.get_ref("tok2vec"), docs)
            return None
        set_dropout_rate(self.model, drop)
        scores, backprop = self.model.begin_update(candidates)
        loss, d_scores = self.get_loss(examples, (targets, candidates, scores))
        backprop(d_scores)
        return loss

    def get_loss(self, examples: Iterable[Example], predictions) -> Tuple[float, Floats2d]:
        """The loss and gradient of `predictions` = (targets, candidates, scores) against the
        gold FEs of `examples` (`FrameElementLoss`: a softmax over each row's options)."""
        targets, candidates, scores = predictions
        gold = self._gold_columns(list(examples), targets, candidates)
        mask = option_mask(self.model.ops, candidates, scores.shape[1])
        d_scores, loss = self.loss(scores, (self.model.ops.asarray1i(gold), mask))
        return loss, d_scores

    def _gold_columns(self, examples: List[Example], targets: List[List[Span]], candidates: FECandidates):
        """Per row the column of its gold FE among its target's options (0: no FE)."""
        gold: List[int] = []
        sizes, options = iter(candidates.target_sizes.tolist()), iter(candidates.options)
        for eg, doc_targets, doc_rows in zip(examples, targets, candidates.rows):
            fes = {
                (fe.id_, fe.start_char, fe.end_char): fe.label_ for fe in eg.reference.spans.get(self.cfg["fe_key"], [])
            }
            starts = eg.predicted.to_array("IDX").astype("int64")
            ends = starts + eg.predicted.to_array("LENGTH")
            first = 0
            for target in doc_targets:
                size, target_id = next(sizes), fe_target_id(target)
                column = {self.fe_names[o - 1]: j for j, o in enumerate(next(options).tolist()) if j}
                rows = doc_rows[first : first + size]
                chars = zip(starts[rows[:, 2]].tolist(), ends[rows[:, 3] - 1].tolist())
                gold.extend(column.get(fes.get((target_id, *span), ""), 0) for span in chars)
                first += size
        return numpy.asarray(gold, dtype="i")

    def _lr_scales(self) -> Dict[Tuple[int, str], float]:
        scale = self.cfg["head_lr_scale"]
        return {(node.id, name): scale for node in self.model.walk() for name in node.param_names}

    # -- the decision threshold, fitted on dev (`spacy-frames tune-fe-threshold`) -------------
    def find_threshold(
        self,
        examples: Sequence[Example],
        *,
        nlp: Language,
        thresholds: Sequence[float],
        criterion: str = "fe_f",
        batch_size: int = 32,
    ) -> Dict[str, Any]:
        """Set the threshold best for `criterion` ("fe_f" or open-sesame's "fe_os_f") on dev
        `examples` (gold frames) in cfg and the pipeline's config; the model runs once. Returns
        the configured threshold's row ("before"), the best and the grid (both measures)."""
        if criterion not in ("fe_f", "fe_os_f"):
            raise ValueError(f"[{self.name}] criterion must be 'fe_f' or 'fe_os_f', got {criterion!r}")
        docs = self.preceding_docs(nlp, examples, batch_size)
        chunks = [docs[i : i + batch_size] for i in range(0, len(docs), batch_size)]
        predictions = [self.predict(chunk) for chunk in chunks]
        n_rows = sum(int(prediction["candidates"].target_sizes.sum()) for prediction in predictions)
        configured, rows = self.cfg["threshold"], []
        try:
            for threshold in thresholds:
                self.cfg["threshold"] = threshold
                for chunk, prediction in zip(chunks, predictions):
                    self.set_annotations(chunk, prediction)
                scores = score_frame_elements(
                    [Example(d, eg.reference) for d, eg in zip(docs, examples)], component=self
                )
                measures = {key: pct(scores[key]) for key in ("fe_p", "fe_r", "fe_f", "fe_os_p", "fe_os_r", "fe_os_f")}
                rows.append({"threshold": threshold, "candidate_rows": n_rows, **measures})
        finally:
            self.cfg["threshold"] = configured
        best = {**max(rows, key=lambda row: row[criterion] or 0.0), "criterion": criterion}
        set_runtime_settings(nlp, self.name, {"threshold": best["threshold"]})
        return {"before": next((r for r in rows if r["threshold"] == configured), None), "best": best, "grid": rows}

    def preceding_docs(self, nlp: Language, examples: Sequence[Example], batch_size: int = 32) -> List[Doc]:
        """The examples' texts through the components before this one but the inventory's owner
        (the gold frames are read): what this component sees on dev."""
        owner = self.cfg["inventory_component"]
        before = [n for n in nlp.pipe_names[: nlp.pipe_names.index(self.name)] if n != owner]
        with nlp.select_pipes(enable=before):
            return list(nlp.pipe((eg.predicted for eg in examples), batch_size=batch_size))

    # -- initialization ------------------------------------------------------------------------
    def initialize(
        self,
        get_examples: Callable[[], Iterable[Example]],
        *,
        nlp: Optional[Language] = None,
        frames: Optional[Callable[[], FrameInventory]] = None,
    ) -> None:
        """Link the inventory component, build the FE table and initialize the model. `frames`: a
        loader of an inventory (with FE data) frame_identifier takes when its own differs."""
        validate_get_examples(get_examples, "FrameElements.initialize")
        sample = [eg.predicted for _, eg in zip(range(10), get_examples())]
        if not sample:
            raise ValueError(f"[{self.name}] the training corpus is empty: nothing to initialize from.")
        owner = self._inventory_component(nlp)
        self.link_inventory(owner)
        if frames is not None:
            given = frames()
            if given.frames != owner.inventory.frames:
                owner.set_inventory(given)
        self._build_table()
        self._warn_unknown_fes(get_examples)
        empty = numpy.zeros((0, 4), dtype="int64")
        self.model.initialize(X=FECandidates(sample, [empty for _ in sample], numpy.zeros(0, dtype="int64"), []))

    def _warn_unknown_fes(self, get_examples: Callable[[], Iterable[Example]]) -> None:
        inventory = self.inventory
        unknown = {
            fe.label_
            for eg in get_examples()
            for fe in eg.reference.spans.get(self.cfg["fe_key"], [])
            if fe._.fe_frame in inventory and fe.label_ not in inventory.fe_names(fe._.fe_frame)
        }
        if unknown:
            warnings.warn(
                f"[{self.name}] {len(unknown)} gold FE name(s) are not FEs of their frame and are never learned: "
                f"{sorted(unknown)[:10]}",
                stacklevel=2,
            )

    def _inventory_component(self, nlp: Optional[Language]) -> InventoryOwner:
        name = self.cfg["inventory_component"]
        # get_pipe: a disabled or sourced component still lends its inventory
        if nlp is None or name not in nlp.component_names or not hasattr(nlp.get_pipe(name), "add_inventory_reader"):
            raise ValueError(
                f"[{self.name}] inventory_component '{name}' is not a component of the pipeline that owns a frame "
                "inventory: add frame_identifier before frame_elements, and initialize through nlp.initialize()."
            )
        return nlp.get_pipe(name)

    # -- serialization (pipeline/base.py): cfg, vocab, the FE names, model ----------------------
    def _extra_state(self):
        def names_from(data):
            self.fe_names = [str(name) for name in data]
            self._index_table()

        return {
            "fe_table": (
                lambda: srsly.msgpack_dumps(self.fe_names),
                lambda b: names_from(srsly.msgpack_loads(b)),
                lambda p: srsly.write_msgpack(p, self.fe_names),
                lambda p: names_from(srsly.read_msgpack(p)),
            ),
        }


def row_chunks(candidates: FECandidates, limit: int) -> Iterable[FECandidates]:
    """`candidates` in batches of at most `limit` rows, cut between targets (a target over
    the limit is a batch of its own; a batch of targets without rows is left out)."""
    sizes = numpy.asarray(candidates.target_sizes, dtype="int64")
    ends = numpy.cumsum(sizes)  # each target's last row + 1, in the batch
    doc_ends = numpy.cumsum([len(r) for r in candidates.rows])
    doc_starts = doc_ends - [len(r) for r in candidates.rows]
    for run in consecutive_chunks(sizes.tolist(), max_items=len(sizes) or 1, max_size=limit):
        first, last = ends[run.start] - sizes[run.start], ends[run.stop - 1]
        if last > first:
            docs = [d for d in range(len(candidates.docs)) if doc_starts[d] < last and doc_ends[d] > first]
            rows = [candidates.rows[d][max(first - doc_starts[d], 0) : last - doc_starts[d]] for d in docs]
            options = candidates.options[run.start : run.stop]
            yield FECandidates([candidates.docs[d] for d in docs], rows, sizes[run.start : run.stop], options)
