import pickle

import numpy
import pytest
import spacy
from frames_toy import toy_docs, toy_inventory
from spacy.tokens import Doc

from spacy_frames.corpora.readers import copy_targets, create_framenet_reader, sample_docbin
from spacy_frames.extensions import is_partial
from spacy_frames.inventory.index import FrameIndex
from spacy_frames.inventory.lexicon import Lexicon, lu_words, target_lexical_unit


def test_lu_words():
    assert lu_words("take_off.v") == (("take", "off"), "v")
    assert lu_words("launch_(into).v") == (("launch",), "v")
    assert lu_words("a lot.n") == (("a", "lot"), "n")


def test_lexicon_candidates_single_multi_and_oov():
    inventory = toy_inventory()
    inventory.add_frame("Quantity", "An amount.", lexical_units=["a lot.n"])
    lexicon = Lexicon(inventory)
    nlp = spacy.blank("en")
    words = "She gave a lot of gifts and a dog ran".split()
    doc = Doc(
        nlp.vocab,
        words=words,
        pos=["PRON", "VERB", "DET", "NOUN", "ADP", "NOUN", "CCONJ", "DET", "NOUN", "VERB"],
        lemmas=["she", "give", "a", "lot", "of", "gift", "and", "a", "dog", "run"],
    )
    found = [(span.text, lu) for span, lu in lexicon.candidates(doc, oov_pos=["NOUN"])]
    assert found == [("gave", "give.v"), ("a lot", "a lot.n"), ("gifts", "gift.n"), ("dog", None), ("ran", "run.v")]
    # POS matters for single words: "hand" the verb vs the noun
    doc = Doc(nlp.vocab, words=["hand", "hand"], pos=["VERB", "NOUN"], lemmas=["hand", "hand"])
    assert [lu for _, lu in lexicon.candidates(doc)] == ["hand.v", "hand.n"]
    assert target_lexical_unit(doc[0:1]) == "hand.v"


def test_frame_index_search_add_serialize_pickle(tmp_path):
    rng = numpy.random.default_rng(0)
    matrix = rng.normal(size=(4, 8)).astype("float32")
    matrix /= numpy.linalg.norm(matrix, axis=1, keepdims=True)
    index = FrameIndex()
    index.build(["A", "B", "C", "D"], matrix)
    scores, ids = index.search(matrix[[2]], 2)
    assert ids[0, 0] == 2 and scores[0, 0] == pytest.approx(1.0, abs=1e-5)
    assert index.is_ready(["A", "B", "C", "D"]) and not index.is_ready(["A", "B", "C"])
    index.add(["E"], matrix[[0]] * -1)
    assert index.search(-matrix[[0]], 1)[1][0, 0] == 4
    with pytest.raises(ValueError, match="already indexed"):
        index.add(["A"], matrix[[0]])
    with pytest.raises(ValueError, match="unknown frame 'Z'"):
        index.vectors_for(["Z"])
    index.to_disk(tmp_path / "index")
    for copy in (
        FrameIndex().from_disk(tmp_path / "index"),
        FrameIndex().from_bytes(index.to_bytes()),
        pickle.loads(pickle.dumps(index)),
    ):
        assert copy.names == index.names
        numpy.testing.assert_array_equal(copy.search(matrix, 3)[1], index.search(matrix, 3)[1])
    index.mark_stale()
    assert not index.is_ready(index.names)


def test_reader_copies_gold_targets_and_samples(tmp_path, toy_corpus):
    nlp = spacy.blank("en")
    examples = list(create_framenet_reader(str(toy_corpus / "train.spacy"))(nlp))
    assert len(examples) == 6
    eg = examples[0]
    assert [(s.text, s.label_, s._.lexical_unit) for s in eg.predicted.spans["targets"]] == [
        ("gave", "Giving", "give.v"),
        ("gift", "Giving", "gift.n"),
    ]
    raw = list(create_framenet_reader(str(toy_corpus / "train.spacy"), gold_targets=False)(nlp))
    assert "targets" not in raw[0].predicted.spans
    sample = sample_docbin(toy_corpus / "train.spacy", 3, seed=0)
    assert len(sample) == 3
    assert len(list(sample.get_docs(nlp.vocab))) == 3
    mixed = list(
        create_framenet_reader(
            str(toy_corpus / "train.spacy"), exemplars=str(toy_corpus / "dev.spacy"), max_exemplars=2
        )(nlp)
    )
    assert len(mixed) == 8
    # exemplar sentences annotate one LU: flagged so their other words are not used as negatives
    assert [is_partial(eg.reference) for eg in mixed] == [False] * 6 + [True] * 2
    with pytest.raises(FileNotFoundError, match="project run convert"):
        create_framenet_reader(str(tmp_path / "missing.spacy"))


def test_copy_targets_maps_discontinuous_pieces():
    nlp = spacy.blank("en")
    reference = toy_docs(nlp.vocab)[0]
    span = reference.spans["targets"][0]
    span._.target_parts = [[1, 2], [3, 4]]
    predicted = nlp.make_doc(reference.text)
    copy_targets(reference, predicted)
    assert predicted.spans["targets"][0]._.target_parts == [[1, 2], [3, 4]]
