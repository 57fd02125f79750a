"""frame_elements' candidate suggester: its shape, its bounds and its recall on a toy sentence."""

import pytest
import spacy
from spacy.tokens import Doc, Span
from spacy.util import registry
from syntax_toy import tiny_syntax_nlp

from spacy_frames.suggesters import doc_rows


def parsed_doc():
    # "The bank gave a loan to the small farmer ." with a hand-made parse; target "gave"
    nlp = spacy.blank("en")
    words = "The bank gave a loan to the small farmer .".split()
    heads = [1, 2, 2, 4, 2, 2, 8, 8, 5, 2]
    deps = ["det", "nsubj", "ROOT", "det", "dobj", "prep", "det", "amod", "pobj", "punct"]
    pos = ["DET", "NOUN", "VERB", "DET", "NOUN", "ADP", "DET", "ADJ", "NOUN", "PUNCT"]
    doc = Doc(nlp.vocab, words=words, heads=heads, deps=deps, pos=pos)
    doc.spans["frames"] = [Span(doc, 2, 3, label="Giving")]
    return doc


def suggest(doc, **settings):
    """Every n-gram of the window and no target candidate unless `settings` say otherwise
    (the suggester's own defaults are the shipped recipe: gap 0, the target included)."""
    settings = {"ngram_gap": None, "include_target": False, **settings}
    suggester = registry.misc.get("spacy-frames.fe_candidate_suggester.v1")(**settings)
    (rows,) = doc_rows(suggester([doc]))
    return {(r[2], r[3]) for r in rows}, rows


def candidates_of(doc, target, **settings):
    """Sorted (start, end) candidates of `target` alone (the doc's frames put back after)."""
    saved = list(doc.spans.get("frames", []))
    doc.spans["frames"] = [target]
    try:
        _, rows = suggest(doc, **settings)
    finally:
        doc.spans["frames"] = saved
    return [(int(r[2]), int(r[3])) for r in rows]


def test_recall_of_gold_fes_on_a_toy_sentence():
    doc = parsed_doc()
    gold = {(0, 2), (3, 5), (5, 9), (6, 9)}  # Donor, Theme, Recipient (with and without "to")
    candidates, rows = suggest(doc, max_ngram=2)
    assert all(r[:2] == [2, 3] for r in rows)
    # "to the small farmer" (4 tokens) only comes from the parse: the subtree of "to"
    assert gold <= candidates
    without_parse, _ = suggest(doc, max_ngram=2, subtrees=False)
    assert len(gold & without_parse) / len(gold) == pytest.approx(0.5)


def test_candidates_stay_in_the_window_and_off_the_target():
    doc = parsed_doc()
    candidates, _ = suggest(doc, max_ngram=3, window=2)
    assert candidates and all(start >= 0 and end <= 5 for start, end in candidates)
    assert not any(start < 3 and end > 2 for start, end in candidates)


def test_no_frames_no_rows_and_bad_settings():
    doc = parsed_doc()
    del doc.spans["frames"]
    candidates, _ = suggest(doc)
    assert candidates == set()
    with pytest.raises(ValueError, match="max_ngram"):
        registry.misc.get("spacy-frames.fe_candidate_suggester.v1")(max_ngram=0)


def test_ngram_gap_keeps_the_ngrams_next_to_the_target_and_every_subtree():
    doc = parsed_doc()
    everything, _ = suggest(doc, max_ngram=2)
    near, _ = suggest(doc, max_ngram=2, ngram_gap=0)
    # n-grams touching "gave" (2) on either side, and the parse's subtrees, wherever they are
    assert {(1, 2), (0, 2), (3, 4), (3, 5)} <= near
    assert {(5, 9), (6, 9)} <= near
    assert (7, 9) in everything and (7, 9) not in near  # "small farmer": a distant bigram, no subtree
    assert near < everything
    one, _ = suggest(doc, max_ngram=2, ngram_gap=1)  # one token between: "loan to" in, "to the" out
    assert near < one and (4, 6) in one and (4, 6) not in near and (5, 7) not in one
    with pytest.raises(ValueError, match="ngram_gap"):
        registry.misc.get("spacy-frames.fe_candidate_suggester.v1")(ngram_gap=-1)


def test_candidates_stay_in_the_target_sentence_and_match_the_token_view():
    # the per-doc arrays (Doc.to_array, no Token objects) against the tokens' own view
    nlp = tiny_syntax_nlp()
    doc = nlp("The bank gave a loan to the farmer. He bought seeds with it in May, to everyone's surprise.")
    target = doc[10:11]  # "bought", second sentence
    sent_start, sent_end = doc[target.start].sent.start, doc[target.start].sent.end
    cands = candidates_of(doc, target, max_ngram=3, window=30)
    assert cands and all(sent_start <= a < b <= sent_end for a, b in cands) and sent_start > 0
    expected = set()
    for a in range(sent_start, sent_end):
        expected |= {(a, a + n) for n in range(1, 4) if a + n <= sent_end}
    for token in doc[sent_start:sent_end]:
        a, b = token.left_edge.i, token.right_edge.i + 1
        expected |= {(a, b)} | ({(a + 1, b)} if doc[a].dep_ == "prep" or doc[a].pos_ == "ADP" else set())
        expected |= {(a, b - 1)} if b - a > 1 and doc[b - 1].is_punct else set()
    expected = {(a, b) for a, b in expected if a < b and (b <= target.start or a >= target.end)}
    assert set(cands) == expected and cands == sorted(cands)


def test_include_target_adds_the_target_and_nothing_else_over_it():
    """FrameNet's incorporated FEs ("[president]" is the Leader): the target span is a
    candidate, no other candidate overlaps it."""
    nlp = spacy.blank("en")
    doc = nlp("The new president resigned today .")
    doc.spans["frames"] = [Span(doc, 2, 3, label="Leadership")]
    without, _ = suggest(doc, max_ngram=3)
    with_target, _ = suggest(doc, max_ngram=3, include_target=True)
    assert (2, 3) not in without and with_target - without == {(2, 3)}
    assert all(end <= 2 or start >= 3 or (start, end) == (2, 3) for start, end in with_target)
    gold = {(0, 2), (2, 3)}  # the Leader's modifiers (a toy gold) and the Leader on the target
    assert len(gold & with_target) / len(gold) == 1.0


def test_each_target_gets_its_own_candidates_in_steps_of_any_size(monkeypatch):
    import spacy_frames.suggesters.frame_elements as module

    doc = parsed_doc()
    doc.spans["frames"] = [Span(doc, i, j, label="X") for i, j in [(2, 3), (8, 9), (1, 2), (4, 5), (2, 3), (0, 10)]]
    settings = {"max_ngram": 3, "window": 4, "ngram_gap": 1, "include_target": True}
    suggester = registry.misc.get("spacy-frames.fe_candidate_suggester.v1")(**settings)
    (rows,) = doc_rows(suggester([doc]))
    monkeypatch.setattr(module, "TARGETS_PER_STEP", 2)
    (in_steps,) = doc_rows(suggester([doc]))
    assert [tuple(r) for r in rows] == [tuple(r) for r in in_steps]
    # target after target, in the group's order (the repeated target twice), each one's
    # candidates sorted, distinct and what the target alone gets
    expected = []
    for target in doc.spans["frames"]:
        alone = candidates_of(doc, target, **settings)
        assert alone == sorted(set(alone))
        expected += [(target.start, target.end, a, b) for a, b in alone]
    assert [tuple(int(x) for x in r) for r in rows] == expected
    whole = doc.spans["frames"][-1]  # the whole doc as a target: only itself
    assert candidates_of(doc, whole, **settings) == [(0, 10)]
