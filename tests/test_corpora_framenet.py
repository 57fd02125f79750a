"""Tests of spacy_frames.corpora.framenet, framenet_sentences and framenet_convert on small
fixtures cut from the real FrameNet files (tests/fixtures/framenet), plus count checks
against the real data when it is present."""

import importlib.util
from collections import Counter
from pathlib import Path

import pytest
import srsly
from framenet_paths import FIXTURES, FN17, FN17_CONLL, FN17_FRAMES, FN17_LEXICON, REAL, SAMPLE_CONLL, SPLITS  # noqa: F401
from spacy.tokens import DocBin
from spacy.vocab import Vocab

from spacy_frames.corpora.framenet import (
    normalize_penn_tag,
    read_fn15_inventory,
    read_fn17_inventory,
    strip_definition_markup,
)
from spacy_frames.corpora.framenet_convert import convert_framenet15, convert_framenet17
from spacy_frames.corpora.framenet_sentences import (
    iter_exemplar_sentences,
    iter_fulltext_sentences,
    iter_open_sesame_sentences,
    list_fulltext_docs,
    load_split,
    sentence_to_doc,
)
from spacy_frames.extensions import TARGETS_KEY, install_extensions
from spacy_frames.inventory.frames import FrameInventory


@pytest.fixture(scope="module")
def sentences(fn15_zip):
    return {(s.doc, s.sentence_id): s for s in iter_fulltext_sentences(fn15_zip)}


def by_text(sentences, start: str):
    return next(s for s in sentences.values() if s.text.startswith(start))


# -- inventory ------------------------------------------------------------------------------


def test_fn15_inventory_lookups(inventory):
    assert len(inventory) == 8
    assert "Weapon" in inventory and "Test35" not in inventory
    assert inventory.names == sorted(inventory.names)
    assert inventory.frame_id("Weapon") == 426
    assert inventory.lexical_units("Weapon") == ["WMD.n", "biological weapon.n", "chemical weapon.n"]
    assert inventory.n_lexical_units == 10
    assert inventory.frames_for_lu("car.n") == ["Vehicle"]
    assert inventory.frames_for_lu("no-such.v") == []
    assert inventory.parents("Weapon") == ["Artifact"]
    assert inventory.children("Artifact") == ["Vehicle", "Weapon"]
    assert inventory.siblings("Weapon") == ["Vehicle"]
    assert inventory.siblings("Artifact") == []
    assert inventory.parents("Weapon", relation="Using") == []
    assert inventory.relation_counts() == {"Inheritance": 2, "Using": 0}


def test_definition_markup_stripped(inventory):
    assert inventory.definition("Vehicle") == (
        "The frame concerns the vehicles that human beings use for the purpose of transportation."
    )
    for name in inventory.names:
        definition = inventory.definition(name)
        assert definition and "<" not in definition and "&lt;" not in definition and "  " not in definition
    raw = (
        '<def-root>An <fex name="Agent">Agent</fex>\'s <fen>Theme</fen> &amp; more.\n\n'
        '<ex><fex name="Agent">Carolyn</fex> <t>abandoned</t> her car.</ex></def-root>'
    )
    assert strip_definition_markup(raw) == "An Agent's Theme & more. 'Carolyn abandoned her car.'"
    assert strip_definition_markup(None) == ""


def test_unknown_frame_and_relation_errors(inventory):
    for method in (
        inventory.definition,
        inventory.lexical_units,
        inventory.parents,
        inventory.children,
        inventory.siblings,
    ):
        with pytest.raises(ValueError, match="Unknown frame 'Nope'"):
            method("Nope")
    with pytest.raises(ValueError, match="relation type 'Nonsense'"):
        inventory.parents("Weapon", relation="Nonsense")


def test_add_frame(inventory):
    inv = FrameInventory().from_dict(inventory.to_dict())
    inv.add_frame("Toy_artifact", "A toy.", lexical_units=["toy.n", "car.n"], parents=["Artifact"])
    assert len(inv) == 9 and len(inventory) == 8
    assert inv.siblings("Weapon") == ["Toy_artifact", "Vehicle"]
    assert inv.frames_for_lu("car.n") == ["Toy_artifact", "Vehicle"]
    assert inv.frame_id("Toy_artifact") == max(inventory.frame_id(n) for n in inventory.names) + 1
    with pytest.raises(ValueError, match="Weapon"):
        inv.add_frame("Weapon", "again")
    with pytest.raises(ValueError, match="Unknown frame 'Nope'"):
        inv.add_frame("Orphan", "x", parents=["Nope"])
    assert "Orphan" not in inv


def test_inventory_serialization(inventory, tmp_path):
    path = tmp_path / "sub" / "frames.json"
    inventory.to_disk(path)
    data = srsly.read_json(path)
    assert set(data) == {"version", "source", "frames", "relations"}
    assert data["version"] == 1
    assert set(data["frames"]["Weapon"]) == {"id", "definition", "lexical_units", "frame_elements"}
    assert data["relations"]["Inheritance"] == [["Artifact", "Weapon"], ["Artifact", "Vehicle"]]
    loaded = FrameInventory().from_disk(path)
    assert loaded.to_dict() == inventory.to_dict()
    assert loaded.siblings("Vehicle") == ["Weapon"] and loaded.frames_for_lu("WMD.n") == ["Weapon"]
    with pytest.raises(ValueError, match="version"):
        FrameInventory().from_dict({**data, "version": 99})
    with pytest.raises(ValueError, match="Unknown frame 'Ghost'"):
        FrameInventory().from_dict({**data, "relations": {"Inheritance": [["Ghost", "Weapon"]]}})


def test_fn17_inventory():
    inv = read_fn17_inventory(FN17_FRAMES, FN17_LEXICON)
    assert inv.names == ["Artifact", "Leadership", "Proportional_quantity", "Weapon"]
    assert inv.lexical_units("Leadership") == ["congressman.n", "leader.n"]
    assert inv.parents("Weapon") == ["Artifact"]
    assert inv.definition("Weapon").startswith("A Weapon is an artifact created specifically to cause harm")


# -- full text ------------------------------------------------------------------------------


def test_fulltext_sentences(fn15_zip, sentences):
    assert list_fulltext_docs(fn15_zip) == ["KBEval__MIT.xml", "NTI__LibyaCountry1.xml", "PropBank__LomaPrieta.xml"]
    assert len(sentences) == 6
    s = by_text(sentences, "A lot of car alarms")
    assert s.doc == "PropBank__LomaPrieta.xml" and s.sentence_id == 1228918 and s.tagset == "PENN"
    assert [s.text[a:b] for a, b, _ in s.tokens] == ["A", "lot", "of", "car", "alarms", "went", "off", "."]
    assert s.tokens[0] == (0, 1, "dt")  # FrameNet's end is inclusive; ours is exclusive
    assert [(t.frame, t.lu, t.pieces, t.annotation_set_id) for t in s.targets] == [
        ("Vehicle", "car.n", [(9, 12)], 1905268),
        ("Quantity", "a lot.n", [(0, 1), (2, 5)], 1907407),
    ]
    libya = by_text(sentences, "On 19 December")
    december = libya.targets[0]
    assert (december.frame, december.lu, december.pieces) == ("Calendric_unit", "December.n", [])
    only_mit = list(iter_fulltext_sentences(fn15_zip, ["KBEval__MIT"]))
    assert [s.doc for s in only_mit] == ["KBEval__MIT.xml"] * 2
    with pytest.raises(ValueError, match="Unknown full-text documents"):
        list(iter_fulltext_sentences(fn15_zip, ["nope.xml"]))


def test_sentence_to_doc_spans(sentences, inventory):
    install_extensions()
    vocab = Vocab()
    stats: Counter = Counter()
    s = by_text(sentences, "A lot of car alarms")
    doc = sentence_to_doc(vocab, s, frames=inventory, stats=stats)
    assert doc.text == s.text
    assert [t.tag_ for t in doc] == ["DT", "NN", "IN", "NN", "NNS", "VBD", "RP", "."]
    spans = doc.spans[TARGETS_KEY]
    assert [(sp.text, sp.label_, sp._.lexical_unit, sp._.target_parts) for sp in spans] == [
        ("car", "Vehicle", "car.n", None),
        ("A lot", "Quantity", "a lot.n", None),  # two adjacent Target labels: one contiguous span
    ]
    assert doc.user_data["framenet"] == {"doc": "PropBank__LomaPrieta.xml", "sentence_id": 1228918}

    mit = sentence_to_doc(vocab, by_text(sentences, "QN : Will"), frames=inventory, stats=stats)
    chem, bio = mit.spans[TARGETS_KEY]
    assert (chem.text, chem.label_, chem._.lexical_unit) == (
        "chemical or biological weapon",
        "Weapon",
        "chemical weapon.n",
    )
    assert chem._.target_parts == [[8, 9], [11, 12]]
    assert [mit[a:b].text for a, b in chem._.target_parts] == ["chemical", "weapon"]
    assert (bio.text, bio._.target_parts) == ("biological weapon", None)

    rode = sentence_to_doc(vocab, by_text(sentences, "1:00 a.m."), frames=inventory, stats=stats)
    surviving = [sp for sp in rode.spans[TARGETS_KEY] if sp.label_ == "Surviving"][0]
    assert surviving.text == "rode it out" and surviving._.lexical_unit == "ride_out.v"
    assert [rode[a:b].text for a, b in surviving._.target_parts] == ["rode", "out"]

    libya_sentence = by_text(sentences, "On 19 December")
    libya = sentence_to_doc(vocab, libya_sentence, frames=inventory, stats=stats)
    assert libya.text == libya_sentence.text and libya.text.endswith(". ")  # trailing space kept
    assert [(sp.text, sp.label_) for sp in libya.spans[TARGETS_KEY]] == [("leader", "Leadership"), ("WMD", "Weapon")]
    assert stats["skipped_no_target_label"] == 1
    assert stats["discontinuous_targets"] == 2 and stats["multiword_targets"] == 2

    empty = sentence_to_doc(vocab, by_text(sentences, "ID: MIT -1"), stats=stats)
    assert len(empty.spans[TARGETS_KEY]) == 0 and stats["sentences_without_targets"] == 1


def test_unknown_frame_and_unaligned_targets_skipped(sentences):
    vocab = Vocab()
    stats: Counter = Counter()
    s = by_text(sentences, "A lot of car alarms")
    doc = sentence_to_doc(vocab, s, frames={"Vehicle"}, stats=stats)
    assert [sp.label_ for sp in doc.spans[TARGETS_KEY]] == ["Vehicle"]
    assert stats["skipped_unknown_frame"] == 1 and stats["skipped_targets"] == 1
    s.targets[0].pieces = [(500, 510)]  # past the end of the text
    try:
        doc = sentence_to_doc(vocab, s, stats=stats)
    finally:
        s.targets[0].pieces = [(9, 12)]
    assert [sp.label_ for sp in doc.spans[TARGETS_KEY]] == ["Quantity"]
    assert stats["skipped_unaligned"] == 1


def test_normalize_penn_tag():
    assert [normalize_penn_tag(t) for t in ["nn", "NP", "VVD", "VHZ", "PP$", "sent", "(", "VBZ", "NNP"]] == [
        "NN",
        "NNP",
        "VBD",
        "VBZ",
        "PRP$",
        ".",
        "-LRB-",
        "VBZ",
        "NNP",
    ]


def test_load_split(fn15_zip, tmp_path):
    split = load_split(SPLITS, fn15_zip)
    assert split == {
        "train": ["PropBank__LomaPrieta.xml"],
        "dev": ["KBEval__MIT.xml"],
        "test": ["NTI__LibyaCountry1.xml"],
    }
    assert load_split(SPLITS, all_docs=["a.xml", "KBEval__MIT.xml", "NTI__LibyaCountry1.xml"])["train"] == ["a.xml"]
    bad = tmp_path / "bad.json"
    srsly.write_json(bad, {"dev_files": ["X.xml"], "test_files": ["X.xml"]})
    with pytest.raises(ValueError, match="both dev and test"):
        load_split(bad, fn15_zip)
    srsly.write_json(bad, {"dev_files": ["Missing.xml"], "test_files": []})
    with pytest.raises(ValueError, match="Missing.xml"):
        load_split(bad, fn15_zip)


# -- exemplars ------------------------------------------------------------------------------


def test_exemplar_sentences(fn15_zip):
    exemplars = list(iter_exemplar_sentences(fn15_zip))
    assert [s.text for s in exemplars] == ["He then drove the car back . ", "The car door slammed , and he was gone . "]
    first = exemplars[0]
    assert first.doc == "lu7808.xml" and first.tagset == "BNC"
    assert [(t.frame, t.lu, [first.text[a:b] for a, b in t.pieces]) for t in first.targets] == [
        ("Vehicle", "car.n", ["car"])
    ]
    doc = sentence_to_doc(Vocab(), first)
    assert [t.tag_ for t in doc] == [""] * len(doc)  # BNC tags are not PTB: not set
    assert [sp.text for sp in doc.spans[TARGETS_KEY]] == ["car"]
    assert len(list(iter_exemplar_sentences(fn15_zip, limit=1))) == 1
    assert list(iter_exemplar_sentences(fn15_zip, limit=0)) == []


# -- open-sesame ----------------------------------------------------------------------------


def test_open_sesame_blocks_merged():
    sents = list(iter_open_sesame_sentences(FN17_CONLL))
    assert [s.text for s in sents] == [
        "QN : Will a terrorist set off a chemical or biological weapon ?",
        "At least one other congressman has visited Iraq .",
    ]
    assert [s.sentence_id for s in sents] == [0, 1] and sents[0].tagset is None
    qn = sents[0]
    assert [(t.frame, t.lu, [qn.text[a:b] for a, b in t.pieces]) for t in qn.targets] == [
        ("Weapon", "biological weapon.n", ["biological weapon"]),
        ("Weapon", "chemical weapon.n", ["chemical", "weapon"]),
    ]
    doc = sentence_to_doc(Vocab(), qn)
    assert doc.text == qn.text
    assert [sp._.target_parts for sp in doc.spans[TARGETS_KEY]] == [None, [[8, 9], [11, 12]]]


def test_open_sesame_15_columns():
    (sent,) = list(iter_open_sesame_sentences(SAMPLE_CONLL))
    assert sent.text.startswith("During this period , the indigenous people lived in caves")
    assert sent.sentence_id == 3 and sent.tagset == "PENN"
    assert [(t.frame, t.lu, t.pieces) for t in sent.targets] == [("Temporal_collocation", "during.prep", [(0, 6)])]
    doc = sentence_to_doc(Vocab(), sent)
    assert [t.tag_ for t in doc][:3] == ["IN", "DT", "NN"]


# -- conversion -----------------------------------------------------------------------------


def test_convert_framenet15_and_docbin_roundtrip(fn15_zip, tmp_path):
    out = tmp_path / "corpus"
    summary = convert_framenet15(fn15_zip, SPLITS, out, progress=False)
    assert sorted(p.name for p in out.iterdir()) == [
        "dev.spacy",
        "exemplars.spacy",
        "frames.json",
        "test.spacy",
        "train.spacy",
    ]
    assert summary["frames"] == 8 and summary["lexical_units"] == 10
    assert summary["relations"] == {"Inheritance": 2, "Using": 0}
    train, dev, test, ex = summary["train"], summary["dev"], summary["test"], summary["exemplars"]
    assert (train["docs"], train["sentences"], train["targets"], train["skipped_targets"]) == (1, 3, 4, 0)
    assert (train["multiword_targets"], train["discontinuous_targets"], train["sentences_without_targets"]) == (1, 1, 1)
    assert (dev["docs"], dev["sentences"], dev["targets"], dev["discontinuous_targets"]) == (1, 2, 2, 1)
    assert (test["targets"], test["skipped_targets"], test["skipped_reasons"]) == (3, 1, {"no_target_label": 1})
    assert (ex["docs"], ex["sentences"], ex["targets"]) == (1, 2, 2)
    assert FrameInventory().from_disk(out / "frames.json").names == read_fn15_inventory(fn15_zip).names

    install_extensions()
    vocab = Vocab()
    docs = list(DocBin().from_disk(out / "dev.spacy").get_docs(vocab))
    assert [d.user_data["framenet"] for d in docs] == [
        {"doc": "KBEval__MIT.xml", "sentence_id": 1274201},
        {"doc": "KBEval__MIT.xml", "sentence_id": 1274228},
    ]
    spans = docs[1].spans[TARGETS_KEY]
    assert [(sp.text, sp.label_, sp._.lexical_unit) for sp in spans] == [
        ("chemical or biological weapon", "Weapon", "chemical weapon.n"),
        ("biological weapon", "Weapon", "biological weapon.n"),
    ]
    # DocBin's msgpack gives sequences back as tuples: ((8, 9), (11, 12))
    assert [list(map(list, part)) for part in [spans[0]._.target_parts]] == [[[8, 9], [11, 12]]]
    assert spans[1]._.target_parts is None
    assert docs[1][0].tag_ == "NNP"
    exemplars = list(DocBin().from_disk(out / "exemplars.spacy").get_docs(vocab))
    assert [d.spans[TARGETS_KEY][0]._.lexical_unit for d in exemplars] == ["car.n", "car.n"]
    limited = convert_framenet15(fn15_zip, SPLITS, tmp_path / "limited", exemplar_limit=1, progress=False)
    assert limited["exemplars"]["sentences"] == 1


def test_convert_framenet17(fn15_zip, tmp_path):
    fn15 = read_fn15_inventory(fn15_zip)
    summary = convert_framenet17(FN17_FRAMES, FN17_LEXICON, FN17_CONLL, tmp_path, fn15_inventory=fn15)
    dev = summary["dev"]
    assert summary["frames"] == 4 and summary["lexical_units"] == 6 and summary["relations"] == {"Inheritance": 1}
    assert (dev["docs"], dev["sentences"], dev["targets"], dev["skipped_targets"]) == (None, 2, 4, 0)
    assert (dev["discontinuous_targets"], dev["multiword_targets"]) == (1, 2)
    # at least.adv: new frame; congressman.n: new LU of an old frame
    assert (dev["targets_new_frame"], dev["targets_new_lu"], dev["targets_unknown_lu_name"]) == (1, 2, 2)
    install_extensions()
    docs = list(DocBin().from_disk(tmp_path / "dev.spacy").get_docs(Vocab()))
    assert [sp.label_ for sp in docs[1].spans[TARGETS_KEY]] == ["Leadership", "Proportional_quantity"]
    assert (
        FrameInventory().from_disk(tmp_path / "frames.json").names
        == read_fn17_inventory(FN17_FRAMES, FN17_LEXICON).names
    )
    # the FN1.5 inventory can also come as a frames.json path
    fn15.to_disk(tmp_path / "fn15.json")
    again = convert_framenet17(
        FN17_FRAMES, FN17_LEXICON, FN17_CONLL, tmp_path / "b", fn15_inventory=tmp_path / "fn15.json"
    )
    assert again["dev"] == dev


def test_cli_merges_summary(tmp_path):
    from typer.testing import CliRunner

    script = Path(__file__).parents[1] / "scripts" / "convert_framenet.py"
    spec = importlib.util.spec_from_file_location("convert_framenet_script", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    summary_path = tmp_path / "corpora.json"
    srsly.write_json(summary_path, {"other": {"kept": True}})
    args = [
        "fn17",
        str(FN17_FRAMES),
        str(FN17_LEXICON),
        str(FN17_CONLL),
        str(tmp_path / "out"),
        "--summary",
        str(summary_path),
    ]
    result = CliRunner().invoke(module.app, args)
    assert result.exit_code == 0, result.output
    assert "targets" in result.output
    data = srsly.read_json(summary_path)
    assert data["other"] == {"kept": True} and data["framenet17"]["dev"]["targets"] == 4


# -- errors ---------------------------------------------------------------------------------


def test_missing_files_are_clear(tmp_path):
    missing = tmp_path / "nowhere" / "fndata-1.5.zip"
    calls = [
        lambda: read_fn15_inventory(missing),
        lambda: list(iter_fulltext_sentences(missing)),
        lambda: list(iter_exemplar_sentences(missing)),
        lambda: load_split(missing),
        lambda: read_fn17_inventory(missing, FN17_LEXICON),
        lambda: read_fn17_inventory(FN17_FRAMES, missing),
        lambda: list(iter_open_sesame_sentences(missing)),
        lambda: FrameInventory().from_disk(missing),
        lambda: convert_framenet15(missing, SPLITS, tmp_path / "out", progress=False),
        lambda: convert_framenet17(FN17_FRAMES, FN17_LEXICON, missing, tmp_path / "out"),
    ]
    for call in calls:
        with pytest.raises(FileNotFoundError) as excinfo:
            call()
        assert str(missing) in str(excinfo.value)
        assert "spacy project assets" in str(excinfo.value) and "fetch-assets" in str(excinfo.value)


# -- real data (skipped when the shared assets are absent) ----------------------------------

needs_real_data = pytest.mark.skipif(not REAL.is_dir(), reason="FrameNet assets not available")


@pytest.mark.slow
@needs_real_data
def test_real_fn17_counts():
    inv = read_fn17_inventory(REAL / "fn17" / "frames_xml", REAL / "fn17" / "lexicon_json" / "FN17_enlu_id.json")
    assert len(inv) == 1221 and inv.n_lexical_units == 13572
    counts = inv.relation_counts()
    assert (counts["Inheritance"], counts["Using"], counts["Subframe"]) == (781, 556, 131)
    sents = list(iter_open_sesame_sentences(REAL / "fn17" / "open_sesame" / "fn1.7.dev.syntaxnet.conll"))
    assert len(sents) == 326 and sum(len(s.targets) for s in sents) == 2272


@pytest.mark.slow
@needs_real_data
def test_real_fn15_inventory_and_split_counts():
    # about 3 s: inventory plus one pass over the 78 full-text documents
    zip_path = REAL / "fndata-1.5.zip"
    inv = read_fn15_inventory(zip_path)
    assert (len(inv), inv.n_lexical_units) == (1019, 11829)
    counts = inv.relation_counts()
    assert (counts["Inheritance"], counts["Using"], counts["Subframe"]) == (617, 490, 117)
    split = load_split(REAL / "splits" / "fulltext_doc_splits_das2014_opensesame.json", zip_path)
    assert {k: len(v) for k, v in split.items()} == {"train": 47, "dev": 8, "test": 23}
    for name, expected in {"train": 17152, "dev": 2333, "test": 4459}.items():
        assert sum(len(s.targets) for s in iter_fulltext_sentences(zip_path, split[name])) == expected


def test_inventory_loader_from_registry(tmp_path):
    from spacy.util import registry

    inventory = FrameInventory(
        frames={"Giving": {"id": 1, "definition": "A Donor gives.", "lexical_units": ["give.v"]}}, relations={}
    )
    inventory.to_disk(tmp_path / "frames.json")
    loader = registry.misc.get("spacy-frames.frame_inventory.v1")(str(tmp_path / "frames.json"))
    assert loader().frames_for_lu("give.v") == ["Giving"]
    with pytest.raises(FileNotFoundError, match="frame inventory not found.*project run convert"):
        registry.misc.get("spacy-frames.frame_inventory.v1")(str(tmp_path / "missing.json"))()


@pytest.mark.slow
def test_reader_leaves_out_the_excluded_lexical_units(tmp_path):
    # a clean frame_identifier for frame_inducer's head comparison never sees the held-out
    # verbs labelled: a full-text doc loses their targets (and is marked partial, so the word
    # is no "not a target" evidence); a doc left with no target is dropped
    import spacy
    from frames_toy import toy_docs

    from spacy_frames.corpora.readers import create_framenet_reader
    from spacy_frames.extensions import is_partial

    nlp = spacy.blank("en")
    DocBin(docs=toy_docs(nlp.vocab), store_user_data=True).to_disk(tmp_path / "train.spacy")
    srsly.write_json(tmp_path / "held_out.json", ["give.v", "buy.v"])
    everything = list(create_framenet_reader(str(tmp_path / "train.spacy"))(nlp))
    kept = list(
        create_framenet_reader(str(tmp_path / "train.spacy"), exclude_lexical_units=str(tmp_path / "held_out.json"))(
            nlp
        )
    )
    lus = [[t._.lexical_unit for t in eg.reference.spans[TARGETS_KEY]] for eg in kept]
    assert len(kept) == len(everything) - 1  # "They bought a car ." had buy.v only
    assert ["gift.n"] in lus and not any("give.v" in doc_lus or "buy.v" in doc_lus for doc_lus in lus)
    gift = next(eg for eg in kept if [t._.lexical_unit for t in eg.reference.spans[TARGETS_KEY]] == ["gift.n"])
    assert is_partial(gift.reference) and [t.text for t in gift.predicted.spans[TARGETS_KEY]] == ["gift"]
    untouched = next(eg for eg in kept if "rise.v" in [t._.lexical_unit for t in eg.reference.spans[TARGETS_KEY]])
    assert not is_partial(untouched.reference)
    with pytest.raises(FileNotFoundError, match="inducer-clean-head"):
        create_framenet_reader(str(tmp_path / "train.spacy"), exclude_lexical_units=str(tmp_path / "missing.json"))


def test_reader_repeats_the_full_text_and_not_the_exemplars(tmp_path):
    import spacy
    from frames_toy import toy_docs

    from spacy_frames.corpora.readers import create_framenet_reader

    nlp = spacy.blank("en")
    docs = toy_docs(nlp.vocab)
    DocBin(docs=docs[:4], store_user_data=True).to_disk(tmp_path / "train.spacy")
    DocBin(docs=docs[4:], store_user_data=True).to_disk(tmp_path / "exemplars.spacy")
    read = create_framenet_reader(
        str(tmp_path / "train.spacy"),
        exemplars=str(tmp_path / "exemplars.spacy"),
        max_exemplars=-1,
        full_text_repeats=3,
    )
    texts = [eg.reference.text for eg in read(nlp)]
    assert len(texts) == 3 * 4 + len(docs[4:])
    assert all(texts.count(doc.text) == 3 for doc in docs[:4] if doc.text not in {d.text for d in docs[4:]})
    with pytest.raises(ValueError, match="full_text_repeats"):
        create_framenet_reader(str(tmp_path / "train.spacy"), full_text_repeats=0)
