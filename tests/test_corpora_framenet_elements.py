"""Frame elements in the FrameNet readers, the converted Docs and the frame inventory
(spacy_frames.corpora.framenet_elements, framenet_sentences, framenet_convert,
inventory.frames), on the fixtures of tests/fixtures/framenet. The fixture FE layers are
the real FN1.5 ones of those sentences, plus two marked additions to NTI__LibyaCountry1's
"leader" (a null instantiation and a rank-2 layer) and one to frame/Surviving.xml (a
Requires relation)."""

from collections import Counter

import pytest
import srsly
from framenet_paths import FIXTURES, FN17, FN17_CONLL, FN17_FRAMES, FN17_LEXICON, REAL, SAMPLE_CONLL, SPLITS  # noqa: F401
from spacy.tokens import Doc, DocBin, Span
from spacy.vocab import Vocab

from spacy_frames.corpora.framenet import read_fn15_inventory, read_fn17_inventory
from spacy_frames.corpora.framenet_convert import convert_framenet15, convert_framenet17
from spacy_frames.corpora.framenet_elements import FrameElement, bio_spans, fe_summary
from spacy_frames.corpora.framenet_sentences import (
    FrameSentence,
    FrameTarget,
    iter_exemplar_sentences,
    iter_fulltext_sentences,
    iter_open_sesame_sentences,
    sentence_to_doc,
    whitespace_tokens,
)
from spacy_frames.extensions import FE_KEY, TARGETS_KEY, fe_target_id, install_extensions, make_fe_span
from spacy_frames.inventory.frames import FEDef, FrameInventory


@pytest.fixture(scope="module")
def sentences(fn15_zip):
    return list(iter_fulltext_sentences(fn15_zip))


def by_text(sentences, start: str) -> FrameSentence:
    return next(s for s in sentences if s.text.startswith(start))


def fe_view(span: Span):
    return [(fe.text, fe.label_) for fe in span._.frame_elements]


# -- reading --------------------------------------------------------------------------------


def test_fulltext_reader_fe_offsets(sentences):
    libya = by_text(sentences, "On 19 December")
    december, leader, wmd = libya.targets
    assert (december.elements, december.null_elements) == ([], [])
    # rank 1 only: the rank-2 "Role" label is not read; end offsets are exclusive
    assert leader.elements == [FrameElement("Governed", 22, 28), FrameElement("Leader", 36, 56)]
    assert [libya.text[fe.start : fe.end] for fe in leader.elements] == ["Libyan", "Col. Muammar Qadhafi"]
    assert leader.null_elements == [("Activity", "INI")]
    assert [(fe.name, libya.text[fe.start : fe.end]) for fe in wmd.elements] == [("Weapon", "WMD")]
    qn = by_text(sentences, "QN : Will")
    assert [(fe.name, qn.text[fe.start : fe.end]) for fe in qn.targets[0].elements] == [
        ("Wielder", "a terrorist"),
        ("Weapon", "chemical"),
        ("Weapon", "weapon"),
    ]


def test_exemplar_reader_fes(fn15_zip):
    first = list(iter_exemplar_sentences(fn15_zip))[0]
    (target,) = first.targets
    assert [(fe.name, first.text[fe.start : fe.end]) for fe in target.elements] == [("Vehicle", "car")]


def test_bio_spans():
    assert bio_spans(["O", "B-Donor", "I-Donor", "O", "B-Theme"]) == [("Donor", 1, 3), ("Theme", 4, 5)]
    # two B- of one label are two spans; a stray I- opens one; a label change inside a run too
    assert bio_spans(["B-Entity", "B-Entity", "O"]) == [("Entity", 0, 1), ("Entity", 1, 2)]
    assert bio_spans(["O", "I-Goal", "I-Goal", "I-Path"]) == [("Goal", 1, 3), ("Path", 3, 4)]
    assert bio_spans(["O", "_", "O"]) == []


def test_open_sesame_fe_bio():
    qn, congress = list(iter_open_sesame_sentences(FN17_CONLL))
    bio, chem = qn.targets
    assert [(fe.name, qn.text[fe.start : fe.end]) for fe in bio.elements] == [
        ("Wielder", "a terrorist"),
        ("Weapon", "biological weapon"),
    ]
    assert [(fe.name, qn.text[fe.start : fe.end]) for fe in chem.elements] == [
        ("Wielder", "a terrorist"),
        ("Weapon", "chemical"),
        ("Weapon", "weapon"),
    ]
    stats: Counter = Counter()
    doc = sentence_to_doc(Vocab(), congress, stats=stats)
    leader, at_least = doc.spans[TARGETS_KEY]
    # Leader = "congressman" and Denoted_quantity = "At least" are their targets: kept
    assert fe_view(leader) == [("congressman", "Leader")]
    assert fe_view(at_least) == [("At least", "Denoted_quantity"), ("one other congressman", "Individuals")]
    assert stats["fe_on_target"] == 2 and stats["fe_on_target_coincident"] == 2
    stats = Counter()
    doc = sentence_to_doc(Vocab(), congress, stats=stats, keep_target_fes=False)
    leader, at_least = doc.spans[TARGETS_KEY]
    assert fe_view(leader) == [] and fe_view(at_least) == [("one other congressman", "Individuals")]
    assert stats["fe_skipped_overlaps_target"] == 2 and stats["fe_overlaps_target_coincident"] == 2
    (sample,) = list(iter_open_sesame_sentences(SAMPLE_CONLL))  # 15 columns: FE BIO = column 15
    assert [(fe.name, sample.text[fe.start : fe.end]) for fe in sample.targets[0].elements][0] == (
        "Landmark_period",
        "this period",
    )


# -- Docs -----------------------------------------------------------------------------------


def test_sentence_to_doc_frame_elements(sentences, inventory):
    vocab = Vocab()
    stats: Counter = Counter()
    # the FEs on their own target skipped here (their default is tested below)
    docs = [sentence_to_doc(vocab, s, frames=inventory, stats=stats, keep_target_fes=False) for s in sentences]
    by_start = {doc.text[:10]: doc for doc in docs}
    qn = by_start["QN : Will "]
    chem, bio = qn.spans[TARGETS_KEY]
    # one FE span ("a terrorist" as Wielder) for each of the two targets, each linked to its own
    assert fe_view(chem) == [("a terrorist", "Wielder")] and fe_view(bio) == [("a terrorist", "Wielder")]
    assert [(fe.text, fe._.fe_target, fe._.fe_frame) for fe in qn.spans[FE_KEY]] == [
        ("a terrorist", [chem.start_char, chem.end_char], "Weapon"),
        ("a terrorist", [bio.start_char, bio.end_char], "Weapon"),
    ]
    assert chem._.frame_elements[0].id_ == fe_target_id(chem) == "32:61:Weapon"
    libya = by_start["On 19 Dece"]
    leader, wmd = libya.spans[TARGETS_KEY]
    assert fe_view(leader) == [("Libyan", "Governed"), ("Col. Muammar Qadhafi", "Leader")]
    assert fe_view(wmd) == []  # the Weapon FE is the target itself
    rode = by_start["1:00 a.m. "]
    loc, surviving = rode.spans[TARGETS_KEY]
    assert fe_view(loc) == [("Leo 's", "Figure"), ("Oakland", "Ground")]
    assert [label for _, label in fe_view(surviving)] == ["Survivor", "Dangerous_situation", "Place"]
    lot = by_start["A lot of c"]
    car, quantity = lot.spans[TARGETS_KEY]
    assert fe_view(car) == [] and fe_view(quantity) == [("of car alarms", "Individuals")]
    assert all(FE_KEY in doc.spans for doc in docs)
    assert fe_view(lot[0:2]) == []  # any span that is no target has none
    summary = fe_summary(stats)
    assert summary["annotated"] == 16 and summary["spans"] == 10
    assert summary["skipped"] == {
        "overlaps_target": 6,
        "unaligned": 0,
        "of_skipped_targets": 0,
        "duplicate_target": 0,
        "duplicate": 0,
    }
    assert summary["overlaps_target_coincident"] == 4  # "chemical" / "weapon" only touch theirs
    assert summary["null_instantiations"] == {"CNI": 0, "DNI": 0, "INI": 1, "INC": 0}
    assert summary["fe_types"] == 9 and summary["targets_with_fes"] == 6
    assert (summary["discontinuous"], summary["overlapping"], summary["expanded"]) == (0, 0, 0)


def test_targets_unchanged_by_frame_elements(sentences, inventory):
    """frame_identifier reads doc.spans["targets"]: the same with and without FEs."""
    vocab = Vocab()
    for sentence in sentences:
        doc = sentence_to_doc(vocab, sentence, frames=inventory)
        stripped = FrameSentence(
            sentence.doc,
            sentence.sentence_id,
            sentence.text,
            sentence.tokens,
            [FrameTarget(t.frame, t.lu, t.pieces, t.annotation_set_id) for t in sentence.targets],
            sentence.tagset,
        )
        plain = sentence_to_doc(vocab, stripped, frames=inventory)
        view = lambda d: [(s.start, s.end, s.label_, s._.lexical_unit, s._.target_parts) for s in d.spans[TARGETS_KEY]]  # noqa: E731
        assert view(doc) == view(plain)
        assert len(plain.spans[FE_KEY]) == 0


def test_fes_of_skipped_targets_counted(sentences):
    stats: Counter = Counter()
    doc = sentence_to_doc(Vocab(), by_text(sentences, "A lot of car alarms"), frames={"Vehicle"}, stats=stats)
    # only the Vehicle FE on "car" itself is left: the FEs of the skipped Quantity are counted
    assert [sp.label_ for sp in doc.spans[TARGETS_KEY]] == ["Vehicle"]
    assert [(fe.text, fe.label_) for fe in doc.spans[FE_KEY]] == [("car", "Vehicle")]
    assert stats["fe_skipped_of_skipped_targets"] == 2  # Quantity's two FEs
    assert stats["skipped_targets"] == 1  # the targets' own counts are as before


def handmade(targets):
    text = "Kim gave the old book to Lee and Sam yesterday ."
    return FrameSentence("handmade", 1, text, whitespace_tokens(text), targets)


def test_skip_rules_on_handmade_sentence():
    # token chars: Kim 0-3, gave 4-8, the 9-12, old 13-16, book 17-21, to 22-24, Lee 25-28,
    # and 29-32, Sam 33-36, yesterday 37-46, . 47-48
    giving = FrameTarget(
        "Giving",
        "give.v",
        [(4, 8)],
        1,
        [
            FrameElement("Donor", 0, 3),
            FrameElement("Theme", 10, 21),  # starts inside "the": expanded to "the old book"
            FrameElement("Recipient", 25, 28),
            FrameElement("Recipient", 33, 36),  # discontinuous: kept as its own span
            FrameElement("Time", 37, 46),
            FrameElement("Manner", 4, 8),  # the target: skipped
            FrameElement("Place", 60, 70),  # outside the text: skipped
            FrameElement("Time", 37, 46),  # the same FE again: skipped
            FrameElement("Depictive", 13, 21),  # overlaps Theme: kept, counted
        ],
        [("Purpose", "INI"), ("Means", "CNI")],
    )
    again = FrameTarget("Giving", "give.v", [(4, 8)], 2, [FrameElement("Donor", 25, 28)])  # 2nd set, same target
    stats: Counter = Counter()
    doc = sentence_to_doc(Vocab(), handmade([giving, again]), stats=stats, keep_target_fes=False)
    first, second = doc.spans[TARGETS_KEY]
    assert (
        fe_view(first)
        == fe_view(second)
        == [
            ("Kim", "Donor"),
            ("the old book", "Theme"),
            ("old book", "Depictive"),
            ("Lee", "Recipient"),
            ("Sam", "Recipient"),
            ("yesterday", "Time"),
        ]
    )
    summary = fe_summary(stats)
    assert summary["skipped"] == {
        "overlaps_target": 1,
        "unaligned": 1,
        "of_skipped_targets": 0,
        "duplicate_target": 1,
        "duplicate": 1,
    }
    assert (summary["expanded"], summary["discontinuous"], summary["overlapping"]) == (1, 1, 1)
    assert summary["annotated"] == 10 and summary["spans"] == 6
    assert summary["annotated"] == summary["spans"] + sum(
        summary["skipped"][k] for k in ("overlaps_target", "unaligned", "duplicate_target", "duplicate")
    )
    assert summary["null_instantiations"] == {"CNI": 1, "DNI": 0, "INI": 1, "INC": 0}


def test_fes_on_the_target_are_kept_by_default(tmp_path):
    # "The president resigned": the Leader of Leadership is the target itself; "chief
    # executive" is a two-word target whose FE "executive" (Role) overlaps it
    text = "The president and chief executive resigned ."
    president = FrameTarget("Leadership", "president.n", [(4, 13)], 1, [FrameElement("Leader", 4, 13)])
    chief = FrameTarget(
        "Leadership", "chief executive.n", [(18, 33)], 2, [FrameElement("Role", 24, 33), FrameElement("Leader", 18, 33)]
    )
    resigned = FrameTarget("Quitting", "resign.v", [(34, 42)], 3, [FrameElement("Employee", 0, 33)])
    sentence = FrameSentence("h", 1, text, whitespace_tokens(text), [president, chief, resigned])
    stats: Counter = Counter()
    dropped = sentence_to_doc(Vocab(), sentence, stats=stats, keep_target_fes=False)
    assert [fe_view(t) for t in dropped.spans[TARGETS_KEY]] == [
        [],
        [],
        [("The president and chief executive", "Employee")],
    ]
    summary = fe_summary(stats)
    assert summary["skipped"]["overlaps_target"] == 3 and summary["overlaps_target_coincident"] == 2
    assert "on_target" not in summary

    stats = Counter()
    doc = sentence_to_doc(Vocab(), sentence, stats=stats)
    expected = [
        [("president", "Leader")],
        [("chief executive", "Leader"), ("executive", "Role")],
        [("The president and chief executive", "Employee")],
    ]
    assert [fe_view(t) for t in doc.spans[TARGETS_KEY]] == expected
    summary = fe_summary(stats)
    assert summary["skipped"]["overlaps_target"] == 0 and (summary["on_target"], summary["on_target_coincident"]) == (
        3,
        2,
    )
    assert summary["annotated"] == summary["spans"] == 4 and summary["overlapping"] == 1
    # the links to the targets survive a DocBin and to_bytes, FEs on the target included
    DocBin(attrs=["ORTH", "TAG"], store_user_data=True, docs=[doc]).to_disk(tmp_path / "fe.spacy")
    (loaded,) = DocBin().from_disk(tmp_path / "fe.spacy").get_docs(Vocab())
    assert [fe_view(t) for t in loaded.spans[TARGETS_KEY]] == expected
    from_bytes = Doc(Vocab()).from_bytes(doc.to_bytes())
    assert [fe_view(t) for t in from_bytes.spans[TARGETS_KEY]] == expected
    assert [fe._.fe_target for fe in loaded.spans[TARGETS_KEY][0]._.frame_elements] == [[4, 13]]


def test_discontinuous_target_overlap_uses_its_pieces():
    # "gave ... up": an FE between the pieces is no overlap with the target
    text = "Kim gave the book up ."
    target = FrameTarget("Surrendering", "give up.v", [(4, 8), (18, 20)], 1, [FrameElement("Theme", 9, 17)])
    stats: Counter = Counter()
    doc = sentence_to_doc(Vocab(), FrameSentence("h", 1, text, whitespace_tokens(text), [target]), stats=stats)
    (span,) = doc.spans[TARGETS_KEY]
    assert span.text == "gave the book up" and fe_view(span) == [("the book", "Theme")]


# -- serialization --------------------------------------------------------------------------


def _fe_doc() -> Doc:
    install_extensions()
    text = "He gave it to her and she gave it back ."
    targets = [
        FrameTarget("Giving", "give.v", [(3, 7)], 1, [FrameElement("Donor", 0, 2), FrameElement("Theme", 8, 10)]),
        FrameTarget("Giving", "give.v", [(26, 30)], 2, [FrameElement("Donor", 22, 25), FrameElement("Theme", 31, 33)]),
        FrameTarget("Returning", "give back.v", [(26, 30), (34, 38)], 3, [FrameElement("Theme", 31, 33)]),
    ]
    return sentence_to_doc(Vocab(), FrameSentence("h", 1, text, whitespace_tokens(text), targets))


def _all_fes(doc: Doc):
    return [
        (t.text, t.label_, fe_view(t), [fe._.fe_target for fe in t._.frame_elements]) for t in doc.spans[TARGETS_KEY]
    ]


def test_frame_elements_survive_docbin_and_bytes(tmp_path):
    doc = _fe_doc()
    expected = _all_fes(doc)
    # "it" is the Theme of the 2nd "gave" (Giving) and of "gave ... back" (Returning):
    # two FE spans with one offset pair, told apart by their target
    assert expected[1][2] == [("she", "Donor"), ("it", "Theme")] and expected[2][2] == [("it", "Theme")]
    assert expected[1][3][1] != expected[2][3][0]
    doc_bin = DocBin(attrs=["ORTH", "TAG"], store_user_data=True)
    doc_bin.add(doc)
    doc_bin.to_disk(tmp_path / "fe.spacy")
    (loaded,) = DocBin().from_disk(tmp_path / "fe.spacy").get_docs(Vocab())
    assert _all_fes(loaded) == expected
    assert _all_fes(Doc(Vocab()).from_bytes(doc.to_bytes())) == expected
    # the stored Span._ values on target spans come back as well (DocBin gives tuples)
    assert [t._.lexical_unit for t in loaded.spans[TARGETS_KEY]] == ["give.v", "give.v", "give back.v"]
    assert [list(map(list, p)) for p in [loaded.spans[TARGETS_KEY][2]._.target_parts]] == [[[7, 8], [9, 10]]]


def test_stored_span_values_are_keyed_by_offsets():
    """Why the FE -> target link is the span's id and not a stored Span._ value: spaCy keys
    stored span values by (start_char, end_char), so two spans over the same words share one."""
    install_extensions()
    doc = Doc(Vocab(), words=["He", "left"])
    a, b = Span(doc, 0, 1, label="Agent"), Span(doc, 0, 1, label="Theme")
    a._.lexical_unit = "first"
    b._.lexical_unit = "second"
    assert a._.lexical_unit == "second"
    target = Span(doc, 1, 2, label="Departing")
    fe = make_fe_span(target, 0, 1, "Theme")
    doc.spans[FE_KEY] = [fe]
    assert fe._.fe_target == [3, 7] and fe._.fe_frame == "Departing"
    assert [s.text for s in target._.frame_elements] == ["He"]
    assert Span(doc, 1, 2, label="Other")._.frame_elements == []  # the frame is part of the link
    assert a._.fe_target is None and a._.fe_frame is None


# -- inventory ------------------------------------------------------------------------------


def test_inventory_frame_elements(inventory):
    fes = inventory.frame_elements("Surviving")
    assert [fe.name for fe in fes] == inventory.fe_names("Surviving")
    assert fes[0] == inventory.frame_element("Surviving", "Survivor")
    assert (fes[0].core_type, fes[0].id, fes[0].is_core) == ("Core", 10621, True)
    place = inventory.frame_element("Surviving", "Place")
    assert place.definition == "The location where the Survivor (primarily) lives during the Dangerous_situation."
    assert (place.core_type, place.is_core) == ("Peripheral", False)
    assert inventory.fe_text("Surviving", "Place") == (
        "Surviving: Place (peripheral): The location where the Survivor (primarily) lives during the Dangerous_situation."
    )
    assert inventory.fe_text("Surviving", "Survivor").startswith("Surviving: Survivor (core): ")
    for name in inventory.names:
        for fe in inventory.frame_elements(name):
            assert fe.definition and "<" not in fe.definition and "&lt;" not in fe.definition
            assert fe.core_type in ("Core", "Core-Unexpressed", "Peripheral", "Extra-Thematic")
    # Excludes as FrameNet lists it (Figure and Ground each exclude Figures): symmetric pairs
    assert inventory.excludes("Locative_relation") == [("Figure", "Figures"), ("Figures", "Ground")]
    assert inventory.excludes("Quantity") == [("Individuals", "Mass")] and inventory.excludes("Vehicle") == []
    assert inventory.requires("Surviving") == [("Dangerous_situation", "Survivor")]
    counts = inventory.fe_counts()
    assert counts["frames_with_fes"] == 8 and counts["frame_elements"] == inventory.n_frame_elements == 60
    assert (counts["excludes_pairs"], counts["requires_pairs"]) == (3, 1)
    with pytest.raises(ValueError, match="Unknown frame element 'Nope' of frame 'Surviving'"):
        inventory.fe_text("Surviving", "Nope")
    with pytest.raises(ValueError, match="Unknown frame 'Nope'"):
        inventory.frame_elements("Nope")


def test_inventory_fe_serialization_and_old_files(inventory, tmp_path):
    inventory.to_disk(tmp_path / "frames.json")
    loaded = FrameInventory().from_disk(tmp_path / "frames.json")
    assert loaded.to_dict() == inventory.to_dict()
    assert loaded.frame_elements("Locative_relation") == inventory.frame_elements("Locative_relation")
    assert loaded.excludes("Locative_relation") == inventory.excludes("Locative_relation")
    # a frames.json written before FEs were read still loads: no FEs
    old = inventory.to_dict()
    for info in old["frames"].values():
        del info["frame_elements"]
    srsly.write_json(tmp_path / "old.json", old)
    legacy = FrameInventory().from_disk(tmp_path / "old.json")
    assert legacy.names == inventory.names and legacy.frame_elements("Weapon") == [] and legacy.excludes("Weapon") == []
    assert legacy.fe_counts()["frames_with_fes"] == 0
    # the same through the msgpack / JSON bytes the components store
    assert (
        FrameInventory().from_dict(srsly.msgpack_loads(srsly.msgpack_dumps(inventory.to_dict()))).to_dict()
        == inventory.to_dict()
    )


def test_add_frame_with_frame_elements(inventory):
    inv = FrameInventory().from_dict(inventory.to_dict())
    inv.add_frame(
        "Toy_giving",
        "A Giver hands a Toy to a Child.",
        frame_elements=[
            FEDef("Giver", "Core", "The one who gives."),
            {"name": "Toy", "core_type": "Core", "excludes": ["Child"]},
        ],
    )
    inv.add_frame("Bare", "No FEs.")
    assert inv.fe_names("Toy_giving") == ["Giver", "Toy"] and inv.fe_names("Bare") == []
    assert inv.fe_text("Toy_giving", "Toy") == "Toy_giving: Toy (core)"
    assert inv.excludes("Toy_giving") == []  # "Child" is no FE of the frame


def test_fn17_inventory_frame_elements():
    inv = read_fn17_inventory(FN17_FRAMES, FN17_LEXICON)
    assert inv.fe_names("Proportional_quantity")[:3] == ["Denoted_quantity", "Mass", "Individuals"]
    assert inv.fe_counts()["frames_with_fes"] == 4
    assert inv.fe_text("Leadership", "Leader").startswith("Leadership: Leader (core): ")


# -- conversion -----------------------------------------------------------------------------


def test_conversion_summaries_have_frame_elements(fn15_zip, tmp_path):
    summary = convert_framenet15(fn15_zip, SPLITS, tmp_path / "fn15", progress=False, keep_target_fes=False)
    train, dev, test, ex = (summary[k]["frame_elements"] for k in ("train", "dev", "test", "exemplars"))
    assert (train["spans"], dev["spans"], test["spans"], ex["spans"]) == (6, 2, 2, 0)
    assert ex["skipped"]["overlaps_target"] == 2 and test["null_instantiations"]["INI"] == 1
    assert all(s["label_not_in_frame"] == 0 for s in (train, dev, test, ex))
    assert summary["frame_elements"]["frames_with_fes"] == 8
    install_extensions()
    (doc,) = [
        d for d in DocBin().from_disk(tmp_path / "fn15" / "test.spacy").get_docs(Vocab()) if len(d.spans[TARGETS_KEY])
    ]
    assert fe_view(doc.spans[TARGETS_KEY][0]) == [("Libyan", "Governed"), ("Col. Muammar Qadhafi", "Leader")]
    assert FrameInventory().from_disk(tmp_path / "fn15" / "frames.json").fe_counts() == summary["frame_elements"]

    fn17 = convert_framenet17(
        FN17_FRAMES,
        FN17_LEXICON,
        FN17_CONLL,
        tmp_path / "fn17",
        fn15_inventory=read_fn15_inventory(fn15_zip),
        keep_target_fes=False,
    )
    fe = fn17["dev"]["frame_elements"]
    assert (fe["annotated"], fe["spans"], fe["skipped"]["overlaps_target"]) == (8, 3, 5)
    assert fe["annotated_new_frame"] == 2 and fe["label_not_in_frame"] == 0
    assert fn17["frame_elements"]["frames_with_fes"] == 4


# -- real data (skipped when the shared assets are absent) ----------------------------------

needs_real_data = pytest.mark.skipif(not REAL.is_dir(), reason="FrameNet assets not available")


@pytest.mark.slow
@needs_real_data
def test_real_fe_definitions_and_dev_fes():
    # about 3 s: both inventories plus the 8 FN1.5 dev documents
    fn15 = read_fn15_inventory(REAL / "fndata-1.5.zip")
    counts = fn15.fe_counts()
    assert (counts["frames_with_fes"], counts["frame_elements"], counts["fe_names"]) == (1019, 9634, 1170)
    assert counts["core_types"] == {"Core": 2992, "Core-Unexpressed": 93, "Extra-Thematic": 2285, "Peripheral": 4264}
    assert (counts["excludes_pairs"], counts["requires_pairs"]) == (403, 99)
    assert ("Area", "Path") in fn15.excludes("Motion")
    fn17 = read_fn17_inventory(REAL / "fn17" / "frames_xml", REAL / "fn17" / "lexicon_json" / "FN17_enlu_id.json")
    assert (fn17.fe_counts()["frames_with_fes"], fn17.n_frame_elements) == (1221, 11428)
    split = srsly.read_json(REAL / "splits" / "fulltext_doc_splits_das2014_opensesame.json")
    stats: Counter = Counter()
    vocab = Vocab()
    for sentence in iter_fulltext_sentences(REAL / "fndata-1.5.zip", split["dev_files"]):
        sentence_to_doc(vocab, sentence, frames=fn15, stats=stats, keep_target_fes=False)
    dev = fe_summary(stats)
    assert (dev["annotated"], dev["spans"], dev["skipped"]["overlaps_target"]) == (4060, 3170, 870)
    assert dev["null_instantiations"] == {"CNI": 113, "DNI": 231, "INI": 383, "INC": 1}
