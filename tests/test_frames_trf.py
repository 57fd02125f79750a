"""en_frames_trf as `spacy assemble` builds it (configs/test/frames_trf.cfg), on tiny models."""

import pytest
import spacy
import srsly
from inducer_toy import toy_instance_docs
from test_frame_inducer import fit_clusters, induced, preset

from spacy_frames.extensions import FE_KEY
from spacy_frames.ml.threads import thinc_models

# training and scoring run the pipeline before any centroids exist
pytestmark = pytest.mark.filterwarnings("ignore:.*has no cluster centroids")


@pytest.mark.slow
def test_assembled_frames_trf_runs_on_raw_text_and_preset_targets(
    tiny_frames_trf, trained_fe, trained_inducer_head, trained_discourse_head, trained_media_head
):
    """configs/test/frames_trf.cfg: frame_identifier's pipeline + frame_elements, the inducer,
    discourse_sense and media_framer as heads on its transformer, as `spacy assemble` builds
    en_frames_trf."""
    from spacy_frames.tools.annotate import format_doc

    inducer_nlp = spacy.load(trained_inducer_head)
    fit_clusters(inducer_nlp)
    nlp = spacy.load(tiny_frames_trf)
    assert nlp.pipe_names[-5:] == [
        "frame_identifier",
        "frame_elements",
        "frame_inducer",
        "discourse_sense",
        "media_framer",
    ]
    assert not nlp.disabled
    # every CPU layer multiplies through numpy's BLAS (the config's after_pipeline_creation)
    models = [model for _, pipe in nlp.pipeline for model in thinc_models(pipe)]
    assert len(models) >= 6 and all(not node.ops.use_blis for model in models for node in model.walk())
    # frame_elements labels frame_identifier's frames, on the shared transformer, with the
    # FEs that the standalone component (its own frozen copy of that transformer) gives
    from fe_toy import toy_fe_docs

    standalone_fe = spacy.load(trained_fe)
    for ref in toy_fe_docs(nlp.vocab):
        doc = nlp(ref.text)
        assert doc.has_annotation("DEP") and FE_KEY in doc.spans
        preset_frames = standalone_fe.make_doc(ref.text)
        preset_frames.spans["frames"] = [
            preset_frames.char_span(f.start_char, f.end_char, label=f.label_) for f in doc._.frames
        ]
        expected = standalone_fe(preset_frames)
        assert [[(fe.start, fe.end, fe.label_) for fe in f._.frame_elements] for f in doc._.frames] == [
            [(fe.start, fe.end, fe.label_) for fe in f._.frame_elements] for f in expected._.frames
        ]
    # the inducer embeds with the shared transformer, which is the frozen one it was trained
    # on: same clusters as the standalone inducer
    for reference in toy_instance_docs(nlp.vocab)[:6]:
        doc = nlp(preset(nlp, reference))
        frame_spans = doc.spans["frames"]
        assert len(frame_spans) == 1
        assert frame_spans[0]._.induced_frame == induced(inducer_nlp, reference)
        assert f"induced {frame_spans[0]._.induced_frame}" in format_doc(doc)
    doc = nlp("The committee decided to postpone the vote after protesters blocked the entrance.")
    assert all(
        span._.induced_frame is not None
        for span in doc._.frames
        if span._.lexical_unit and span._.lexical_unit.endswith(".v")
    )
    assert nlp("")._.frames == [] and nlp("")._.discourse_relations == []
    # discourse_sense reads the shared transformer (no copy of its own, no second pass):
    # the same relations as the standalone head on the same transformer
    text = "Prices rose sharply. So demand outpaced the supply of grain. Then they boarded the train to Berlin."
    relations = nlp(text)._.discourse_relations
    assert len(relations) == 2
    discourse = nlp.get_pipe("discourse_sense")
    assert any(node in nlp.get_pipe("transformer").listeners for node in discourse.model.walk())
    assert not {"transformer", "hf-pytorch"} & {node.name for node in discourse.model.walk()}
    model_bytes = lambda component: len(srsly.msgpack_loads(component.to_bytes(exclude=["vocab"]))["model"])
    assert model_bytes(discourse) < model_bytes(nlp.get_pipe("transformer"))
    standalone = spacy.load(trained_discourse_head)

    def given_pair(pipeline, relation):
        doc = pipeline.make_doc(text)
        doc.spans["discourse_args"] = [
            doc.char_span(*relation["arg1"], alignment_mode="expand"),
            doc.char_span(*relation["arg2"], alignment_mode="expand"),
        ]
        return pipeline(doc)._.discourse_relations[0]

    for relation in relations:
        got, expected = given_pair(nlp, relation), given_pair(standalone, relation)
        assert got["sense"] == expected["sense"] and got["score"] == pytest.approx(expected["score"], abs=1e-4)
    assert "discourse relations:" in format_doc(nlp(text))
    # media_framer reads the shared transformer too: the same frame scores as the standalone head
    from media_toy import ARTICLES

    media = nlp.get_pipe("media_framer")
    assert any(node in nlp.get_pipe("transformer").listeners for node in media.model.walk())
    standalone = spacy.load(trained_media_head)(ARTICLES[3][0])
    doc = nlp(ARTICLES[3][0])
    assert doc.cats == pytest.approx(standalone.cats, abs=1e-5) and doc._.media_frames == standalone._.media_frames


def test_mixed_task_batches_still_update_the_shared_transformer(tiny_bert, toy_folds, toy_discourse, transformer_dir):
    """transformer + frame_inducer + discourse_sense on one transformer: a batch with only
    frame-induction examples updates the transformer although the last listener
    (discourse_sense) has nothing to learn from it, and vice versa."""
    import numpy
    from conftest import discourse_config, inducer_config
    from test_discourse_sense import toy_examples
    from test_frame_inducer import examples_for
    from thinc.api import Adam

    config = discourse_config(tiny_bert, toy_discourse, transformer_dir).interpolate()
    inducer = inducer_config(tiny_bert, toy_folds, transformer_dir).interpolate()
    config["components"]["frame_inducer"] = inducer["components"]["frame_inducer"]
    config["nlp"]["pipeline"] = ["transformer", "frame_inducer", "discourse_sense"]
    nlp = spacy.util.load_model_from_config(config, auto_fill=True, validate=True)
    induction, discourse = examples_for(nlp), toy_examples(nlp)
    nlp.initialize(lambda: induction + discourse)
    listeners = nlp.get_pipe("transformer").listeners
    assert len(listeners) == 2

    def weights():
        module = nlp.get_pipe("transformer").model.layers[0].shims[0]._model
        return numpy.concatenate([t.detach().numpy().ravel() for t in module.parameters()])

    optimizer = Adam(0.01)
    for batch in (induction, discourse):
        before = weights()
        # as `spacy train` does: every update first, then every component steps
        losses = nlp.update(batch, sgd=False)
        for _, proc in nlp.pipeline:
            proc.finish_update(optimizer)
        assert not numpy.allclose(before, weights()), f"the transformer did not step ({losses})"


@pytest.fixture(scope="module")
def own_copy_frames_trf(
    trained_frames, trained_fe, trained_inducer, trained_discourse_head, trained_media_head, tmp_path_factory
):
    """The tiny pipeline with an inducer that fine-tuned its own encoder copy (configs/test/inducer.cfg,
    alpha > 0 possible), moved into the component by replace_listeners."""
    from conftest import assemble_frames_trf

    tmp = tmp_path_factory.mktemp("frames_trf_own_inducer")
    inducer_nlp = spacy.load(trained_inducer)
    fit_clusters(inducer_nlp)
    inducer_nlp.to_disk(tmp / "inducer")
    return assemble_frames_trf(
        tmp / "frames_trf",
        trained_frames,
        trained_fe,
        tmp / "inducer",
        trained_discourse_head,
        trained_media_head,
        **{"components.frame_inducer.replace_listeners": ["model.tok2vec"]},
    )


@pytest.mark.slow
def test_packaged_head_inducer_listens_to_the_shared_transformer_and_stores_no_encoder(
    tiny_frames_trf, own_copy_frames_trf
):
    """The packaged inducer (a head, alpha 0, mask_encoder null) adds no transformer weights to
    the pipeline, runs no second pass, and says clearly that it cannot mix in v_mask."""
    nlp = spacy.load(tiny_frames_trf)
    inducer = nlp.get_pipe("frame_inducer")
    from spacy_frames.ml.frame_inducer import optional_ref

    assert inducer.cfg["alpha"] == 0.0 and optional_ref(inducer.model, "mask_encoder") is None
    assert any(node in nlp.get_pipe("transformer").listeners for node in inducer.model.walk())
    own = spacy.load(own_copy_frames_trf).get_pipe("frame_inducer")
    # the head's model is its projection; the own-copy inducer's carries a whole transformer
    # (its mask encoder saved once with it)
    model_bytes = lambda component: len(srsly.msgpack_loads(component.to_bytes(exclude=["vocab"]))["model"])
    transformer_bytes = model_bytes(nlp.get_pipe("transformer"))
    assert model_bytes(inducer) < 0.05 * transformer_bytes and model_bytes(own) > 0.9 * transformer_bytes
    with pytest.raises(ValueError, match="needs a mask_encoder"):
        inducer.set_alpha(0.5)
    # its clusters and assignments survive to_bytes / from_bytes
    reloaded = spacy.load(tiny_frames_trf)
    reloaded.get_pipe("frame_inducer").from_bytes(inducer.to_bytes())
    for reference in toy_instance_docs(nlp.vocab)[:4]:
        got, expected = reloaded(preset(reloaded, reference)), nlp(preset(nlp, reference))
        assert got.spans["frames"][0]._.induced_frame == expected.spans["frames"][0]._.induced_frame is not None


@pytest.mark.slow
def test_assembled_inducer_saves_its_tied_mask_encoder_once(own_copy_frames_trf, trained_inducer):
    """After replace_listeners the inducer's mask encoder runs the same weights as its own
    transformer copy: they are saved once and tied again on load, with the same v_mask."""
    import copy

    import torch

    from spacy_frames.pipeline.sharing import own_transformer_wrapper

    nlp = spacy.load(own_copy_frames_trf)
    inducer = nlp.get_pipe("frame_inducer")
    assert inducer.cfg["mask_encoder_weights"] == "tok2vec"
    mask_module = inducer.model.get_ref("mask_encoder").layers[0].shims[0]._model
    own = own_transformer_wrapper(inducer.model.get_ref("tok2vec")).shims[0]._model
    assert mask_module.encoder is own
    # the same v_mask as the trained inducer, which stored its (tied) weights itself
    standalone = spacy.load(trained_inducer)
    assert standalone.get_pipe("frame_inducer").cfg["mask_encoder_weights"] == "own"
    references = toy_instance_docs(nlp.vocab)[:4]
    docs = [standalone.get_pipe("transformer")(preset(standalone, ref)) for ref in references]
    _, _, expected = standalone.get_pipe("frame_inducer").embed(docs, alpha=0.5)
    _, _, v_mask = inducer.embed([preset(nlp, ref) for ref in references], alpha=0.5)
    assert v_mask == pytest.approx(expected, abs=1e-5)
    # to_bytes / from_bytes keep the tie; weights that differ are saved with the mask encoder
    once = inducer.to_bytes()
    reloaded = spacy.load(own_copy_frames_trf).get_pipe("frame_inducer").from_bytes(once)
    reloaded_mask = reloaded.model.get_ref("mask_encoder").layers[0].shims[0]._model
    assert reloaded_mask.encoder is own_transformer_wrapper(reloaded.model.get_ref("tok2vec")).shims[0]._model
    mask_module.encoder = copy.deepcopy(own)
    with torch.no_grad():
        next(mask_module.encoder.parameters()).add_(1e-3)
    twice = inducer.to_bytes()
    assert inducer.cfg["mask_encoder_weights"] == "own"
    assert len(twice) - len(once) > 0.9 * sum(p.numel() * 4 for p in own.parameters())


def test_inducer_saved_with_shared_mask_weights_needs_its_own_transformer(trained_inducer):
    inducer = spacy.load(trained_inducer).get_pipe("frame_inducer")  # listens to the pipeline's transformer
    inducer.cfg["mask_encoder_weights"] = "tok2vec"
    with pytest.raises(ValueError, match="no transformer of its own"):
        inducer._after_model_load()
