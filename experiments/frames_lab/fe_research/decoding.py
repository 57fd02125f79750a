"""The decodings the research frame_elements and the settings grid choose between by name
(the product ships `exact` with one piece per FE)."""

from typing import Iterable, List, Optional

from spacy_frames.pipeline.span_decoding import Candidate, Excludes, exact, greedy

DECODERS = {"greedy": greedy, "exact": exact}


def decode(
    candidates: Iterable[Candidate], method: str = "exact", excludes: Optional[Excludes] = None, max_pieces: int = 1
) -> List[Candidate]:
    if method not in DECODERS:
        raise ValueError(f"unknown decoding {method!r}: choose from {sorted(DECODERS)}")
    if max_pieces < 1:
        raise ValueError(f"max_pieces must be >= 1, got {max_pieces}")
    return DECODERS[method](list(candidates), excludes, max_pieces)
