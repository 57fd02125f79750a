"""frame_identifier: frame-evoking targets -> FrameNet frames with a dual encoder.

Method: COFFTEA (An et al. 2023). Targets come from the suggester
(`spacy-frames.frame_target_suggester.v1`): `doc.spans[targets_key]` when it is set
(gold-target mode), else the lexicon, whose candidates a trained detector filters
(raw text). Each target vector is compared by cosine with every frame vector
(FAISS inner product over L2-normalised vectors); the decision is restricted to
the target's lexicon candidates when `lexicon_filter` is on and it has any.

Training is coarse-to-fine, one spaCy config per stage:
- `objective = "in_batch"`: InfoNCE over the batch's gold frames (stage 1);
- `objective = "in_candidate"`: each target against its lexicon candidates,
  the gold frame's Inheritance siblings and random frames, padded to
  `n_negatives` (stage 2).
"""

import random
from itertools import islice
from typing import Any, Callable, Collection, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple

import numpy
import srsly
from spacy.language import Language
from spacy.tokens import Doc, Span, SpanGroup
from spacy.training import Example, validate_get_examples
from spacy.util import registry
from spacy.vocab import Vocab
from thinc.api import Config, Model, Optimizer, set_dropout_rate

from ..extensions import FRAMES_KEY, TARGETS_KEY, is_partial
from ..inventory.frames import FrameInventory, carried_frames
from ..inventory.index import FrameIndex
from ..inventory.lexicon import Lexicon
from ..losses import BinaryCrossEntropy, InfoNCE
from ..losses.frames import candidate_columns, contrastive_scores_loss
from ..ml.frame_identifier import FRAME_MEMORY, CachedFrames
from ..ml.layers import l2_normalize
from ..scoring.frames import score_frame_identification
from ..suggesters import suggested_spans
from ..suggesters.frames import (
    TargetBatch,
    build_frame_target_suggester,
    detection_examples,
    gold_targets,
    target_batch,
)
from .base import FramesPipe, default_tok2vec_config, set_runtime_settings
from .frame_memory import parse_rule, predict_memory
from .inventory_link import InventoryReader
from .releases import ReleasesMixin, StoredReleases
from .sharing import skip_batch, tie_to_transformer
from .target_calibration import TargetCalibration, candidate_key, resolve_overlaps

default_model_config = """
[model]
@architectures = "spacy-frames.FrameIdentifier.v1"

[model.frame_encoder]
@architectures = "spacy-frames.DefinitionEncoder.v1"
name = "assets/encoders/all-MiniLM-L6-v2"
max_length = 48
""" + default_tok2vec_config(384)
DEFAULT_FRAME_IDENTIFIER_MODEL = Config().from_str(default_model_config)["model"]

OBJECTIVES = ("in_batch", "in_candidate")


class FrameTruths(NamedTuple):
    """What `FrameIdentifier.get_loss` compares a batch's output with."""

    gold_rows: numpy.ndarray  # the gold targets' rows among all targets
    frames: List[str]  # their gold frames
    columns: List[str]  # the frames scored
    candidates: Optional[numpy.ndarray]  # each gold target's columns (in_candidate), or None: all
    det_labels: List[float]  # per target: 1 gold target, 0 other candidate (the detector's labels)


@Language.factory(
    "frame_identifier",
    assigns=["doc.spans", "span._.frame_ranking", "span._.lexical_unit"],
    requires=["token.lemma", "token.pos"],
    default_config={
        "model": DEFAULT_FRAME_IDENTIFIER_MODEL,
        "spans_key": FRAMES_KEY,
        "targets_key": TARGETS_KEY,
        "top_k": 5,
        "lexicon_filter": True,
        "threshold": 0.5,
        "oov_threshold": 0.9,
        "oov_pos": ["NOUN", "VERB", "ADJ"],
        "overlapping_candidates": False,
        "objective": "in_batch",
        "n_negatives": 15,
        "train_frame_encoder": True,
        "share_frame_encoder": False,
        "frame_memory": False,
        "frame_memory_lr_scale": 100.0,
        # chosen on FN1.7 dev (scripts/new_frame_memory_study.py): R@1 83.4 against 80.4 for "zero"
        "new_frame_memory": "mean",
        "loss": {"@losses": "spacy-frames.InfoNCE.v1", "temperature": 0.07},
        "detection_loss": {"@losses": "spacy-frames.BinaryCrossEntropy.v1", "pos_weight": 1.0},
        "detection_weight": 1.0,
        "suggester": {"@misc": "spacy-frames.frame_target_suggester.v1"},
        "scorer": {"@scorers": "spacy-frames.frame_identifier_scorer.v1"},
    },
    default_score_weights={
        "frame_overall": 1.0,
        "frame_acc": None,
        "frame_r1": None,
        "frame_r3": None,
        "frame_r5": None,
        "frame_acc_ambiguous": None,
        "target_p": None,
        "target_r": None,
        "target_f": None,
    },
)
def make_frame_identifier(
    nlp: Language,
    name: str,
    model: Model,
    *,
    spans_key: str,
    targets_key: str,
    top_k: int,
    lexicon_filter: bool,
    threshold: float,
    oov_threshold: float,
    oov_pos: List[str],
    overlapping_candidates: bool,
    objective: str,
    n_negatives: int,
    train_frame_encoder: bool,
    share_frame_encoder: bool,
    frame_memory: bool,
    frame_memory_lr_scale: float,
    new_frame_memory: str,
    loss: Callable,
    detection_loss: Callable,
    detection_weight: float,
    suggester: Callable,
    scorer: Optional[Callable],
) -> "FrameIdentifier":
    """Create a frame_identifier.

    model (Model): the dual encoder (spacy-frames.FrameIdentifier.v1).
    spans_key (str): doc.spans key the frame spans are written to.
    targets_key (str): doc.spans key of preset (e.g. gold) targets; when set on a doc, exactly those are labelled.
    top_k (int): length of span._.frame_ranking.
    lexicon_filter (bool): decide among the target's lexicon candidates when it has any.
    threshold (float): detector probability above which a lexicon candidate is a target.
    oov_threshold (float): the same for tokens outside the lexicon (POS in oov_pos).
    oov_pos (List[str]): coarse POS of out-of-lexicon tokens considered as targets.
    overlapping_candidates (bool): a multiword LU's words are candidates too, competing with it by score.
    objective (str): "in_batch" (stage 1) or "in_candidate" (stage 2).
    n_negatives (int): negatives per target for "in_candidate"; -1: every frame.
    train_frame_encoder (bool): backpropagate into the frame encoder (false: frame vectors encoded once, cached).
    share_frame_encoder (bool): tie the frame encoder's weights to the shared transformer's during training
        (measured against separate weights in metrics/frame_identifier_encoder_sharing.json). A saved
        pipeline holds both copies, equal at saving time.
    frame_memory (bool): with cached frame vectors, learn an offset per frame, added to its definition vector.
    frame_memory_lr_scale (float): learning-rate multiplier of the frame memory.
    new_frame_memory (str): the memory of a frame that has none (added at run time, new in
        a swapped-in inventory): "zero", "mean", "ridge@PENALTY" or "knn@K" (frame_memory.py).
    loss (Callable): contrastive loss over cosine scores (spacy-frames.InfoNCE.v1).
    detection_loss (Callable): loss of the target detector.
    detection_weight (float): weight of the detection loss.
    suggester (Callable): candidate targets (spacy-frames.frame_target_suggester.v1: preset targets, else the
        lexicon's candidates); called with the component's lexicon, targets_key and oov_pos.
    scorer (Optional[Callable]): scoring method.
    """
    return FrameIdentifier(
        nlp.vocab,
        model,
        name,
        spans_key=spans_key,
        targets_key=targets_key,
        top_k=top_k,
        lexicon_filter=lexicon_filter,
        threshold=threshold,
        oov_threshold=oov_threshold,
        oov_pos=oov_pos,
        overlapping_candidates=overlapping_candidates,
        objective=objective,
        n_negatives=n_negatives,
        train_frame_encoder=train_frame_encoder,
        share_frame_encoder=share_frame_encoder,
        frame_memory=frame_memory,
        frame_memory_lr_scale=frame_memory_lr_scale,
        new_frame_memory=new_frame_memory,
        loss=loss,
        detection_loss=detection_loss,
        detection_weight=detection_weight,
        suggester=suggester,
        scorer=scorer,
    )


@registry.scorers("spacy-frames.frame_identifier_scorer.v1")
def make_frame_identifier_scorer() -> Callable:
    return score_frame_identification


class FrameIdentifier(ReleasesMixin, FramesPipe):
    """Label frame-evoking targets with FrameNet frames (see module docstring)."""

    runtime_settings = (
        "top_k",
        "lexicon_filter",
        "threshold",
        "oov_threshold",
        "overlapping_candidates",
        "new_frame_memory",
    )

    def __init__(
        self,
        vocab: Vocab,
        model: Model,
        name: str = "frame_identifier",
        *,
        spans_key: str = FRAMES_KEY,
        targets_key: str = TARGETS_KEY,
        top_k: int = 5,
        lexicon_filter: bool = True,
        threshold: float = 0.5,
        oov_threshold: float = 0.9,
        oov_pos: Sequence[str] = ("NOUN", "VERB", "ADJ"),
        overlapping_candidates: bool = False,
        objective: str = "in_batch",
        n_negatives: int = 15,
        train_frame_encoder: bool = True,
        share_frame_encoder: bool = False,
        frame_memory: bool = False,
        frame_memory_lr_scale: float = 100.0,
        new_frame_memory: str = "mean",
        loss: Optional[Callable] = None,
        detection_loss: Optional[Callable] = None,
        detection_weight: float = 1.0,
        suggester: Optional[Callable] = None,
        scorer: Optional[Callable] = None,
    ) -> None:
        if objective not in OBJECTIVES:
            raise ValueError(f"frame_identifier: objective must be one of {OBJECTIVES}, got {objective!r}")
        parse_rule(new_frame_memory)
        cfg: Dict[str, Any] = {
            "spans_key": spans_key,
            "targets_key": targets_key,
            "top_k": top_k,
            "lexicon_filter": lexicon_filter,
            "threshold": threshold,
            "oov_threshold": oov_threshold,
            "oov_pos": list(oov_pos),
            "overlapping_candidates": overlapping_candidates,
            "objective": objective,
            "n_negatives": n_negatives,
            "train_frame_encoder": train_frame_encoder,
            "share_frame_encoder": share_frame_encoder,
            "frame_memory": frame_memory,
            "frame_memory_lr_scale": frame_memory_lr_scale,
            "new_frame_memory": new_frame_memory,
            "detection_weight": detection_weight,
        }
        super().__init__(vocab, model, name, cfg, scorer)
        self.loss = loss if loss is not None else InfoNCE(0.07)
        self.detection_loss = detection_loss if detection_loss is not None else BinaryCrossEntropy()
        self.suggester = suggester if suggester is not None else build_frame_target_suggester()
        self.inventory = FrameInventory()
        self.lexicon = Lexicon(self.inventory)
        self.index = FrameIndex()  # names, definition vectors (base) and the memory (residual)
        self._rng = random.Random(0)
        self._tied_to_transformer = False  # frame encoder = the shared transformer's torch module
        self.target_calibration = TargetCalibration()  # fitted by tune-detection --train
        self.releases = StoredReleases()  # the inventories carried by release name (releases.py)
        # spaCy links a listened-to component with its listeners (`Language._link_components`:
        # on add_pipe, initialize and loading) through these attributes (spacy.ty's
        # ListenedToComponent). frame_identifier has no thinc listeners (listener_map stays
        # empty, so spaCy's checks of frozen listeners leave it alone); its find_listeners
        # links the frame_elements components that read its frame inventory.
        self.listener_map: Dict[str, List[Model]] = {}
        self._inventory_readers: Dict[str, Any] = {}  # component name -> frame_elements

    # -- labels and frames -------------------------------------------------------------
    @property
    def labels(self) -> Tuple[str, ...]:
        return tuple(self.inventory.names)

    @property
    def label_data(self) -> List[str]:
        return list(self.labels)

    def frame_text(self, name: str) -> str:
        return f"{name} | {self.inventory.definition(name)}"

    def add_frame(
        self,
        name: str,
        definition: str,
        lexical_units: Iterable[str] = (),
        parents: Iterable[str] = (),
        frame_elements: Iterable[Any] = (),
    ) -> None:
        """Add a frame at run time: its definition is encoded and indexed, no retraining;
        its FEs (FEDef or dicts with name / core_type / definition) join the FE table of
        the frame_elements components that read this inventory."""
        if name in self.inventory:
            raise ValueError(f"[{self.name}] frame '{name}' is already known")
        if not self.index.is_ready(self.inventory.names):
            self._refresh_frame_vectors()
        self.inventory.add_frame(
            name, definition, lexical_units=lexical_units, parents=parents, frame_elements=frame_elements
        )
        self.lexicon = Lexicon(self.inventory)
        vector = self._encode_frames([name])
        self.index.add([name], vector)
        residual = self.index.residual
        if residual is not None:  # the new frame's row: zero, or as new_frame_memory derives it
            fresh = numpy.zeros(len(residual), dtype=bool)
            fresh[-1] = True
            self.index.set_residual(predict_memory(self.index.base, residual, fresh, self.cfg["new_frame_memory"]))
        self._set_memory(self.index.residual)
        for reader in self.inventory_readers:
            reader.frame_added(name)

    # -- the readers of the frame inventory (frame_elements), linked as spaCy links listeners
    @property
    def inventory_readers(self) -> List[Any]:
        """The frame_elements components that read this component's frame inventory."""
        return [proc for proc in self._inventory_readers.values() if proc.inventory_owner is self]

    def add_inventory_reader(self, component: Any) -> None:
        self._inventory_readers[component.name] = component

    def find_listeners(self, component: Any) -> None:
        """Link `component` when it reads this component's frame inventory: an
        `InventoryReader` (inventory_link.py) whose inventory_component names this one
        (spaCy calls this with every component after this one)."""
        if isinstance(component, InventoryReader) and component.cfg.get("inventory_component") == self.name:
            component.link_inventory(self)

    @property
    def listeners(self) -> List[Model]:
        return [m for c in self.listening_components for m in self.listener_map[c]]

    @property
    def listening_components(self) -> List[str]:
        return list(self.listener_map)

    def add_listener(self, listener: Model, component_name: str) -> None:
        self.listener_map.setdefault(component_name, [])
        if listener not in self.listener_map[component_name]:
            self.listener_map[component_name].append(listener)

    def remove_listener(self, listener: Model, component_name: str) -> bool:
        if listener in self.listener_map.get(component_name, []):
            self.listener_map[component_name].remove(listener)
            if not self.listener_map[component_name]:
                del self.listener_map[component_name]
            return True
        return False

    def _require_inventory(self) -> None:
        if not len(self.inventory):
            raise ValueError(
                f"[{self.name}] has no frames: initialize it with a frame inventory "
                '([initialize.components.frame_identifier.frames] @misc = "spacy-frames.frame_inventory.v1").'
            )

    # -- targets ----------------------------------------------------------------------------
    def collect_targets(self, docs: Iterable[Doc]) -> TargetBatch:
        """The suggester's targets (by default: preset targets where the doc has them, else
        lexicon and out-of-lexicon candidates) with their lexical units."""
        docs = list(docs)
        suggested = self.suggester(
            docs,
            ops=self.model.ops,
            lexicon=self.lexicon,
            targets_key=self.cfg["targets_key"],
            oov_pos=self.cfg["oov_pos"],
            overlapping=self.cfg.get("overlapping_candidates", False),
        )
        return target_batch(docs, suggested, self.lexicon, self.cfg["targets_key"])

    def candidates(self, docs: List[Doc]) -> List[List[Span]]:
        """The suggester's candidates without preset targets (the detector's negatives)."""
        suggested = self.suggester(
            docs,
            ops=self.model.ops,
            lexicon=self.lexicon,
            targets_key=None,
            oov_pos=self.cfg["oov_pos"],
            overlapping=self.cfg.get("overlapping_candidates", False),
        )
        return suggested_spans(docs, suggested)

    # -- prediction ---------------------------------------------------------------------
    def predict(self, docs: Iterable[Doc]) -> Dict[str, Any]:
        self._require_inventory()
        batch = self.collect_targets(docs)
        n_targets = sum(len(s) for s in batch.spans)
        if n_targets == 0:
            return {"batch": batch, "vectors": None, "probs": None}
        if not self.index.is_ready(self.inventory.names):
            self._refresh_frame_vectors()
        targets, logits, _ = self.model.predict((batch.docs, batch.spans, []))
        vectors = self.model.ops.to_numpy(targets).astype("float32")
        probs = 1.0 / (1.0 + numpy.exp(-self.model.ops.to_numpy(logits)))
        return {"batch": batch, "vectors": vectors, "probs": probs}

    def set_annotations(self, docs: Iterable[Doc], predictions: Dict[str, Any]) -> None:
        batch: TargetBatch = predictions["batch"]
        vectors, probs = predictions["vectors"], predictions["probs"]
        top_k = max(1, int(self.cfg["top_k"]))
        if vectors is not None:
            scores, ids = self.index.search(vectors, top_k)
        offset = 0
        for doc, spans, lus, preset in zip(batch.docs, batch.spans, batch.lexical_units, batch.preset):
            group = SpanGroup(
                doc, name=self.cfg["spans_key"], attrs={"scores": [], "n_candidates": [], "target_probs": []}
            )
            doc_probs = probs[offset : offset + len(spans)] if probs is not None else []
            keep = [True] * len(spans) if preset else self.detected(spans, lus, doc_probs)
            for i, (span, lu) in enumerate(zip(spans, lus)):
                row = offset + i
                in_lexicon = self.in_lexicon(lu)
                if not keep[i]:
                    continue
                ranking = [[self.index.names[j], round(float(s), 4)] for s, j in zip(scores[row], ids[row]) if j >= 0]
                candidates = self.inventory.frames_for_lu(lu) if lu else []
                if self.cfg["lexicon_filter"] and candidates:
                    cand_scores = self.index.score(vectors[row], candidates)
                    best = int(numpy.argmax(cand_scores))
                    frame, score = candidates[best], float(cand_scores[best])
                else:
                    frame, score = ranking[0][0], ranking[0][1]
                out = Span(doc, span.start, span.end, label=frame)
                out._.frame_ranking = ranking
                out._.lexical_unit = lu if in_lexicon else None
                if span._.target_parts:
                    out._.target_parts = [list(p) for p in span._.target_parts]
                group.append(out)
                group.attrs["scores"].append(round(score, 4))
                group.attrs["n_candidates"].append(len(candidates))
                group.attrs["target_probs"].append(round(float(probs[row]), 4))
            offset += len(spans)
            doc.spans[self.cfg["spans_key"]] = group

    def in_lexicon(self, lu: Optional[str]) -> bool:
        return lu is not None and bool(self.inventory.frames_for_lu(lu))

    def detected(self, spans: Sequence[Span], lus: Sequence[Optional[str]], probs: Sequence[float]) -> List[bool]:
        """Which candidates of one doc are targets: the calibrated score (when tuned with
        --train) against `threshold`, else the detector probability against `threshold` /
        `oov_threshold`; then overlapping candidates compete by that score."""
        known = [self.in_lexicon(lu) for lu in lus]
        if self.target_calibration.is_fitted and len(spans):
            keys = [candidate_key(span, lu if k else None) for span, lu, k in zip(spans, lus, known)]
            scores = self.target_calibration.score(self.target_calibration.features(keys, probs, spans, known))
            keep = [float(s) >= self.cfg["threshold"] for s in scores]
        else:
            scores = probs
            keep = [
                float(p) >= (self.cfg["threshold"] if k else self.cfg["oov_threshold"]) for p, k in zip(probs, known)
            ]
        return resolve_overlaps(spans, [float(s) for s in scores], keep)

    # -- frame vectors ------------------------------------------------------------------
    def _encode_frames(self, names: Sequence[str], batch_size: int = 64) -> numpy.ndarray:
        """L2-normalised vectors of the frames' "Name | definition" texts (no gradient)."""
        return self.encode_texts([self.frame_text(n) for n in names], batch_size)

    def encode_texts(self, texts: Sequence[str], batch_size: int = 64) -> numpy.ndarray:
        """L2-normalised vectors of definition texts by the frame-definition encoder (no
        gradient)."""
        encoder = self.model.get_ref("frame_encoder")
        out = numpy.zeros((len(texts), encoder.get_dim("nO")), dtype="float32")
        # batches of similar length: little padding (thousands of FE definitions at a time)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), batch_size):
            rows = order[start : start + batch_size]
            vectors, _ = l2_normalize(self.model.ops, encoder.predict([texts[i] for i in rows]))
            out[rows] = self.model.ops.to_numpy(vectors)
        return out

    def frame_definition_vectors(self, names: Sequence[str]) -> numpy.ndarray:
        """The frames' definition vectors as encoded (L2-normalised; no learned memory)."""
        self._ensure_index()
        return self.index.base[self.index.rows(names)]

    def _refresh_frame_vectors(
        self,
        carried: Optional[Dict[str, str]] = None,
        stored_memory: Optional[Dict[str, numpy.ndarray]] = None,
        stored_base: Optional[Dict[str, numpy.ndarray]] = None,
    ) -> None:
        """Encode every frame of the inventory; learned memory offsets are kept by frame
        name, or as `carried` says (new name -> old name: `carried_frames`). A stored
        release's own rows (frame name -> row) come first: `stored_memory` and
        `stored_base` (definition vectors, not encoded again)."""
        names = self.inventory.names
        residual = None
        stored_base, stored_memory = stored_base or {}, stored_memory or {}
        missing = [n for n in names if n not in stored_base]
        base = self._encode_frames(missing)
        if len(missing) < len(names):  # some definition vectors come from a stored release
            encoded = dict(zip(missing, base))
            base = numpy.stack([stored_base[n] if n in stored_base else encoded[n] for n in names]).astype("float32")
        memory = self._memory()
        if memory is not None and names:
            old = dict(zip(self.index.names, memory))
            source = carried if carried is not None else {n: n for n in names}
            zero = numpy.zeros(memory.shape[1], dtype="float32")
            residual = numpy.stack([stored_memory.get(n, old.get(source.get(n), zero)) for n in names])
            if carried is not None:  # a swapped-in inventory: its frames without memory (zero rows) get one
                residual = predict_memory(base, residual, ~residual.any(axis=1), self.cfg["new_frame_memory"])
        self.index.build(names, base, residual)
        self._set_memory(self.index.residual)

    # -- the frame memory: a parameter of the model, its rows in index order ------------
    def _memory(self) -> Optional[numpy.ndarray]:
        return self.model.get_param(FRAME_MEMORY) if self.model.has_param(FRAME_MEMORY) else None

    def _set_memory(self, residual: Optional[numpy.ndarray]) -> None:
        self.model.set_param(FRAME_MEMORY, None if residual is None else numpy.array(residual, dtype="float32"))

    def _memory_to_index(self) -> None:
        memory = self._memory()
        if memory is not None and self.index.base is not None and memory.shape == self.index.base.shape:
            self.index.set_residual(numpy.array(memory, dtype="float32"))

    # -- training -------------------------------------------------------------------------
    def _update(self, examples: List[Example], drop: float) -> Optional[float]:
        self._require_inventory()
        docs = [eg.predicted for eg in examples]
        gold_spans, gold_frames, gold_lus = gold_targets(examples, self.cfg["targets_key"], self.inventory, self.name)
        partial = [is_partial(eg.reference, self.cfg["targets_key"]) for eg in examples]
        spans, det_labels = detection_examples(docs, gold_spans, partial, self.candidates)
        if not any(spans):
            skip_batch(self.model.get_ref("tok2vec"), docs)
            return None
        train_frames = self.cfg["train_frame_encoder"]
        frames = [f for doc_frames in gold_frames for f in doc_frames]
        columns, candidates = self._columns(frames, [lu for doc_lus in gold_lus for lu in doc_lus])
        if not train_frames and not self.index.is_ready(self.inventory.names):
            self._refresh_frame_vectors()
        if train_frames:
            frames_in = [self.frame_text(name) for name in columns]
        else:  # the cached vectors, plus the memory when it is learned
            frames_in = CachedFrames(self.index.base, self.index.rows(columns), bool(self.cfg["frame_memory"]))
        set_dropout_rate(self.model, drop)
        (targets, logits, frame_vecs), backprop = self.model.begin_update((docs, spans, frames_in))
        # rows of the gold targets among all targets: each doc lists its gold targets first
        gold_rows, start = [], 0
        for golds, doc_spans in zip(gold_spans, spans):
            gold_rows.extend(range(start, start + len(golds)))
            start += len(doc_spans)
        truths = FrameTruths(numpy.asarray(gold_rows, dtype="i"), frames, columns, candidates, det_labels)
        loss, d_scores = self.get_loss(examples, (targets, logits, frame_vecs, truths))
        backprop(d_scores)
        if train_frames:
            self.index.mark_stale()
        return loss

    def get_loss(self, examples: Iterable[Example], scores) -> Tuple[float, Any]:
        """scores: (target vectors, detector logits, the columns' frame vectors, FrameTruths).
        The contrastive loss of the gold targets plus detection_weight * the detector's
        loss, and the gradients (d_targets, d_logits, d_frame_vecs)."""
        targets, logits, frame_vecs, truths = scores
        ops = self.model.ops
        rows = truths.gold_rows
        loss, d_gold, d_frames = contrastive_scores_loss(
            ops, self.loss, targets[rows], frame_vecs, truths.frames, truths.columns, truths.candidates
        )
        d_targets = ops.alloc2f(*targets.shape)
        if len(rows):
            d_targets[rows] = d_gold
        d_logits, det_loss = None, 0.0
        weight = self.cfg["detection_weight"]
        if weight > 0 and len(truths.det_labels):
            d_logits, det_loss = self.detection_loss(logits, ops.asarray1f(truths.det_labels))
            d_logits = d_logits * weight
        return float(loss + weight * det_loss), (d_targets, d_logits, d_frames)

    def _columns(self, frames: List[str], lus: List[Optional[str]]) -> Tuple[List[str], Optional[numpy.ndarray]]:
        """The frames to score and each target's candidate columns (losses/frames.py)."""
        return candidate_columns(self.inventory, frames, lus, self.cfg["objective"], self.cfg["n_negatives"], self._rng)

    # -- initialization ---------------------------------------------------------------
    def initialize(
        self,
        get_examples: Callable[[], Iterable[Example]],
        *,
        nlp: Optional[Language] = None,
        frames: Optional[Callable[[], FrameInventory]] = None,
        init_from: Optional[str] = None,
    ) -> None:
        """Load the frame inventory, check the training frames against it, init the model.

        frames: a loader of the frame inventory (spacy-frames.frame_inventory.v1).
        init_from: a trained pipeline directory whose frame_identifier weights,
            frames and frame vectors are the starting point (stage 2 starts from
            stage 1 this way, with its own settings: objective, loss, ...); `frames`,
            when given too, is the inventory trained against.
        """
        if next(iter(get_examples()), None) is None:
            raise ValueError(f"[{self.name}] the training corpus is empty: nothing to initialize from.")
        validate_get_examples(get_examples, "FrameIdentifier.initialize")
        if init_from is not None:
            self._init_from(init_from)
        if frames is not None:
            # with init_from, another inventory than the previous stage's replaces it (stage
            # 2 trained against FN1.7 from an FN1.5 stage 1), its definitions encoded by the
            # loaded frame encoder; the same one keeps the loaded frame vectors
            inventory = frames()
            if init_from is None:
                self.set_inventory(inventory, reindex=False)
            elif inventory.frames != self.inventory.frames:
                self.set_inventory(inventory)
        self._require_inventory()
        unknown = set()
        for eg in get_examples():
            if self.cfg["targets_key"] in eg.reference.spans:
                unknown.update(
                    s.label_ for s in eg.reference.spans[self.cfg["targets_key"]] if s.label_ not in self.inventory
                )
        if unknown:
            raise ValueError(
                f"[{self.name}] training data uses {len(unknown)} frame(s) missing from the frame inventory: "
                f"{sorted(unknown)[:10]}. Add them to frames.json or drop those targets."
            )
        if init_from is not None:
            return
        sample = [eg.predicted for eg in islice(get_examples(), 10)]
        spans = [[doc[:1]] if len(doc) else [] for doc in sample]
        self.model.initialize(X=(sample, spans, [self.frame_text(self.inventory.names[0])]))
        if self.cfg["share_frame_encoder"]:
            if nlp is None:
                raise ValueError(f"[{self.name}] share_frame_encoder needs the pipeline: call nlp.initialize().")
            self._share_frame_encoder(nlp)
        self.index.clear()
        self._set_memory(None)

    def _init_from(self, path: str) -> None:
        from pathlib import Path

        component_dir = Path(path) / self.name
        if not (component_dir / "model").is_file():
            raise FileNotFoundError(
                f"[{self.name}] init_from: no trained {self.name} in '{path}' (expected {component_dir}/model). "
                "Train the previous stage first."
            )
        self.set_inventory(FrameInventory().from_disk(component_dir / "frames"), reindex=False)
        self.index.from_disk(component_dir / "frame_index")
        self._load_model_file(component_dir / "model")

    def _share_frame_encoder(self, nlp: Language) -> None:
        """Make the frame encoder run the shared transformer's own torch module."""
        try:
            tie_to_transformer(
                self.model.get_ref("frame_encoder").layers[0], nlp, self.name, self.model.get_ref("tok2vec")
            )
        except ValueError as err:
            raise ValueError(f"share_frame_encoder: {err}") from None
        self._tied_to_transformer = True

    # -- stepping (pipeline/base.py): the memory with its own learning rate, and only
    # after a batch that gave it a gradient; the tied frame encoder by the transformer
    def finish_update(self, sgd: Optimizer) -> None:
        stepped = self.model.has_grad(FRAME_MEMORY) and self.model.get_grad(FRAME_MEMORY).size
        super().finish_update(sgd)
        if stepped:
            self._memory_to_index()

    def _tied_wrapper(self) -> Optional[Model]:
        # the tied weights' gradients (ours and the listener's) sit in the same torch
        # tensors, which the transformer component steps
        return self.model.get_ref("frame_encoder").layers[0] if self._tied_to_transformer else None

    def _lr_scales(self) -> Dict[Tuple[int, str], float]:
        return {(self.model.id, FRAME_MEMORY): self.cfg["frame_memory_lr_scale"]}

    def _fresh_params(self) -> Collection[Tuple[int, str]]:
        return {(self.model.id, FRAME_MEMORY)}

    def _ensure_index(self) -> None:
        if len(self.inventory) and not self.index.is_ready(self.inventory.names):
            self._refresh_frame_vectors()

    # -- serialization (pipeline/base.py): cfg, vocab, frames, frame_index, model --------
    def _before_save(self) -> None:
        self._ensure_index()

    def _after_model_load(self) -> None:
        # the memory is the model's; pipelines saved before it was kept only in frame_index
        if self._memory() is None and self.index.residual is not None:
            self._set_memory(self.index.residual)
        self._memory_to_index()

    def _extra_state(self):
        return {
            "frames": (
                lambda: srsly.json_dumps(self.inventory.to_dict()),
                lambda b: self.set_inventory(FrameInventory().from_dict(srsly.json_loads(b)), reindex=False),
                lambda p: self.inventory.to_disk(p),
                lambda p: self.set_inventory(FrameInventory().from_disk(p), reindex=False),
            ),
            "frame_index": (self.index.to_bytes, self.index.from_bytes, self.index.to_disk, self.index.from_disk),
            "releases": (
                self.releases.to_bytes,
                self.releases.from_bytes,
                self.releases.to_disk,
                self.releases.from_disk,
            ),
            "target_calibration": (
                self.target_calibration.to_bytes,
                self.target_calibration.from_bytes,
                self.target_calibration.to_disk,
                self.target_calibration.from_disk,
            ),
        }

    # -- fitted after training, on dev (`spacy-frames tune-detection`) ------------------
    def find_thresholds(
        self,
        examples: Sequence[Example],
        *,
        nlp: Language,
        thresholds: Iterable[float],
        oov_thresholds: Iterable[float],
    ) -> Dict[str, Any]:
        """Choose the detector's cut-offs (in-lexicon and out-of-lexicon) for target F1 on
        `examples` (raw text; a dev set) and set them (cfg and nlp.config:
        `set_runtime_settings`). They are the detector's alone: the target calibration is
        reset and overlapping candidates are off. Returns the number of gold targets, the
        best pair and the whole grid."""
        from ..scoring.frames_eval import detection_threshold_sweep

        self.target_calibration = TargetCalibration()
        set_runtime_settings(nlp, self.name, {"overlapping_candidates": False})
        result = detection_threshold_sweep(nlp, examples, thresholds, oov_thresholds, name=self.name)
        set_runtime_settings(nlp, self.name, {key: result["best"][key] for key in ("threshold", "oov_threshold")})
        return result

    def fit_target_calibration(
        self, dev: Sequence[Example], train: Sequence[Example], *, nlp: Language
    ) -> Dict[str, Any]:
        """Fit the target calibration (pipeline/target_calibration.py): target rates from
        `train`'s exhaustively annotated docs, weights and cut-off by cross-validation on
        `dev`; the component then uses it, with overlapping candidates. Returns the grid,
        the best setting, the fitted weights and the counts."""
        from .target_calibration import fit_target_calibration

        return fit_target_calibration(nlp, dev, train, name=self.name)

    def set_inventory(
        self,
        inventory: FrameInventory,
        reindex: bool = True,
        memory: Optional[Dict[str, numpy.ndarray]] = None,
        base: Optional[Dict[str, numpy.ndarray]] = None,
    ) -> None:
        """Use another frame inventory (e.g. FrameNet 1.7's): frames, lexicon and
        relations are replaced and every definition is encoded (no retraining). A frame's
        learned memory follows it by FrameNet frame ID when the two releases share IDs
        (FN1.5 "Becoming" is FN1.7 "Transition_to_state"), else by name; `memory` (frame
        name -> row) overrides that, and `base` (frame name -> definition vector) is used
        instead of encoding those definitions. The components that read this inventory
        (`inventory_link.InventoryReader`: frame_elements) are told; `reindex = False` (loading, initialization)
        leaves them and the index as they are. An inventory set by hand is no stored
        release (`release` is None; `use_release` switches to one)."""
        readers = self.inventory_readers if reindex else []
        for reader in readers:  # before anything changes: one that cannot use it stops the swap
            reader.check_inventory(inventory)
        previous, self.inventory = self.inventory, inventory
        self.lexicon = Lexicon(inventory)
        if reindex:
            self._refresh_frame_vectors(carried_frames(previous, inventory), memory, base)
            self.releases.active = None
        else:
            self.index.mark_stale()
        for reader in readers:
            reader.inventory_changed()
