"""The mid-tuning sentence sample: train-side text only, seeded, balanced, counted."""

import pytest
import spacy
import srsly
from spacy.tokens import DocBin
from typer.testing import CliRunner

from spacy_frames.cli import app
from spacy_frames.midtune.sample import _quotas, build_sample, write_sample

SHARED = "The committee finally decided to postpone the important vote."


def fake_tree(tmp_path):
    assets, corpus = tmp_path / "assets", tmp_path / "corpus"
    gdtb = assets / "discourse" / "gdtb"
    (gdtb / "pdtb" / "raw").mkdir(parents=True)
    (gdtb / "splits.md").write_text(
        "# Splits\n\n## dev\n\n  * GUM_news_dev\n\n## test\n\n  * GUM_news_test\n\n## train\n\n"
        "  * GUM_news_train\n  * GUM_reddit_train\n"
    )
    raw = gdtb / "pdtb" / "raw"
    raw.joinpath("GUM_news_train").write_text(f"The river flooded the old town last spring. {SHARED} Too short.")
    raw.joinpath("GUM_reddit_train").write_text("The blanked reddit text is never sampled here.")
    raw.joinpath("GUM_news_dev").write_text("Nobody expected the dev sentence to appear anywhere else.")
    raw.joinpath("GUM_news_test").write_text(f"{SHARED}")
    dg = assets / "discourse" / "discogem"
    dg.mkdir(parents=True)
    (dg / "DiscoGeMcorpus_datasplits.csv").write_text(
        "itemid,datasource,genre,subgenre,orig_lang,split,10fold_split\n"
        "a1,x,novel,,English,train,1\na2,x,novel,,English,test,2\n"
    )
    (dg / "DiscoGeMcorpus_annotations_nonwide.noPDTB.csv").write_text(
        "Relation,Genre,Datasource,Itemid,SemClass,Arg1_RawText,Arg2_RawText\n"
        'implicit ,novel,x,a1,result,"The old farmer sold his horses at the market.","He bought a small boat with the money."\n'
        'implicit ,novel,x,a2,result,"The test argument must never be sampled again.","Its second argument stays out as well."\n'
    )
    nlp = spacy.blank("en")
    for path, texts in {
        corpus / "media_frames" / "en_train.spacy": ["Lawmakers argued that the new tax would hurt small firms."],
        corpus / "media_frames" / "en_dev.spacy": ["The dev article talks about the border and its guards."],
        corpus / "media_frames" / "en_test.spacy": ["The test article talks about the budget and its cuts."],
        corpus / "framenet15" / "exemplars.spacy": ["She gave her brother a book about frames.", SHARED],
        corpus / "framenet15" / "dev.spacy": ["A framenet dev sentence is also kept out here."],
        corpus / "framenet15" / "test.spacy": ["A framenet test sentence is also kept out here."],
    }.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        DocBin(docs=[nlp(t) for t in texts]).to_disk(path)
    return assets, corpus


@pytest.mark.slow
def test_sample_keeps_to_train_text_and_counts_it(tmp_path):
    assets, corpus = fake_tree(tmp_path)
    records, counts = build_sample(assets, corpus, size=100, seed=0)
    texts = {r["text"] for r in records}
    assert SHARED not in texts  # a train sentence that is also test text is dropped
    assert not any(word in t for t in texts for word in ("dev", "test", "reddit", "Too short"))
    assert {r["source"] for r in records} == {"gum", "discogem", "semeval", "framenet"}
    assert counts["sources"]["gum"]["excluded_sentences"] == 1 and counts["total"] == len(records) == 5
    again, _ = build_sample(assets, corpus, size=100, seed=0)
    assert again == records
    write_sample(tmp_path / "out", records, counts)
    assert len(list(srsly.read_jsonl(tmp_path / "out" / "sentences.jsonl"))) == 5
    assert srsly.read_json(tmp_path / "out" / "counts.json")["sources"]["framenet"]["sampled"] == 1


def test_quotas_share_out_what_small_sources_leave():
    assert _quotas({"a": 1, "b": 100, "c": 100}, 30) == {"a": 1, "b": 15, "c": 14}
    assert _quotas({"a": 1, "b": 2}, 10) == {"a": 1, "b": 2}


def test_cli_reports_a_missing_source(tmp_path):
    result = CliRunner().invoke(
        app,
        ["midtune-sample", "--assets", str(tmp_path / "none"), "--corpus", str(tmp_path), "--out", str(tmp_path / "o")],
    )
    assert result.exit_code == 1 and "spacy project run assets" in result.output
