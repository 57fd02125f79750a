"""Discourse corpora: GDTB and DiscoGeM readers, the .rels reader/writer, the training reader."""

import pytest
import spacy
from conftest import SHARED_ASSETS
from spacy.tokens import DocBin

from spacy_frames.corpora.discourse import (
    DiscourseRelation,
    create_discourse_reader,
    read_discogem,
    read_gdtb,
    read_rels,
    relation_doc,
    split_relations,
    write_rels,
)

GDTB = SHARED_ASSETS / "discourse" / "gdtb"
DISCOGEM = SHARED_ASSETS / "discourse" / "discogem"
needs_gdtb = pytest.mark.skipif(not GDTB.is_dir(), reason="GDTB mirror not available")
needs_discogem = pytest.mark.skipif(not DISCOGEM.is_dir(), reason="DiscoGeM mirror not available")


@needs_gdtb
@pytest.mark.parametrize("split,implicit", [("train", 3351), ("dev", 557), ("test", 571)])
def test_gdtb_implicit_counts_without_reddit(split, implicit):
    relations = read_gdtb(GDTB, split)
    assert sum(r.implicit for r in relations) == implicit  # shared/README: reddit excluded
    assert not any("_reddit_" in r.id for r in relations)
    kept, _ = split_relations(relations)
    assert all(r.implicit and r.senses and r.connective for r in kept)
    assert {r.type for r in relations} >= {"Explicit", "Implicit", "AltLex", "EntRel"}


@needs_gdtb
def test_gdtb_relation_fields():
    rel = read_gdtb(GDTB, "train")[0]
    assert rel.arg1 == "How do people look at and experience art ?"
    assert rel.arg2 == "Which elements of specific artworks do they focus on ?"
    assert rel.senses == ["Expansion.Conjunction"] and rel.connective == "and"
    explicit = next(r for r in read_gdtb(GDTB, "train") if r.type == "Explicit")
    assert explicit.connective is None and explicit.senses


@needs_gdtb
def test_rels_reader_and_writer_roundtrip(tmp_path):
    relations = read_rels(GDTB / "rels" / "gdtb_dev.rels")
    implicit = [r for r in relations if r.implicit]
    assert len(implicit) == 556 and not any("_reddit_" in r.id for r in relations)
    # implicit: Arg1 is the first unit, whatever DISRPT's direction
    flipped = next(r for r in implicit if r.meta["dir"] == "1>2")
    assert flipped.arg1 == flipped.meta["unit1_sent"] or flipped.arg1 in flipped.meta["unit1_sent"]
    assert flipped.senses[0].split(".")[-1].startswith("Arg1-as")
    write_rels(
        tmp_path / "pred.rels", relations, [r.senses[0] if r.senses else "Expansion.Conjunction" for r in relations]
    )
    again = read_rels(tmp_path / "pred.rels")
    assert [(r.arg1, r.arg2, r.senses) for r in again] == [
        (r.arg1, r.arg2, r.senses or ["Expansion.Conjunction"]) for r in relations
    ]
    header = (tmp_path / "pred.rels").read_text().splitlines()[1].split("\t")
    assert header[-1].count(".") <= 1  # DISRPT's label column is the level-2 sense


@needs_discogem
def test_discogem_splits_and_soft_labels():
    counts = {split: read_discogem(DISCOGEM, split) for split in ("train", "dev", "test")}
    assert sum(len(v) for v in counts.values()) > 6400
    rels = counts["train"]
    assert all(r.senses[0].count(".") >= 1 for r in rels)
    soft = [r for r in rels if r.soft]
    assert soft and all(abs(sum(r.soft.values()) - 1.0) < 0.05 for r in soft)


@pytest.mark.slow
def test_relation_doc_and_training_reader(tmp_path):
    nlp = spacy.blank("en")
    rels = [
        DiscourseRelation(
            "a",
            "Implicit",
            "It rained.",
            "We stayed in.",
            ["Contingency.Cause.Result", "Temporal.Asynchronous.Precedence"],
            "so",
        ),
        DiscourseRelation("b", "Explicit", "It rained.", "But we went out.", ["Comparison.Concession.Arg2-as-denier"]),
    ]
    doc = relation_doc(nlp, rels[0])
    arg1, arg2 = doc.spans["discourse_args"]
    assert (arg1.text, arg2.text) == ("It rained.", "We stayed in.")
    augmented = relation_doc(nlp, rels[0], connective="so")
    assert (
        augmented.text == "It rained. so We stayed in." and augmented.spans["discourse_args"][1].text == "We stayed in."
    )
    DocBin(docs=[relation_doc(nlp, r) for r in rels], store_user_data=True).to_disk(tmp_path / "c.spacy")
    train = list(create_discourse_reader([str(tmp_path / "c.spacy")], augment=True, split_senses=True)(nlp))
    # the explicit relation is filtered; two senses x (original + augmented) examples
    assert len(train) == 4
    assert [eg.reference._.discourse_gold["senses"] for eg in train] == [["Contingency.Cause.Result"]] * 2 + [
        ["Temporal.Asynchronous.Precedence"]
    ] * 2
    assert all(len(eg.predicted.spans["discourse_args"]) == 2 for eg in train)
    assert not any(eg.predicted._.discourse_gold for eg in train)  # the gold stays on the reference
    dev = list(create_discourse_reader([str(tmp_path / "c.spacy")], types=[])(nlp))
    assert len(dev) == 2 and dev[0].reference._.discourse_gold["senses"] == rels[0].senses


def test_reader_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="convert-discourse"):
        create_discourse_reader([str(tmp_path / "missing.spacy")])
    DocBin().to_disk(tmp_path / "empty.spacy")
    with pytest.raises(ValueError, match="no relations"):
        list(create_discourse_reader([str(tmp_path / "empty.spacy")])(spacy.blank("en")))
    with pytest.raises(ValueError, match="unknown GDTB split"):
        read_gdtb(tmp_path, "test2")
    with pytest.raises(FileNotFoundError, match="assets"):
        read_discogem(tmp_path, "train")
