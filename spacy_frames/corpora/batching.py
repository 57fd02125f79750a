"""Batchers whose batches hold what a contrastive loss needs.

- `spacy-frames.relation_batcher.v1` (discourse_sense): a relation and its
  connective-inserted copy (and the copies of a two-sense relation) always share a
  batch, whatever order the examples come in. In Long & Webber's code the copy is every
  anchor's guaranteed positive; spaCy shuffles the training examples every epoch
  (`max_epochs >= 0`), after which a copy met its original in about 0.5 % of batches.
- `spacy-frames.contrast_batcher.v1` (media_framer), below.

The contrast sampler of media_framer (mCPT, Reiter-Haas et al. 2023, Appendix E).

A label-aware contrastive loss learns nothing about a class from a batch that holds
fewer than two of its documents, and with 14 frames and small batches plain shuffling
leaves rare frames out of most batches. The sampler builds each batch by first taking,
for every class still missing (rarest first), documents that carry it until the batch
holds `min_positives` of them, and then filling up with documents of the most
plentiful frames (the incoming order breaks ties). Every
document is used once per epoch; the last batches hold what is left.
`min_positives = 0` turns the sampler off (batches in the reader's shuffled order): the
ablation "without the contrast sampler".
"""

from typing import Callable, Dict, Hashable, Iterable, Iterator, List, Set

from spacy.training import Example
from spacy.util import registry


def relation_key(eg: Example) -> Hashable:
    """The relation an example belongs to (its gold id); an example without discourse
    gold (another task's) is a group of its own."""
    gold = getattr(eg.reference._, "discourse_gold", None) if eg.reference.has_extension("discourse_gold") else None
    return ("relation", gold["id"]) if gold and gold.get("id") is not None else ("example", id(eg))


@registry.batchers("spacy-frames.relation_batcher.v1")
def create_relation_batcher(size: int, buffer: int = 100000) -> Callable[[Iterable[Example]], Iterator[List[Example]]]:
    """size: relations per batch (each with all its examples: the original, its
    connective-inserted copy, one per gold sense); buffer: examples grouped at a time
    (larger than an epoch of the corpora here, so no group is ever cut). Groups keep the
    order in which their first example arrives, so spaCy's shuffle still decides the batches."""
    if size < 1 or buffer < 1:
        raise ValueError(f"relation_batcher: size and buffer must be >= 1, got {size} and {buffer}")

    return pooled_batcher(buffer, lambda pool: relation_batches(pool, size))


def pooled_batcher(
    buffer: int, make_batches: Callable[[List[Example]], Iterator[List[Example]]]
) -> Callable[[Iterable[Example]], Iterator[List[Example]]]:
    """A batcher that collects `buffer` examples at a time and batches each pool."""

    def batcher(examples: Iterable[Example]) -> Iterator[List[Example]]:
        pool: List[Example] = []
        for eg in examples:
            pool.append(eg)
            if len(pool) >= buffer:
                yield from make_batches(pool)
                pool = []
        if pool:
            yield from make_batches(pool)

    return batcher


def relation_batches(pool: List[Example], size: int) -> Iterator[List[Example]]:
    groups: Dict[Hashable, List[Example]] = {}
    for eg in pool:
        groups.setdefault(relation_key(eg), []).append(eg)
    ordered = list(groups.values())
    for start in range(0, len(ordered), size):
        yield [eg for group in ordered[start : start + size] for eg in group]


def example_labels(eg: Example) -> Set[str]:
    return {label for label, value in eg.reference.cats.items() if value >= 0.5}


@registry.batchers("spacy-frames.contrast_batcher.v1")
def create_contrast_batcher(
    size: int, min_positives: int = 2, buffer: int = 5000
) -> Callable[[Iterable[Example]], Iterator[List[Example]]]:
    """size: examples per batch; min_positives: documents each class should have in a
    batch (while the epoch still has them; 0: plain batches in incoming order);
    buffer: examples sampled from at a time."""
    if size < 1 or min_positives < 0:
        raise ValueError(f"contrast_batcher: size must be >= 1 and min_positives >= 0, got {size} and {min_positives}")

    return pooled_batcher(buffer, lambda pool: contrast_batches(pool, size, min_positives))


def contrast_batches(pool: List[Example], size: int, min_positives: int) -> Iterator[List[Example]]:
    if min_positives == 0:
        for start in range(0, len(pool), size):
            yield pool[start : start + size]
        return
    labels = [example_labels(eg) for eg in pool]
    left = list(range(len(pool)))
    while left:
        remaining = {}
        for i in left:
            for label in labels[i]:
                remaining[label] = remaining.get(label, 0) + 1
        batch: List[int] = []
        chosen = set()
        have = {label: 0 for label in remaining}
        for label in sorted(remaining, key=lambda lab: (remaining[lab], lab)):
            # documents that also carry other frames the batch still lacks go first
            candidates = sorted(
                (i for i in left if i not in chosen and label in labels[i]),
                key=lambda i: -sum(1 for lab in labels[i] if have.get(lab, 0) < min_positives),
            )
            for i in candidates:
                if have[label] >= min_positives or len(batch) >= size:
                    break
                batch.append(i)
                chosen.add(i)
                for lab in labels[i]:
                    have[lab] = have.get(lab, 0) + 1
        # fill up with the documents whose frames are most plentiful, keeping rare ones for later batches
        fill = sorted(
            (i for i in left if i not in chosen),
            key=lambda i: -min((remaining[lab] for lab in labels[i]), default=len(pool)),
        )
        for i in fill[: max(size - len(batch), 0)]:
            batch.append(i)
            chosen.add(i)
        left = [i for i in left if i not in chosen]
        yield [pool[i] for i in batch]


def relation_batch_stats(batches: Iterable[List[Example]]) -> Dict[str, float]:
    """What a batch gives the contrastive loss of discourse_sense: per anchor (an example
    with a gold sense) the number of other examples of its batch with the same sense
    (its positives), the share of anchors with none, and the share of connective-inserted
    copies whose original is in the same batch."""
    anchors = positives = without = copies = copies_with_original = n_batches = 0
    for batch in batches:
        n_batches += 1
        golds = [
            eg.reference._.discourse_gold if eg.reference.has_extension("discourse_gold") else None for eg in batch
        ]
        senses = [g["senses"][0] if g and g.get("senses") else None for g in golds]
        counts: Dict[str, int] = {}
        for sense in senses:
            if sense is not None:
                counts[sense] = counts.get(sense, 0) + 1
        originals = {g["id"] for g in golds if g and not g.get("augmented")}
        for gold, sense in zip(golds, senses):
            if sense is None:
                continue
            anchors += 1
            positives += counts[sense] - 1
            without += counts[sense] == 1
            if gold.get("augmented"):
                copies += 1
                copies_with_original += gold["id"] in originals
    return {
        "batches": n_batches,
        "anchors": anchors,
        "mean_positives_per_anchor": round(positives / anchors, 3) if anchors else 0.0,
        "share_anchors_without_positive": round(without / anchors, 4) if anchors else 0.0,
        "copies": copies,
        "share_copies_with_original": round(copies_with_original / copies, 4) if copies else None,
    }
