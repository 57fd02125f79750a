"""frame_inducer: group predicate instances by the frame they evoke, defined or not.

Method: Yamada, Sasano & Takeda (2023), "Semantic Frame Induction with Deep Metric
Learning". Each target gets an embedding v = norm((1 - alpha) * v_word + alpha * v_mask)
(ml/frame_inducer.py). Fine-tuning pulls instances of the same frame together with a
deep-metric-learning loss (triplet, contrastive, softmax, ArcFace, AdaCos; losses/metric.py).
Clustering is done offline over many instances (`spacy-frames induce`, clustering/):
its clusters are stored here as L2-normalised centroids, with the clusters each verb
lemma's instances ended up in (its "senses": the mean of its instances in each of
those clusters). At run time every target whose part of speech was trained gets a
cluster (`assignment`): by default an instance of a verb seen at fit time goes to the
nearest of that verb's own clusters, and only an unseen verb's instance to the nearest
cluster overall (FAISS inner product), which keeps the two-step structure the
clusters came from. `span._.induced_frame` ("F0042") and `span._.induced_frame_label`,
the FrameNet frame most common among the cluster's known instances (None when it has none).

Targets come from the suggester (`spacy-frames.predicate_suggester.v1`): the spans of
`doc.spans[spans_key]` (frame_identifier's output) when the doc has it, else of
`doc.spans[targets_key]` (preset targets), whose part of speech is in `pos`.
"""

import warnings
from itertools import islice
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy
import srsly
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.training import Example, validate_get_examples
from spacy.util import registry
from spacy.vocab import Vocab
from thinc.api import Config, Model, set_dropout_rate

from ..extensions import FRAMES_KEY, TARGETS_KEY, align_target
from ..inventory.index import FrameIndex
from ..inventory.lexicon import UPOS_TO_FN
from ..losses import TripletLoss
from ..ml.frame_inducer import CLASS_WEIGHTS, initial_class_weights, mix, optional_ref, target_vectors
from ..scoring.induction import score_frame_induction
from ..suggesters import suggested_spans
from ..suggesters.frames import build_predicate_suggester, is_predicate, target_lemma
from .base import CfgLabels, FramesPipe, default_tok2vec_config
from .sharing import retie_after_load, skip_batch, store_tied_weights_once, tie_to_transformer

default_model_config = """
[model]
@architectures = "spacy-frames.FrameInducer.v1"
projection_width = 0
mask_window = 32
""" + default_tok2vec_config(96)
DEFAULT_FRAME_INDUCER_MODEL = Config().from_str(default_model_config)["model"]

CLUSTER_PREFIX = "F"
# how a target gets its cluster: "nearest" centroid overall; "verb": the nearest of the
# clusters its verb lemma's instances were in at fit time; "verb_sense": the cluster of
# the nearest of that verb's senses (the mean of its fit instances in each of those
# clusters). With "verb" and "verb_sense", a verb unseen at fit time gets the nearest
# centroid overall.
ASSIGNMENTS = ("nearest", "verb", "verb_sense")


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
        "assignment": "verb",
        "class_lr_scale": 100.0,
        "loss": {"@losses": "spacy-frames.TripletLoss.v1", "margin": 0.2},
        "suggester": {"@misc": "spacy-frames.predicate_suggester.v1"},
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
    assignment: str,
    class_lr_scale: float,
    loss: Callable,
    suggester: Callable,
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
    assignment (str): how a target gets its cluster, one of ASSIGNMENTS: "verb" (the
        nearest of its verb lemma's clusters from fit time; an unseen verb's target the
        nearest centroid overall), "verb_sense" (the nearest of that verb's senses) or
        "nearest" (the nearest centroid overall).
    class_lr_scale (float): learning-rate multiplier of the class weights of the
        classification losses against the encoder's (the optimizer's `lr_scale`).
    loss (Callable): deep-metric-learning loss (spacy-frames.TripletLoss.v1, ...).
    suggester (Callable): the targets (spacy-frames.predicate_suggester.v1); called with
        the component's spans_key, targets_key and pos.
    scorer (Optional[Callable]): scoring method.
    """
    return FrameInducer(
        nlp.vocab,
        model,
        name,
        spans_key=spans_key,
        targets_key=targets_key,
        pos=pos,
        alpha=alpha,
        max_classes=max_classes,
        tie_mask_encoder=tie_mask_encoder,
        mask_in_training=mask_in_training,
        assignment=assignment,
        class_lr_scale=class_lr_scale,
        loss=loss,
        suggester=suggester,
        scorer=scorer,
    )


@registry.scorers("spacy-frames.frame_inducer_scorer.v1")
def make_frame_inducer_scorer() -> Callable:
    return score_frame_induction


class FrameInducer(CfgLabels, FramesPipe):
    """Induced frames for predicate targets (see module docstring); its labels are the
    training frames (classes of the classification losses)."""

    runtime_settings = ("assignment",)

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
        assignment: str = "verb",
        class_lr_scale: float = 100.0,
        loss: Optional[Callable] = None,
        suggester: Optional[Callable] = None,
        scorer: Optional[Callable] = None,
    ) -> None:
        unknown = [p for p in pos if p not in UPOS_TO_FN]
        if unknown:
            raise ValueError(f"frame_inducer: unknown POS {unknown}; use some of {sorted(UPOS_TO_FN)}")
        check_assignment(assignment)
        if not class_lr_scale > 0:
            raise ValueError(f"frame_inducer: class_lr_scale must be > 0, got {class_lr_scale}")
        cfg: Dict[str, Any] = {
            "spans_key": spans_key,
            "targets_key": targets_key,
            "pos": list(pos),
            "alpha": alpha,
            "max_classes": max_classes,
            "tie_mask_encoder": tie_mask_encoder,
            "mask_in_training": mask_in_training,
            "assignment": assignment,
            "class_lr_scale": float(class_lr_scale),
            "labels": [],
        }
        super().__init__(vocab, model, name, cfg, scorer)
        self.set_alpha(alpha)
        self.loss = loss if loss is not None else TripletLoss()
        self.suggester = suggester if suggester is not None else build_predicate_suggester()
        self.centroids = FrameIndex()  # names = cluster ids, vectors = centroids
        self.cluster_labels: Dict[str, Optional[str]] = {}
        self.cluster_info: Dict[str, Any] = {}
        # the verbs seen at fit time: one row per (lemma, cluster) its instances were in
        self.senses: Dict[str, Any] = empty_senses()
        self._sense_rows: Dict[str, List[int]] = {}
        self._rows_cache: Dict[str, int] = {}
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
        return is_predicate(span, self.cfg["pos"])

    def targets(self, doc: Doc) -> List[Span]:
        return self.batch_targets([doc])[0]

    def batch_targets(self, docs: Sequence[Doc]) -> List[List[Span]]:
        """The suggester's targets of each doc."""
        docs = list(docs)
        suggested = self.suggester(
            docs,
            ops=self.model.ops,
            spans_key=self.cfg["spans_key"],
            targets_key=self.cfg["targets_key"],
            pos=self.cfg["pos"],
        )
        return suggested_spans(docs, suggested, (self.cfg["spans_key"], self.cfg["targets_key"]))

    # -- embeddings --------------------------------------------------------------------
    def embed(self, docs: Sequence[Doc], targets: Optional[List[List[Span]]] = None, alpha: Optional[float] = None):
        """L2-normalised embeddings of the targets (rows in doc order), as numpy float32.

        The docs must have been through the upstream transformer. Returns (v, v_word,
        v_mask): v mixes them with `alpha` (default: the component's); v_mask is None
        when alpha is 0, so the masked pass is skipped.
        """
        targets = self.batch_targets(docs) if targets is None else targets
        alpha = self.cfg["alpha"] if alpha is None else alpha
        n = sum(len(t) for t in targets)
        width = self.model.get_dim("nO") if self.model.has_dim("nO") else 0
        if n == 0:
            empty = numpy.zeros((0, width or 0), dtype="float32")
            return empty, empty, None
        v_word, v_mask = target_vectors(self.model, list(docs), targets, alpha > 0)
        ops = self.model.ops
        v_word = ops.to_numpy(v_word).astype("float32")
        v_mask = ops.to_numpy(v_mask).astype("float32") if v_mask is not None else None
        return mix(v_word, v_mask, alpha), v_word, v_mask

    def predict(self, docs: Iterable[Doc]) -> Dict[str, Any]:
        docs = list(docs)
        targets = self.batch_targets(docs)
        if not sum(len(t) for t in targets) or not len(self.centroids.names):
            return {"targets": targets, "ids": None}
        vectors, _, _ = self.embed(docs, targets)
        lemmas = [target_lemma(span) for doc_targets in targets for span in doc_targets]
        return {"targets": targets, "ids": self.assign(vectors, lemmas)}

    def assign(self, vectors: numpy.ndarray, lemmas: Sequence[str], assignment: Optional[str] = None) -> numpy.ndarray:
        """The centroid row (into `self.centroids.names`) of each embedded target, by the
        rule `assignment` (default: the component's; see ASSIGNMENTS); `lemmas`: each
        target's verb lemma (`target_lemma`)."""
        assignment = check_assignment(assignment or self.cfg["assignment"])
        vectors = numpy.ascontiguousarray(vectors, dtype="float32")
        if len(vectors) != len(lemmas):
            raise ValueError(f"[{self.name}] assign: {len(vectors)} vectors, {len(lemmas)} lemmas")
        _, nearest = self.centroids.search(vectors, 1)
        ids = nearest[:, 0].astype("int64")
        if assignment == "nearest" or not self._sense_rows:
            return ids
        by_lemma: Dict[str, List[int]] = {}
        for i, lemma in enumerate(lemmas):
            if lemma in self._sense_rows:
                by_lemma.setdefault(lemma, []).append(i)
        cluster_row = {name: i for i, name in enumerate(self.centroids.names)}
        sense_clusters = [cluster_row[c] for c in self.senses["clusters"]]
        for lemma, idx in by_lemma.items():
            rows = self._sense_rows[lemma]
            if assignment == "verb":
                candidates = sorted({sense_clusters[r] for r in rows})
                scores = vectors[idx] @ self.centroids.matrix[candidates].T
                ids[idx] = numpy.asarray(candidates)[scores.argmax(axis=1)]
            else:
                scores = vectors[idx] @ self.senses["vectors"][rows].T
                ids[idx] = numpy.asarray([sense_clusters[r] for r in rows])[scores.argmax(axis=1)]
        return ids

    @property
    def seen_lemmas(self) -> List[str]:
        """The verb lemmas whose instances were clustered at fit time."""
        return sorted(self._sense_rows)

    def set_annotations(self, docs: Iterable[Doc], predictions: Dict[str, Any]) -> None:
        targets, ids = predictions["targets"], predictions["ids"]
        if ids is None:
            if any(targets) and not self._warned_no_centroids:
                warnings.warn(
                    f"[{self.name}] has no cluster centroids: induced frames stay None. Fit them with "
                    "`spacy-frames fit-inducer MODEL INPUT OUTPUT --store-centroids DIR`.",
                    stacklevel=2,
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

    # -- centroids ---------------------------------------------------------------------
    def set_clusters(
        self,
        vectors: numpy.ndarray,
        clusters: Sequence[int],
        frames: Optional[Sequence[Optional[str]]] = None,
        info: Optional[Dict[str, Any]] = None,
        lemmas: Optional[Sequence[str]] = None,
    ) -> List[str]:
        """Store the clusters of embedded instances as centroids; returns the cluster id
        ("F0000", ...) of each instance. `frames`: the known frame of each instance (or
        None), from which each cluster's most common frame is its label. `lemmas`: each
        instance's verb lemma (`target_lemma`), from which the clusters of every verb seen
        here are kept for the "verb" and "verb_sense" assignments (without them, targets
        get the nearest centroid overall)."""
        from collections import Counter, defaultdict

        from ..clustering import centroids, make_senses

        vectors = numpy.asarray(vectors, dtype="float32")
        if len(vectors) != len(clusters) or any(x is not None and len(x) != len(clusters) for x in (frames, lemmas)):
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
        self.cluster_labels = {
            name: (counts[name].most_common(1)[0][0] if counts[name] else None) for name in names.values()
        }
        ids = [names[c] for c in clusters]
        self._set_senses(make_senses(vectors, ids, lemmas) if lemmas is not None else empty_senses())
        self.cluster_info = dict(
            info or {},
            n_clusters=len(order),
            n_instances=len(vectors),
            alpha=self.cfg["alpha"],
            n_lemmas=len(self._sense_rows),
            n_senses=len(self.senses["clusters"]),
        )
        return ids

    def _set_senses(self, senses: Dict[str, Any]) -> None:
        self.senses = {
            "lemmas": list(senses["lemmas"]),
            "clusters": list(senses["clusters"]),
            "vectors": numpy.ascontiguousarray(senses["vectors"], dtype="float32"),
        }
        rows: Dict[str, List[int]] = {}
        for i, lemma in enumerate(self.senses["lemmas"]):
            rows.setdefault(lemma, []).append(i)
        self._sense_rows = rows

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

    def _update(self, examples: List[Example], drop: float) -> Optional[float]:
        """Fine-tune v_word with the metric loss; examples without targets are skipped
        (corpora of other tasks can be mixed in)."""
        spans, frames = self._gold(examples)
        if len(frames) < 2:
            skip_batch(self.model.get_ref("tok2vec"), [eg.predicted for eg in examples])
            return None
        docs = [eg.predicted for eg in examples]
        set_dropout_rate(self.model, drop)
        alpha = self.cfg["alpha"] if self.cfg.get("mask_in_training") else 0.0
        scores, backprop = self.model.begin_update((docs, spans, alpha))
        loss, d_scores = self.get_loss(examples, scores, frames)
        backprop(d_scores)
        return loss

    def get_loss(
        self, examples: Iterable[Example], scores: Tuple[Any, Any], frames: Optional[List[str]] = None
    ) -> Tuple[float, Tuple[Any, Any]]:
        """The metric loss of the model's output (vectors, class weights) against the gold
        frames of the targets (`frames`, default: read from `examples`), and its gradient
        (d_vectors, d_class_weights): the latter None unless the loss is a classification
        loss, else the rows of the frames seen so far."""
        vectors, weights = scores
        if frames is None:
            frames = self._gold(examples)[1]
        labels = self.model.ops.asarray1i([self._class_row(f) for f in frames])
        if not getattr(self.loss, "needs_class_weights", False):
            d_vectors, loss = self.loss(vectors, labels)
            return float(loss), (d_vectors, None)
        # only the rows of frames seen so far take part: unused rows would join every softmax
        n_classes = len(self.cfg["labels"])
        (d_vectors, d_weights), loss = self.loss((vectors, weights[:n_classes]), labels)
        return float(loss), (d_vectors, d_weights)

    def _class_row(self, frame: str) -> int:
        labels = self.cfg["labels"]
        if frame not in self._label_rows:
            if len(labels) >= self.cfg["max_classes"]:
                raise ValueError(
                    f"[{self.name}] more than max_classes = {self.cfg['max_classes']} training frames: raise it in the config."
                )
            self._label_rows[frame] = len(labels)
            labels.append(frame)
        return self._label_rows[frame]

    @property
    def _label_rows(self) -> Dict[str, int]:
        # derived from cfg["labels"] (the serialized state), rebuilt when that changed
        if len(self._rows_cache) != len(self.cfg["labels"]):
            self._rows_cache = {label: i for i, label in enumerate(self.cfg["labels"])}
        return self._rows_cache

    def _init_class_weights(self) -> None:
        """The class-weight table of the classification losses: a parameter of the model
        (its `class_weights` layer), max_classes rows of N(0, 1 / width)."""
        layer = self.model.get_ref(CLASS_WEIGHTS)
        width = self.model.get_dim("nO")
        layer.set_dim("nC", self.cfg["max_classes"])
        layer.set_dim("nO", width)
        layer.set_param("W", layer.ops.asarray2f(initial_class_weights(self.cfg["max_classes"], width)))

    # -- stepping (pipeline/base.py): the class weights with their own learning rate,
    # `class_lr_scale` times the encoder's; the tied mask encoder by the transformer
    def _lr_scales(self) -> Dict[Tuple[int, str], float]:
        return {(self.model.get_ref(CLASS_WEIGHTS).id, "W"): self.cfg["class_lr_scale"]}

    def _tied_wrapper(self) -> Optional[Model]:
        # the tied mask encoder shares the transformer's weights, which the transformer steps
        return optional_ref(self.model, "mask_encoder").layers[0] if self._tied else None

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
        self.model.initialize(X=(sample, [[doc[:1]] if len(doc) else [] for doc in sample], 0.0))
        if getattr(self.loss, "needs_class_weights", False):
            self._init_class_weights()
        mask_encoder = optional_ref(self.model, "mask_encoder")
        if mask_encoder is not None and self.cfg["tie_mask_encoder"]:
            if nlp is None:
                raise ValueError(f"[{self.name}] tie_mask_encoder needs the pipeline: call nlp.initialize().")
            tie_to_transformer(mask_encoder.layers[0], nlp, self.name, self.model.get_ref("tok2vec"))
            self._tied = True

    # -- serialization (pipeline/base.py): cfg, vocab, centroids, clusters, model ---------
    # The mask encoder runs the transformer's weights: once the pipeline is assembled
    # (`replace_listeners` copies the transformer into this component) they are saved once.
    def _before_save(self) -> None:
        mask_encoder = optional_ref(self.model, "mask_encoder")
        once = mask_encoder is not None and store_tied_weights_once(
            mask_encoder.layers[0], self.model.get_ref("tok2vec")
        )
        self.cfg["mask_encoder_weights"] = "tok2vec" if once else "own"

    def _after_model_load(self) -> None:
        mask_encoder = optional_ref(self.model, "mask_encoder")
        if mask_encoder is not None and self.cfg.get("mask_encoder_weights") == "tok2vec":
            retie_after_load(mask_encoder.layers[0], self.model.get_ref("tok2vec"), self.name)
            self._tied = True  # the tok2vec's own parameters; finish_update must not step them twice

    def _extra_state(self):
        return {
            "centroids": (
                self.centroids.to_bytes,
                self.centroids.from_bytes,
                self.centroids.to_disk,
                self.centroids.from_disk,
            ),
            "clusters": (
                lambda: srsly.json_dumps(self._clusters_dict()),
                lambda b: self._set_clusters_dict(srsly.json_loads(b)),
                lambda p: srsly.write_json(p, self._clusters_dict()),
                lambda p: self._set_clusters_dict(srsly.read_json(p)),
            ),
            "senses": (
                lambda: srsly.msgpack_dumps(self.senses),
                lambda b: self._set_senses(srsly.msgpack_loads(b)),
                lambda p: srsly.write_msgpack(p, self.senses),
                # pipelines fitted before senses were kept: nearest centroid overall
                lambda p: self._set_senses(srsly.read_msgpack(p)) if Path(p).exists() else None,
            ),
        }

    def _clusters_dict(self) -> Dict[str, Any]:
        return {"labels": self.cluster_labels, "info": self.cluster_info}

    def _set_clusters_dict(self, data: Dict[str, Any]) -> None:
        self.cluster_labels = dict(data.get("labels", {}))
        self.cluster_info = dict(data.get("info", {}))


def check_assignment(assignment: str) -> str:
    if assignment not in ASSIGNMENTS:
        raise ValueError(f"frame_inducer: unknown assignment {assignment!r}; use one of {', '.join(ASSIGNMENTS)}")
    return assignment


def empty_senses() -> Dict[str, Any]:
    return {"lemmas": [], "clusters": [], "vectors": numpy.zeros((0, 0), dtype="float32")}
