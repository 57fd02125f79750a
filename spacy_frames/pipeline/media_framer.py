"""media_framer: multi-label news framing with the Policy Frames Codebook's 14 frames.

Method: mCPT (Reiter-Haas et al., SemEval-2023 Task 3). An article is encoded by the
shared transformer (mean over strided spans, through a listener) and/or frozen
multilingual USE vectors (ml/media_framer.py); a head with one hidden layer gives a
sigmoid score per frame. The loss is binary cross-entropy + alpha * a label-aware
(HeroCon-style) contrastive loss on the article features (losses/media.py). Training
runs in stages through spaCy configs (configs/media_*.cfg): head pre-training on a
frozen body, end-to-end contrastive fine-tuning with separate learning rates for head
and body, head post-training; the contrast sampler (corpora/batching.py) puts every
frame in every batch.

Output: `doc.cats` (a score per frame) and `doc._.media_frames` (the frames whose score
passes their threshold, best first). Thresholds are tuned per frame on dev
(`spacy-frames media-thresholds`) and saved with the component.
"""

from itertools import islice
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy
import srsly
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example, validate_get_examples
from spacy.util import registry
from spacy.vocab import Vocab
from thinc.api import Config, Model, Optimizer, set_dropout_rate

from ..extensions import BODY_VECTOR_KEY
from ..losses import BinaryCrossEntropy, LabelAwareContrastiveLoss
from ..scoring.media import score_media_frames
from .base import CfgLabels, FramesPipe, default_tok2vec_config
from .sharing import skip_batch

default_model_config = """
[model]
@architectures = "spacy-frames.MediaFramer.v1"
hidden_width = 256
dropout = 0.5
use_projection = 256
use_vectors = null
""" + default_tok2vec_config(96)
DEFAULT_MEDIA_MODEL = Config().from_str(default_model_config)["model"]


@Language.factory(
    "media_framer",
    assigns=["doc.cats", "doc._.media_frames"],
    default_config={
        "model": DEFAULT_MEDIA_MODEL,
        "threshold": 0.5,
        "contrastive_weight": 1.0,
        "classification_loss": {"@losses": "spacy-frames.BinaryCrossEntropy.v1", "pos_weight": 1.0},
        "contrastive": {"@losses": "spacy-frames.LabelAwareContrastiveLoss.v1", "temperature": 0.1},
        "head_optimizer": None,
        "scorer": {"@scorers": "spacy-frames.media_framer_scorer.v1"},
    },
    default_score_weights={"media_micro_f1": 1.0, "media_macro_f1": 0.0},
)
def make_media_framer(
    nlp: Language,
    name: str,
    model: Model,
    *,
    threshold: float,
    contrastive_weight: float,
    classification_loss: Callable,
    contrastive: Callable,
    head_optimizer: Optional[Optimizer],
    scorer: Optional[Callable],
) -> "MediaFramer":
    """Create a media_framer component.

    model (Model): article encoder and frame head (spacy-frames.MediaFramer.v1).
    threshold (float): decision threshold of the frames without a threshold tuned on dev
        (`media-thresholds` tunes one for every frame); can be set at load time.
    contrastive_weight (float): alpha, the weight of the contrastive loss (0: BCE only).
    classification_loss (Callable): the per-frame loss on the logits (BinaryCrossEntropy).
    contrastive (Callable): the contrastive loss on the article features.
    head_optimizer (Optional[Optimizer]): steps the component's own weights (head and
        USE projection) with its own learning rate; None: the training optimizer.
    scorer (Optional[Callable]): scoring method.
    """
    return MediaFramer(
        nlp.vocab,
        model,
        name,
        threshold=threshold,
        contrastive_weight=contrastive_weight,
        classification_loss=classification_loss,
        contrastive=contrastive,
        head_optimizer=head_optimizer,
        scorer=scorer,
    )


@registry.scorers("spacy-frames.media_framer_scorer.v1")
def make_media_framer_scorer() -> Callable:
    return score_media_frames


class MediaFramer(CfgLabels, FramesPipe):
    """Media frames of whole articles (see module docstring)."""

    # the per-frame thresholds tuned on dev (cfg["thresholds"]) are fitted state
    runtime_settings = ("threshold",)

    def __init__(
        self,
        vocab: Vocab,
        model: Model,
        name: str = "media_framer",
        *,
        threshold: float = 0.5,
        contrastive_weight: float = 1.0,
        classification_loss: Optional[Callable] = None,
        contrastive: Optional[Callable] = None,
        head_optimizer: Optional[Optimizer] = None,
        scorer: Optional[Callable] = None,
    ) -> None:
        if not 0.0 < threshold < 1.0:
            raise ValueError(f"[{name}] threshold must be in (0, 1), got {threshold}")
        if contrastive_weight < 0:
            raise ValueError(f"[{name}] contrastive_weight must be >= 0, got {contrastive_weight}")
        cfg: Dict[str, Any] = {
            "threshold": float(threshold),
            "contrastive_weight": float(contrastive_weight),
            "labels": [],
            "thresholds": {},
        }
        super().__init__(vocab, model, name, cfg, scorer)
        self.classification_loss = classification_loss if classification_loss is not None else BinaryCrossEntropy()
        self.contrastive = contrastive if contrastive is not None else LabelAwareContrastiveLoss()
        self.head_optimizer = head_optimizer

    def add_label(self, label: str) -> int:
        if not isinstance(label, str) or not label:
            raise ValueError(f"[{self.name}] a frame label must be a non-empty string, got {label!r}")
        if label in self.cfg["labels"]:
            return 0
        if self.model.has_dim("nO") and self.model.get_dim("nO"):
            raise ValueError(f"[{self.name}] cannot add frame {label!r} after initialization")
        self.cfg["labels"].append(label)
        return 1

    def thresholds(self) -> numpy.ndarray:
        tuned = self.cfg.get("thresholds") or {}
        return numpy.asarray([tuned.get(label, self.cfg["threshold"]) for label in self.labels], dtype="float32")

    # -- prediction -----------------------------------------------------------------------
    def predict(self, docs: Iterable[Doc]) -> numpy.ndarray:
        """Per doc a score per frame (sigmoid); all 0 for a doc without words."""
        docs = list(docs)
        scores = numpy.zeros((len(docs), len(self.labels)), dtype="float32")
        rows = [i for i, doc in enumerate(docs) if any(not t.is_space for t in doc)]
        if rows and self.labels:
            _, logits = self.model.predict([docs[i] for i in rows])
            logits = self.model.ops.to_numpy(logits)
            scores[rows] = 1.0 / (1.0 + numpy.exp(-logits))
        return scores

    def set_annotations(self, docs: Iterable[Doc], scores: numpy.ndarray) -> None:
        thresholds = self.thresholds()
        for doc, row in zip(docs, scores):
            for label, score in zip(self.labels, row):
                doc.cats[label] = float(score)
            order = numpy.argsort(-row, kind="stable")
            doc._.media_frames = [self.labels[j] for j in order if row[j] >= thresholds[j] and row[j] > 0.0]

    # -- training -------------------------------------------------------------------------
    def _gold(self, examples: Sequence[Example]) -> Tuple[List[int], numpy.ndarray]:
        """Rows of the examples whose reference has frame cats, and their 0/1 labels."""
        rows, truths = [], []
        labels = self.labels
        for i, eg in enumerate(examples):
            cats = eg.reference.cats
            if not cats:
                continue
            unknown = [c for c in cats if c not in labels]
            if unknown:
                raise ValueError(
                    f"[{self.name}] gold frame(s) {unknown} are not among the component's labels {list(labels)}"
                )
            rows.append(i)
            truths.append([1.0 if cats.get(label, 0.0) >= 0.5 else 0.0 for label in labels])
        return rows, numpy.asarray(truths, dtype="float32").reshape(len(rows), len(labels))

    def _update(self, examples: List[Example], drop: float) -> Optional[float]:
        """BCE + alpha * the label-aware contrastive loss; examples without frame cats are
        skipped (corpora of other tasks can be mixed in)."""
        rows, truths = self._gold(examples)
        docs = [eg.predicted for eg in examples]
        # frozen-body stages: the reader gave every article its cached transformer vector,
        # and the forward pass does not run the listener
        cached = self.model.has_ref("tok2vec") and all(BODY_VECTOR_KEY in doc.user_data for doc in docs)
        if not rows:
            if self.model.has_ref("tok2vec") and not cached:
                skip_batch(self.model.get_ref("tok2vec"), docs)
            return None
        set_dropout_rate(self.model, drop)
        (features, logits), backprop = self.model.begin_update(docs)
        loss, (d_features, d_logits) = self.get_loss(
            [examples[i] for i in rows], (features[rows], logits[rows], truths)
        )
        full_d_logits = self.model.ops.alloc2f(*logits.shape)
        full_d_logits[rows] = d_logits
        full_d_features = None
        if d_features is not None:
            full_d_features = self.model.ops.alloc2f(*features.shape)
            full_d_features[rows] = d_features
        backprop((full_d_features, full_d_logits))
        return loss

    def get_loss(self, examples: Iterable[Example], scores) -> Tuple[float, Any]:
        """scores: (features, logits, 0/1 truths) of the examples with gold frames."""
        features, logits, truths = scores
        ops = self.model.ops
        truths = ops.asarray2f(truths)
        d_logits, loss = self.classification_loss(logits, truths)
        d_features = None
        alpha = self.cfg["contrastive_weight"]
        if alpha > 0 and features.shape[0] > 1:
            grad, value = self.contrastive(features, truths)
            d_features = (alpha * grad).astype("float32")
            loss += alpha * value
        return float(loss), (d_features, d_logits)

    def finish_update(self, sgd: Optimizer) -> None:
        """The component's own weights take `head_optimizer`'s steps when it is set (the
        transformer is stepped by its own component, with the training optimizer)."""
        if self.head_optimizer is not None:
            self.model.finish_update(self.head_optimizer)
            self.head_optimizer.step_schedules()
        else:
            self.model.finish_update(sgd)

    def initialize(
        self,
        get_examples: Callable[[], Iterable[Example]],
        *,
        nlp: Optional[Language] = None,
        labels: Optional[List[str]] = None,
        init_from: Optional[str] = None,
    ) -> None:
        """Initialize on a sample; frames come from `labels` or from the gold cats.
        init_from: a trained pipeline (or its media_framer directory) whose component
        weights and frames this one starts from: the next stage of a staged training."""
        validate_get_examples(get_examples, "MediaFramer.initialize")
        source = self._init_source(init_from) if init_from else None
        for label in (source["cfg"]["labels"] if source else labels) or sorted(
            {c for eg in get_examples() for c in eg.reference.cats}
        ):
            self.add_label(label)
        if not self.cfg["labels"]:
            raise ValueError(
                f"[{self.name}] no frame labels: the training examples have no doc.cats and no labels were given."
            )
        sample = [eg.predicted for eg in islice(get_examples(), 8)]
        self.model.set_dim("nO", len(self.labels))
        self.model.initialize(X=sample or None)
        if source:
            try:
                self.model.from_bytes(source["model"])
            except ValueError as err:
                raise ValueError(
                    f"[{self.name}] init_from '{init_from}' holds a media_framer with another architecture "
                    f"(bodies or widths differ from this config): {err}"
                ) from err

    def _init_source(self, init_from: str) -> Dict[str, Any]:
        path = Path(init_from)
        if (path / self.name).is_dir():
            path = path / self.name
        if not (path / "cfg").is_file() or not (path / "model").is_file():
            raise FileNotFoundError(
                f"[{self.name}] init_from '{init_from}' is not a trained media_framer (no cfg and model files)."
            )
        return {"cfg": srsly.read_json(path / "cfg"), "model": (path / "model").read_bytes()}

    def set_thresholds(self, tuning: Dict[str, Any]) -> None:
        """Keep per-frame thresholds tuned on dev (scoring.media.tune_shrunk_thresholds' result:
        "thresholds" in label order, and how they were chosen); saved with the component."""
        thresholds = [float(t) for t in tuning["thresholds"]]
        if len(thresholds) != len(self.labels):
            raise ValueError(f"[{self.name}] {len(thresholds)} thresholds for {len(self.labels)} frames.")
        self.cfg["thresholds"] = dict(zip(self.labels, thresholds))
        self.cfg["threshold_tuning"] = {k: v for k, v in tuning.items() if k != "thresholds"}

    # -- serialization (pipeline/base.py): cfg, vocab, model ---------------------------
    def _before_model_load(self) -> None:
        if not self.cfg["labels"]:
            raise ValueError(f"[{self.name}] the saved component has no frame labels: was it trained?")
        self.model.set_dim("nO", len(self.labels), force=True)
