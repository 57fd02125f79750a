"""The PTB tag map and auxiliary patterns for spaCy's attribute_ruler (pipeline/tagging.py),
with spaCy's rule lemmatizer, and the FrameNet documents reader that a senter and tagger
learn from."""

import pytest
import spacy
from spacy.tokens import Doc, DocBin
from spacy.util import registry

from spacy_frames.extensions import install_extensions
from spacy_frames.inventory.lexicon import fn_pos


@pytest.fixture(scope="module")
def rules():
    """attribute_ruler (the PTB patterns, initialized as a config does) and the rule lemmatizer."""
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("attribute_ruler")
    nlp.add_pipe("lemmatizer", config={"mode": "rule"})
    nlp.initialize()
    ruler.initialize(lambda: [], nlp=nlp, patterns=registry.misc.get("spacy-frames.ptb_attribute_patterns.v1")())
    return nlp


def tagged(nlp, text: str, tags: str) -> Doc:
    doc = Doc(nlp.vocab, words=text.split(), tags=tags.split())
    for _, pipe in nlp.pipeline:
        doc = pipe(doc)
    return doc


def test_copula_and_auxiliaries_get_the_pos_and_lemmas_the_lexicon_needs(rules):
    doc = tagged(
        rules,
        "She has been working and is happy ; they did n't go but she has a car and could leave",
        "PRP VBZ VBN VBG CC VBZ JJ : PRP VBD RB VB CC PRP VBZ DT NN CC MD VB",
    )
    view = {(t.i, t.text): (t.pos_, t.lemma_) for t in doc}
    assert view[(1, "has")] == ("AUX", "have") and view[(2, "been")] == ("AUX", "be")
    assert view[(5, "is")] == ("AUX", "be") and view[(9, "did")] == ("AUX", "do")
    assert view[(10, "n't")] == ("PART", "not") and view[(18, "could")] == ("AUX", "can")
    assert view[(14, "has")] == ("VERB", "have")  # a main verb: "has a car"
    assert view[(3, "working")] == ("VERB", "work") and view[(16, "car")] == ("NOUN", "car")
    # the lexicon's lemma.POS: every verb, auxiliary or not, is FrameNet's "v"
    assert {fn_pos(doc[i]) for i in (1, 2, 3, 5, 14, 18)} == {"v"}
    assert str(doc[5].morph) == "Number=Sing|Person=3|Tense=Pres|VerbForm=Fin"


def test_every_tag_maps_to_a_universal_pos(rules):
    from spacy.parts_of_speech import IDS

    from spacy_frames.pipeline.tagging import TAG_MAP

    assert {"NN", "VBZ", "MD", "PRP$", "-LRB-", "HYPH"} <= set(TAG_MAP)
    assert all(attrs["POS"] in IDS for attrs in TAG_MAP.values())
    doc = tagged(rules, "( ran )", "-LRB- VBD -RRB-")
    assert [t.pos_ for t in doc] == ["PUNCT", "VERB", "PUNCT"] and str(doc[1].morph) == "Tense=Past|VerbForm=Fin"


def framenet_docbin(path, vocab, sentences):
    """A converted-corpus DocBin: (document name, words, tags) per sentence."""
    install_extensions()
    docs = []
    for i, (name, words, tags) in enumerate(sentences):
        doc = Doc(vocab, words=words.split(), tags=tags.split() if tags else None)
        doc.user_data["framenet"] = {"doc": name, "sentence_id": i}
        docs.append(doc)
    DocBin(attrs=["ORTH", "TAG"], docs=docs, store_user_data=True).to_disk(path)
    return path


SENTENCES = [
    ("a.xml", "The dog barked .", "DT NN VBD ."),
    ("a.xml", "It ran away", "PRP VBD RB"),
    ("a.xml", "We laughed .", "PRP VBD ."),
    ("b.xml", "Rain fell .", "NN VBD ."),
]


def test_documents_reader_joins_each_documents_sentences(tmp_path):
    nlp = spacy.blank("en")
    path = framenet_docbin(tmp_path / "train.spacy", nlp.vocab, SENTENCES)
    reader = registry.readers.get("spacy-frames.FrameNetDocuments.v1")
    examples = list(reader(str(path), max_sentences=2)(nlp))
    assert [eg.reference.text for eg in examples] == ["The dog barked . It ran away", "We laughed .", "Rain fell ."]
    first = examples[0].reference
    assert [s.text for s in first.sents] == ["The dog barked .", "It ran away"]
    assert [t.tag_ for t in first] == "DT NN VBD . PRP VBD RB".split()
    assert examples[0].predicted.text == first.text and not examples[0].predicted.has_annotation("TAG")
    whole = list(reader(str(path), max_sentences=10)(nlp))
    assert len(whole) == 2 and len(list(whole[0].reference.sents)) == 3
    with pytest.raises(ValueError, match="max_sentences"):
        reader(str(path), max_sentences=0)
    with pytest.raises(FileNotFoundError, match="convert"):
        list(reader(str(tmp_path / "missing.spacy"))(nlp))


def test_a_sentence_without_tags_joins_its_document_with_its_tags_missing(tmp_path):
    """FrameNet leaves some full-text sentences without a PENN layer: they still give the
    senter their boundaries, and the tagger's loss skips their tokens."""
    nlp = spacy.blank("en")
    sentences = [SENTENCES[0], ("a.xml", "No tags here", None), SENTENCES[2]]
    path = framenet_docbin(tmp_path / "train.spacy", nlp.vocab, sentences)
    reader = registry.readers.get("spacy-frames.FrameNetDocuments.v1")
    (example,) = list(reader(str(path), max_sentences=10)(nlp))
    assert [t.tag_ for t in example.reference] == "DT NN VBD .".split() + [""] * 3 + "PRP VBD .".split()
    assert len(list(example.reference.sents)) == 3
    tagger = nlp.add_pipe("tagger")
    nlp.initialize(lambda: [example])
    assert "" not in tagger.labels
    scores = tagger.model.predict([example.predicted])
    _, d_scores = tagger.get_loss([example], scores)
    assert not d_scores[0][4:7].any() and d_scores[0][:4].any()


def test_documents_reader_adds_tagged_exemplars_only(tmp_path):
    nlp = spacy.blank("en")
    train = framenet_docbin(tmp_path / "train.spacy", nlp.vocab, SENTENCES[:1])
    exemplars = framenet_docbin(
        tmp_path / "exemplars.spacy",
        nlp.vocab,
        [("lu1.xml", "Snow fell .", "NN VBD ."), ("lu2.xml", "Hail fell .", None)],
    )
    reader = registry.readers.get("spacy-frames.FrameNetDocuments.v1")
    examples = list(reader(str(train), exemplars=str(exemplars), max_exemplars=-1)(nlp))
    assert [eg.reference.text for eg in examples] == ["The dog barked .", "Snow fell ."]


def test_framenet_corpus_puts_framenet_tags_on_matching_tokens(tmp_path):
    """gold_tags: FrameNet's tags on the predicted tokens that match a FrameNet token ("ca",
    "n't"); "e-mail" is one FrameNet token and three predicted ones, which stay untagged."""
    nlp = spacy.blank("en")
    doc = Doc(nlp.vocab, words=["She", "ca", "n't", "e-mail", "."], spaces=[True, False, True, False, False])
    for token, tag in zip(doc, ["PRP", "MD", "RB", "VB", "."]):
        token.tag_ = tag
    DocBin(attrs=["ORTH", "TAG"], docs=[doc], store_user_data=True).to_disk(tmp_path / "train.spacy")
    reader = registry.readers.get("spacy-frames.FrameNetCorpus.v1")
    (eg,) = list(reader(str(tmp_path / "train.spacy"), gold_tags=True)(nlp))
    assert [(t.text, t.tag_) for t in eg.predicted] == [
        ("She", "PRP"), ("ca", "MD"), ("n't", "RB"), ("e", ""), ("-", ""), ("mail", ""), (".", ".")
    ]  # fmt: skip
    (plain,) = list(reader(str(tmp_path / "train.spacy"))(nlp))
    assert not plain.predicted.has_annotation("TAG")
