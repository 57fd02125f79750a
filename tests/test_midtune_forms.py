"""Semantic forms for mid-tuning (issue 26): forms from hand-built docs, linearisation,
and the deletion negatives (differ from the input, leave it unchanged, None when inapplicable)."""

import copy
from collections import Counter
from random import Random

import pytest
import spacy
from spacy.tokens import Doc, Span

from spacy_frames.extensions import FE_KEY, install_extensions, make_fe_span
from spacy_frames.midtune import (
    Predicate,
    SemanticForm,
    dependency_form,
    drop_filler,
    drop_role,
    foreign_form,
    frame_only_form,
    framenet_form,
    linearize,
    name_counts,
    negatives,
    swap_fillers,
    swap_frame,
)

SEEDS = range(12)
WORDS = ["The", "committee", "decided", "to", "postpone", "the", "vote", "."]


@pytest.fixture(scope="module")
def nlp():
    install_extensions()
    return spacy.blank("en")


def frames_doc(nlp):
    """The committee decided to postpone the vote . with two frames, added out of order."""
    doc = Doc(nlp.vocab, words=WORDS)
    decided = Span(doc, 2, 3, label="Deciding")
    postpone = Span(doc, 4, 5, label="Change_event_time")
    decided._.lexical_unit = "decide.v"
    postpone._.lexical_unit = "postpone.v"
    doc.spans["frames"] = [postpone, decided]
    doc.spans[FE_KEY] = [
        make_fe_span(postpone, 5, 7, "Event"),
        make_fe_span(decided, 3, 7, "Decision"),
        make_fe_span(postpone, 0, 2, "Agent"),
        make_fe_span(decided, 0, 2, "Cognizer"),
    ]
    return doc


def dep_doc(nlp, words, heads, deps, pos, lemmas):
    return Doc(nlp.vocab, words=words, heads=heads, deps=deps, pos=pos, lemmas=lemmas)


def decided_doc(nlp):
    return dep_doc(
        nlp,
        WORDS,
        heads=[1, 2, 2, 4, 2, 6, 4, 2],
        deps=["det", "nsubj", "ROOT", "aux", "xcomp", "det", "dobj", "punct"],
        pos=["DET", "NOUN", "VERB", "PART", "VERB", "DET", "NOUN", "PUNCT"],
        lemmas=["the", "committee", "decide", "to", "postpone", "the", "vote", "."],
    )


FN_TEXT = (
    "[FRAME] Deciding [LU] decide.v [Cognizer] The committee [Decision] to postpone the vote "
    "[FRAME] Change_event_time [LU] postpone.v [Agent] The committee [Event] the vote"
)


def test_framenet_form_in_document_order(nlp):
    form = framenet_form(frames_doc(nlp))
    assert form == SemanticForm(
        [
            Predicate(
                "FRAME", "Deciding", "decide.v", [("Cognizer", "The committee"), ("Decision", "to postpone the vote")]
            ),
            Predicate("FRAME", "Change_event_time", "postpone.v", [("Agent", "The committee"), ("Event", "the vote")]),
        ]
    )
    assert linearize(form) == FN_TEXT
    assert linearize(form, kind_marker=False) == FN_TEXT.replace("[FRAME] ", "")
    assert linearize(form) == linearize(framenet_form(frames_doc(nlp)))  # deterministic


def test_empty_forms(nlp):
    doc = nlp("Nothing here .")
    assert framenet_form(doc).is_empty() and linearize(framenet_form(doc)) == ""
    assert linearize(SemanticForm()) == "" and negatives(SemanticForm(), [SemanticForm()], 0, Random(0), 3) == []
    # no VERB, no AUX root: no predicate
    assert dependency_form(
        dep_doc(nlp, ["Hi", "!"], [0, 0], ["ROOT", "punct"], ["INTJ", "PUNCT"], ["hi", "!"])
    ).is_empty()


def test_dependency_form_control(nlp):
    form = dependency_form(decided_doc(nlp))
    assert [p.kind for p in form.predicates] == ["PRED", "PRED"]
    assert (
        linearize(form)
        == "[PRED] decide [ARG0] The committee [ARG2] to postpone the vote [PRED] postpone [ARG1] the vote"
    )


def test_dependency_form_passive_agent_prep_neg(nlp):
    words = "The vote was not postponed by the committee after the protest .".split()
    doc = dep_doc(
        nlp,
        words,
        heads=[1, 4, 4, 4, 4, 4, 7, 5, 4, 10, 8, 4],
        deps=["det", "nsubjpass", "auxpass", "neg", "ROOT", "agent", "det", "pobj", "prep", "det", "pobj", "punct"],
        pos=["DET", "NOUN", "AUX", "PART", "VERB", "ADP", "DET", "NOUN", "ADP", "DET", "NOUN", "PUNCT"],
        lemmas=["the", "vote", "be", "not", "postpone", "by", "the", "committee", "after", "the", "protest", "."],
    )
    # the auxiliary is no predicate (not the root); the agent's filler loses its "by"
    assert linearize(dependency_form(doc)) == (
        "[PRED] postpone [ARG1] The vote [ARGM-NEG] not [ARG0] the committee [ARGM-after] after the protest"
    )


def test_dependency_form_aux_root_and_dative(nlp):
    doc = dep_doc(
        nlp,
        ["She", "is", "happy", "here", "."],
        heads=[1, 1, 1, 1, 1],
        deps=["nsubj", "ROOT", "acomp", "advmod", "punct"],
        pos=["PRON", "AUX", "ADJ", "ADV", "PUNCT"],
        lemmas=["she", "be", "happy", "here", "."],
    )
    assert linearize(dependency_form(doc)) == "[PRED] be [ARG0] She [ARG2] happy [ARGM-ADV] here"
    doc = dep_doc(
        nlp,
        ["She", "gave", "him", "a", "book", "."],
        heads=[1, 1, 1, 4, 1, 1],
        deps=["nsubj", "ROOT", "dative", "det", "dobj", "punct"],
        pos=["PRON", "VERB", "PRON", "DET", "NOUN", "PUNCT"],
        lemmas=["she", "give", "he", "a", "book", "."],
    )
    assert linearize(dependency_form(doc), kind_marker=False) == "give [ARG0] She [ARG2] him [ARG1] a book"


# --- deletions ----------------------------------------------------------------------


def sample_form():
    return SemanticForm(
        [
            Predicate(
                "FRAME", "Deciding", "decide.v", [("Cognizer", "the committee"), ("Decision", "to postpone the vote")]
            ),
            Predicate("FRAME", "Change_event_time", "postpone.v", [("Event", "the vote")]),
        ]
    )


def all_args(form):
    return [(i, role, filler) for i, p in enumerate(form.predicates) for role, filler in p.args]


def check_unchanged(fn, form, *args):
    before = copy.deepcopy(form)
    result = fn(form, *args)
    assert form == before
    return result


def test_drop_role():
    form = sample_form()
    for seed in SEEDS:
        new = check_unchanged(drop_role, form, Random(seed))
        assert new != form and linearize(new) != linearize(form)
        assert len(all_args(new)) == len(all_args(form)) - 1
        assert not Counter(all_args(new)) - Counter(all_args(form))
    bare = SemanticForm([Predicate("PRED", "rain")])
    assert drop_role(bare, Random(0)) is None


def test_drop_filler():
    form = sample_form()
    for seed in SEEDS:
        new = check_unchanged(drop_filler, form, Random(seed))
        assert new != form and linearize(new) != linearize(form)
        changed = [(a, b) for a, b in zip(all_args(form), all_args(new)) if a != b]
        assert len(changed) == 1 and changed[0][1][2] == "" and changed[0][0][:2] == changed[0][1][:2]
    emptied = SemanticForm([Predicate("PRED", "go", None, [("ARG0", "")])])
    assert drop_filler(emptied, Random(0)) is None
    assert drop_filler(SemanticForm([Predicate("PRED", "rain")]), Random(0)) is None
    assert linearize(emptied) == "[PRED] go [ARG0]"


def test_swap_fillers_within_predicate_first():
    form = sample_form()
    for seed in SEEDS:
        new = check_unchanged(swap_fillers, form, Random(seed))
        assert new != form
        # only Deciding has two arguments: the swap stays inside it
        assert new.predicates[0].args == [("Cognizer", "to postpone the vote"), ("Decision", "the committee")]
        assert new.predicates[1] == form.predicates[1]


def test_swap_fillers_across_predicates():
    form = SemanticForm(
        [Predicate("PRED", "decide", None, [("ARG0", "we")]), Predicate("PRED", "go", None, [("ARG1", "home")])]
    )
    new = check_unchanged(swap_fillers, form, Random(0))
    assert linearize(new) == "[PRED] decide [ARG0] home [PRED] go [ARG1] we"


def test_swap_fillers_not_applicable():
    rng = Random(0)
    assert swap_fillers(SemanticForm([Predicate("PRED", "go", None, [("ARG0", "we")])]), rng) is None
    same_fillers = SemanticForm([Predicate("PRED", "see", None, [("ARG0", "it"), ("ARG1", "it")])])
    assert swap_fillers(same_fillers, rng) is None
    # two slots of the same role: a swap would only reorder them
    same_role = SemanticForm([Predicate("PRED", "see", None, [("ARGM-in", "in May"), ("ARGM-in", "in Rome")])])
    assert swap_fillers(same_role, rng) is None
    assert swap_fillers(SemanticForm(), rng) is None


def test_foreign_form():
    own, other = sample_form(), SemanticForm([Predicate("PRED", "go", None, [("ARG0", "we")])])
    forms = [own, SemanticForm(), other]
    before = copy.deepcopy(forms)
    for seed in SEEDS:
        new = foreign_form(forms, 0, Random(seed))
        assert new == other and new is not other
    new.predicates[0].args.append(("ARG1", "x"))  # a copy: the source form is untouched
    assert forms == before
    assert foreign_form([own, SemanticForm()], 0, Random(0)) is None
    assert foreign_form([own, copy.deepcopy(own)], 0, Random(0)) is None  # same form, another sentence
    assert foreign_form([own], 0, Random(0)) is None


def test_negatives():
    form = sample_form()
    forms = [form, SemanticForm([Predicate("PRED", "go", None, [("ARG0", "we")])])]
    before = copy.deepcopy(forms)
    out = negatives(form, forms, 0, Random(3), 6)
    assert forms == before
    assert 0 < len(out) <= 6
    texts = [text for _, text in out]
    assert len(set(texts)) == len(texts) and linearize(form) not in texts and all(texts)
    assert {kind for kind, _ in out} <= {"drop_role", "drop_filler", "swap_fillers", "foreign"}
    assert ("foreign", "[PRED] go [ARG0] we") in out or all(kind != "foreign" for kind, _ in out)
    assert out == negatives(form, forms, 0, Random(3), 6)  # deterministic per seed
    many = negatives(form, forms, 0, Random(0), 50)
    assert {kind for kind, _ in many} == {"drop_role", "drop_filler", "swap_fillers", "foreign"}


def test_negatives_skip_inapplicable_kinds():
    single = SemanticForm([Predicate("PRED", "go", None, [("ARG0", "we")])])
    out = negatives(single, [single], 0, Random(0), 5)
    # no swap (one argument), no foreign form (one sentence): one drop_role, one drop_filler text
    assert sorted(out) == [("drop_filler", "[PRED] go [ARG0]"), ("drop_role", "[PRED] go")]


def test_frame_only_form_keeps_frames_and_lexical_units(nlp):
    doc = frames_doc(nlp)
    form = frame_only_form(doc)
    assert linearize(form) == "[FRAME] Deciding [LU] decide.v [FRAME] Change_event_time [LU] postpone.v"
    assert framenet_form(doc).predicates[0].args  # the full form is untouched
    assert frame_only_form(Doc(nlp.vocab, words=["Hi"])).is_empty()


def test_swap_frame_renames_one_predicate_from_another_form():
    own = SemanticForm([Predicate("FRAME", "Deciding", "decide.v"), Predicate("FRAME", "Giving", "give.v")])
    other = SemanticForm([Predicate("FRAME", "Giving", "give.v"), Predicate("FRAME", "Arriving", "come.v")])
    forms = [own, other]
    before = copy.deepcopy(forms)
    seen = set()
    for seed in SEEDS:
        new = swap_frame(forms, 0, Random(seed))
        changed = [(a.name, b.name) for a, b in zip(own.predicates, new.predicates) if a.name != b.name]
        assert len(changed) == 1 and changed[0][1] in {"Giving", "Arriving"} and changed[0][0] != changed[0][1]
        assert [p.lexical_unit for p in new.predicates] == ["decide.v", "give.v"]  # the words stay
        seen.add(linearize(new))
    assert forms == before and len(seen) > 1
    # the corpus-wide name counts a caller computes once give the same draws
    counts = name_counts(forms)
    assert [swap_frame(forms, 0, Random(seed), counts) for seed in SEEDS] == [
        swap_frame(forms, 0, Random(seed)) for seed in SEEDS
    ]
    # a name only the renamed sentence has is no other sentence's frame
    solo = [
        SemanticForm([Predicate("FRAME", "Giving", "give.v"), Predicate("FRAME", "Deciding", "decide.v")]),
        SemanticForm([Predicate("FRAME", "Giving", "hand.v")]),
    ]
    renamed = {linearize(new) for new in (swap_frame(solo, 0, Random(seed)) for seed in SEEDS) if new is not None}
    assert renamed == {"[FRAME] Giving [LU] give.v [FRAME] Giving [LU] decide.v"}
    # nothing to rename to: the only other name is the predicate's own
    lone = [
        SemanticForm([Predicate("FRAME", "Giving", "give.v")]),
        SemanticForm([Predicate("FRAME", "Giving", "hand.v")]),
    ]
    assert swap_frame(lone, 0, Random(0)) is None
    assert swap_frame([SemanticForm(), other], 0, Random(0)) is None


def test_frame_negatives_of_frame_only_forms():
    own = SemanticForm([Predicate("FRAME", "Deciding", "decide.v")])
    other = SemanticForm([Predicate("FRAME", "Arriving", "come.v")])
    out = negatives(own, [own, other], 0, Random(0), 5, kinds=("swap_frame", "foreign"))
    assert sorted(out) == [
        ("foreign", "[FRAME] Arriving [LU] come.v"),
        ("swap_frame", "[FRAME] Arriving [LU] decide.v"),
    ]
    # the paper's deletions find no role to delete in a frame-only form
    assert [kind for kind, _ in negatives(own, [own, other], 0, Random(0), 5)] == ["foreign"]
    with pytest.raises(ValueError, match="unknown kinds"):
        negatives(own, [own, other], 0, Random(0), 1, kinds=("drop_frame",))


def test_frame_only_examples_draw_frame_negatives(nlp):
    from spacy_frames.midtune.train import form_examples

    docs = [frames_doc(nlp), frames_doc(nlp)]
    other = docs[1]  # another sentence's frame to rename to
    arriving = Span(other, 4, 5, label="Arriving")
    arriving._.lexical_unit = "postpone.v"
    other.spans["frames"] = [arriving]
    examples = form_examples(docs, "frames", seed=0, n_negatives=3)
    sentence, positive, negs = examples[0]
    assert positive == "[FRAME] Deciding [LU] decide.v [FRAME] Change_event_time [LU] postpone.v"
    assert negs and all("[Cognizer]" not in text for text in negs)  # no fillers in any negative
    assert any("Arriving [LU]" in text for text in negs)
