"""frame_inducer on a tiny random BERT and toy verb instances."""

import numpy
import pytest
import spacy
from conftest import inducer_config
from inducer_toy import INSTANCES, toy_instance_docs
from spacy.tokens import Doc, DocBin, SpanGroup
from spacy.training import Example
from spacy.util import fix_random_seed, make_tempdir
from thinc.api import Adam

from spacy_frames.corpora.readers import copy_targets
from spacy_frames.ml.frame_inducer import initial_class_weights

# training and scoring run the pipeline before any centroids exist
pytestmark = pytest.mark.filterwarnings("ignore:.*has no cluster centroids")

LOSSES = [
    {"@losses": "spacy-frames.TripletLoss.v1", "margin": 0.2},
    {"@losses": "spacy-frames.ContrastiveLoss.v1", "pos_margin": 0.0, "neg_margin": 1.0},
    {"@losses": "spacy-frames.SoftmaxLoss.v1"},
    {"@losses": "spacy-frames.ArcFaceLoss.v1", "margin": 2.865, "scale": 64.0},
    {"@losses": "spacy-frames.AdaCosLoss.v1"},
]


def initialized(tiny_bert, toy_folds, transformer_dir, **overrides):
    """Initialize as `spacy train` does."""
    from spacy.training.initialize import init_nlp

    return init_nlp(inducer_config(tiny_bert, toy_folds, transformer_dir, **overrides))


def examples_for(nlp):
    examples = []
    for reference in toy_instance_docs(nlp.vocab):
        predicted = nlp.make_doc(reference.text)
        copy_targets(reference, predicted)
        examples.append(Example(predicted, reference))
    return examples


def preset(nlp, reference):
    doc = nlp.make_doc(reference.text)
    copy_targets(reference, doc)
    return doc


def induced(nlp, reference, attr="induced_frame"):
    doc = nlp(preset(nlp, reference))  # keep the doc alive while its spans are read
    return getattr(doc.spans["targets"][0]._, attr)


def fit_clusters(nlp):
    """Centroids from the toy instances, one cluster per gold frame."""
    from spacy_frames.scoring.induction_eval import embed_instances

    docs = toy_instance_docs(nlp.vocab)
    data = embed_instances(nlp, docs, with_mask=False, progress=False)
    nlp.get_pipe("frame_inducer").set_clusters(
        data["v_word"], list(data["frames"]), list(data["frames"]), info={"method": "gold"}
    )
    return docs


def test_default_config_add_pipe_offline_and_bad_settings():
    inducer = spacy.blank("en").add_pipe("frame_inducer")
    assert inducer.cfg["alpha"] == 0.0 and inducer.cfg["pos"] == ["VERB"]
    with pytest.raises(ValueError, match="needs a mask_encoder"):
        spacy.blank("en").add_pipe("frame_inducer", config={"alpha": 0.5})
    with pytest.raises(ValueError, match="alpha must be in"):
        spacy.blank("en").add_pipe("frame_inducer", config={"alpha": 1.5})
    with pytest.raises(ValueError, match="unknown POS"):
        spacy.blank("en").add_pipe("frame_inducer", config={"pos": ["VERBS"]})


def test_empty_training_corpus_fails_clearly(tiny_bert, toy_folds, transformer_dir):
    config = inducer_config(tiny_bert, toy_folds, transformer_dir)
    nlp = spacy.util.load_model_from_config(config, auto_fill=True)
    with pytest.raises(ValueError, match="training corpus is empty"):
        nlp.get_pipe("frame_inducer").initialize(lambda: iter([]), nlp=nlp)


@pytest.mark.slow
@pytest.mark.parametrize("loss", LOSSES, ids=lambda loss: loss["@losses"].split(".")[1])
def test_overfitting_every_loss(tiny_bert, toy_folds, transformer_dir, loss):
    fix_random_seed(0)
    nlp = initialized(tiny_bert, toy_folds, transformer_dir, **{"components.frame_inducer.loss": loss})
    inducer = nlp.get_pipe("frame_inducer")
    examples = examples_for(nlp)
    optimizer = Adam(0.001)
    history = []
    for _ in range(25):
        losses = {}
        nlp.update(examples, sgd=optimizer, losses=losses)
        history.append(losses["frame_inducer"])
    assert numpy.isfinite(history).all()
    assert history[-1] < history[0] * 0.7
    assert set(inducer.labels) == {row[2] for row in INSTANCES}
    scored = [Example(nlp(preset(nlp, eg.reference)), eg.reference) for eg in examples]
    assert inducer.score(scored)["induce_nn_acc"] >= 0.85


def test_update_skips_examples_without_targets(tiny_bert, toy_folds, transformer_dir):
    nlp = initialized(tiny_bert, toy_folds, transformer_dir)
    plain = [Example(nlp.make_doc("No targets here ."), nlp.make_doc("No targets here ."))]
    losses = nlp.update(plain, sgd=Adam(0.001), losses={})
    assert losses["frame_inducer"] == 0.0


def test_mask_encoder_is_tied_and_alpha_zero_skips_it(tiny_bert, toy_folds, transformer_dir):
    nlp = initialized(tiny_bert, toy_folds, transformer_dir)
    inducer = nlp.get_pipe("frame_inducer")
    mask_module = inducer.model.get_ref("mask_encoder").layers[0].shims[0]._model
    assert mask_module.encoder is nlp.get_pipe("transformer").model.layers[0].shims[0]._model
    docs = [nlp.get_pipe("transformer")(preset(nlp, doc)) for doc in toy_instance_docs(nlp.vocab)[:4]]
    v, v_word, v_mask = inducer.embed(docs)
    assert v_mask is None and v.shape == v_word.shape
    numpy.testing.assert_allclose(numpy.linalg.norm(v, axis=1), 1.0, rtol=1e-5)
    v, v_word, v_mask = inducer.embed(docs, alpha=0.3)
    assert v_mask.shape == v_word.shape and not numpy.allclose(v_mask, v_word)
    expected = 0.7 * v_word + 0.3 * v_mask
    numpy.testing.assert_allclose(
        v, expected / numpy.linalg.norm(expected, axis=1, keepdims=True), rtol=1e-4, atol=1e-6
    )
    # the tied weights are the transformer's to step: no optimizer state of ours for them
    optimizer = Adam(0.001)
    nlp.update(examples_for(nlp), sgd=optimizer, losses={})
    shim_id = inducer.model.get_ref("mask_encoder").layers[0].shims[0].id
    assert not any(key[0] == shim_id for key in optimizer.mom1)


def test_mask_in_training_trains_the_mixed_vector(tiny_bert, toy_folds, transformer_dir):
    """mask_in_training: the loss is on norm((1 - alpha) v_word + alpha v_mask); the masked
    pass's gradients reach the tied transformer weights within the same step."""
    nlp = initialized(
        tiny_bert,
        toy_folds,
        transformer_dir,
        **{"components.frame_inducer.alpha": 0.5, "components.frame_inducer.mask_in_training": True},
    )
    inducer = nlp.get_pipe("frame_inducer")
    examples = examples_for(nlp)
    docs = [nlp.get_pipe("transformer")(preset(nlp, doc)) for doc in toy_instance_docs(nlp.vocab)[:4]]
    _, _, mask_before = inducer.embed(docs)
    optimizer = Adam(0.001)
    first = nlp.update(examples, sgd=optimizer, losses={})["frame_inducer"]
    for _ in range(10):
        last = nlp.update(examples, sgd=optimizer, losses={})["frame_inducer"]
    docs = [nlp.get_pipe("transformer")(preset(nlp, doc)) for doc in toy_instance_docs(nlp.vocab)[:4]]
    _, _, mask_after = inducer.embed(docs)
    assert last < first and not numpy.allclose(mask_before, mask_after)
    shim_id = inducer.model.get_ref("mask_encoder").layers[0].shims[0].id
    assert not any(key[0] == shim_id for key in optimizer.mom1)


@pytest.mark.slow
def test_centroids_assign_frames_and_skip_other_pos(tiny_bert, toy_folds, transformer_dir, trained_inducer):
    nlp = spacy.load(trained_inducer)
    docs = fit_clusters(nlp)
    correct = 0
    for reference in docs:
        doc = nlp(preset(nlp, reference))
        span = doc.spans["targets"][0]
        assert span._.induced_frame.startswith("F")
        correct += span._.induced_frame_label == reference.spans["targets"][0].label_
    assert correct >= 0.75 * len(docs)
    # a noun target (untrained POS) and a non-verb token without LU get nothing
    doc = nlp.make_doc("She gave him a book .")
    doc.spans["targets"] = SpanGroup(doc, name="targets", spans=[doc[4:5], doc[1:2]])
    doc.spans["targets"][0]._.lexical_unit = "book.n"
    doc = nlp(doc)
    assert doc.spans["targets"][0]._.induced_frame is None


def test_frames_spans_are_preferred_over_targets(trained_inducer):
    nlp = spacy.load(trained_inducer)
    fit_clusters(nlp)
    doc = nlp.make_doc("He ran to the park .")
    ran = doc[1:2]
    ran._.lexical_unit = "run.v"
    doc.spans["frames"] = [ran]
    doc.spans["targets"] = []
    doc = nlp(doc)
    assert doc.spans["frames"][0]._.induced_frame is not None


def test_no_centroids_warns_and_leaves_none(trained_inducer):
    nlp = spacy.load(trained_inducer)
    with pytest.warns(UserWarning, match="no cluster centroids"):
        doc = nlp(preset(nlp, toy_instance_docs(nlp.vocab)[0]))
    assert doc.spans["targets"][0]._.induced_frame is None


@pytest.mark.slow
def test_serialization_roundtrips(trained_inducer):
    nlp = spacy.load(trained_inducer)
    fit_clusters(nlp)
    refs = toy_instance_docs(nlp.vocab)
    expected = [induced(nlp, r) for r in refs]
    with make_tempdir() as tmp:
        nlp.to_disk(tmp)
        loaded = spacy.load(tmp)
    from_bytes = spacy.load(trained_inducer)
    from_bytes.get_pipe("frame_inducer").from_bytes(nlp.get_pipe("frame_inducer").to_bytes())
    for other in (loaded, from_bytes):
        inducer = other.get_pipe("frame_inducer")
        assert inducer.cluster_labels == nlp.get_pipe("frame_inducer").cluster_labels
        got = [induced(other, r) for r in toy_instance_docs(other.vocab)]
        assert got == expected
    # exclude works for every key
    data = nlp.get_pipe("frame_inducer").to_bytes(exclude=["centroids", "clusters"])
    fresh = spacy.load(trained_inducer).get_pipe("frame_inducer").from_bytes(data)
    assert not fresh.centroids.names


@pytest.mark.parametrize("n_process", [1, 2])
def test_pipe_equals_call_and_survives_docbin(trained_inducer, n_process):
    nlp = spacy.load(trained_inducer)
    fit_clusters(nlp)
    refs = toy_instance_docs(nlp.vocab)
    single = [induced(nlp, r) for r in refs]
    piped = list(nlp.pipe([preset(nlp, r) for r in refs], n_process=n_process, batch_size=4))
    assert [d.spans["targets"][0]._.induced_frame for d in piped] == single
    docs = list(DocBin(docs=piped, store_user_data=True).get_docs(nlp.vocab))
    restored = (
        DocBin(store_user_data=True).from_bytes(DocBin(docs=piped, store_user_data=True).to_bytes()).get_docs(nlp.vocab)
    )
    assert [d.spans["targets"][0]._.induced_frame_label for d in restored] == [
        d.spans["targets"][0]._.induced_frame_label for d in docs
    ]


def test_empty_long_and_targetless_docs(trained_inducer):
    nlp = spacy.load(trained_inducer)
    fit_clusters(nlp)
    assert len(nlp("")) == 0
    assert nlp("No targets at all here .").spans.get("targets") is None
    words = ("She gave him a book and they walked home . " * 300).split()
    doc = Doc(nlp.vocab, words=words)
    spans = [doc[i : i + 1] for i, w in enumerate(words) if w in ("gave", "walked")]
    for span in spans:
        span._.lexical_unit = "give.v" if span.text == "gave" else "walk.v"
    doc.spans["targets"] = spans
    doc = nlp(doc)
    assert all(span._.induced_frame is not None for span in doc.spans["targets"])
    assert len(doc) == len(words) == 3000


def test_model_with_projection_head(tiny_bert, toy_folds, transformer_dir):
    nlp = initialized(tiny_bert, toy_folds, transformer_dir, **{"components.frame_inducer.model.projection_width": 16})
    inducer = nlp.get_pipe("frame_inducer")
    docs = [nlp.get_pipe("transformer")(preset(nlp, doc)) for doc in toy_instance_docs(nlp.vocab)[:3]]
    v, _, _ = inducer.embed(docs)
    assert v.shape == (3, 16)
    losses = nlp.update(examples_for(nlp), sgd=Adam(0.001), losses={})
    assert losses["frame_inducer"] > 0


@pytest.mark.slow
def test_head_on_frozen_transformer_trains_only_the_head(tiny_bert, toy_folds, transformer_dir, tmp_path):
    """configs/test/inducer_head.cfg: the sourced transformer annotates and stays as it was."""
    from conftest import component_config, train_tiny, transformer_weights

    config = component_config(
        "inducer_head", tiny_bert, transformer_dir, toy_folds / "fold0.spacy", toy_folds / "fold1.spacy"
    )
    trained = spacy.load(train_tiny(config, tmp_path, 10, 5))
    before, after = transformer_weights(spacy.load(transformer_dir)), transformer_weights(trained)
    assert before.keys() == after.keys() and all(numpy.array_equal(before[k], after[k]) for k in before)
    assert trained.get_pipe("frame_inducer").model.get_ref("projection").get_dim("nO") == 16


def _unit(*rows):
    rows = numpy.asarray(rows, dtype="float32")
    return rows / numpy.linalg.norm(rows, axis=1, keepdims=True)


def toy_fit():
    """Fit-time instances in 2-d: "run" in clusters A (about 3 degrees) and B (84);
    "walk" in C (44), between them; "go" in A too (at -45), which pulls A's centroid to
    -13 degrees, away from run's sense in A."""
    vectors = _unit([1, 0], [1, 0.1], [0.2, 1], [0, 1], [1, 1], [1, 0.9], [1, -1])
    clusters = ["A", "A", "B", "B", "C", "C", "A"]
    lemmas = ["run", "run", "run", "run", "walk", "walk", "go"]
    return vectors, clusters, lemmas


def test_seen_verb_goes_to_its_own_clusters_unseen_to_nearest():
    inducer = spacy.blank("en").add_pipe("frame_inducer")
    assert inducer.cfg["assignment"] == "verb"
    vectors, clusters, lemmas = toy_fit()
    ids = inducer.set_clusters(vectors, clusters, frames=None, lemmas=lemmas)
    name = dict(zip(clusters, ids))
    assert inducer.seen_lemmas == ["go", "run", "walk"]
    assert inducer.cluster_info["n_lemmas"] == 3 and inducer.cluster_info["n_senses"] == 4
    query = _unit([1, 0.95], [1, 0.95], [1, 0.95])  # nearest centroid overall: C
    names = inducer.centroids.names
    got = lambda lemmas, how=None: [names[i] for i in inducer.assign(query, lemmas, how)]
    assert got(["run", "walk", "unseen"], "nearest") == [name["C"]] * 3
    # run never was in C: it goes to the nearer of its own clusters; an unseen verb to C
    assert got(["run", "walk", "unseen"]) == [name["B"], name["C"], name["C"]]
    # at 40 degrees: B's centroid (84) is nearer than A's (-13), run's sense in A (3) nearer than B's
    sense_query = _unit([1, 0.839])
    assert [names[i] for i in inducer.assign(sense_query, ["run"], "verb")] == [name["B"]]
    assert [names[i] for i in inducer.assign(sense_query, ["run"], "verb_sense")] == [name["A"]]
    with pytest.raises(ValueError, match="unknown assignment"):
        inducer.assign(query, ["run"] * 3, "closest")
    with pytest.raises(ValueError, match="unknown assignment"):
        spacy.blank("en").add_pipe("frame_inducer", config={"assignment": "closest"})
    # without lemmas at fit time every target gets the nearest centroid overall
    inducer.set_clusters(vectors, clusters)
    assert not inducer.seen_lemmas and got(["run"] * 3) == [name["C"]] * 3


# the assignment is a run-time setting: a loaded component takes it from its own config
SENSES = {"assignment": "verb_sense"}


def test_verb_senses_survive_serialization():
    nlp = spacy.blank("en")
    inducer = nlp.add_pipe("frame_inducer", config=SENSES)
    vectors, clusters, lemmas = toy_fit()
    inducer.set_clusters(vectors, clusters, frames=None, lemmas=lemmas)
    query, query_lemmas = _unit([1, 0.839], [1, 0.95], [1, 0.95]), ["run", "run", "new"]
    expected = inducer.assign(query, query_lemmas)
    for loaded in (
        spacy.blank("en").add_pipe("frame_inducer", config=SENSES).from_bytes(inducer.to_bytes()),
        _via_disk(inducer),
    ):
        assert loaded.cfg["assignment"] == "verb_sense" and loaded.seen_lemmas == inducer.seen_lemmas
        assert loaded.senses["clusters"] == inducer.senses["clusters"]
        numpy.testing.assert_array_equal(loaded.senses["vectors"], inducer.senses["vectors"])
        numpy.testing.assert_array_equal(loaded.assign(query, query_lemmas), expected)
    # a pipeline saved before senses were kept still loads (nearest centroid overall)
    with make_tempdir() as tmp:
        inducer.to_disk(tmp)
        (tmp / "senses").unlink()
        old = spacy.blank("en").add_pipe("frame_inducer").from_disk(tmp)
    assert not old.seen_lemmas and len(old.centroids.names) == 3


def _via_disk(inducer):
    with make_tempdir() as tmp:
        inducer.to_disk(tmp)
        return spacy.blank("en").add_pipe("frame_inducer", config=SENSES).from_disk(tmp)


def test_induce_stores_verb_clusters_and_the_pipeline_uses_them(trained_inducer, tmp_path):
    """`spacy-frames induce --store-centroids`: the stored pipeline puts a seen verb's
    target into one of the clusters its fit instances were in."""
    from spacy_frames.recipes.inducer import induce

    source = tmp_path / "input.spacy"
    DocBin(docs=toy_instance_docs(spacy.blank("en").vocab), store_user_data=True).to_disk(source)
    stored = tmp_path / "stored"
    result = induce(
        str(trained_inducer),
        source,
        tmp_path / "out.spacy",
        method="two-step",
        calibrate_on_input=True,
        store_centroids=stored,
        progress=False,
    )
    assert result["n_lemmas"] == len({row[3] for row in INSTANCES})
    nlp = spacy.load(stored)
    inducer = nlp.get_pipe("frame_inducer")
    fitted = {}
    for doc in DocBin().from_disk(tmp_path / "out.spacy").get_docs(nlp.vocab):
        span = doc.spans["targets"][0]
        fitted.setdefault(span._.lexical_unit.split(".")[0], set()).add(span._.induced_frame)
    assert {
        lemma: set(c for l, c in zip(inducer.senses["lemmas"], inducer.senses["clusters"]) if l == lemma)
        for lemma in inducer.seen_lemmas
    } == fitted
    # an unseen sentence of a seen verb: one of that verb's clusters
    doc = nlp.make_doc("They walked to the river .")
    doc.spans["targets"] = [doc[1:2]]
    doc.spans["targets"][0]._.lexical_unit = "walk.v"
    assert nlp(doc).spans["targets"][0]._.induced_frame in fitted["walk"]


@pytest.mark.slow
def test_class_weights_are_a_model_parameter_with_their_own_learning_rate(tiny_bert, toy_folds, transformer_dir):
    """Classification losses: the class weights live in the model (stepped by
    finish_update, serialized with it) and move class_lr_scale times faster."""
    softmax = {"components.frame_inducer.loss": {"@losses": "spacy-frames.SoftmaxLoss.v1"}}
    moved = {}
    for scale in (1.0, 100.0):
        fix_random_seed(0)
        nlp = initialized(
            tiny_bert, toy_folds, transformer_dir, **softmax, **{"components.frame_inducer.class_lr_scale": scale}
        )
        inducer = nlp.get_pipe("frame_inducer")
        head = inducer.model.get_ref("class_weights")
        before = head.get_param("W").copy()
        assert before.shape == (inducer.cfg["max_classes"], inducer.model.get_dim("nO"))
        # the seeded start that `frame_induction_experiment.py class-weights` measures from
        numpy.testing.assert_array_equal(before, initial_class_weights(*before.shape))
        optimizer = Adam(0.0001)
        examples = examples_for(nlp)
        for _ in range(5):
            nlp.update(examples, sgd=optimizer, losses={})
        n = len(inducer.labels)
        moved[scale] = float(numpy.abs(head.get_param("W")[:n] - before[:n]).max())
    # Adam moves an element by at most about lr per step at scale 1
    assert moved[1.0] < 5 * 0.0001 * 1.5
    assert moved[100.0] > 0.01 > 10 * moved[1.0]
    # serialized with the model
    data = inducer.to_bytes()
    fresh = initialized(tiny_bert, toy_folds, transformer_dir, **softmax).get_pipe("frame_inducer")
    fresh.from_bytes(data)
    numpy.testing.assert_array_equal(fresh.model.get_ref("class_weights").get_param("W"), head.get_param("W"))
    # losses without class weights leave the parameter unset
    triplet = initialized(tiny_bert, toy_folds, transformer_dir).get_pipe("frame_inducer")
    assert not triplet.model.get_ref("class_weights").has_param("W")


@pytest.mark.slow
def test_packaged_scoring_against_one_cluster_per_verb(trained_inducer, tmp_path):
    """scripts/evaluate_inducer.py: every assignment rule run through
    the pipeline on the gold verb targets, beside one cluster per verb lemma."""

    import evaluate_inducer

    from spacy_frames.recipes.inducer import induce

    source = tmp_path / "input.spacy"
    DocBin(docs=toy_instance_docs(spacy.blank("en").vocab), store_user_data=True).to_disk(source)
    induce(
        str(trained_inducer),
        source,
        tmp_path / "out.spacy",
        calibrate_on_input=True,
        store_centroids=tmp_path / "m",
        progress=False,
    )
    nlp = spacy.load(tmp_path / "m")
    docs = toy_instance_docs(nlp.vocab)
    # a noun target is not scored, and an unseen verb counts as unseen
    docs[0].spans["targets"] = list(docs[0].spans["targets"]) + [docs[0][3:4]]
    docs[0].spans["targets"][1].label_ = "Text"
    docs[0].spans["targets"][1]._.lexical_unit = "book.n"
    docs[1].spans["targets"][0]._.lexical_unit = "donate.v"
    result = evaluate_inducer.score_packaged(nlp, docs)
    assert (
        result["data"]["n_verb_targets"] == len(INSTANCES)
        and result["data"]["n_targets_seen_at_fit"] == len(INSTANCES) - 1
    )
    for assignment in ("nearest", "verb", "verb_sense"):
        scores = result[assignment]
        assert scores["all"]["n"] == len(INSTANCES) and scores["seen"]["n"] + scores["unseen"]["n"] == len(INSTANCES)
        assert (
            0 < scores["all"]["bcf"] <= 100
            and scores["all"]["1cpv"]["n_clusters"] == len({r[3] for r in INSTANCES}) + 1
        )
    assert result["configured_assignment"] == nlp.get_pipe("frame_inducer").cfg["assignment"] == "verb"
