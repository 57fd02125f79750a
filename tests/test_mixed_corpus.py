"""spacy-frames.MixedCorpus.v1: several corpora as one training corpus, so components with
different annotation train together on one shared transformer."""

import copy

import pytest
import spacy
import srsly
from conftest import discourse_config, frames_config
from spacy.training import Example
from spacy.util import registry

from spacy_frames.corpora.readers import create_mixed_reader


def toy_reader(texts):
    def read(nlp):
        for text in texts:
            doc = nlp.make_doc(text)
            yield Example(doc, doc.copy())

    return read


def test_mixed_corpus_yields_each_corpus_its_repeats():
    reader = create_mixed_reader({"a": toy_reader(["one", "two"]), "b": toy_reader(["three"])}, {"b": 3})
    nlp = spacy.blank("en")
    assert [eg.reference.text for eg in reader(nlp)] == ["one", "two", "three", "three", "three"]
    # a second epoch yields the same
    assert len(list(reader(nlp))) == 5
    assert registry.readers.get("spacy-frames.MixedCorpus.v1") is create_mixed_reader


@pytest.mark.parametrize(
    "corpora,repeats,message",
    [
        ({}, {}, "no corpora"),
        ({"a": toy_reader(["x"])}, {"b": 2}, r"not given: \['b'\]"),
        ({"a": toy_reader(["x"])}, {"a": 0}, "integers >= 1"),
        ({"a": toy_reader(["x"])}, {"a": 1.5}, "integers >= 1"),
        ({"a": {"path": "train.spacy"}}, {}, r"\['a'\] are not corpus readers"),
    ],
)
def test_mixed_corpus_bad_settings(corpora, repeats, message):
    with pytest.raises(ValueError, match=message):
        create_mixed_reader(corpora, repeats)


def test_frames_and_discourse_train_together_on_one_transformer(
    tiny_bert, toy_corpus, toy_discourse, transformer_dir, tmp_path
):
    """frame_identifier (FrameNet examples) and discourse_sense (GDTB-style relations) as
    listeners of one transformer, on mixed batches: each learns from its own examples
    (its loss is logged), neither fails on the other's, and the
    trained pipeline annotates both."""
    from spacy.cli.train import train

    config = frames_config(tiny_bert, toy_corpus, **{"paths.transformer": str(transformer_dir)})
    discourse = discourse_config(tiny_bert, toy_discourse, transformer_dir)
    component = copy.deepcopy(discourse["components"]["discourse_sense"])
    component["separator"] = ""
    config["nlp"]["pipeline"] = [*config["nlp"]["pipeline"], "discourse_sense"]
    config["components"]["discourse_sense"] = component
    gdtb = {
        "@readers": "spacy-frames.DiscourseCorpus.v1",
        "paths": [str(toy_discourse / "train.spacy")],
        "types": ["Implicit"],
        "split_senses": True,
    }
    config["corpora"]["train"] = {
        "@readers": "spacy-frames.MixedCorpus.v1",
        "corpora": {"framenet": config["corpora"]["train"], "discourse": gdtb},
        "repeats": {"discourse": 2},
    }
    for key in ("disc_l1_acc", "disc_l1_macro_f1", "disc_l2_acc", "disc_l2_macro_f1"):
        config["training"]["score_weights"][key] = None
    config.to_disk(tmp_path / "config.cfg")
    train(
        tmp_path / "config.cfg",
        tmp_path,
        overrides={
            "training.max_steps": 12,
            "training.eval_frequency": 6,
            "training.logger.@loggers": "spacy.ConsoleLogger.v2",
            "training.logger.output_file": str(tmp_path / "log.jsonl"),
        },
    )
    log = list(srsly.read_jsonl(tmp_path / "log.jsonl"))
    assert log[-1]["losses"]["frame_identifier"] > 0
    assert log[-1]["losses"]["discourse_sense"] > 0
    nlp = spacy.load(tmp_path / "model-last")
    assert nlp.pipe_names[-1] == "discourse_sense"
    doc = nlp("The cat sat on the mat. Then it slept all day.")
    assert len(doc._.discourse_relations) == 1
    assert doc._.discourse_relations[0]["level1"]
    assert "frames" in doc.spans
