"""The research frame_elements' candidate suggester (frames_lab.fe_research.suggester):
v2's phrases the target sits in and clauses around it, and v1's candidates target by
target in steps of any size."""

import spacy
from spacy.tokens import Doc, Span
from spacy.util import registry

from spacy_frames.suggesters import doc_rows

V1, V2 = "frames-lab.fe_candidate_suggester.v1", "frames-lab.fe_candidate_suggester.v2"


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


def strongest_critics_doc():
    # target "strongest" (amod of "critics")
    nlp = spacy.blank("en")
    words = "The strongest critics of the new health plan say it fails , sadly .".split()
    heads = [2, 2, 8, 2, 7, 7, 7, 3, 8, 10, 8, 8, 8, 8]
    deps = ["det", "amod", "nsubj", "prep", "det", "amod", "compound", "pobj", "ROOT", "nsubj", "ccomp"]
    deps += ["punct", "advmod", "punct"]
    pos = ["DET", "ADJ", "NOUN", "ADP", "DET", "ADJ", "NOUN", "NOUN", "VERB", "PRON", "VERB", "PUNCT", "ADV", "PUNCT"]
    doc = Doc(nlp.vocab, words=words, heads=heads, deps=deps, pos=pos)
    doc.spans["frames"] = [Span(doc, 1, 2, label="Judgment")]
    return doc


def candidates(suggester, doc):
    (rows,) = doc_rows(suggester([doc]))
    return {(r[2], r[3]) for r in rows}


def test_v2_offers_the_phrase_the_target_sits_in_and_the_clause_to_punctuation():
    doc = strongest_critics_doc()
    found = candidates(registry.misc.get(V2)(), doc)
    # the Entity of "strongest": "critics of the new health plan", the phrase of its head
    # cut at the target
    assert (2, 8) in found
    # v1 with the same n-grams and target candidate cannot reach it: 6 tokens, no subtree
    v1_found = candidates(registry.misc.get(V1)(ngram_gap=0, include_target=True), doc)
    assert (2, 8) not in v1_found and v1_found < found
    # the target itself, and the text to the next comma, the sentence end with and without "."
    assert {(1, 2), (2, 11), (2, 14), (2, 13)} <= found
    # the ancestors' phrases on the left of the target: "The"; nothing overlaps the target
    assert (0, 1) in found
    assert not any(a < 2 and b > 1 and (a, b) != (1, 2) for a, b in found)
    assert candidates(registry.misc.get(V2)(phrases=False, clauses=False), doc) == v1_found


def test_v2_phrases_need_a_parse_and_clauses_do_not():
    nlp = spacy.blank("en")
    doc = nlp("Critics of the plan , they say , were strongest in May .")
    doc.spans["frames"] = [Span(doc, 9, 10, label="Judgment")]
    # no parse: no subtrees or phrases, but the clause edges by punctuation still come
    assert {(7, 9), (0, 9), (10, 12), (10, 13)} <= candidates(registry.misc.get(V2)(), doc)


def test_each_target_gets_its_own_candidates_in_steps_of_any_size(monkeypatch):
    import frames_lab.fe_research.suggester as module

    doc = parsed_doc()
    doc.spans["frames"] = [Span(doc, i, j, label="X") for i, j in [(2, 3), (8, 9), (1, 2), (4, 5), (2, 3), (0, 10)]]
    settings = {"max_ngram": 3, "window": 4, "ngram_gap": 1, "include_target": True}
    suggester = registry.misc.get(V2)(**settings)
    (rows,) = doc_rows(suggester([doc]))
    monkeypatch.setattr(module, "TARGETS_PER_STEP", 2)
    (in_steps,) = doc_rows(suggester([doc]))
    assert [tuple(r) for r in rows] == [tuple(r) for r in in_steps]
    # target after target, in the group's order (the repeated target twice), each one's
    # candidates sorted, distinct and what the target alone gets
    expected = []
    for target in doc.spans["frames"]:
        alone = module.fe_candidates(doc, target, 3, 4, True, 1, include_target=True, extra=module.Extras(True, True))
        assert alone == sorted(set(alone))
        expected += [(target.start, target.end, a, b) for a, b in alone]
    assert [tuple(int(x) for x in r) for r in rows] == expected
    whole = doc.spans["frames"][-1]  # the whole doc as a target: only itself
    assert module.fe_candidates(doc, whole, 3, 4, True, 1, include_target=True) == [(0, 10)]
