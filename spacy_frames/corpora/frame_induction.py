"""Frame-induction instances from FrameNet 1.5 exemplars (Yamada et al. 2021, 2023).

An instance is one exemplar sentence with one target whose lexical unit is a verb
(``*.v``). At most ``max_per_lu`` instances are kept per LU (a seeded sample), and
the verb lemmas are dealt into three folds so that verbs, LUs and instances never
cross folds (frames may). Polysemous verbs (more than one frame) and monosemous ones
are shuffled and dealt separately, round-robin, so every fold gets the same share of
polysemous verbs. The paper rotates train / dev / test over the folds; see
:func:`fold_rotation`.

Only exemplar sentences are used, as in the paper: full-text sentences annotate
every target of a sentence and are kept for frame identification.

Each instance is written as its own Doc (the sentence, with the target in
``doc.spans["targets"]``, label = frame, ``span._.lexical_unit`` = LU), one DocBin
per fold: ``corpus/frame_induction/fold{0,1,2}.spacy``.
"""

import random
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from spacy.language import Language
from spacy.tokens import Doc, DocBin
from spacy.training import Example
from spacy.util import registry
from spacy.vocab import Vocab

from ..extensions import TARGETS_KEY, install_extensions
from .docbins import docs_from, msgpack_looked_up_once
from .framenet import _require_file, read_fn15_inventory
from .framenet_convert import DOCBIN_ATTRS
from .framenet_sentences import FrameSentence, FrameTarget, iter_exemplar_sentences, sentence_to_doc
from .readers import copy_targets, require_corpus, subset_docbin

N_FOLDS = 3


def lu_lemma(lu: str) -> str:
    """ "give up.v" -> "give up"."""
    return lu.rsplit(".", 1)[0]


def collect_verb_instances(
    sentences: Iterable[FrameSentence], max_per_lu: int = 100, seed: int = 0
) -> List[Tuple[FrameSentence, FrameTarget]]:
    """(sentence, target) pairs whose LU is a verb, at most ``max_per_lu`` per LU.

    A sentence annotated twice for the same target (same pieces) counts once.
    Targets without a Target label are skipped. The sample per LU is seeded and
    the output is in a fixed order (LU, then the sentence order of FrameNet).
    """
    # an LU is a (lemma.pos, frame) pair: "run.v" of Self_motion and of Leadership are two
    by_lu: Dict[Tuple[str, str], List[Tuple[FrameSentence, FrameTarget]]] = defaultdict(list)
    for sentence in sentences:
        seen = set()
        for target in sentence.targets:
            if not target.lu.endswith(".v") or not target.pieces:
                continue
            key = tuple(map(tuple, target.pieces))
            if key in seen:
                continue
            seen.add(key)
            by_lu[(target.lu, target.frame)].append((sentence, target))
    rng = random.Random(seed)
    instances = []
    for lu in sorted(by_lu):
        items = by_lu[lu]
        if max_per_lu > 0 and len(items) > max_per_lu:
            keep = sorted(rng.sample(range(len(items)), max_per_lu))
            items = [items[i] for i in keep]
        instances.extend(items)
    return instances


def assign_folds(frames_of_lemma: Dict[str, Sequence[str]], n_folds: int = N_FOLDS, seed: int = 0) -> Dict[str, int]:
    """Lemma -> fold. Polysemous and monosemous lemmas are shuffled (seeded) and
    dealt round-robin separately, so each fold has the same share of polysemous verbs."""
    rng = random.Random(seed)
    poly = sorted(lemma for lemma, frames in frames_of_lemma.items() if len(set(frames)) > 1)
    mono = sorted(lemma for lemma, frames in frames_of_lemma.items() if len(set(frames)) <= 1)
    folds: Dict[str, int] = {}
    start = 0
    for group in (poly, mono):
        rng.shuffle(group)
        for i, lemma in enumerate(group):
            folds[lemma] = (start + i) % n_folds
        start = (start + len(group)) % n_folds  # keep fold sizes even across the groups
    return folds


def fold_rotation(test_fold: int, n_folds: int = N_FOLDS) -> Dict[str, int]:
    """The paper's rotation: fold k is test, k+1 dev, k+2 train."""
    if not 0 <= test_fold < n_folds:
        raise ValueError(f"test fold must be in 0..{n_folds - 1}, got {test_fold}")
    return {"test": test_fold, "dev": (test_fold + 1) % n_folds, "train": (test_fold + 2) % n_folds}


def instance_stats(rows: Sequence[Tuple[str, str]]) -> Dict[str, Any]:
    """Counts in the form of the paper's Table 2 from (lemma, frame) per instance."""
    lemmas = {lemma for lemma, _ in rows}
    lus = set(rows)
    frames_of = defaultdict(set)
    for lemma, frame in rows:
        frames_of[lemma].add(frame)
    n_poly = sum(1 for fs in frames_of.values() if len(fs) > 1)
    return {
        "verbs": len(lemmas),
        "lexical_units": len(lus),
        "frames": len({frame for _, frame in rows}),
        "instances": len(rows),
        "polysemous_verbs": n_poly,
        "polysemous_share": round(100.0 * n_poly / max(len(lemmas), 1), 2),
    }


def convert_frame_induction(
    zip_path,
    output_dir,
    *,
    max_per_lu: int = 100,
    centroid_max_per_lu: int = 20,
    holdout_max_per_lu: int = 5,
    seed: int = 0,
    limit: Optional[int] = None,
    progress: bool = True,
) -> Dict[str, Any]:
    """Write ``fold{k}.spacy`` and ``folds.json`` (lemma -> fold) to ``output_dir``;
    return Table-2 style counts per fold and overall. ``centroids.spacy`` holds the
    instances of all folds, at most ``centroid_max_per_lu`` per LU (seeded): the
    packaged inducer's centroids are clustered from them. ``centroid_holdout.spacy``
    holds up to ``holdout_max_per_lu`` of the instances left out of it per LU (only LUs
    with more than ``centroid_max_per_lu``): exemplars the centroids were not fitted on
    (though the inducer trained on them), scored beside the cut's choice for contrast."""
    import srsly
    from tqdm import tqdm

    fn_zip = _require_file(zip_path, "FrameNet 1.5 zip")
    inventory = read_fn15_inventory(fn_zip)
    sentences = tqdm(
        iter_exemplar_sentences(fn_zip, limit), desc="exemplars", unit=" sent", disable=not progress, mininterval=2.0
    )
    instances = [
        (s, t) for s, t in collect_verb_instances(sentences, max_per_lu=max_per_lu, seed=seed) if t.frame in inventory
    ]
    if not instances:
        raise ValueError(f"No verb exemplars found in '{fn_zip}'.")
    folds = assign_folds(frames_by_lemma(instances), seed=seed)
    output = Path(output_dir)
    output.mkdir(parents=True, exist_ok=True)
    vocab = Vocab()
    bins = [DocBin(attrs=DOCBIN_ATTRS, store_user_data=True) for _ in range(N_FOLDS)]
    rows: List[List[Tuple[str, str]]] = [[] for _ in range(N_FOLDS)]
    index: List[List[List[str]]] = [[] for _ in range(N_FOLDS)]  # [lu, frame] per doc
    centroid_index: List[List[str]] = []
    skipped = Counter()
    for_centroids, holdout = centroid_samples(instances, centroid_max_per_lu, holdout_max_per_lu, seed)
    centroid_bin = DocBin(attrs=DOCBIN_ATTRS, store_user_data=True)
    holdout_bin = DocBin(attrs=DOCBIN_ATTRS, store_user_data=True)
    holdout_index: List[List[str]] = []
    with msgpack_looked_up_once():  # one encoder lookup for every doc added
        for i, (sentence, target) in enumerate(instances):
            single = FrameSentence(
                sentence.doc, sentence.sentence_id, sentence.text, sentence.tokens, [target], sentence.tagset
            )
            doc = sentence_to_doc(vocab, single, frames=inventory, stats=skipped)
            if not len(doc.spans[TARGETS_KEY]):
                continue
            fold = folds[lu_lemma(target.lu)]
            bins[fold].add(doc)
            rows[fold].append((lu_lemma(target.lu), target.frame))
            index[fold].append([target.lu, target.frame])
            if i in for_centroids:
                centroid_bin.add(doc)
                centroid_index.append([target.lu, target.frame])
            elif i in holdout:
                holdout_bin.add(doc)
                holdout_index.append([target.lu, target.frame])
    for k, doc_bin in enumerate(bins):
        write_instances(doc_bin, output / f"fold{k}.spacy", index[k])
    write_instances(centroid_bin, output / "centroids.spacy", centroid_index)
    write_instances(holdout_bin, output / "centroid_holdout.spacy", holdout_index)
    srsly.write_json(output / "folds.json", {"seed": seed, "max_per_lu": max_per_lu, "lemmas": folds})
    summary = {f"fold{k}": instance_stats(rows[k]) for k in range(N_FOLDS)}
    summary["all"] = instance_stats([row for fold_rows in rows for row in fold_rows])
    summary["skipped_targets"] = int(skipped.get("skipped_targets", 0))
    summary["source"] = "FrameNet 1.5 lexicographic exemplars, verb LUs (full-text sentences not used)"
    summary.update(max_per_lu=max_per_lu, centroid_instances=len(centroid_bin))
    summary.update(centroid_max_per_lu=centroid_max_per_lu, centroid_holdout_instances=len(holdout_bin))
    summary["centroid_holdout_lus"] = len({tuple(row) for row in holdout_index})
    summary.update(centroid_holdout_max_per_lu=holdout_max_per_lu, seed=seed)
    # fingerprint of the lemma -> fold map: a re-run must reproduce it (the folds are never re-drawn)
    summary["folds_md5"] = folds_fingerprint(folds)
    return summary


def frames_by_lemma(instances) -> Dict[str, set]:
    frames: Dict[str, set] = defaultdict(set)
    for _, target in instances:
        frames[lu_lemma(target.lu)].add(target.frame)
    return frames


def centroid_samples(instances, centroid_max_per_lu: int, holdout_max_per_lu: int, seed: int):
    """The instances (by position) the centroids are clustered from, at most
    `centroid_max_per_lu` per LU, and the held-out ones, at most `holdout_max_per_lu` of
    each LU's rest (seeded)."""
    by_lu: Dict[Tuple[str, str], List[int]] = defaultdict(list)
    for i, (_, target) in enumerate(instances):
        by_lu[(target.lu, target.frame)].append(i)
    rng = random.Random(seed)
    for_centroids = {
        i
        for lu in sorted(by_lu)
        for i in (by_lu[lu] if len(by_lu[lu]) <= centroid_max_per_lu else rng.sample(by_lu[lu], centroid_max_per_lu))
    }
    # a second generator, so that the centroid sample stays what it was before the holdout existed
    holdout_rng = random.Random(seed + 1)
    holdout = set()
    for lu in sorted(by_lu):
        rest = [i for i in by_lu[lu] if i not in for_centroids]
        holdout.update(rest if len(rest) <= holdout_max_per_lu else holdout_rng.sample(rest, holdout_max_per_lu))
    return for_centroids, holdout


def folds_fingerprint(folds: Dict[str, int]) -> str:
    import hashlib
    import json

    return hashlib.md5(json.dumps(sorted(folds.items())).encode("utf8")).hexdigest()


def write_instances(doc_bin: DocBin, path: Path, index: List[List[str]]) -> None:
    """The DocBin and its sidecar index (`<name>.index.json`: [lu, frame] per doc), from
    which readers choose their docs without decoding every one (DocBin.get_docs decodes
    each doc's user data and span groups, about a millisecond a doc)."""
    import srsly

    doc_bin.to_disk(path)
    srsly.write_json(index_path(path), index)


def index_path(path) -> Path:
    path = Path(path)
    return path.with_name(path.stem + ".index.json")


def read_index(path) -> Optional[List[Tuple[str, str]]]:
    """[(lu, frame), ...] of an instance DocBin, or None when it has no sidecar index."""
    import srsly

    sidecar = index_path(path)
    return [tuple(row) for row in srsly.read_json(sidecar)] if sidecar.exists() else None


# -- reader -----------------------------------------------------------------------------


@registry.readers("spacy-frames.FrameInductionCorpus.v1")
def create_frame_induction_reader(
    paths: List[str],
    max_per_lu: int = 0,
    per_frame: int = 0,
    limit: int = 0,
    seed: int = 0,
    diverse_runs: bool = False,
) -> Callable[[Language], Iterable[Example]]:
    """Frame-induction instances (corpus/frame_induction/fold*.spacy) as Examples with
    their gold target preset on the predicted doc.

    paths: fold DocBins to read (the training fold, or the dev fold).
    max_per_lu: keep at most this many instances per LU (seeded; 0 = all).
    per_frame: > 0 makes an endless stream for metric learning: rounds over
        the data in which the instances come in runs of `per_frame` with the same
        frame (frames shuffled), so a batch of B holds B / per_frame frames with
        several instances each (positives for every anchor). Use it with
        `spacy.batch_by_sequence.v1` and `training.max_epochs = -1`.
    diverse_runs: fill each run from as many different verbs (LUs) of the frame as
        possible, so that the positives of an anchor are mostly other verbs: what
        the second clustering step needs (instances of one frame grouped across
        verbs), where random runs of a frame with few verbs pair mostly one verb.
    limit: at most this many instances, spread over LUs (seeded; 0 = all), e.g.
        a small dev set for scoring during training.
    """
    return FrameInductionCorpus(paths, max_per_lu, per_frame, limit, seed, diverse_runs)


class FrameInductionCorpus:
    def __init__(
        self, paths: Sequence[str], max_per_lu: int, per_frame: int, limit: int, seed: int, diverse_runs: bool = False
    ):
        if isinstance(paths, (str, Path)):
            paths = [paths]
        if not paths:
            raise ValueError("FrameInductionCorpus: no fold files given.")
        self.paths = [require_corpus(p, "convert-frame-induction") for p in paths]
        self.max_per_lu = max_per_lu
        self.per_frame = per_frame
        self.diverse_runs = diverse_runs
        self.limit = limit
        self.seed = seed
        self._docs: Optional[List[Doc]] = None

    def load(self, vocab) -> List[Doc]:
        if self._docs is None:
            install_extensions()
            docs = []
            for path in self.paths:
                index = read_index(path)
                if index is None:  # no sidecar: decode everything, then choose
                    docs.extend(docs_from(DocBin().from_disk(path), vocab))
                    continue
                keep = choose_instances(
                    [f"{lu}|{frame}" for lu, frame in index], self.max_per_lu, self.limit, self.seed
                )
                docs.extend(docs_from(subset_docbin(DocBin(store_user_data=True).from_disk(path), keep), vocab))
            docs = [doc for doc in docs if len(doc.spans.get(TARGETS_KEY, []))]
            lus = [_lu_of(doc) for doc in docs]
            docs = [docs[i] for i in choose_instances(lus, self.max_per_lu, self.limit, self.seed)]
            if not docs:
                raise ValueError(f"Frame-induction corpus {[str(p) for p in self.paths]} holds no instances.")
            self._docs = docs
        return self._docs

    def __call__(self, nlp: Language) -> Iterator[Example]:
        docs = self.load(nlp.vocab)
        if self.per_frame <= 0:
            for doc in docs:
                yield make_example(nlp, doc)
            return
        rng = random.Random(self.seed)
        by_frame: Dict[str, List[Doc]] = defaultdict(list)
        for doc in docs:
            by_frame[doc.spans[TARGETS_KEY][0].label_].append(doc)
        frames = sorted(by_frame)
        while True:
            runs = []
            for frame in frames:
                items = list(by_frame[frame])
                rng.shuffle(items)
                if self.diverse_runs:
                    items = interleave_lus(items)
                for i in range(0, len(items), self.per_frame):
                    run = items[i : i + self.per_frame]
                    if len(run) >= 2 or len(items) == 1:
                        runs.append(run)
            rng.shuffle(runs)
            for run in runs:
                for doc in run:
                    yield make_example(nlp, doc)


def interleave_lus(items: List[Doc]) -> List[Doc]:
    """The items reordered round-robin over their LUs (order within an LU kept), so
    consecutive items come from different verbs as long as there are several."""
    by_lu: Dict[str, List[Doc]] = defaultdict(list)
    for doc in items:
        by_lu[_lu_of(doc)].append(doc)
    queues = list(by_lu.values())
    out: List[Doc] = []
    for depth in range(max(len(q) for q in queues) if queues else 0):
        out.extend(q[depth] for q in queues if depth < len(q))
    return out


def make_example(nlp: Language, reference: Doc) -> Example:
    predicted = nlp.make_doc(reference.text)
    copy_targets(reference, predicted, TARGETS_KEY)
    return Example(predicted, reference)


def _lu_of(doc: Doc) -> str:
    """The instance's LU, as the (lemma.pos, frame) pair it is."""
    span = doc.spans[TARGETS_KEY][0]
    return f"{span._.lexical_unit or ''}|{span.label_}"


def choose_instances(lus: Sequence[str], max_per_lu: int, limit: int, seed: int) -> List[int]:
    """Indices kept: at most `max_per_lu` per LU (0 = all), then about `limit` in all
    (0 = all), the same number from each LU where possible; seeded, in input order.
    Choosing again from a chosen set keeps it whole, so it can run per file and overall."""
    by_lu: Dict[str, List[int]] = defaultdict(list)
    for i, lu in enumerate(lus):
        by_lu[lu].append(i)
    rng = random.Random(seed)
    if max_per_lu > 0:
        by_lu = {
            lu: (idx if len(idx) <= max_per_lu else sorted(rng.sample(idx, max_per_lu)))
            for lu, idx in sorted(by_lu.items())
        }
    keep = sorted(i for idx in by_lu.values() for i in idx)
    if limit and len(keep) > limit:
        per_lu = 1
        while sum(min(len(v), per_lu + 1) for v in by_lu.values()) <= limit and per_lu < max(map(len, by_lu.values())):
            per_lu += 1
        keep = sorted(i for idx in by_lu.values() for i in idx[:per_lu])
        if len(keep) > limit:
            keep = sorted(random.Random(seed).sample(keep, limit))
    return keep


@registry.misc("spacy-frames.instance_frames.v1")
def create_instance_frames(paths: List[str]) -> List[str]:
    """The frames of the instances in fold DocBins, sorted: the classes of the
    classification losses ([initialize.components.frame_inducer.labels])."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    frames = set()
    for path in paths:
        index = read_index(require_corpus(path, "convert-frame-induction"))
        if index is not None:
            frames.update(frame for _, frame in index)
            continue
        for doc in DocBin(store_user_data=True).from_disk(path).get_docs(Vocab()):
            frames.update(span.label_ for span in doc.spans.get(TARGETS_KEY, []) if span.label_)
    return sorted(frames)
