"""media_framer on a tiny random BERT and toy articles."""

import numpy
import pytest
import spacy
from conftest import media_config, train_tiny, transformer_weights
from media_toy import ARTICLES, toy_articles
from spacy.tokens import Doc, DocBin
from spacy.training import Example
from typer.testing import CliRunner

from spacy_frames.cli import app
from spacy_frames.corpora.media_cache import write_body_cache
from spacy_frames.corpora.media_frames import BODY_VECTOR_KEY, MEDIA_FRAMES, article_doc
from spacy_frames.scoring.media import f1_scores, label_matrix
from spacy_frames.scoring.media_eval import evaluate_media

LONG = " ".join(["The minister defended the budget in parliament."] * 2500)  # 20,000 words


def initialized(tiny_bert, toy_media, transformer_dir, name="media_framer", **overrides):
    from spacy.training.initialize import init_nlp

    return init_nlp(media_config(tiny_bert, toy_media, transformer_dir, name, **overrides))


def toy_examples(nlp):
    return [Example(nlp.make_doc(a.text), article_doc(nlp, a)) for a in toy_articles()]


def test_add_pipe_default_config_and_bad_settings():
    nlp = spacy.blank("en")
    framer = nlp.add_pipe("media_framer")
    assert framer.labels == ()
    doc = nlp("An article about the budget.")
    assert doc._.media_frames == [] and doc.cats == {}  # not initialized: no frames
    with pytest.raises(ValueError, match="threshold"):
        spacy.blank("en").add_pipe("media_framer", config={"threshold": 1.5})
    with pytest.raises(ValueError, match="contrastive_weight"):
        spacy.blank("en").add_pipe("media_framer", config={"contrastive_weight": -1.0})
    with pytest.raises(ValueError, match="non-empty string"):
        framer.add_label("")
    with pytest.raises(ValueError, match="tok2vec"):
        spacy.blank("en").add_pipe(
            "media_framer", config={"model": {"@architectures": "spacy-frames.MediaFramer.v1", "tok2vec": None}}
        )


@pytest.mark.slow
def test_initialize_reads_frames_and_empty_corpus_fails(tiny_bert, toy_media, transformer_dir, tmp_path):
    nlp = initialized(tiny_bert, toy_media, transformer_dir)
    assert set(nlp.get_pipe("media_framer").labels) == set(MEDIA_FRAMES)
    DocBin().to_disk(tmp_path / "empty.spacy")
    with pytest.raises(ValueError, match="no articles"):
        initialized(tiny_bert, toy_media, transformer_dir, **{"paths.train": [str(tmp_path / "empty.spacy")]})


def test_overfits_toy_articles(trained_media):
    nlp = spacy.load(trained_media)
    predicted = []
    for text, _ in ARTICLES:
        doc = nlp(text)
        assert set(doc.cats) == set(MEDIA_FRAMES) and all(0.0 <= s <= 1.0 for s in doc.cats.values())
        assert doc._.media_frames == sorted(doc._.media_frames, key=lambda f: -doc.cats[f])
        predicted.append(doc._.media_frames)
    scores = f1_scores(label_matrix(f for _, f in ARTICLES), label_matrix(predicted))
    assert scores["micro_f1"] >= 0.8


def test_update_skips_examples_without_frames_and_rejects_unknown(tiny_bert, toy_media, transformer_dir):
    nlp = initialized(tiny_bert, toy_media, transformer_dir)
    plain = [Example(nlp.make_doc("No frames here."), nlp.make_doc("No frames here."))]
    assert nlp.update(plain)["media_framer"] == 0.0
    assert nlp.update(plain + toy_examples(nlp))["media_framer"] > 0.0
    bad = nlp.make_doc("Some text.")
    bad.cats = {"Sports": 1.0}
    with pytest.raises(ValueError, match="Sports"):
        nlp.update([Example(nlp.make_doc("Some text."), bad)])


def test_serialization_round_trips(trained_media, tmp_path):
    nlp = spacy.load(trained_media)
    framer = nlp.get_pipe("media_framer")
    framer.cfg["thresholds"] = {"Economic": 0.3}
    expected = nlp(ARTICLES[0][0])
    nlp.to_disk(tmp_path / "copy")
    loaded = spacy.load(tmp_path / "copy")
    assert loaded.get_pipe("media_framer").cfg["thresholds"] == {"Economic": pytest.approx(0.3)}
    assert loaded(ARTICLES[0][0]).cats == pytest.approx(expected.cats, abs=1e-6)
    other = spacy.load(trained_media)
    other.get_pipe("media_framer").from_bytes(framer.to_bytes())
    other.get_pipe("transformer").from_bytes(nlp.get_pipe("transformer").to_bytes())
    again = other(ARTICLES[0][0])
    assert again.cats == pytest.approx(expected.cats, abs=1e-6)
    assert other.get_pipe("media_framer").cfg["thresholds"] == {"Economic": pytest.approx(0.3)}


@pytest.mark.parametrize("n_process", [1, 2])
def test_pipe_equals_call_and_survives_docbin(trained_media, n_process):
    nlp = spacy.load(trained_media)
    texts = [ARTICLES[0][0], "", "   \n\n ", ARTICLES[4][0]]
    single = [nlp(t) for t in texts]
    piped = list(nlp.pipe(texts, n_process=n_process, batch_size=2))
    assert [d._.media_frames for d in piped] == [d._.media_frames for d in single]
    for a, b in zip(piped, single):
        assert a.cats == pytest.approx(b.cats, abs=1e-5)
    assert single[1]._.media_frames == [] and set(single[1].cats.values()) == {0.0}
    restored = list(
        DocBin(store_user_data=True).from_bytes(DocBin(docs=piped, store_user_data=True).to_bytes()).get_docs(nlp.vocab)
    )
    assert [d._.media_frames for d in restored] == [d._.media_frames for d in single]
    assert Doc(nlp.vocab).from_bytes(piped[0].to_bytes())._.media_frames == single[0]._.media_frames


@pytest.mark.slow
def test_very_long_doc(trained_media):
    nlp = spacy.load(trained_media)
    doc = nlp(LONG)
    assert len(doc) >= 20000 and set(doc.cats) == set(MEDIA_FRAMES)
    assert all(isinstance(f, str) for f in doc._.media_frames)


@pytest.mark.slow
def test_head_stage_uses_cached_body_and_keeps_transformer(
    trained_media, tiny_bert, toy_media, transformer_dir, tmp_path
):
    nlp = spacy.load(trained_media)
    cache = tmp_path / "body.msgpack"
    assert write_body_cache(nlp, "media_framer", [toy_media / "train.spacy"], cache) == len(ARTICLES)
    config = media_config(
        tiny_bert,
        toy_media,
        transformer_dir,
        "media_head",
        **{
            "paths.transformer": str(trained_media),
            "paths.body_cache": str(cache),
            "paths.media_init": str(trained_media),
        },
    )
    # a frozen, non-annotating transformer: the listener would fail without the cache
    post = spacy.load(train_tiny(config, tmp_path, 10, 5))
    before = transformer_weights(nlp)
    after = transformer_weights(post)
    assert all(numpy.array_equal(before[k], after[k]) for k in before)
    assert post.get_pipe("media_framer").labels == nlp.get_pipe("media_framer").labels


def test_prediction_ignores_cached_body_vectors(trained_media):
    # a cached vector steers training stages only: a doc carrying one is still encoded
    nlp = spacy.load(trained_media)
    doc = nlp.make_doc(ARTICLES[0][0])
    doc.user_data[BODY_VECTOR_KEY] = numpy.full(
        (nlp.get_pipe("transformer").model.get_dim("nO"),), 9.0, dtype="float32"
    )
    assert nlp(doc).cats == pytest.approx(nlp(ARTICLES[0][0]).cats, abs=1e-6)


@pytest.mark.slow
def test_init_from_starts_from_the_given_weights(trained_media, tiny_bert, toy_media, transformer_dir):
    nlp = initialized(
        tiny_bert,
        toy_media,
        transformer_dir,
        **{"paths.transformer": str(trained_media), "paths.media_init": str(trained_media)},
    )
    trained = spacy.load(trained_media)
    assert nlp(ARTICLES[2][0]).cats == pytest.approx(trained(ARTICLES[2][0]).cats, abs=1e-6)
    with pytest.raises(FileNotFoundError, match="not a trained media_framer"):
        initialized(tiny_bert, toy_media, transformer_dir, **{"paths.media_init": str(toy_media)})


@pytest.mark.slow
def test_linear_head_trains_and_bad_width_fails(tiny_bert, toy_media, transformer_dir):
    """hidden_width 0: the head is dropout + one linear layer over the bodies' features."""
    nlp = initialized(tiny_bert, toy_media, transformer_dir, **{"components.media_framer.model.hidden_width": 0})
    head = nlp.get_pipe("media_framer").model.get_ref("head")
    assert [layer.name for layer in head.layers] == ["dropout", "linear"]
    from thinc.api import Adam

    examples = toy_examples(nlp)
    optimizer = Adam(0.001)
    first = nlp.update(examples, sgd=optimizer)["media_framer"]
    for _ in range(30):
        last = nlp.update(examples, sgd=optimizer)["media_framer"]
    assert last < first
    with pytest.raises(ValueError, match="hidden_width"):
        spacy.blank("en").add_pipe(
            "media_framer", config={"model": {"@architectures": "spacy-frames.MediaFramer.v1", "hidden_width": -1}}
        )


@pytest.mark.slow
def test_use_body_alone_trains(tiny_bert):
    nlp = spacy.blank("en")
    model = {
        "@architectures": "spacy-frames.MediaFramer.v1",
        "tok2vec": None,
        "hidden_width": 16,
        "use_projection": 16,
        "use_vectors": {"@architectures": "spacy-frames.USEDocVectors.v1"},
    }
    framer = nlp.add_pipe("media_framer", config={"model": model, "contrastive_weight": 0.5})
    examples = toy_examples(nlp)
    optimizer = nlp.initialize(lambda: examples)
    first = nlp.update(examples, sgd=optimizer)["media_framer"]
    for _ in range(60):
        last = nlp.update(examples, sgd=optimizer)["media_framer"]
    assert last < first
    doc = nlp("Le ministre a défendu le budget au parlement.")  # any language: USE is multilingual
    assert set(doc.cats) == set(framer.labels)


@pytest.mark.slow
def test_thresholds_and_evaluate_cli(trained_media, toy_media, tmp_path):
    runner = CliRunner()
    result = runner.invoke(
        app, ["media-thresholds", str(trained_media), str(toy_media / "dev.spacy"), "--output", str(tmp_path / "tuned")]
    )
    assert result.exit_code == 0, result.output
    tuned = spacy.load(tmp_path / "tuned")
    framer = tuned.get_pipe("media_framer")
    assert set(framer.cfg["thresholds"]) == set(MEDIA_FRAMES)
    assert set(framer.cfg["threshold_tuning"]) == {"global", "shrinkage", "cv_micro_f1"}
    with pytest.raises(ValueError, match="2 thresholds for 14 frames"):
        framer.set_thresholds({"thresholds": [0.5, 0.5]})
    assert set(framer.cfg["thresholds"]) == set(MEDIA_FRAMES)
    scores = evaluate_media(tuned, "media_framer", [toy_media / "dev.spacy"])
    assert scores["en"]["n"] == len(ARTICLES) and 0.0 <= scores["all"]["micro_f1"] <= 1.0
    result = runner.invoke(
        app, ["evaluate-media", str(tmp_path / "tuned"), str(toy_media / "dev.spacy"), "-o", str(tmp_path / "s.json")]
    )
    assert result.exit_code == 0 and (tmp_path / "s.json").exists()
    result = runner.invoke(
        app, ["evaluate-media", str(tmp_path / "tuned"), str(toy_media / "dev.spacy"), "--component", "nope"]
    )
    assert result.exit_code == 1 and "no 'nope' component" in result.output
    result = runner.invoke(app, ["media-thresholds", str(tmp_path / "tuned"), str(tmp_path / "missing.spacy")])
    assert result.exit_code == 1 and "not found" in result.output


def test_use_reads_at_most_max_words_of_the_first_paragraphs():
    from spacy_frames.ml.media_framer import build_use_doc_vectors, paragraphs
    from spacy_frames.recipes.media import RECIPES

    text = "One two three.\n\n  four five\nsix seven eight nine\nten"
    assert paragraphs(text, 40) == ["One two three.", "four five", "six seven eight nine", "ten"]
    assert paragraphs(text, 40, max_words=5) == ["One two three.", "four five"]
    assert paragraphs(text, 40, max_words=7) == ["One two three.", "four five", "six seven"]
    assert paragraphs(text, 2, max_words=100) == ["One two three.", "four five"]
    assert paragraphs("a  b\tc d", 40, max_words=3) == ["a b c"]
    assert paragraphs("", 40, max_words=3) == []
    assert build_use_doc_vectors(max_words=256).attrs["max_words"] == 256
    with pytest.raises(ValueError, match="max_words must be >= 0"):
        build_use_doc_vectors(max_words=-1)
    # the capped recipes differ from the packaged one only in what USE reads
    capped = RECIPES["headboth-multi-en-a0-w512"]["stages"]
    packaged = RECIPES["headboth-multi-en-a0"]["stages"]
    assert [{k: v for k, v in stage.items() if k != "use_max_words"} for stage in capped] == packaged
    assert all(stage["use_max_words"] == 512 for stage in capped)


@pytest.mark.slow
def test_use_vectors_of_a_capped_article_are_those_of_its_first_words():
    from spacy_frames.ml.media_framer import build_use_doc_vectors

    nlp = spacy.blank("en")
    article = nlp("The minister defended the budget.\nCritics said the cuts would hurt schools and hospitals.")
    head = nlp("The minister defended the budget.\nCritics said")
    capped, full = build_use_doc_vectors(max_words=7), build_use_doc_vectors()
    numpy.testing.assert_allclose(capped.predict([article]), full.predict([head]), rtol=1e-5, atol=1e-6)
    assert not numpy.allclose(capped.predict([article]), full.predict([article]), atol=1e-3)
    numpy.testing.assert_allclose(
        build_use_doc_vectors(max_words=1000).predict([article]), full.predict([article]), rtol=1e-5, atol=1e-6
    )
