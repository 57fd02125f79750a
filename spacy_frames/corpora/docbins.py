"""Reading and writing DocBins without srsly's per-doc registry lookups.

srsly looks its msgpack encoders and decoders up in catalogue's registry on every pack and
unpack, and that lookup walks the whole registry and every installed package's entry
points. A doc with user data and span groups is several packs (`DocBin.add`) or unpacks
(`DocBin.get_docs`), so writing or reading thousands of such docs (the FrameNet exemplars,
written by `convert` and read by every frame training) spends most of its time on lookups.
Within `msgpack_looked_up_once`, the lookup is done once.
"""

from contextlib import contextmanager
from typing import Iterable, Iterator, List

import srsly.msgpack
from spacy.tokens import Doc, DocBin
from spacy.vocab import Vocab


@contextmanager
def msgpack_looked_up_once() -> Iterator[None]:
    """Within the block, srsly's msgpack encoders and decoders are the ones registered when
    it began: the lookup is not repeated, and one registered inside the block is not seen
    (nested blocks share the outer one's)."""
    registries = [srsly.msgpack.msgpack_encoders, srsly.msgpack.msgpack_decoders]
    frozen = [registry for registry in registries if "get_all" not in vars(registry)]
    for registry in frozen:
        registry.get_all = (lambda found: lambda: found)(registry.get_all())
    try:
        yield
    finally:
        for registry in frozen:
            del registry.get_all


def docs_from(docbin: DocBin, vocab: Vocab) -> List[Doc]:
    """The DocBin's docs (`DocBin.get_docs`), read with one decoder lookup."""
    with msgpack_looked_up_once():
        return list(docbin.get_docs(vocab))


def add_docs(docbin: DocBin, docs: Iterable[Doc]) -> DocBin:
    """`docbin` with `docs` added (`DocBin.add`) as they come, with one encoder lookup."""
    with msgpack_looked_up_once():
        for doc in docs:
            docbin.add(doc)
    return docbin
