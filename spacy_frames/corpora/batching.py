"""The contrast sampler of media_framer (mCPT, Reiter-Haas et al. 2023, Appendix E).

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
from typing import Callable, Iterable, Iterator, List, Set

from spacy.training import Example
from spacy.util import registry


def example_labels(eg: Example) -> Set[str]:
    return {label for label, value in eg.reference.cats.items() if value >= 0.5}


@registry.batchers("spacy-frames.contrast_batcher.v1")
def create_contrast_batcher(size: int, min_positives: int = 2, buffer: int = 5000) -> Callable[[Iterable[Example]], Iterator[List[Example]]]:
    """size: examples per batch; min_positives: documents each class should have in a
    batch (while the epoch still has them; 0: plain batches in incoming order);
    buffer: examples sampled from at a time."""
    if size < 1 or min_positives < 0:
        raise ValueError(f"contrast_batcher: size must be >= 1 and min_positives >= 0, got {size} and {min_positives}")

    def batcher(examples: Iterable[Example]) -> Iterator[List[Example]]:
        pool: List[Example] = []
        for eg in examples:
            pool.append(eg)
            if len(pool) >= buffer:
                yield from contrast_batches(pool, size, min_positives)
                pool = []
        if pool:
            yield from contrast_batches(pool, size, min_positives)

    return batcher


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
            candidates = sorted((i for i in left if i not in chosen and label in labels[i]),
                                key=lambda i: -sum(1 for lab in labels[i] if have.get(lab, 0) < min_positives))
            for i in candidates:
                if have[label] >= min_positives or len(batch) >= size:
                    break
                batch.append(i)
                chosen.add(i)
                for lab in labels[i]:
                    have[lab] = have.get(lab, 0) + 1
        # fill up with the documents whose frames are most plentiful, keeping rare ones for later batches
        fill = sorted((i for i in left if i not in chosen), key=lambda i: -min((remaining[lab] for lab in labels[i]), default=len(pool)))
        for i in fill[: max(size - len(batch), 0)]:
            batch.append(i)
            chosen.add(i)
        left = [i for i in left if i not in chosen]
        yield [pool[i] for i in batch]
