"""frame_elements as a target-conditioned token tagger (frames_lab.fe_research.token_tagger,
factory frame_elements_bio): the window's rows, each token's gold tag, and the shipped
stage 2's tiny twin trained with it, fitted with the product's tuner."""

import numpy
import pytest
import spacy
from fe_toy import FES, gold_frames_doc, toy_fe_docs
from frames_lab.fe_research.token_tagger import build_fe_token_suggester
from spacy.tokens import Span
from spacy.training import Example

from spacy_frames.extensions import FRAMES_KEY
from spacy_frames.scoring.frame_elements_eval import fe_examples


def test_the_rows_are_every_token_of_the_targets_window_in_its_sentence():
    nlp = spacy.blank("en")
    doc = nlp.make_doc("Yesterday she gave him a gift . Then he left .")
    for i, token in enumerate(doc):
        token.is_sent_start = i in (0, 7)
    doc.spans[FRAMES_KEY] = [Span(doc, 2, 3, label="Giving"), Span(doc, 9, 10, label="Departing")]
    rows = build_fe_token_suggester(window=2)([doc]).dataXd.tolist()
    assert rows == [[2, 3, i, i + 1] for i in range(0, 5)] + [[9, 10, i, i + 1] for i in range(7, 11)]
    with pytest.raises(ValueError, match="window"):
        build_fe_token_suggester(window=0)


@pytest.fixture(scope="module")
def trained_bio(tiny_bert, trained_frames, toy_fe_corpus, tmp_path_factory):
    """configs/test/frames_stage2_fe.cfg (the shipped stage 2, tiny) with frame_elements_bio
    and the token suggester in place of the product's frame_elements."""
    from conftest import fe_config, train_tiny

    config = fe_config(tiny_bert, trained_frames, toy_fe_corpus)
    block = config["components"]["frame_elements"]
    block["factory"] = "frame_elements_bio"
    block["suggester"] = {"@misc": "frames-lab.fe_token_suggester.v1", "window": 30}
    return train_tiny(config, tmp_path_factory.mktemp("fe_bio"), 80, 20)


@pytest.mark.slow
def test_gold_tags_are_b_and_i_of_each_fe_of_the_target(trained_bio):
    nlp = spacy.load(trained_bio)
    pipe = nlp.get_pipe("frame_elements")
    assert nlp.get_pipe_meta("frame_elements").factory == "frame_elements_bio"
    assert {"B-Donor", "I-Donor", "B-Theme", "I-Theme"} <= set(pipe.fe_names)
    ref = toy_fe_docs(nlp.vocab)[0]  # "She gave him a gift ." Giving: Donor 0-1, Recipient 2-3, Theme 3-5
    doc = gold_frames_doc(nlp, ref)
    targets, candidates = pipe._candidates([doc], FRAMES_KEY)
    gold = pipe._gold_columns([Example(doc, ref)], targets, candidates)
    options = candidates.options[0].tolist()
    tags = ["O" if g == 0 else pipe.fe_names[options[g] - 1] for g in gold[: candidates.target_sizes[0]]]
    assert tags == ["B-Donor", "O", "B-Recipient", "B-Theme", "I-Theme", "O"]


@pytest.mark.slow
def test_the_tagger_learns_the_toy_fes_and_the_product_tuner_fits_it(trained_bio, toy_fe_corpus):
    nlp = spacy.load(trained_bio)
    with nlp.select_pipes(disable=["frame_identifier"]):
        docs = [nlp(gold_frames_doc(nlp, ref)) for ref in toy_fe_docs(nlp.vocab)]
    found = [{(fe.start, fe.end, fe.label_) for frame in doc._.frames for fe in frame._.frame_elements} for doc in docs]
    expected = [{fe for spans in doc_fes.values() for fe in spans} for doc_fes in FES]
    assert sum(len(f & e) for f, e in zip(found, expected)) >= 0.8 * sum(len(e) for e in expected)
    result = nlp.get_pipe("frame_elements").find_threshold(
        fe_examples(nlp, toy_fe_corpus / "dev.spacy"), nlp=nlp, thresholds=[-1.0, 0.0, 1.0]
    )
    assert result["best"]["fe_os_f"] >= 80.0
    assert numpy.isfinite(result["best"]["threshold"])
