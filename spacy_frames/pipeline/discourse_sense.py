"""discourse_sense: implicit discourse relation senses over the PDTB-3 hierarchy.

Method: Long & Webber (2022), "Facilitating Contrastive Learning of Discourse
Relational Senses by Exploiting the Hierarchy of Sense Relations". A pair of
arguments is encoded by the shared transformer (through a listener; ml/discourse_sense.py)
and classified by heads for level-1 senses, level-2 senses and the finest senses; the
loss adds to their cross-entropies a supervised contrastive loss whose negatives are
the sister senses (losses/discourse.py). Predictions follow the hierarchy, so a level-2
sense never sits under the wrong level-1 sense: decoded jointly over its paths (the sum
of the heads' log-probabilities), or top-down (the level-1 head decides, the finer heads
choose below it).

Input (the suggester, `spacy-frames.argument_pair_suggester.v1`): a Doc whose
`doc.spans["discourse_args"]` holds exactly two spans [Arg1, Arg2]: that pair is
classified. Otherwise every pair of adjacent sentences is (sentences from the pipeline
when it sets them, else a punctuation rule). Output: `doc._.discourse_relations`,
one dict per pair: {"arg1": [start_char, end_char], "arg2": [...], "sense": the finest
sense path, "level1": "Expansion", "level2": "Expansion.Level-of-detail", "score": p}.
"""

import warnings
from itertools import islice
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.training import Example, validate_get_examples
from spacy.util import registry
from spacy.vocab import Vocab
from thinc.api import Config, Model, set_dropout_rate

from ..extensions import ARGS_KEY
from ..inventory.senses import SenseHierarchy
from ..losses import HierarchicalContrastiveLoss
from ..losses.base import _cross_entropy
from ..ml.discourse_sense import HEADS, set_head_sizes
from ..ml.transformer import wordpiece_counts
from ..scoring.discourse import score_discourse_senses
from ..suggesters.discourse import build_argument_pair_suggester, given_pair, suggested_pairs
from ..util import consecutive_chunks
from .base import CfgLabels, FramesPipe, default_tok2vec_config
from .sharing import skip_batch

default_model_config = """
[model]
@architectures = "spacy-frames.DiscourseSense.v1"
representation = "pair+args"
hidden_width = 0
dropout = 0.1
""" + default_tok2vec_config(96)
DEFAULT_DISCOURSE_MODEL = Config().from_str(default_model_config)["model"]
DECODINGS = ("joint", "top-down")
# a model call's padded wordpieces, per pair of max_pairs_per_batch (GDTB's implicit pairs
# average about 60 wordpieces)
WORDPIECES_PER_PAIR = 96


@Language.factory(
    "discourse_sense",
    assigns=["doc._.discourse_relations"],
    default_config={
        "model": DEFAULT_DISCOURSE_MODEL,
        "args_key": ARGS_KEY,
        "head_weights": [1.0, 1.0, 1.0],
        "contrastive_weight": 1.0,
        "augmented_weight": 0.1,
        "contrastive": {"@losses": "spacy-frames.HierarchicalContrastiveLoss.v1"},
        "max_pairs_per_batch": 256,
        "decoding": "joint",
        "separator": "",
        "suggester": {"@misc": "spacy-frames.argument_pair_suggester.v1"},
        "scorer": {"@scorers": "spacy-frames.discourse_sense_scorer.v1"},
    },
    default_score_weights={"disc_l2_acc": 0.5, "disc_l2_macro_f1": 0.5, "disc_l1_acc": 0.0, "disc_l1_macro_f1": 0.0},
)
def make_discourse_sense(
    nlp: Language,
    name: str,
    model: Model,
    *,
    args_key: str,
    head_weights: List[float],
    contrastive_weight: float,
    augmented_weight: float,
    contrastive: Callable,
    max_pairs_per_batch: int,
    decoding: str,
    separator: str,
    suggester: Callable,
    scorer: Optional[Callable],
) -> "DiscourseSense":
    """Create a discourse_sense component.

    model (Model): pair encoder and heads (spacy-frames.DiscourseSense.v1).
    args_key (str): doc.spans key of the [Arg1, Arg2] pair to classify.
    head_weights (List[float]): cross-entropy weights of the level-1, level-2 and
        finest-sense heads; a head with weight 0 is not trained and not used to decode.
    contrastive_weight (float): beta, the weight of the contrastive loss (0: off).
    augmented_weight (float): cross-entropy weight of a training copy with its implicit
        connective inserted, relative to 1 for the original (Long & Webber: 0.1); both
        copies take part in the contrastive loss.
    contrastive (Callable): the contrastive loss (spacy-frames.HierarchicalContrastiveLoss.v1).
    max_pairs_per_batch (int): pairs classified per model call, and at most 96
        wordpieces a pair when padded (a listener's whole docs: a longer doc goes alone).
    decoding (str): "joint" (best hierarchy path by the summed log-probabilities of
        the trained heads) or "top-down" (the level-1 head's sense, then the best path
        below it). A run-time setting: the config's value is used at load time, so
        spacy.load(..., config=...) changes it.
    separator (str): the encoder's separator token (e.g. "[SEP]"), put between Arg1 and
        Arg2 so that the encoder reads a pair as Long & Webber's "[CLS] Arg1 [SEP] Arg2
        [SEP]" ("" = none). The training reader must put the same text there
        (`corpora.train.separator`). A component with its own encoder (packaged with
        `replace_listeners`) encodes each pair on its own, separator included; one that
        listens to a shared transformer reads the document's pass and cannot insert it.
    suggester (Callable): the argument pairs (spacy-frames.argument_pair_suggester.v1);
        called with the component's args_key.
    scorer (Optional[Callable]): scoring method.
    """
    return DiscourseSense(
        nlp.vocab,
        model,
        name,
        args_key=args_key,
        head_weights=head_weights,
        contrastive_weight=contrastive_weight,
        augmented_weight=augmented_weight,
        contrastive=contrastive,
        max_pairs_per_batch=max_pairs_per_batch,
        decoding=decoding,
        separator=separator,
        suggester=suggester,
        scorer=scorer,
    )


@registry.scorers("spacy-frames.discourse_sense_scorer.v1")
def make_discourse_sense_scorer() -> Callable:
    return score_discourse_senses


class DiscourseSense(CfgLabels, FramesPipe):
    """Discourse relation senses of argument pairs (see module docstring)."""

    runtime_settings = ("decoding",)

    def __init__(
        self,
        vocab: Vocab,
        model: Model,
        name: str = "discourse_sense",
        *,
        args_key: str = ARGS_KEY,
        head_weights: Sequence[float] = (1.0, 1.0, 1.0),
        contrastive_weight: float = 1.0,
        augmented_weight: float = 0.1,
        contrastive: Optional[Callable] = None,
        max_pairs_per_batch: int = 256,
        decoding: str = "joint",
        separator: str = "",
        suggester: Optional[Callable] = None,
        scorer: Optional[Callable] = None,
    ) -> None:
        if len(head_weights) != len(HEADS) or any(w < 0 for w in head_weights) or not any(head_weights):
            raise ValueError(
                f"[{name}] head_weights: three weights >= 0 (level 1, level 2, finest), not all 0; got {list(head_weights)}"
            )
        if contrastive_weight < 0:
            raise ValueError(f"[{name}] contrastive_weight must be >= 0, got {contrastive_weight}")
        if decoding not in DECODINGS:
            raise ValueError(f"[{name}] decoding must be one of {DECODINGS}, got {decoding!r}")
        cfg: Dict[str, Any] = {
            "args_key": args_key,
            "head_weights": [float(w) for w in head_weights],
            "contrastive_weight": float(contrastive_weight),
            "augmented_weight": float(augmented_weight),
            "max_pairs_per_batch": int(max_pairs_per_batch),
            "separator": str(separator),
            "decoding": decoding,
            "labels": [],
        }
        super().__init__(vocab, model, name, cfg, scorer)
        self.contrastive = contrastive if contrastive is not None else HierarchicalContrastiveLoss()
        self.suggester = suggester if suggester is not None else build_argument_pair_suggester()
        self.hierarchy = SenseHierarchy()
        self._tables: Optional[Dict[str, Any]] = None
        self._warned_args = False

    # -- labels: the finest senses predicted (leaves, or level-2 senses seen without a leaf)
    def add_label(self, label: str) -> int:
        sense = self.hierarchy.normalize(label)
        if sense is None or self.hierarchy.level_of(sense) < 2:
            raise ValueError(f"[{self.name}] {label!r} is not a level-2 or level-3 PDTB-3 sense")
        if sense in self.cfg["labels"]:
            return 0
        if self.model.has_dim("nO") and self.model.get_dim("nO"):
            raise ValueError(f"[{self.name}] cannot add sense {sense!r} after initialization")
        self.cfg["labels"].append(sense)
        self._tables = None
        return 1

    @property
    def tables(self) -> Dict[str, Any]:
        """Class lists of the three heads and, per finest sense, its rows in each head."""
        if self._tables is None:
            h = self.hierarchy
            labels = sorted(
                self.cfg["labels"], key=lambda s: (h.leaves + h.level2).index(s) if s in h.leaves + h.level2 else 999
            )
            level1 = [s for s in h.level1 if any(h.l1(x) == s for x in labels)]
            level2 = [s for s in h.level2 if any(h.l2(x) == s for x in labels)]
            self._tables = {
                "level1": level1,
                "level2": level2,
                "leaf": labels,
                "rows": numpy.array(
                    [[level1.index(h.l1(x)), level2.index(h.l2(x)), i] for i, x in enumerate(labels)], dtype="int64"
                ).reshape(-1, 3),
            }
        return self._tables

    # -- pairs ----------------------------------------------------------------------------
    def pairs(self, doc: Doc) -> List[Tuple[Span, Span]]:
        """The [Arg1, Arg2] pair of `doc.spans[args_key]`, else adjacent sentences."""
        return self.batch_pairs([doc])[0]

    def batch_pairs(self, docs: Sequence[Doc]) -> List[List[Tuple[Span, Span]]]:
        """The suggester's argument pairs of each doc."""
        docs = list(docs)
        key = self.cfg["args_key"]
        if not self._warned_args and any(doc.spans.get(key) and given_pair(doc, key) is None for doc in docs):
            n = next(len(doc.spans[key]) for doc in docs if doc.spans.get(key) and given_pair(doc, key) is None)
            warnings.warn(
                f"[{self.name}] doc.spans['{key}'] should hold two non-empty spans [Arg1, Arg2], "
                f"not {n}: classifying adjacent sentences instead.",
                stacklevel=2,
            )
            self._warned_args = True
        return suggested_pairs(docs, self.suggester(docs, ops=self.model.ops, args_key=key))

    # -- prediction -----------------------------------------------------------------------
    def predict(self, docs: Iterable[Doc]) -> List[List[Dict[str, Any]]]:
        docs = list(docs)
        pairs = self.batch_pairs(docs)
        results: List[List[Dict[str, Any]]] = [[] for _ in docs]
        if not self.cfg["labels"]:
            return results
        flat = [(d, p) for d, doc_pairs in enumerate(pairs) for p in doc_pairs]
        relations: List[Optional[Dict[str, Any]]] = [None] * len(flat)
        max_pairs = self.cfg["max_pairs_per_batch"]
        if self.encodes_pairs:
            # each pair its own sequence "Arg1 [SEP] Arg2", as in training, so pairs of any
            # docs batch together: sorted by wordpieces, since a call pads every sequence to
            # its longest, and bounded in pairs and in padded wordpieces (a 20,000-word
            # document's pairs beside one long "sentence" took 7 GB in one call before)
            key = self.cfg["args_key"]
            pair_docs = [pair_doc(self.vocab, a1, a2, self.cfg["separator"], key) for _, (a1, a2) in flat]
            sizes = wordpiece_counts(self.model, [d.text for d in pair_docs])
            sizes = [len(d.text) for d in pair_docs] if sizes is None else sizes
            order = sorted(range(len(flat)), key=sizes.__getitem__)
            for piece in consecutive_chunks(
                [sizes[i] for i in order], max_pairs, max_pairs * WORDPIECES_PER_PAIR, padded=True
            ):
                chosen = [order[i] for i in piece]
                inputs = ([pair_docs[i] for i in chosen], [[tuple(pair_docs[i].spans[key])] for i in chosen])
                self._classify(inputs, flat, chosen, relations)
        else:
            # a listener reads the document's own transformer pass: whole docs per call
            starts = numpy.cumsum([0] + [len(doc_pairs) for doc_pairs in pairs])
            with_pairs = [d for d, doc_pairs in enumerate(pairs) if doc_pairs]
            for piece in consecutive_chunks([len(pairs[d]) for d in with_pairs], max_pairs):
                doc_ids = [with_pairs[i] for i in piece]
                chosen = [j for d in doc_ids for j in range(starts[d], starts[d + 1])]
                self._classify(([docs[d] for d in doc_ids], [pairs[d] for d in doc_ids]), flat, chosen, relations)
        for (d, _), relation in zip(flat, relations):
            results[d].append(relation)
        return results

    def _classify(self, inputs, flat, chosen: List[int], relations: List[Optional[Dict[str, Any]]]) -> None:
        """One model call on `inputs`, the pairs flat[i] for i in `chosen`, in that order."""
        _, logits = self.model.predict(inputs)
        senses, scores = self.decode(logits)
        for i, sense, score in zip(chosen, senses, scores):
            relations[i] = self.relation(*flat[i][1], sense, score)

    @property
    def decoding(self) -> str:
        return self.cfg["decoding"]

    @property
    def encodes_pairs(self) -> bool:
        """Whether pairs are encoded one by one with the separator: only with a separator
        and an own encoder (a listener can only read the document's transformer pass)."""
        if not self.cfg.get("separator"):
            return False
        return not any(hasattr(node, "upstream_name") for node in self.model.get_ref("tok2vec").walk())

    def decode(self, logits: List[Any]) -> Tuple[List[str], List[float]]:
        """The finest sense of each row and its probability, over the hierarchy's paths:
        jointly (the summed log-probabilities of the trained heads) or top-down (the
        level-1 head's best sense, then the best path below it by the finer heads, the
        score being p(level 1) * p(path | level 1))."""
        tables = self.tables
        rows = tables["rows"]
        per_head = {}
        for h, (_head, weight) in enumerate(zip(HEADS, self.cfg["head_weights"])):
            if weight <= 0:
                continue
            scores = self.model.ops.to_numpy(logits[h]).astype("float64")
            log_probs = scores - scores.max(axis=1, keepdims=True)
            log_probs -= numpy.log(numpy.exp(log_probs).sum(axis=1, keepdims=True))
            per_head[h] = log_probs
        total = sum(log_probs[:, rows[:, h]] for h, log_probs in per_head.items())
        if self.decoding == "top-down" and 0 in per_head:
            level1 = per_head[0].argmax(axis=1)
            below = total - per_head[0][:, rows[:, 0]]  # the finer heads' share (0 without them)
            below = numpy.where(rows[None, :, 0] == level1[:, None], below, -numpy.inf)
            best = below.argmax(axis=1)
            shifted = numpy.exp(below - below.max(axis=1, keepdims=True))
            within = shifted[numpy.arange(len(best)), best] / shifted.sum(axis=1)
            probs = numpy.exp(per_head[0][numpy.arange(len(best)), level1]) * within
        else:
            best = total.argmax(axis=1)
            shifted = numpy.exp(total - total.max(axis=1, keepdims=True))
            probs = shifted[numpy.arange(len(best)), best] / shifted.sum(axis=1)
        return [tables["leaf"][i] for i in best], [float(p) for p in probs]

    def relation(self, arg1: Span, arg2: Span, sense: str, score: float) -> Dict[str, Any]:
        h = self.hierarchy
        if self.cfg["head_weights"][2] <= 0:  # finest head untrained: level 2 is as fine as it gets
            sense = h.l2(sense)
        return {
            "arg1": [arg1.start_char, arg1.end_char],
            "arg2": [arg2.start_char, arg2.end_char],
            "sense": sense,
            "level1": h.l1(sense),
            "level2": h.l2(sense),
            "score": round(score, 6),
        }

    def set_annotations(self, docs: Iterable[Doc], relations: List[List[Dict[str, Any]]]) -> None:
        for doc, doc_relations in zip(docs, relations):
            doc._.discourse_relations = doc_relations

    # -- training -------------------------------------------------------------------------
    def _gold(self, examples: Sequence[Example]) -> Tuple[List[List[Tuple[Span, Span]]], List[str], List[float]]:
        """Per example its argument pair ([] for an example without a gold sense, or with
        a sense the heads have no class for); the senses of the pairs, in order, and
        their cross-entropy weights (augmented copies: augmented_weight)."""
        pairs, senses, weights = [], [], []
        for eg in examples:
            gold = eg.reference._.discourse_gold
            args = list(eg.predicted.spans.get(self.cfg["args_key"], []))
            candidates = [s for s in (gold or {}).get("senses", []) if s in self.tables["leaf"]]
            if not candidates or len(args) != 2 or not all(len(a) for a in args):
                pairs.append([])
                continue
            pairs.append([(args[0], args[1])])
            senses.append(candidates[0])
            weights.append(self.cfg.get("augmented_weight", 1.0) if gold.get("augmented") else 1.0)
        return pairs, senses, weights

    def _update(self, examples: List[Example], drop: float) -> Optional[float]:
        """Cross-entropy on the heads plus beta * the contrastive loss; examples without
        a gold sense are skipped (corpora of other tasks can be mixed in)."""
        pairs, senses, weights = self._gold(examples)
        if not senses:
            skip_batch(self.model.get_ref("tok2vec"), [eg.predicted for eg in examples])
            return None
        # every doc goes to the listener (it checks the batch is the transformer's),
        # those without gold with no pair
        docs = [eg.predicted for eg in examples]
        set_dropout_rate(self.model, drop)
        (features, logits), backprop = self.model.begin_update((docs, pairs))
        loss, grads = self.get_loss(examples, (features, logits, senses, weights))
        backprop(grads)
        return loss

    def get_loss(self, examples: Iterable[Example], scores) -> Tuple[float, Any]:
        """scores: (features, logits of the heads, gold senses, cross-entropy weights)."""
        features, logits, senses, weights = scores
        ops = self.model.ops
        # weighted mean cross-entropy: rows scaled by weight / mean weight
        sample = numpy.asarray(weights, dtype="float32")
        sample = ops.asarray2f((sample / sample.mean()).reshape(-1, 1))
        tables = self.tables
        rows = tables["rows"][[tables["leaf"].index(s) for s in senses]]
        total, d_logits = 0.0, []
        for h, weight in enumerate(self.cfg["head_weights"]):
            if weight <= 0:
                d_logits.append(None)
                continue
            grad, values = _cross_entropy(ops.xp, logits[h], ops.asarray1i(rows[:, h]), reduce=False)
            d_logits.append((weight * grad * sample / len(senses)).astype("float32"))
            total += weight * float((values * sample[:, 0]).mean())
        d_features = None
        beta = self.cfg["contrastive_weight"]
        if beta > 0 and len(senses) > 1:
            truths = (ops.asarray1i(rows[:, 2]), ops.asarray1i(rows[:, 0]))
            grad, value = self.contrastive(features, truths)
            d_features = (beta * grad).astype("float32")
            total += beta * value
        return float(total), (d_features, d_logits)

    def initialize(
        self,
        get_examples: Callable[[], Iterable[Example]],
        *,
        nlp: Optional[Language] = None,
        labels: Optional[List[str]] = None,
    ) -> None:
        """Initialize on a sample; the senses come from `labels` or, without them, from
        the gold of all training examples."""
        validate_get_examples(get_examples, "DiscourseSense.initialize")
        if labels:
            for label in labels:
                self.add_label(label)
        else:
            for eg in get_examples():
                gold = eg.reference._.discourse_gold
                for sense in (gold or {}).get("senses", []):
                    self.add_label(sense)
        if not self.cfg["labels"]:
            raise ValueError(
                f"[{self.name}] no discourse senses in the training examples (doc._.discourse_gold): nothing to learn."
            )
        sample = [eg.predicted for eg in islice(get_examples(), 10)]
        self._check_separator(sample)
        sample = [doc for doc in sample if self.pairs(doc)] or [
            Doc(self.vocab, words=["a", ".", "b", "."], sent_starts=[True, False, True, False])
        ]
        tables = self.tables
        set_head_sizes(self.model, (len(tables["level1"]), len(tables["level2"]), len(tables["leaf"])))
        self.model.initialize(X=(sample, [self.pairs(doc)[:1] for doc in sample]))

    def _check_separator(self, docs: Sequence[Doc]) -> None:
        """The training docs must hold the component's separator between their arguments
        (the reader's `separator`), or training and prediction would see different input."""
        separator = self.cfg.get("separator", "")
        for doc in docs:
            args = list(doc.spans.get(self.cfg["args_key"], []))
            if len(args) != 2:
                continue
            between = doc.text[args[0].end_char : args[1].start_char]
            if (separator not in between) if separator else False:
                raise ValueError(
                    f"[{self.name}] separator is {separator!r} but the training reader puts {between.strip()!r} between "
                    f"the arguments: set the reader's `separator` to the component's."
                )

    # -- serialization (pipeline/base.py): cfg, vocab, model ---------------------------
    def _set_cfg(self, data: Dict[str, Any]) -> None:
        super()._set_cfg(data)
        self._tables = None

    def _before_model_load(self) -> None:
        self._size_heads()

    def _size_heads(self) -> None:
        if not self.cfg["labels"]:
            raise ValueError(f"[{self.name}] the saved component has no senses: was it trained?")
        tables = self.tables
        set_head_sizes(self.model, (len(tables["level1"]), len(tables["level2"]), len(tables["leaf"])))


def pair_doc(vocab: Vocab, arg1: Span, arg2: Span, separator: str, key: str = ARGS_KEY) -> Doc:
    """A Doc "Arg1 SEP Arg2" holding the two arguments as doc.spans[ARGS_KEY] (the input
    of a pair encoded on its own; the relation keeps the original spans' offsets)."""
    words = [t.text for t in arg1] + [separator] + [t.text for t in arg2]
    spaces = (
        [bool(t.whitespace_) for t in arg1][:-1] + [True, True] + [bool(t.whitespace_) for t in arg2][:-1] + [False]
    )
    doc = Doc(vocab, words=words, spaces=spaces)
    doc.spans[key] = [Span(doc, 0, len(arg1), label="Arg1"), Span(doc, len(arg1) + 1, len(words), label="Arg2")]
    return doc
