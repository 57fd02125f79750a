"""Choosing one target's labelled spans from candidates (start, end, label, gain), gain =
log p(label) - log p(none) - threshold. A valid choice has positive gains, no two overlapping
spans, each label at most `max_pieces` times in pieces that never touch, and no two labels that
FrameNet's Excludes forbids together. `greedy` takes, by gain, each candidate that fits;
`exact` (shipped) finds the valid choice of largest total gain by branch and bound from the
greedy one, over at most `max_exact` candidates (the lowest gains dropped first).
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
