"""docs_from reads a DocBin's docs as get_docs does, with srsly's decoder lookup done once
and restored after."""

import spacy
import srsly.msgpack
from spacy.tokens import DocBin, Span, SpanGroup

from spacy_frames.corpora.docbins import docs_from, msgpack_decoders_looked_up_once


def test_docs_from_gives_the_docs_get_docs_gives_and_restores_the_lookup(monkeypatch):
    nlp = spacy.blank("en")
    docs = [nlp("The president resigned ."), nlp("She bought it .")]
    for doc in docs:
        doc.spans["frames"] = SpanGroup(doc, name="frames", spans=[Span(doc, 1, 2, label="Frame")])
    docbin = DocBin(docs=docs)
    registry = srsly.msgpack.msgpack_decoders
    lookups = []
    looked_up = type(registry).get_all
    monkeypatch.setattr(type(registry), "get_all", lambda self: lookups.append(1) or looked_up(self))
    read = docs_from(docbin, nlp.vocab)
    assert len(lookups) == 1  # once for the DocBin, not once per doc and span group
    with msgpack_decoders_looked_up_once():
        with msgpack_decoders_looked_up_once():  # a nested block keeps the outer's lookup
            docs_from(docbin, nlp.vocab)
        docs_from(docbin, nlp.vocab)
    assert len(lookups) == 2
    assert "get_all" not in vars(registry)  # the registry's own lookup again
    list(docbin.get_docs(nlp.vocab))
    assert len(lookups) > 3  # get_docs alone: a lookup per unpack
    expected = list(docbin.get_docs(nlp.vocab))
    assert [d.to_json() for d in read] == [d.to_json() for d in expected]
    assert [[(s.start, s.end, s.label_) for s in d.spans["frames"]] for d in read] == [[(1, 2, "Frame")]] * 2
