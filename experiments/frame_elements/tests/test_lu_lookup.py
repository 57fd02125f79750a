"""The train-LU lookup of FEs on their target (frames_lab.fe_research.lu_lookup): by hand,
and through the study's `open-sesame-measure` command on the toy pipeline."""

import spacy
import srsly
from fe_toy import fe_corpus_with_target_fe
from frames_lab.fe_research.cli import app
from frames_lab.fe_research.lu_lookup import target_fe_lookup, with_target_fes
from spacy.tokens import DocBin, Span
from spacy.training import Example
from typer.testing import CliRunner

from spacy_frames.extensions import FE_KEY, FRAMES_KEY, TARGETS_KEY, install_extensions, make_fe_span
from spacy_frames.scoring.frame_elements import score_frame_elements_open_sesame


def test_train_lu_lookup_puts_the_usual_fe_on_the_target(tmp_path):
    install_extensions()
    nlp = spacy.blank("en")
    docs = []
    for text, on_target in [("The president resigned .", True)] * 2 + [("The president spoke .", False)]:
        doc = nlp.make_doc(text)
        president, verb = Span(doc, 1, 2, label="Leadership"), Span(doc, 2, 3, label="Quitting")
        president._.lexical_unit, verb._.lexical_unit = "president.n", "resign.v"
        doc.spans[TARGETS_KEY] = [president, verb]
        fes = [make_fe_span(verb, 0, 2, "Employee")]
        doc.spans[FE_KEY] = fes + ([make_fe_span(president, 1, 2, "Leader")] if on_target else [])
        docs.append(doc)
    DocBin(docs=docs, store_user_data=True).to_disk(tmp_path / "train.spacy")
    lookup = target_fe_lookup(tmp_path / "train.spacy", nlp.vocab)
    assert lookup == {("president.n", "Leadership"): "Leader"}  # 2 of 3; resign.v: never on its target

    gold, pred = nlp.make_doc("The president quit ."), nlp.make_doc("The president quit .")
    gold.spans[TARGETS_KEY] = [Span(gold, 1, 2, label="Leadership")]
    gold.spans[FE_KEY] = [make_fe_span(gold.spans[TARGETS_KEY][0], 1, 2, "Leader")]
    frame = Span(pred, 1, 2, label="Leadership")
    frame._.lexical_unit = "president.n"
    pred.spans[FRAMES_KEY] = [frame]
    eg = Example(pred, gold)
    (looked_up,) = with_target_fes([eg], lookup)
    assert [(fe.text, fe.label_, fe._.fe_frame) for fe in looked_up.predicted.spans[FE_KEY]] == [
        ("president", "Leader", "Leadership")
    ]
    assert FE_KEY not in eg.predicted.spans  # the examples themselves are left alone
    assert score_frame_elements_open_sesame([looked_up])["fe_os_f"] == 1.0


def test_open_sesame_measure_command_adds_the_lookup(trained_fe, toy_fe_corpus, tmp_path):
    """ "gift" is the Theme of Giving (in the toy training data, so the model predicts it
    too), "hand" the Body_part (only in the lookup's DocBin): with the lookup nothing is missed."""
    import shutil

    fn15 = fe_corpus_with_target_fe(toy_fe_corpus, tmp_path / "fn15")
    fn17 = tmp_path / "fn17"
    shutil.copytree(fn15, fn17)
    out = tmp_path / "fe.json"
    args = ["open-sesame-measure", str(trained_fe), "-o", str(out), "--fn15", str(fn15), "--fn17", str(fn17)]
    result = CliRunner().invoke(app, args + ["--end-to-end", "--lu-lookup", str(fn15 / "train.spacy")])
    assert result.exit_code == 0, result.output
    scores = srsly.read_json(out)
    dev = scores["fn15_dev"]
    assert dev["fe_os_r"] == round(100 * 14.5 / 15.5, 2)
    assert dev["with_lu_lookup"] == {key: 100.0 for key in ("fe_p", "fe_r", "fe_f", "fe_os_p", "fe_os_r", "fe_os_f")}
    assert scores["fn17_dev"]["with_lu_lookup"]["fe_os_f"] == 100.0
    assert 0.0 <= scores["fn15_test_end_to_end"]["with_lu_lookup"]["fe_os_f"] <= 100.0
    assert CliRunner().invoke(app, args).exit_code == 0  # without the lookup: the product's numbers only
    assert "with_lu_lookup" not in srsly.read_json(out)["fn15_dev"]
