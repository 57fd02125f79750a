"""Mid-tuning on a tiny random BERT: both objectives run, the triplet loss goes down,
both encoders move, and the saved E1 is an encoder directory `paths.encoder` accepts."""

import pytest
import spacy
import srsly
from spacy.tokens import Doc, DocBin
from typer.testing import CliRunner

from spacy_frames.cli import app
from spacy_frames.losses.midtune import MidtunePairLoss, MidtuneTripletLoss
from spacy_frames.midtune.train import form_examples, midtune

# (words, heads, deps, pos, lemmas): parsed by hand, each verb with a subject and an object
PARSES = [
    (
        "She gave him a book .",
        [1, 1, 1, 4, 1, 1],
        ["nsubj", "ROOT", "dative", "det", "dobj", "punct"],
        ["PRON", "VERB", "PRON", "DET", "NOUN", "PUNCT"],
        ["she", "give", "he", "a", "book", "."],
    ),
    (
        "They bought a car .",
        [1, 1, 3, 1, 1],
        ["nsubj", "ROOT", "det", "dobj", "punct"],
        ["PRON", "VERB", "DET", "NOUN", "PUNCT"],
        ["they", "buy", "a", "car", "."],
    ),
    (
        "We walked home .",
        [1, 1, 1, 1],
        ["nsubj", "ROOT", "npadvmod", "punct"],
        ["PRON", "VERB", "NOUN", "PUNCT"],
        ["we", "walk", "home", "."],
    ),
    (
        "He raised his hand .",
        [1, 1, 3, 1, 1],
        ["nsubj", "ROOT", "poss", "dobj", "punct"],
        ["PRON", "VERB", "PRON", "NOUN", "PUNCT"],
        ["he", "raise", "his", "hand", "."],
    ),
]


def parsed_docs(vocab):
    docs = []
    for text, heads, deps, pos, lemmas in PARSES * 2:
        words = text.split()
        spaces = [True] * (len(words) - 1) + [False]
        docs.append(Doc(vocab, words=words, spaces=spaces, heads=heads, deps=deps, pos=pos, lemmas=lemmas))
    return docs


def config(tiny_bert, objective="triplet", steps=30):
    loss = MidtuneTripletLoss(margin=1.0) if objective == "triplet" else MidtunePairLoss()
    return {
        "paths": {"encoder": str(tiny_bert)},
        "midtune": {
            "form": "dependency",
            "objective": objective,
            "seed": 0,
            "max_steps": steps,
            "batch_size": 4,
            "learning_rate": 1e-3,
            "max_length": 32,
            "loss": loss,
        },
    }


def test_form_examples_pair_each_sentence_with_its_form_and_a_negative():
    examples = form_examples(parsed_docs(spacy.blank("en").vocab), "dependency", seed=0)
    assert len(examples) == 8
    sentence, positive, negatives = examples[0]
    assert sentence == "She gave him a book ." and positive.startswith("[PRED] give [ARG0] She")
    assert negatives and negatives[0] != positive


@pytest.mark.slow
def test_triplet_midtuning_lowers_its_loss_and_saves_an_encoder(tiny_bert, tmp_path):
    summary = midtune(config(tiny_bert), parsed_docs(spacy.blank("en").vocab), tmp_path / "mt", log=lambda _: None)
    assert summary["loss_last"] < summary["loss_first"]
    assert summary["weights_moved"]["E1"] > 0 and summary["weights_moved"]["E2"] > 0
    # E1 is an encoder directory the shared transformer accepts as paths.encoder
    from conftest import TEST_CONFIG_DIR

    cfg = spacy.util.load_config(TEST_CONFIG_DIR / "transformer.cfg", overrides={"paths.encoder": summary["encoder"]})
    nlp = spacy.util.load_model_from_config(cfg, auto_fill=True)
    nlp.initialize()
    doc = nlp("She gave him a book .")
    assert doc._.trf_data.tensors[0].shape[-1] == 64


@pytest.mark.slow
def test_held_out_sentences_are_not_trained_on_and_score_the_form_accuracy(tiny_bert, tmp_path):
    cfg = config(tiny_bert, steps=40)
    cfg["midtune"]["held_out"] = 4
    docs = parsed_docs(spacy.blank("en").vocab)
    summary = midtune(cfg, docs, tmp_path / "mt", log=lambda _: None)
    held = summary["held_out"]
    assert summary["sentences"] == 4 and held["sentences"] == 4 and held["examples"] == 4
    # the held-out copies of the same four sentences: trained on their twins, the form
    # accuracy is a share in [0, 100] measured before and after
    assert all(0.0 <= held[k] <= 100.0 for k in ("form_accuracy_before", "form_accuracy_after"))
    assert held["form_accuracy_after"] >= held["form_accuracy_before"]
    cfg["midtune"]["held_out"] = len(docs)
    import pytest

    with pytest.raises(ValueError, match="held_out"):
        midtune(cfg, docs, tmp_path / "x", log=lambda _: None)


def test_classification_objective_trains_both_encoders(tiny_bert, tmp_path):
    summary = midtune(
        config(tiny_bert, "classification", steps=6),
        parsed_docs(spacy.blank("en").vocab),
        tmp_path / "mt",
        log=lambda _: None,
    )
    assert summary["objective"] == "classification" and summary["weights_moved"]["E2"] > 0


def test_bad_settings_fail_clearly(tiny_bert, tmp_path):
    import pytest

    bad = config(tiny_bert)
    bad["midtune"]["objective"] = "classification"  # with the triplet loss
    with pytest.raises(ValueError, match="MidtunePairLoss"):
        midtune(bad, parsed_docs(spacy.blank("en").vocab), tmp_path / "x", log=lambda _: None)
    with pytest.raises(ValueError, match="form must be one of"):
        form_examples([], "propbank", seed=0)
    with pytest.raises(ValueError, match="no sentence has a non-empty"):
        midtune(config(tiny_bert), [spacy.blank("en")("Hello .")], tmp_path / "y", log=lambda _: None)


def test_midtune_cli(tiny_bert, tmp_path):
    docbin = DocBin(store_user_data=True, docs=parsed_docs(spacy.blank("en").vocab))
    docbin.to_disk(tmp_path / "parses.spacy")
    from conftest import TEST_CONFIG_DIR

    cfg_path = TEST_CONFIG_DIR / "midtune.cfg"
    args = [
        "midtune",
        str(cfg_path),
        str(tmp_path / "parses.spacy"),
        str(tmp_path / "out"),
        "--paths.encoder",
        str(tiny_bert),
        # the parses carry dependencies, not frames: the recipe's other form
        "--midtune.form",
        "dependency",
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert srsly.read_json(tmp_path / "out" / "summary.json")["steps"] == 4
    missing = CliRunner().invoke(app, ["midtune", str(cfg_path), str(tmp_path / "nope.spacy"), str(tmp_path / "o2")])
    assert missing.exit_code == 1 and "midtune-parse" in missing.output
    wrong = CliRunner().invoke(app, args[:4] + ["--paths.encoder", str(tmp_path / "no-encoder")])
    assert wrong.exit_code == 1 and "no-encoder" in wrong.output


def test_a_gpu_asked_for_without_one_fails_clearly(tiny_bert, tmp_path):
    import pytest
    import torch

    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    with pytest.raises(ValueError, match="asks for a GPU"):
        midtune(config(tiny_bert), parsed_docs(spacy.blank("en").vocab), tmp_path / "g", log=lambda _: None, gpu_id=0)
    assert not (tmp_path / "g").exists()  # nothing written
