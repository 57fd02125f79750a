"""Reading a DocBin's docs without srsly's per-doc registry lookups.

srsly looks its msgpack decoders up in catalogue's registry on every unpack, and that
lookup walks the whole registry and every installed package's entry points. A doc with
span groups is several unpacks, so reading a DocBin of thousands of such docs (the
FrameNet exemplars, read by every frame training) spends most of its time on lookups
when many packages are installed. `docs_from` does the lookup once for the whole DocBin.
"""

from contextlib import contextmanager
from typing import Iterator, List

import srsly.msgpack
from spacy.tokens import Doc, DocBin
from spacy.vocab import Vocab


@contextmanager
def msgpack_decoders_looked_up_once() -> Iterator[None]:
    """Within the block, srsly's msgpack decoders are the ones registered when it began
    (the lookup is not repeated; nested blocks share the outer one's)."""
    registry = srsly.msgpack.msgpack_decoders
    if "get_all" in vars(registry):  # an outer block holds the lookup
        yield
        return
    decoders = registry.get_all()
    registry.get_all = lambda: decoders
    try:
        yield
    finally:
        del registry.get_all


def docs_from(docbin: DocBin, vocab: Vocab) -> List[Doc]:
    """The DocBin's docs (`DocBin.get_docs`), read with one decoder lookup."""
    with msgpack_decoders_looked_up_once():
        return list(docbin.get_docs(vocab))
