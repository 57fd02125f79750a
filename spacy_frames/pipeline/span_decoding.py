"""Choosing labelled spans for one target under frame-semantic constraints.

Each candidate is (start, end, label, gain): `gain` is how much better the label is
than "no label" for that span (log p(label) - log p(none)); only candidates with a
positive gain are worth taking. A valid choice has no two overlapping spans, each label
at most `max_pieces` times, and no two labels that exclude each other (FrameNet's FE-to-FE
Excludes). Pieces of one label never touch: two adjacent pieces would be one span, so a
second piece is a discontinuous FE ("[people] ... [who]"), never a split one.

- `greedy`: take candidates by gain, keeping each that fits the ones already taken.
- `exact`: the valid choice with the largest total gain (depth-first branch and bound
  over the candidates sorted by start, from the greedy choice, pruned by the gain still
  reachable; small because few candidates of a target have a positive gain). Past `max_exact` positive candidates the lowest-gain ones are dropped
  before the search, so the cost stays bounded on pathological input.
"""

from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

Candidate = Tuple[int, int, str, float]  # (start, end exclusive, label, gain)
Excludes = Dict[str, Set[str]]


def _fits(cand: Candidate, taken: Sequence[Candidate], excludes: Optional[Excludes], max_pieces: int = 1) -> bool:
    start, end, label, _ = cand
    pieces = 0
    for s, e, lab, _ in taken:
        if start < e and s < end:
            return False
        if lab == label:
            pieces += 1
            if pieces >= max_pieces or start == e or s == end:
                return False
        if excludes and (lab in excludes.get(label, ()) or label in excludes.get(lab, ())):
            return False
    return True


def greedy(
    candidates: Iterable[Candidate], excludes: Optional[Excludes] = None, max_pieces: int = 1
) -> List[Candidate]:
    taken: List[Candidate] = []
    # ties: the shorter, then the earlier span, so the order never depends on the input's
    for cand in sorted((c for c in candidates if c[3] > 0), key=lambda c: (-c[3], c[1] - c[0], c[0], c[2])):
        if _fits(cand, taken, excludes, max_pieces):
            taken.append(cand)
    return sorted(taken)


def exact(
    candidates: Iterable[Candidate], excludes: Optional[Excludes] = None, max_pieces: int = 1, max_exact: int = 40
) -> List[Candidate]:
    positive = sorted((c for c in candidates if c[3] > 0), key=lambda c: (-c[3], c[1] - c[0], c[0], c[2]))[:max_exact]
    # the greedy choice: when it takes every candidate, no choice gains more (the usual
    # case: a target's positive candidates rarely clash); else the search starts from it
    taken = greedy(positive, excludes, max_pieces)
    if len(taken) == len(positive):
        return taken
    cands = sorted(positive, key=lambda c: (c[0], c[1], c[2]))
    n = len(cands)
    # an upper bound of what the candidates from i on can still add
    suffix = [0.0] * (n + 1)
    for i in range(n - 1, -1, -1):
        suffix[i] = suffix[i + 1] + cands[i][3]
    best: List = [sum(c[3] for c in taken), taken]

    def search(i: int, chosen: List[Candidate], total: float) -> None:
        if total > best[0] + 1e-12:
            best[0], best[1] = total, list(chosen)
        if i >= n or total + suffix[i] <= best[0] + 1e-12:
            return
        cand = cands[i]
        if _fits(cand, chosen, excludes, max_pieces):
            chosen.append(cand)
            search(i + 1, chosen, total + cand[3])
            chosen.pop()
        search(i + 1, chosen, total)

    search(0, [], 0.0)
    return sorted(best[1])


DECODERS = {"greedy": greedy, "exact": exact}


def decode(
    candidates: Iterable[Candidate], method: str = "exact", excludes: Optional[Excludes] = None, max_pieces: int = 1
) -> List[Candidate]:
    if method not in DECODERS:
        raise ValueError(f"unknown decoding {method!r}: choose from {sorted(DECODERS)}")
    if max_pieces < 1:
        raise ValueError(f"max_pieces must be >= 1, got {max_pieces}")
    return DECODERS[method](list(candidates), excludes, max_pieces)
