"""FrameIndex: frame names + L2-normalised frame vectors, searched with FAISS.

The matrix is the state (serialized as .npy + names); the FAISS IndexFlatIP is
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
        self.matrix: Optional[numpy.ndarray] = None
        self._row = {}
        self._faiss = None
        self._stale = True

    def clear(self) -> None:
        self.__init__()

    def build(self, names: Sequence[str], matrix: numpy.ndarray) -> None:
        matrix = numpy.ascontiguousarray(matrix, dtype="float32")
        if len(names) != matrix.shape[0]:
            raise ValueError(f"FrameIndex: {len(names)} names for {matrix.shape[0]} vectors")
        self.names = list(names)
        self.matrix = matrix
        self._row = {name: i for i, name in enumerate(self.names)}
        self._faiss = None
        self._stale = False

    def add(self, names: Sequence[str], vectors: numpy.ndarray) -> None:
        clash = [n for n in names if n in self._row]
        if clash:
            raise ValueError(f"FrameIndex: frames already indexed: {clash}")
        matrix = vectors if self.matrix is None else numpy.concatenate([self.matrix, vectors])
        self.build(self.names + list(names), matrix)

    def mark_stale(self) -> None:
        self._stale = True

    def is_ready(self, names: Sequence[str]) -> bool:
        return not self._stale and self.matrix is not None and len(names) == len(self.names) and list(names) == self.names

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

    def vectors_for(self, names: Sequence[str]) -> numpy.ndarray:
        try:
            return self.matrix[[self._row[n] for n in names]]
        except KeyError as err:
            raise ValueError(f"FrameIndex: unknown frame {err.args[0]!r}") from None

    # serialization: names + matrix; the FAISS index is derived
    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        numpy.save(buffer, self.matrix if self.matrix is not None else numpy.zeros((0, 0), dtype="float32"))
        return srsly.msgpack_dumps({"names": self.names, "matrix": buffer.getvalue()})

    def from_bytes(self, data: bytes) -> "FrameIndex":
        msg = srsly.msgpack_loads(data)
        matrix = numpy.load(io.BytesIO(msg["matrix"]))
        if msg["names"]:
            self.build(msg["names"], matrix)
        else:
            self.clear()
        return self

    def to_disk(self, path) -> None:
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        srsly.write_json(path / "names.json", self.names)
        numpy.save(path / "vectors.npy", self.matrix if self.matrix is not None else numpy.zeros((0, 0), dtype="float32"))

    def from_disk(self, path) -> "FrameIndex":
        path = Path(path)
        names = srsly.read_json(path / "names.json")
        if names:
            self.build(names, numpy.load(path / "vectors.npy"))
        else:
            self.clear()
        return self

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_faiss"] = None
        return state
