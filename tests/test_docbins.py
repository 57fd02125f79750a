"""docs_from and add_docs read and write a DocBin's docs as get_docs and add do, with
srsly's msgpack lookup done once and restored after."""

import pytest
import spacy
import srsly.msgpack
from spacy.tokens import DocBin, Span, SpanGroup

from spacy_frames.corpora.docbins import add_docs, docs_from, msgpack_looked_up_once


@pytest.fixture
def docs():
    nlp = spacy.blank("en")
    docs = [nlp("The president resigned ."), nlp("She bought it .")]
    for doc in docs:
        doc.spans["frames"] = SpanGroup(doc, name="frames", spans=[Span(doc, 1, 2, label="Frame")])
        doc.user_data["id"] = doc.text
    return docs


def count_lookups(monkeypatch, registry):
    """The lookups of `registry` (encoders and decoders are two instances of one class)."""
    lookups = []
    looked_up = type(registry).get_all
    monkeypatch.setattr(
        type(registry), "get_all", lambda self: (self is registry and lookups.append(1)) or looked_up(self)
    )
    return lookups


def test_docs_from_gives_the_docs_get_docs_gives_and_restores_the_lookup(docs, monkeypatch):
    docbin = DocBin(docs=docs)
    vocab = docs[0].vocab
    registry = srsly.msgpack.msgpack_decoders
    lookups = count_lookups(monkeypatch, registry)
    read = docs_from(docbin, vocab)
    assert len(lookups) == 1  # once for the DocBin, not once per doc and span group
    with msgpack_looked_up_once():
        with msgpack_looked_up_once():  # a nested block keeps the outer's lookup
            docs_from(docbin, vocab)
        docs_from(docbin, vocab)
    assert len(lookups) == 2
    assert "get_all" not in vars(registry)  # the registry's own lookup again
    list(docbin.get_docs(vocab))
    assert len(lookups) > 3  # get_docs alone: a lookup per unpack
    expected = list(docbin.get_docs(vocab))
    assert [d.to_json() for d in read] == [d.to_json() for d in expected]
    assert [[(s.start, s.end, s.label_) for s in d.spans["frames"]] for d in read] == [[(1, 2, "Frame")]] * 2


def test_add_docs_writes_the_bytes_add_writes_with_one_lookup(docs, monkeypatch):
    registry = srsly.msgpack.msgpack_encoders
    lookups = count_lookups(monkeypatch, registry)
    written = add_docs(DocBin(store_user_data=True), iter(docs))
    assert len(lookups) == 1  # not once per doc, user data and span group
    assert "get_all" not in vars(registry)
    expected = DocBin(store_user_data=True)
    for doc in docs:
        expected.add(doc)
    assert len(lookups) > 3
    assert written.to_bytes() == expected.to_bytes()
    read = docs_from(DocBin().from_bytes(written.to_bytes()), docs[0].vocab)
    assert [d.user_data["id"] for d in read] == [d.text for d in docs]


def test_the_lookup_is_restored_when_the_block_fails(monkeypatch):
    with pytest.raises(RuntimeError):
        with msgpack_looked_up_once():
            raise RuntimeError("fails inside")
    assert "get_all" not in vars(srsly.msgpack.msgpack_encoders)
    assert "get_all" not in vars(srsly.msgpack.msgpack_decoders)
