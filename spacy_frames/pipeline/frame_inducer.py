"""frame_inducer: group predicate instances by the frame they evoke, defined or not.

Method: Yamada, Sasano & Takeda (2023), "Semantic Frame Induction with Deep Metric
Learning". Each target gets an embedding v = norm((1 - alpha) * v_word + alpha * v_mask)
(ml/frame_inducer.py). Fine-tuning pulls instances of the same frame together with a
deep-metric-learning loss (triplet, contrastive, softmax, ArcFace, AdaCos; losses.py).
Clustering is done offline over many instances (`spacy-frames induce`, clustering/):
its clusters are stored here as L2-normalised centroids, and at run time every
target whose part of speech was trained gets the nearest centroid (FAISS inner
product): `span._.induced_frame` ("F0042") and `span._.induced_frame_label`, the
FrameNet frame most common among the cluster's known instances (None when it has none).

Targets are read from `doc.spans[spans_key]` (frame_identifier's output) when the doc
has it, else from `doc.spans[targets_key]` (preset targets).
"""
import warnings
from itertools import islice
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy
import srsly
from spacy import util
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.training import Example, validate_examples, validate_get_examples
from spacy.vocab import Vocab
from thinc.api import Config, Model, Optimizer, set_dropout_rate

from ..corpora.readers import align_target
from ..extensions import FRAMES_KEY, TARGETS_KEY, install_extensions
from ..lexicon import UPOS_TO_FN, fn_pos
from ..losses import TripletLoss
from ..ml.frame_identifier import l2_normalize
from ..ml.frame_inducer import optional_ref
from ..retrieval import FrameIndex
from .base import CfgLabels, SerializablePipe, default_tok2vec_config
from .sharing import finish_update_skipping, skip_batch, tie_to_transformer

default_model_config = """
[model]
@architectures = "spacy-frames.FrameInducer.v1"
projection_width = 0
mask_window = 32
""" + default_tok2vec_config(96)
DEFAULT_FRAME_INDUCER_MODEL = Config().from_str(default_model_config)["model"]

CLUSTER_PREFIX = "F"


@Language.factory(
    "frame_inducer",
    assigns=["span._.induced_frame", "span._.induced_frame_label"],
    requires=["doc.spans"],
    default_config={
        "model": DEFAULT_FRAME_INDUCER_MODEL,
        "spans_key": FRAMES_KEY,
        "targets_key": TARGETS_KEY,
        "pos": ["VERB"],
        "alpha": 0.0,
        "max_classes": 2048,
        "tie_mask_encoder": True,
        "mask_in_training": False,
        "loss": {"@losses": "spacy-frames.TripletLoss.v1", "margin": 0.2},
        "scorer": {"@scorers": "spacy-frames.frame_inducer_scorer.v1"},
    },
    default_score_weights={"induce_nn_acc": 1.0},
)
def make_frame_inducer(
    nlp: Language,
    name: str,
    model: Model,
    *,
    spans_key: str,
    targets_key: str,
    pos: List[str],
    alpha: float,
    max_classes: int,
    tie_mask_encoder: bool,
    mask_in_training: bool,
    loss: Callable,
    scorer: Optional[Callable],
) -> "FrameInducer":
    """Create a frame_inducer.

    model (Model): target embedder (spacy-frames.FrameInducer.v1).
    spans_key (str): doc.spans key of frame_identifier's spans, used when set.
    targets_key (str): doc.spans key of preset targets, used otherwise (and in training).
    pos (List[str]): coarse POS of the targets that get an induced frame (as trained).
    alpha (float): weight of v_mask in (1 - alpha) * v_word + alpha * v_mask; 0 skips
        the masked pass.
    max_classes (int): rows of the class-weight table of classification losses
        (softmax, ArcFace, AdaCos); one per training frame, added as they are seen.
    tie_mask_encoder (bool): make the mask encoder run the shared transformer's weights.
    mask_in_training (bool): train the mixed vector (1 - alpha) * v_word + alpha * v_mask
        (two passes per batch) instead of v_word alone; alpha is the configured one.
    loss (Callable): deep-metric-learning loss (spacy-frames.TripletLoss.v1, ...).
    scorer (Optional[Callable]): scoring method.
    """
    return FrameInducer(
        nlp.vocab, model, name, spans_key=spans_key, targets_key=targets_key, pos=pos, alpha=alpha,
        max_classes=max_classes, tie_mask_encoder=tie_mask_encoder, mask_in_training=mask_in_training,
        loss=loss, scorer=scorer,
    )


class FrameInducer(CfgLabels, SerializablePipe):
    """Induced frames for predicate targets (see module docstring); its labels are the
    training frames (classes of the classification losses)."""

    def __init__(
        self,
        vocab: Vocab,
        model: Model,
        name: str = "frame_inducer",
        *,
        spans_key: str = FRAMES_KEY,
        targets_key: str = TARGETS_KEY,
        pos: Sequence[str] = ("VERB",),
        alpha: float = 0.0,
        max_classes: int = 2048,
        tie_mask_encoder: bool = True,
        mask_in_training: bool = False,
        loss: Optional[Callable] = None,
        scorer: Optional[Callable] = None,
    ) -> None:
        unknown = [p for p in pos if p not in UPOS_TO_FN]
        if unknown:
            raise ValueError(f"frame_inducer: unknown POS {unknown}; use some of {sorted(UPOS_TO_FN)}")
        install_extensions()
        self.vocab = vocab
        self.model = model
        self.name = name
        self.cfg: Dict[str, Any] = {
            "spans_key": spans_key,
            "targets_key": targets_key,
            "pos": list(pos),
            "alpha": alpha,
            "max_classes": max_classes,
            "tie_mask_encoder": tie_mask_encoder,
            "mask_in_training": mask_in_training,
            "labels": [],
        }
        self.set_alpha(alpha)
        self.loss = loss if loss is not None else TripletLoss()
        self.scorer = scorer
        self.centroids = FrameIndex()  # names = cluster ids, vectors = centroids
        self.cluster_labels: Dict[str, Optional[str]] = {}
        self.cluster_info: Dict[str, Any] = {}
        self._class_weights: Optional[numpy.ndarray] = None  # training only, not serialized
        self._rows_cache: Dict[str, int] = {}
        self._pending: List[Tuple[Any, Any]] = []
        self._tied = False
        self._warned_no_centroids = False

    def set_alpha(self, alpha: float) -> None:
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"[{self.name}] alpha must be in [0, 1], got {alpha}")
        if alpha > 0 and optional_ref(self.model, "mask_encoder") is None:
            raise ValueError(f"[{self.name}] alpha = {alpha} needs a mask_encoder in the model config (or alpha = 0).")
        self.cfg["alpha"] = float(alpha)

    # -- targets -------------------------------------------------------------------------
    def eligible(self, span: Span) -> bool:
        """Whether the target's POS is one the inducer handles: from its lexical unit
        ("run.v") when it has one, else from the POS (or PTB tag) of its last token."""
        suffixes = {UPOS_TO_FN[p] for p in self.cfg["pos"]}
        lu = span._.lexical_unit
        if lu and "." in lu:
            return lu.rsplit(".", 1)[1] in suffixes
        return bool(len(span)) and fn_pos(span[-1]) in suffixes

    def targets(self, doc: Doc) -> List[Span]:
        key = self.cfg["spans_key"] if self.cfg["spans_key"] in doc.spans else self.cfg["targets_key"]
        return [span for span in doc.spans.get(key, []) if len(span) and self.eligible(span)]

    # -- embeddings --------------------------------------------------------------------
    def embed(self, docs: Sequence[Doc], targets: Optional[List[List[Span]]] = None, alpha: Optional[float] = None):
        """L2-normalised embeddings of the targets (rows in doc order), as numpy float32.

        The docs must have been through the upstream transformer. Returns (v, v_word,
        v_mask): v mixes them with `alpha` (default: the component's); v_mask is None
        when alpha is 0, so the masked pass is skipped.
        """
        targets = [self.targets(doc) for doc in docs] if targets is None else targets
        alpha = self.cfg["alpha"] if alpha is None else alpha
        n = sum(len(t) for t in targets)
        width = self.model.get_dim("nO") if self.model.has_dim("nO") else 0
        if n == 0:
            empty = numpy.zeros((0, width or 0), dtype="float32")
            return empty, empty, None
        v_word, v_mask = self.model.predict((list(docs), targets, alpha > 0))
        ops = self.model.ops
        v_word = ops.to_numpy(v_word).astype("float32")
        v_mask = ops.to_numpy(v_mask).astype("float32") if v_mask is not None else None
        return mix(v_word, v_mask, alpha), v_word, v_mask

    def predict(self, docs: Iterable[Doc]) -> Dict[str, Any]:
        docs = list(docs)
        targets = [self.targets(doc) for doc in docs]
        if not sum(len(t) for t in targets) or not len(self.centroids.names):
            return {"targets": targets, "ids": None}
        vectors, _, _ = self.embed(docs, targets)
        _, ids = self.centroids.search(vectors, 1)
        return {"targets": targets, "ids": ids[:, 0]}

    def set_annotations(self, docs: Iterable[Doc], predictions: Dict[str, Any]) -> None:
        targets, ids = predictions["targets"], predictions["ids"]
        if ids is None:
            if any(targets) and not self._warned_no_centroids:
                warnings.warn(
                    f"[{self.name}] has no cluster centroids: induced frames stay None. Fit them with "
                    "`spacy-frames induce MODEL INPUT OUTPUT --store-centroids`."
                )
                self._warned_no_centroids = True
            return
        row = 0
        for doc_targets in targets:
            for span in doc_targets:
                cluster = self.centroids.names[int(ids[row])]
                span._.induced_frame = cluster
                span._.induced_frame_label = self.cluster_labels.get(cluster)
                row += 1

    def __call__(self, doc: Doc) -> Doc:
        install_extensions()
        return super().__call__(doc)

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128):
        install_extensions()
        return super().pipe(stream, batch_size=batch_size)

    # -- centroids ---------------------------------------------------------------------
    def set_clusters(
        self,
        vectors: numpy.ndarray,
        clusters: Sequence[int],
        frames: Optional[Sequence[Optional[str]]] = None,
        info: Optional[Dict[str, Any]] = None,
    ) -> List[str]:
        """Store the clusters of embedded instances as centroids; returns the cluster id
        ("F0000", ...) of each instance. `frames`: the known frame of each instance (or
        None), from which each cluster's most common frame is its label."""
        from collections import Counter, defaultdict

        from ..clustering import centroids

        vectors = numpy.asarray(vectors, dtype="float32")
        if len(vectors) != len(clusters) or (frames is not None and len(frames) != len(clusters)):
            raise ValueError(f"[{self.name}] set_clusters: {len(vectors)} vectors, {len(clusters)} cluster ids")
        if not len(vectors):
            raise ValueError(f"[{self.name}] set_clusters: no instances to build centroids from")
        sizes = Counter(clusters)
        order = sorted(sizes, key=lambda c: (-sizes[c], str(c)))  # F0000 is the largest cluster
        names = {c: f"{CLUSTER_PREFIX}{i:04d}" for i, c in enumerate(order)}
        position = {c: i for i, c in enumerate(order)}
        _, means = centroids(vectors, [position[c] for c in clusters])  # rows in `order`
        self.centroids.build([names[c] for c in order], means)
        counts: Dict[str, Counter] = defaultdict(Counter)
        for c, frame in zip(clusters, frames if frames is not None else [None] * len(clusters)):
            if frame:
                counts[names[c]][frame] += 1
        self.cluster_labels = {name: (counts[name].most_common(1)[0][0] if counts[name] else None) for name in names.values()}
        self.cluster_info = dict(info or {}, n_clusters=len(order), n_instances=len(vectors), alpha=self.cfg["alpha"])
        return [names[c] for c in clusters]

    # -- training -----------------------------------------------------------------------
    def _gold(self, examples: Sequence[Example]) -> Tuple[List[List[Span]], List[str]]:
        spans, frames = [], []
        key = self.cfg["targets_key"]
        for eg in examples:
            doc_spans = []
            for ref in eg.reference.spans.get(key, []):
                if not ref.label_ or not self.eligible(ref):
                    continue
                span = align_target(ref, eg.predicted)
                if span is not None and len(span):
                    doc_spans.append(span)
                    frames.append(ref.label_)
            spans.append(doc_spans)
        return spans, frames

    def update(
        self,
        examples: Iterable[Example],
        *,
        drop: float = 0.0,
        sgd: Optional[Optimizer] = None,
        losses: Optional[Dict[str, float]] = None,
    ) -> Dict[str, float]:
        """Fine-tune v_word with the metric loss; examples without targets are skipped
        (corpora of other tasks can be mixed in)."""
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        examples = list(examples)
        validate_examples(examples, "FrameInducer.update")
        spans, frames = self._gold(examples)
        if len(frames) < 2:
            skip_batch(self.model.get_ref("tok2vec"), [eg.predicted for eg in examples])
            return losses
        docs = [eg.predicted for eg in examples]
        set_dropout_rate(self.model, drop)
        alpha = self.cfg["alpha"] if self.cfg.get("mask_in_training") else 0.0
        (v_word, v_mask), backprop = self.model.begin_update((docs, spans, alpha > 0))
        mixed = v_word if alpha == 0 else (1.0 - alpha) * v_word + alpha * v_mask
        vectors, bp_norm = l2_normalize(self.model.ops, mixed)
        loss, d_vectors = self.get_loss(examples, (vectors, frames))
        d_mixed = bp_norm(d_vectors)
        backprop((d_mixed, None) if alpha == 0 else ((1.0 - alpha) * d_mixed, alpha * d_mixed))
        if sgd is not None:
            self.finish_update(sgd)
        losses[self.name] += loss
        return losses

    def get_loss(self, examples: Iterable[Example], scores) -> Tuple[float, Any]:
        vectors, frames = scores
        ops = self.model.ops
        labels = ops.asarray1i([self._class_row(f) for f in frames])
        if not getattr(self.loss, "needs_class_weights", False):
            d_vectors, loss = self.loss(vectors, labels)
            return float(loss), d_vectors
        # only the rows of frames seen so far take part: unused rows would join every softmax
        n_classes = len(self.cfg["labels"])
        weights = ops.asarray(self._class_weights[:n_classes])
        (d_vectors, d_weights), loss = self.loss((vectors, weights), labels)
        grad = numpy.zeros_like(self._class_weights)
        grad[:n_classes] = ops.to_numpy(d_weights)
        self._pending.append(("class_weights", grad))
        return float(loss), d_vectors

    def _class_row(self, frame: str) -> int:
        labels = self.cfg["labels"]
        if frame not in self._label_rows:
            if len(labels) >= self.cfg["max_classes"]:
                raise ValueError(
                    f"[{self.name}] more than max_classes = {self.cfg['max_classes']} training frames: raise it in the config."
                )
            self._label_rows[frame] = len(labels)
            labels.append(frame)
        if getattr(self.loss, "needs_class_weights", False) and self._class_weights is None:
            self._init_class_weights()
        return self._label_rows[frame]

    @property
    def _label_rows(self) -> Dict[str, int]:
        # derived from cfg["labels"] (the serialized state), rebuilt when that changed
        if len(self._rows_cache) != len(self.cfg["labels"]):
            self._rows_cache = {label: i for i, label in enumerate(self.cfg["labels"])}
        return self._rows_cache

    def _init_class_weights(self) -> None:
        width = self.model.get_dim("nO")
        rng = numpy.random.default_rng(0)
        self._class_weights = (rng.standard_normal((self.cfg["max_classes"], width)) / numpy.sqrt(width)).astype("float32")

    def finish_update(self, sgd: Optimizer) -> None:
        # the tied mask encoder shares the transformer's weights, which the transformer steps
        tied = optional_ref(self.model, "mask_encoder").layers[0] if self._tied else None
        finish_update_skipping(self.model, sgd, tied)
        for key, grad in self._pending:
            flat, _ = sgd((self.model.id, key), self._class_weights.ravel(), grad.ravel())
            self._class_weights = self.model.ops.to_numpy(flat).reshape(self._class_weights.shape)
        self._pending = []

    def initialize(
        self,
        get_examples: Callable[[], Iterable[Example]],
        *,
        nlp: Optional[Language] = None,
        labels: Optional[List[str]] = None,
    ) -> None:
        """Initialize the model on a sample.

        labels: the training frames, e.g. from `spacy-frames.instance_frames.v1` in
        [initialize.components.frame_inducer.labels]; without them frames are added as
        training meets them (classification losses then start with fewer classes).
        """
        validate_get_examples(get_examples, "FrameInducer.initialize")
        sample = [eg.predicted for eg in islice(get_examples(), 10)]
        if not sample:
            raise ValueError(f"[{self.name}] the training corpus is empty: nothing to initialize from.")
        if labels:
            self.cfg["labels"] = list(labels)
        self.model.initialize(X=(sample, [[doc[:1]] if len(doc) else [] for doc in sample], False))
        self._class_weights = None
        mask_encoder = optional_ref(self.model, "mask_encoder")
        if mask_encoder is not None and self.cfg["tie_mask_encoder"]:
            if nlp is None:
                raise ValueError(f"[{self.name}] tie_mask_encoder needs the pipeline: call nlp.initialize().")
            tie_to_transformer(mask_encoder.layers[0], nlp, self.name, self.model.get_ref("tok2vec"))
            self._tied = True

    def score(self, examples: Iterable[Example], **kwargs) -> Dict[str, Any]:
        examples = list(examples)
        validate_examples(examples, "FrameInducer.score")
        return self.scorer(examples, component=self, **kwargs) if self.scorer is not None else {}

    # -- serialization (pipeline/base.py): cfg, vocab, centroids, clusters, model ---------
    def _extra_state(self):
        return {
            "centroids": (self.centroids.to_bytes, self.centroids.from_bytes, self.centroids.to_disk, self.centroids.from_disk),
            "clusters": (
                lambda: srsly.json_dumps(self._clusters_dict()),
                lambda b: self._set_clusters_dict(srsly.json_loads(b)),
                lambda p: srsly.write_json(p, self._clusters_dict()),
                lambda p: self._set_clusters_dict(srsly.read_json(p)),
            ),
        }

    def _clusters_dict(self) -> Dict[str, Any]:
        return {"labels": self.cluster_labels, "info": self.cluster_info}

    def _set_clusters_dict(self, data: Dict[str, Any]) -> None:
        self.cluster_labels = dict(data.get("labels", {}))
        self.cluster_info = dict(data.get("info", {}))


def mix(v_word: numpy.ndarray, v_mask: Optional[numpy.ndarray], alpha: float) -> numpy.ndarray:
    """norm((1 - alpha) * v_word + alpha * v_mask), rows L2-normalised."""
    v = v_word if v_mask is None or alpha == 0 else (1.0 - alpha) * v_word + alpha * v_mask
    return (v / (numpy.linalg.norm(v, axis=1, keepdims=True) + 1e-8)).astype("float32")


# -- scoring ---------------------------------------------------------------------------------


def score_frame_induction(examples: Iterable[Example], **kwargs) -> Dict[str, Any]:
    """How well the embeddings of the gold targets group by frame, for model selection
    while training: `induce_nn_acc` is the share of targets whose nearest other target
    (cosine) has the same frame. Needs the component (FrameInducer.score passes it)."""
    component: FrameInducer = kwargs["component"]
    examples = list(examples)
    targets, frames = component._gold(examples)
    docs = [eg.predicted for eg in examples]
    if len(frames) < 2:
        return {"induce_nn_acc": None}
    vectors, _, _ = component.embed(docs, targets)
    sims = vectors @ vectors.T
    numpy.fill_diagonal(sims, -numpy.inf)
    nearest = sims.argmax(axis=1)
    frames_arr = numpy.asarray(frames)
    return {"induce_nn_acc": float((frames_arr[nearest] == frames_arr).mean())}


@util.registry.scorers("spacy-frames.frame_inducer_scorer.v1")
def make_frame_inducer_scorer() -> Callable:
    return score_frame_induction
