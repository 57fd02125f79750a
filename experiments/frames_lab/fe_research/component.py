"""frame_elements_research: the research frame_elements component, the arguments of every
frame target matched against FE definitions, with every option the studies screened
(experiments/frame_elements, experiments/joint_stage). Its pipelines name it
"frame_elements", as the product's; only the factory differs.

COFFTEA's target-vs-definition matching carried one level down. For each frame span of
`doc.spans[spans_key]` (frame_identifier's output, or frames the caller put there) the
suggester (`frames-lab.fe_candidate_suggester.v1`) proposes candidate spans of its
sentence; the model (`frames-lab.FrameElementScorer.v1`) scores each candidate, as
seen from its target, against "no FE" and the definitions of the FEs of the target's
frame only; per target the decoder (`span_decoding`) keeps the best valid set: no two
FEs overlap, each FE at most `max_pieces` times (in pieces that never touch), no two FEs
that FrameNet's Excludes forbids together. An FE may be the target itself (FrameNet's
incorporated FEs) when the suggester offers the target (`include_target`). With a pruner
(the model's `prune_k`), training scores every gold row and the pruner's best, and adds the
pruner's loss (`losses.span_pruner_loss`).

The frame inventory is frame_identifier's (the component named by `encoder_component`):
frame_elements reads it, as a transformer listener reads its upstream transformer, linked
by name (cfg `inventory_component`, the same as `encoder_component`) when the pipeline is
built, initialized or loaded (frame_identifier's `find_listeners`), and does not save a
copy of it. The FE definitions ("Giving: Donor
(core): The person that begins owning the Theme ...") are encoded by
frame_identifier's frame-definition encoder (`FrameIdentifier.encode_texts`) and kept,
frozen, in the model's FE table; frame_identifier tells frame_elements when its inventory
changes, so frames added later (`add_frame` on frame_identifier or `spacy_frames.add_frame`,
`set_inventory` with FrameNet 1.7) get frame elements with no retraining. Frames the
component does not know get none, with one warning.

Output: every FE span in `doc.spans[fe_key]`, label = FE name, `span.id_` pointing to its
target (`extensions.make_fe_span`); `target._.frame_elements` lists a target's FEs.
Training reads the gold frames of `targets_key` (teacher forcing, as open-sesame's
argument identification trains on gold frames) and the gold FEs of `fe_key`; docs
without gold targets are skipped.
"""

import warnings
from typing import Any, Callable, Dict, Iterable, List, Optional, Set, Tuple

import numpy
import srsly
from spacy.language import Language
from spacy.tokens import Doc, Span, SpanGroup
from spacy.training import Example, validate_get_examples
from spacy.util import registry
from spacy.vocab import Vocab
from thinc.api import Config, Model, set_dropout_rate

from spacy_frames.extensions import FE_KEY, FRAMES_KEY, TARGETS_KEY, align_target, fe_target_id, make_fe_span
from spacy_frames.inventory.frames import FrameInventory
from spacy_frames.pipeline.base import FramesPipe, default_tok2vec_config
from spacy_frames.pipeline.frame_elements import FrameElements
from spacy_frames.pipeline.sharing import skip_batch
from spacy_frames.suggesters import to_numpy

from .decoding import decode
from .fitting import FEFittingMixin
from .losses import span_pruner_loss
from .model import fe_table_node
from .suggester import build_fe_candidate_suggester
from .table import FETableMixin

# the recipe of the lab's stage 2 (experiments/frame_elements/configs/frames_stage2_fe.cfg; a
# test holds them equal), with a small CNN instead of the transformer listener so add_pipe
# works offline
default_model_config = """
[model]
@architectures = "frames-lab.FrameElementScorer.v1"
hidden_width = 512
reduction = "mean"
dropout = 0.1
learn_fe_vectors = true
token_width = 128
on_target = true
""" + default_tok2vec_config(384)
DEFAULT_FRAME_ELEMENTS_MODEL = Config().from_str(default_model_config)["model"]
DECODINGS = ("exact", "greedy")
FE_QUERIES = ("definitions", "labels")
GOLD_FRAMES_KEY = "_frame_elements_gold"  # transient, during update only
# per model call in prediction (bounds a long doc's memory): the rows the span scorer
# scores (with a pruner: the kept ones), and the candidate rows the pruner reads
MAX_ROWS = 20000
MAX_CANDIDATE_ROWS = 200000


@Language.factory(
    "frame_elements_research",
    assigns=["doc.spans", "span._.frame_elements"],
    requires=["doc.spans"],
    default_config={
        "model": DEFAULT_FRAME_ELEMENTS_MODEL,
        "spans_key": FRAMES_KEY,
        "fe_key": FE_KEY,
        "targets_key": TARGETS_KEY,
        "encoder_component": "frame_identifier",
        "fe_queries": "labels",
        "label_init": "random",
        "decoding": "exact",
        "use_excludes": True,
        "max_pieces": 1,
        "threshold": 0.0,
        "negative_fraction": 1.0,
        "head_lr_scale": 30.0,
        "loss": {"@losses": "spacy-frames.FrameElementLoss.v1", "temperature": 0.1, "none_weight": 0.2},
        "suggester": {
            "@misc": "frames-lab.fe_candidate_suggester.v1",
            "max_ngram": 4,
            "window": 30,
            "subtrees": True,
            "ngram_gap": 0,
            "include_target": True,
        },
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
def make_frame_elements_research(
    nlp: Language,
    name: str,
    model: Model,
    *,
    spans_key: str,
    fe_key: str,
    targets_key: str,
    encoder_component: str,
    fe_queries: str,
    label_init: str,
    decoding: str,
    use_excludes: bool,
    max_pieces: int,
    threshold: float,
    negative_fraction: float,
    head_lr_scale: float,
    loss: Callable,
    suggester: Callable,
    scorer: Optional[Callable],
) -> "FrameElementsResearch":
    """Create a research frame_elements component.

    model (Model): frames-lab.FrameElementScorer.v1 (candidate spans vs FE definitions).
    spans_key (str): doc.spans key of the frame spans whose FEs are labelled.
    fe_key (str): doc.spans key the FE spans are written to (and read from, gold).
    targets_key (str): doc.spans key of the gold targets (label = frame) in training data.
    encoder_component (str): the component (frame_identifier) whose frame inventory this
        one reads and whose definition encoder encodes the FE texts (its `encode_texts`)
        when the FE table is built or extended.
    fe_queries (str): "definitions" (the FE definitions as encoded, frozen; new frames work
        without retraining) or "labels" (a learned vector per FE name: the baseline; the
        model must then have learn_fe_vectors = true).
    label_init (str): how a new FE name's vector starts with fe_queries = "labels":
        "random" or "definitions" (the mean of its encoded definitions).
    decoding (str): "exact" (best valid set per target) or "greedy" (by gain).
    use_excludes (bool): forbid FE pairs that FrameNet's Excludes relation forbids.
    max_pieces (int): the most spans one FE of a target may have (2: a discontinuous FE,
        "[people] ... [who]", gets its second piece; pieces never touch).
    threshold (float): gain (log p(FE) - log p(no FE)) a candidate must exceed.
    negative_fraction (float): share of the no-FE candidate rows used per training batch.
    head_lr_scale (float): learning-rate multiplier of the component's own weights (the
        transformer's listener has none): trained jointly with a fine-tuned transformer at
        its small learning rate, the fresh head needs a larger one.
    loss (Callable): spacy-frames.FrameElementLoss.v1.
    suggester (Callable): candidate spans per target (frames-lab.fe_candidate_suggester.v1
        or .v2).
    scorer (Optional[Callable]): spacy-frames.frame_elements_scorer.v1.
    """
    return FrameElementsResearch(
        nlp.vocab,
        model,
        name,
        spans_key=spans_key,
        fe_key=fe_key,
        targets_key=targets_key,
        encoder_component=encoder_component,
        fe_queries=fe_queries,
        label_init=label_init,
        decoding=decoding,
        use_excludes=use_excludes,
        max_pieces=max_pieces,
        threshold=threshold,
        negative_fraction=negative_fraction,
        head_lr_scale=head_lr_scale,
        loss=loss,
        suggester=suggester,
        scorer=scorer,
    )


class FrameElementsResearch(FETableMixin, FEFittingMixin, FramesPipe):
    """Label the frame elements of frame spans (see the module docstring)."""

    def __init__(
        self,
        vocab: Vocab,
        model: Model,
        name: str = "frame_elements",
        *,
        spans_key: str = FRAMES_KEY,
        fe_key: str = FE_KEY,
        targets_key: str = TARGETS_KEY,
        encoder_component: str = "frame_identifier",
        fe_queries: str = "definitions",
        label_init: str = "random",
        decoding: str = "exact",
        use_excludes: bool = True,
        max_pieces: int = 1,
        threshold: float = 0.0,
        negative_fraction: float = 1.0,
        head_lr_scale: float = 1.0,
        loss: Optional[Callable] = None,
        suggester: Optional[Callable] = None,
        scorer: Optional[Callable] = None,
    ) -> None:
        if decoding not in DECODINGS:
            raise ValueError(f"frame_elements: decoding must be one of {DECODINGS}, got {decoding!r}")
        if max_pieces < 1:
            raise ValueError(f"frame_elements: max_pieces must be >= 1, got {max_pieces}")
        if not 0.0 < negative_fraction <= 1.0:
            raise ValueError(f"frame_elements: negative_fraction must be in (0, 1], got {negative_fraction}")
        if label_init not in ("random", "definitions"):
            raise ValueError(f"frame_elements: label_init must be 'random' or 'definitions', got {label_init!r}")
        if fe_queries not in FE_QUERIES:
            raise ValueError(f"frame_elements: fe_queries must be one of {FE_QUERIES}, got {fe_queries!r}")
        if (fe_queries == "labels") != bool(model.attrs.get("learn_fe_vectors", False)):
            raise ValueError(
                'frame_elements: fe_queries = "labels" needs a model with learn_fe_vectors = true, and only it'
            )
        cfg: Dict[str, Any] = {
            "spans_key": spans_key,
            "fe_key": fe_key,
            "targets_key": targets_key,
            "encoder_component": encoder_component,
            # the name the owner links its inventory readers by (`find_listeners`)
            "inventory_component": encoder_component,
            "fe_queries": fe_queries,
            "label_init": label_init,
            "decoding": decoding,
            "use_excludes": use_excludes,
            "max_pieces": max_pieces,
            "threshold": threshold,
            "negative_fraction": negative_fraction,
            "head_lr_scale": head_lr_scale,
        }
        super().__init__(vocab, model, name, cfg, scorer)
        self.loss = loss if loss is not None else registry.losses.get("spacy-frames.FrameElementLoss.v1")()
        self.suggester = suggester if suggester is not None else build_fe_candidate_suggester()
        self._owner: Optional[Any] = None  # the encoder component: the frame inventory's owner
        self.fe_table: List[Tuple[str, str]] = []  # row i + 1 of the model's FE table: (frame, FE)
        self._options: Optional[Dict[str, List[int]]] = None  # built from the table and the inventory
        self._indexed: Optional[FrameInventory] = None  # the inventory _options was built from
        self._excludes: Dict[str, Dict[str, Set[str]]] = {}
        self._warned: Set[str] = set()
        self._rng = numpy.random.default_rng(0)

    # -- candidates ------------------------------------------------------------------------
    def _targets_and_rows(
        self, docs: List[Doc], key: str
    ) -> Tuple[List[List[Span]], List[numpy.ndarray], List[List[Tuple[int, int]]]]:
        """Per doc: its targets with known frames that have FEs, the candidate rows of all
        of them ((n, 4) ints; a target repeated at the same offsets gets its own copy of the
        rows), and per target the [first, last) range of its rows."""
        suggested = self.suggester(docs, ops=self.model.ops, frames_key=key)
        data, lengths = to_numpy(suggested.dataXd).reshape(-1, 4), to_numpy(suggested.lengths)
        targets, rows, ranges = [], [], []
        offset = 0
        for doc, n in zip(docs, lengths.tolist()):
            suggested_rows = data[offset : offset + n]
            offset += n
            # the rows of each target's offsets: one stable sort by offsets, then a slice each
            codes = suggested_rows[:, 0].astype("int64") * (len(doc) + 1) + suggested_rows[:, 1]
            order = numpy.argsort(codes, kind="stable")
            sorted_codes = codes[order]
            doc_targets = [t for t in (doc.spans[key] if key in doc.spans else []) if self._known(t.label_)]
            target_codes = numpy.asarray([t.start * (len(doc) + 1) + t.end for t in doc_targets], dtype="int64")
            firsts = numpy.searchsorted(sorted_codes, target_codes)
            lasts = numpy.searchsorted(sorted_codes, target_codes + 1)
            sizes = lasts - firsts
            # each target's slice of the sorted rows, in target order
            picked = numpy.repeat(firsts - numpy.cumsum(sizes) + sizes, sizes) + numpy.arange(sizes.sum())
            ends = numpy.cumsum(sizes).tolist()
            targets.append(doc_targets)
            rows.append(suggested_rows[order[picked]].astype("int64").reshape(-1, 4))
            ranges.append(list(zip([0] + ends[:-1], ends)))
        return targets, rows, ranges

    def _known(self, frame: str) -> bool:
        if frame in self._frame_options:
            return True
        if frame not in self.inventory and frame not in self._warned:
            self._warned.add(frame)
            warnings.warn(
                f"[{self.name}] frame '{frame}' is not in the frame inventory: its targets get no frame elements.",
                stacklevel=2,
            )
        return False

    def _options_of(self, targets: List[List[Span]], ranges: List[List[Tuple[int, int]]]) -> List[List[int]]:
        options = []
        for doc_targets, doc_ranges in zip(targets, ranges):
            for target, (first, last) in zip(doc_targets, doc_ranges):
                opts = [0] + self._frame_options[target.label_]
                options.extend([opts] * (last - first))
        return options

    def _most_options(self, targets: List[List[Span]], ranges: List[List[Tuple[int, int]]]) -> int:
        """The longest of `_options_of`'s lists, read per target, not per row."""
        return max(
            (
                1 + len(self._frame_options[target.label_])
                for doc_targets, doc_ranges in zip(targets, ranges)
                for target, (first, last) in zip(doc_targets, doc_ranges)
                if last > first
            ),
            default=1,
        )

    # -- prediction -----------------------------------------------------------------------------
    def predict(self, docs: Iterable[Doc]) -> Dict[str, Any]:
        docs = list(docs)
        self._require_table()
        targets, rows, ranges = self._targets_and_rows(docs, self.cfg["spans_key"])
        options = self._options_of(targets, ranges)
        frames = self._row_frames(targets, ranges)
        return {
            "targets": targets,
            "rows": rows,
            "ranges": ranges,
            "options": options,
            **dict(
                zip(("scores", "kept"), self._scores(docs, rows, options, self._most_options(targets, ranges), frames))
            ),
        }

    def _row_frames(self, targets: List[List[Span]], ranges: List[List[Tuple[int, int]]]):
        """With frame-aware queries (the model's `frame_queries`): per row the index of its
        target's frame in the matrix of the batch's frames' definition vectors, and that
        matrix (frame_identifier's encodings); else None."""
        if not self.model.attrs.get("frame_queries", False):
            return None
        names: Dict[str, int] = {}
        index = [
            numpy.full(last - first, names.setdefault(target.label_, len(names)), dtype="int64")
            for doc_targets, doc_ranges in zip(targets, ranges)
            for target, (first, last) in zip(doc_targets, doc_ranges)
        ]
        index_array = numpy.concatenate(index) if index else numpy.zeros(0, dtype="int64")
        width = fe_table_node(self.model).get_param("fe_vectors").shape[1]
        vectors = self._require_owner().frame_definition_vectors(list(names)) if names else numpy.zeros((0, width), "f")
        return index_array, numpy.asarray(vectors, dtype="float32")

    def _scores(
        self, docs: List[Doc], rows: List[numpy.ndarray], options: List[List[int]], width: int, frames=None
    ) -> Tuple[numpy.ndarray, numpy.ndarray]:
        """The scored rows' scores (n_scored, width: the most options of a row) and which
        rows were scored (pruning drops the others), from model calls of at most MAX_ROWS
        scored rows and MAX_CANDIDATE_ROWS rows (docs are grouped up to them; a longer doc is
        cut into pieces between its targets, so each target's rows are pruned together)."""
        out: List[numpy.ndarray] = [numpy.zeros((0, width), dtype="f")]
        kept: List[numpy.ndarray] = [numpy.zeros(0, dtype=bool)]
        batch_docs: List[Doc] = []
        batch_rows: List[numpy.ndarray] = []
        done = [0]

        def flush() -> None:
            n = sum(len(r) for r in batch_rows)
            if n:
                first = done[0]
                chunk_frames = None if frames is None else (frames[0][first : first + n], frames[1])
                scores, mask, _ = self.model.predict(
                    (batch_docs, batch_rows, options[first : first + n], None, chunk_frames)
                )
                scored = self.model.ops.to_numpy(mask)[:, 0] > 0
                block = numpy.zeros((int(scored.sum()), width), dtype="f")
                block[:, : scores.shape[1]] = self.model.ops.to_numpy(scores)[scored]
                out.append(block)
                kept.append(scored)
                done[0] += n
            batch_docs.clear()
            batch_rows.clear()

        keep = self.model.attrs.get("prune_k", 0)
        n_scored = n_rows = 0
        for doc, doc_rows_ in zip(docs, rows):
            for piece in _pieces_between_targets(doc_rows_, MAX_ROWS, keep):
                piece_scored = _n_scored(piece, keep)
                if n_scored + piece_scored > MAX_ROWS or n_rows + len(piece) > MAX_CANDIDATE_ROWS:
                    flush()
                    n_scored = n_rows = 0
                batch_docs.append(doc)
                batch_rows.append(piece)
                n_scored, n_rows = n_scored + piece_scored, n_rows + len(piece)
        flush()
        return numpy.concatenate(out), numpy.concatenate(kept)

    def set_annotations(self, docs: Iterable[Doc], predictions: Dict[str, Any]) -> None:
        candidates = self._positive_candidates(predictions, getattr(self.loss, "temperature", 1.0))
        fe_names = numpy.asarray([fe for _, fe in self.fe_table] or [""], dtype=object)
        decoding, max_pieces = self.cfg["decoding"], self.cfg.get("max_pieces", 1)
        for doc, doc_targets, doc_candidates in zip(docs, predictions["targets"], candidates):
            group = SpanGroup(doc, name=self.cfg["fe_key"])
            for target, (start, end, label, gain) in zip(doc_targets, doc_candidates):
                if not len(gain):
                    continue
                cands = list(zip(start.tolist(), end.tolist(), fe_names[label - 1].tolist(), gain.tolist()))
                for fe_start, fe_end, fe_label, _ in decode(
                    cands, decoding, self.frame_excludes(target.label_), max_pieces
                ):
                    group.append(make_fe_span(target, fe_start, fe_end, fe_label))
            doc.spans[self.cfg["fe_key"]] = group

    def _positive_candidates(self, predictions: Dict[str, Any], temperature: float) -> List[List[Tuple]]:
        """Per doc, per target: its candidates with a positive gain over "no FE" beyond the
        threshold, as arrays (span starts, span ends, FE table rows, gains), from one pass over
        the batch's scored rows (a doc's targets' rows follow each other, as do the docs')."""
        options, kept, scores = predictions["options"], predictions["kept"], predictions["scores"]
        doc_rows = [numpy.asarray(r, dtype="int64").reshape(-1, 4) for r in predictions["rows"]]
        offsets = numpy.cumsum([0] + [len(r) for r in doc_rows])
        ranges = [(o + a, o + b) for o, doc_ranges in zip(offsets, predictions["ranges"]) for a, b in doc_ranges]
        all_rows = numpy.concatenate(doc_rows) if doc_rows else numpy.zeros((0, 4), dtype="int64")
        # a target's rows share its frame's options (a target without rows has none)
        target_options = [options[first] if last > first else [0] for first, last in ranges]
        n_opts = numpy.asarray([len(opts) for opts in target_options], dtype="int64")
        sizes = numpy.asarray([last - first for first, last in ranges], dtype="int64")
        rows = numpy.flatnonzero(kept)  # pruned rows are never taken
        target_of_row = numpy.repeat(numpy.arange(len(ranges)), sizes)[rows]
        block = scores[(numpy.cumsum(kept) - 1)[rows]]  # `scores` holds the scored rows only
        # the gain over "no FE" beyond the threshold, of each of the row's frame's FEs: the
        # decoders keep positive gains
        gains = (block[:, 1:] - block[:, :1]) / temperature - self.cfg["threshold"]
        exists = numpy.arange(gains.shape[1])[None, :] < (n_opts[target_of_row] - 1)[:, None]
        row, option = numpy.nonzero((gains > 0) & exists)
        target = target_of_row[row]
        option_rows = numpy.zeros((len(ranges), int(n_opts.max(initial=1))), dtype="int64")
        for i, opts in enumerate(target_options):
            option_rows[i, : len(opts)] = opts
        rows = rows[row]
        fields = (all_rows[rows, 2], all_rows[rows, 3], option_rows[target, option + 1], gains[row, option])
        bounds = numpy.searchsorted(target, numpy.arange(len(ranges) + 1))
        per_target = [tuple(f[a:b] for f in fields) for a, b in zip(bounds[:-1], bounds[1:])]
        firsts = numpy.cumsum([0] + [len(doc_ranges) for doc_ranges in predictions["ranges"]])
        return [per_target[a:b] for a, b in zip(firsts[:-1], firsts[1:])]

    # -- training --------------------------------------------------------------------------------
    def _update(self, examples: List[Example], drop: float) -> Optional[float]:
        self._require_table()
        docs = [eg.predicted for eg in examples]
        # the gold frames on the predicted tokens, under a key of our own for the suggester:
        # the predicted docs' own groups (which other components read) stay as they are
        for eg in examples:
            gold = (align_target(t, eg.predicted) for t in eg.reference.spans.get(self.cfg["targets_key"], []))
            eg.predicted.spans[GOLD_FRAMES_KEY] = SpanGroup(
                eg.predicted, name=GOLD_FRAMES_KEY, spans=[s for s in gold if s is not None]
            )
        try:
            targets, rows, ranges = self._targets_and_rows(docs, GOLD_FRAMES_KEY)
        finally:
            for doc in docs:
                del doc.spans[GOLD_FRAMES_KEY]
        options = self._options_of(targets, ranges)
        if not options:
            skip_batch(self.model.get_ref("tok2vec"), docs)
            return None
        gold = self._gold_columns(examples, targets, rows, ranges, options)
        frames = self._row_frames(targets, ranges)
        rows, options, gold, keep = self._sample_negatives(rows, options, gold)
        if frames is not None:
            frames = (frames[0][keep], frames[1])
        set_dropout_rate(self.model, drop)
        # the gold spans are always scored (pruning keeps them), so the span scorer learns
        # every FE from the first step; the pruner learns to rank them first
        (scores, mask, prune_scores), backprop = self.model.begin_update((docs, rows, options, gold != 0, frames))
        ops = self.model.ops
        kept = ops.to_numpy(mask)[:, 0] > 0
        kept_rows = ops.asarray1i(numpy.flatnonzero(kept).astype("int32"))
        d_kept, loss = self.loss(scores[kept_rows], (ops.asarray1i(gold[kept]), mask[kept_rows]))
        d_scores = ops.alloc2f(*scores.shape)
        d_scores[kept_rows] = d_kept
        d_prune = None
        if self.model.attrs.get("prune_k", 0):
            d_prune, prune_loss = span_pruner_loss(prune_scores, ops.asarray(gold != 0))
            loss += prune_loss
        backprop((d_scores, None, d_prune))
        return loss

    # the product's (spacy_frames.pipeline.frame_elements), the same to the letter
    _lr_scales = FrameElements._lr_scales

    def _sample_negatives(self, rows: List[numpy.ndarray], options: List[List[int]], gold: numpy.ndarray):
        """Every FE row and a random `negative_fraction` of the no-FE rows: most candidates
        are no FE, and the head's cost grows with the rows (the frozen transformer's does not).
        Returns the kept rows, options and gold, and the mask of the rows kept."""
        fraction = self.cfg["negative_fraction"]
        if fraction >= 1.0:
            return rows, options, gold, numpy.ones(len(gold), dtype=bool)
        keep = (gold != 0) | (self._rng.random(len(gold)) < fraction)
        kept_rows, offset = [], 0
        for doc_rows_ in rows:
            doc_keep = keep[offset : offset + len(doc_rows_)]
            kept_rows.append(
                doc_rows_[doc_keep]
                if isinstance(doc_rows_, numpy.ndarray)
                else [row for row, k in zip(doc_rows_, doc_keep) if k]
            )
            offset += len(doc_rows_)
        return kept_rows, [opts for opts, k in zip(options, keep) if k], gold[keep], keep

    def _gold_columns(self, examples, targets, rows, ranges, options) -> numpy.ndarray:
        """Per row the column of its gold FE among the row's options (0: no FE)."""
        gold = numpy.zeros(len(options), dtype="i")
        offset = 0
        for eg, doc_targets, doc_rows_, doc_ranges in zip(examples, targets, rows, ranges):
            fes: Dict[str, Dict[Tuple[int, int], str]] = {}
            for fe in eg.reference.spans.get(self.cfg["fe_key"], []):
                fes.setdefault(fe.id_, {})[(fe.start_char, fe.end_char)] = fe.label_
            if fes and len(doc_rows_):
                # each row's span as (start char, end char), the FEs' keys
                starts = eg.predicted.to_array("IDX").astype("int64")
                ends = starts + eg.predicted.to_array("LENGTH")
                arr = numpy.asarray(doc_rows_, dtype="int64").reshape(-1, 4)
                chars = list(zip(starts[arr[:, 2]].tolist(), ends[arr[:, 3] - 1].tolist()))
            for target, (first, last) in zip(doc_targets, doc_ranges):
                target_fes = fes.get(fe_target_id(target), {})
                if target_fes:
                    columns = {self.fe_table[o - 1][1]: j for j, o in enumerate(options[offset + first]) if j}
                    for r in range(first, last):
                        label = target_fes.get(chars[r])
                        gold[offset + r] = columns.get(label, 0) if label else 0
            offset += len(doc_rows_)
        return gold

    # -- initialization ---------------------------------------------------------------------------
    def initialize(
        self,
        get_examples: Callable[[], Iterable[Example]],
        *,
        nlp: Optional[Language] = None,
        frames: Optional[Callable[[], FrameInventory]] = None,
    ) -> None:
        """Link the encoder component (frame_identifier), whose frame inventory this one
        reads; build the FE table from it with its definition encoder; init the model.

        frames: a loader of a frame inventory for both components; when it differs from
        frame_identifier's (e.g. one with FE data against an inventory saved without),
        frame_identifier takes it (`spacy_frames.set_inventory`).
        """
        validate_get_examples(get_examples, "FrameElementsResearch.initialize")
        sample = [eg.predicted for _, eg in zip(range(10), get_examples())]
        if not sample:
            raise ValueError(f"[{self.name}] the training corpus is empty: nothing to initialize from.")
        owner = self._encoder_component(nlp)
        self.link_inventory(owner)
        if frames is not None:
            given = frames()
            if given.frames != owner.inventory.frames:
                owner.set_inventory(given)
        self._build_table()
        self._warn_unknown_fes(get_examples)
        self.model.initialize(X=(sample, [[] for _ in sample], []))

    # the product's (spacy_frames.pipeline.frame_elements): the warning about gold FE names
    # that are not FEs of their frame
    _warn_unknown_fes = FrameElements._warn_unknown_fes

    def _encoder_component(self, nlp: Optional[Language]):
        name = self.cfg["encoder_component"]
        if nlp is None:
            raise ValueError(
                f"[{self.name}] initialize needs the pipeline (nlp.initialize()) to find '{name}'s definition encoder."
            )
        # nlp.components: a disabled or sourced component still lends its encoder
        found = dict(nlp.components).get(name)
        if found is None or not hasattr(found, "encode_texts"):
            raise ValueError(
                f"[{self.name}] encoder_component '{name}' is not a component with a definition encoder "
                f"(pipeline: {nlp.component_names}); add frame_identifier before frame_elements."
            )
        return found

    # -- serialization (spacy_frames.pipeline.base): cfg, vocab, fe_table, model. The frame
    # inventory is frame_identifier's, saved with it; a copy saved here ("frames") is not
    # read: the linked frame_identifier's is used --------------------------------------------
    def _extra_state(self):
        def table_from(data):
            self.fe_table = [tuple(k) for k in data]
            self._index_table()

        return {
            "fe_table": (
                lambda: srsly.msgpack_dumps(self.fe_table),
                lambda b: table_from(srsly.msgpack_loads(b)),
                lambda p: srsly.write_msgpack(p, self.fe_table),
                lambda p: table_from(srsly.read_msgpack(p)),
            ),
        }


def _pieces_between_targets(rows: numpy.ndarray, limit: int, keep: int = 0) -> List[numpy.ndarray]:
    """`rows` (one doc's, a target's rows together) in pieces cut between targets, each
    with at most `limit` rows the span scorer scores (with a pruner keeping `keep` rows of
    each target: at most that many of a target's) and at most MAX_CANDIDATE_ROWS rows in
    all; a target over either limit is a piece of its own."""
    rows = numpy.asarray(rows)
    if len(rows) <= limit:
        return [rows]
    edges = _target_edges(rows)
    scored = _scored_rows(numpy.diff(edges), keep).tolist()
    edges = edges.tolist()
    pieces, start, n_scored = [], 0, 0
    for i, cost in enumerate(scored):
        if edges[i] > start and (n_scored + cost > limit or edges[i + 1] - start > MAX_CANDIDATE_ROWS):
            pieces.append(rows[start : edges[i]])
            start, n_scored = edges[i], 0
        n_scored += cost
    pieces.append(rows[start:])
    return pieces


def _scored_rows(counts: numpy.ndarray, keep: int) -> numpy.ndarray:
    """Of targets with `counts` candidate rows, how many rows the span scorer scores."""
    return numpy.minimum(counts, keep) if keep else counts


def _n_scored(rows: numpy.ndarray, keep: int) -> int:
    """How many of `rows` (a target's rows together) the span scorer scores."""
    if not keep or not len(rows):
        return len(rows)
    return int(_scored_rows(numpy.diff(_target_edges(rows)), keep).sum())


def _target_edges(rows: numpy.ndarray) -> numpy.ndarray:
    """Where each target's run of rows begins in `rows` (a target's rows together), and
    the end."""
    targets = numpy.asarray(rows)[:, :2]
    return numpy.r_[0, numpy.flatnonzero((targets[1:] != targets[:-1]).any(axis=1)) + 1, len(rows)]
