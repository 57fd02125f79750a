"""FrameIndex: frame names + L2-normalised frame vectors, searched with FAISS.

Each frame has an encoder vector (`base`, from its definition) and optionally a
learned offset (`residual`, the "frame memory" trained in stage 2; zero for frames
added later); the searched vectors are the L2-normalised sums. Base and residual
are the state (serialized as .npy + names); the FAISS IndexFlatIP is
derived from it (exact inner product; ~1.2k frames make that cheap), rebuilt
lazily after loading or unpickling, never serialized (faiss pickling depends
on the version and never covers GPU indexes).
"""

import io
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

import numpy
import srsly


class FrameIndex:
    def __init__(self) -> None:
        self.names: List[str] = []
        self.base: Optional[numpy.ndarray] = None
        self.residual: Optional[numpy.ndarray] = None
        self.matrix: Optional[numpy.ndarray] = None
        self._row = {}
        self._faiss = None
        self._stale = True

    def clear(self) -> None:
        self.__init__()

    def build(self, names: Sequence[str], base: numpy.ndarray, residual: Optional[numpy.ndarray] = None) -> None:
        base = numpy.ascontiguousarray(base, dtype="float32")
        if len(names) != base.shape[0]:
            raise ValueError(f"FrameIndex: {len(names)} names for {base.shape[0]} vectors")
        self.names = list(names)
        self.base = base
        self._row = {name: i for i, name in enumerate(self.names)}
        self._stale = False
        self.set_residual(residual)

    def set_residual(self, residual: Optional[numpy.ndarray]) -> None:
        if residual is not None and residual.shape != self.base.shape:
            raise ValueError(f"FrameIndex: residual {residual.shape} for vectors {self.base.shape}")
        self.residual = None if residual is None else numpy.ascontiguousarray(residual, dtype="float32")
        matrix = self.base if self.residual is None else self.base + self.residual
        norms = numpy.linalg.norm(matrix, axis=1, keepdims=True) + 1e-8
        self.matrix = numpy.ascontiguousarray(matrix / norms, dtype="float32")
        self._faiss = None

    def add(self, names: Sequence[str], vectors: numpy.ndarray) -> None:
        clash = [n for n in names if n in self._row]
        if clash:
            raise ValueError(f"FrameIndex: frames already indexed: {clash}")
        base = vectors if self.base is None else numpy.concatenate([self.base, vectors])
        residual = None
        if self.residual is not None:
            residual = numpy.concatenate([self.residual, numpy.zeros_like(vectors, dtype="float32")])
        self.build(self.names + list(names), base, residual)

    def mark_stale(self) -> None:
        self._stale = True

    def is_ready(self, names: Sequence[str]) -> bool:
        return (
            not self._stale and self.matrix is not None and len(names) == len(self.names) and list(names) == self.names
        )

    def _search_index(self):
        if self._faiss is None:
            import faiss

            index = faiss.IndexFlatIP(self.matrix.shape[1])
            index.add(self.matrix)
            self._faiss = index
        return self._faiss

    def search(self, queries: numpy.ndarray, k: int) -> Tuple[numpy.ndarray, numpy.ndarray]:
        """Top-k frames per query row: (scores, row ids); -1 ids past the last frame."""
        queries = numpy.ascontiguousarray(queries, dtype="float32")
        return self._search_index().search(queries, min(k, len(self.names)))

    def score(self, query: numpy.ndarray, names: Sequence[str]) -> numpy.ndarray:
        return self.vectors_for(names) @ query

    def rows(self, names: Sequence[str]) -> List[int]:
        try:
            return [self._row[n] for n in names]
        except KeyError as err:
            raise ValueError(f"FrameIndex: unknown frame {err.args[0]!r}") from None

    def vectors_for(self, names: Sequence[str]) -> numpy.ndarray:
        return self.matrix[self.rows(names)]

    # serialization: names + base (+ residual); the normalised matrix and FAISS are derived
    def to_bytes(self) -> bytes:
        return srsly.msgpack_dumps({"names": self.names, "base": _npy(self.base), "residual": _npy(self.residual)})

    def from_bytes(self, data: bytes) -> "FrameIndex":
        msg = srsly.msgpack_loads(data)
        if msg["names"]:
            residual = numpy.load(io.BytesIO(msg["residual"])) if msg.get("residual") else None
            self.build(msg["names"], numpy.load(io.BytesIO(msg["base"])), residual)
        else:
            self.clear()
        return self

    def to_disk(self, path) -> None:
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        srsly.write_json(path / "names.json", self.names)
        numpy.save(path / "vectors.npy", self.base if self.base is not None else numpy.zeros((0, 0), dtype="float32"))
        if self.residual is not None:
            numpy.save(path / "residual.npy", self.residual)
        elif (path / "residual.npy").exists():
            (path / "residual.npy").unlink()

    def from_disk(self, path) -> "FrameIndex":
        path = Path(path)
        names = srsly.read_json(path / "names.json")
        if names:
            residual = numpy.load(path / "residual.npy") if (path / "residual.npy").exists() else None
            self.build(names, numpy.load(path / "vectors.npy"), residual)
        else:
            self.clear()
        return self

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_faiss"] = None
        return state


def _npy(array: Optional[numpy.ndarray]) -> bytes:
    if array is None:
        return b""
    buffer = io.BytesIO()
    numpy.save(buffer, array)
    return buffer.getvalue()
