"""Run-time settings (each component's `runtime_settings`): given at load time with
`spacy.load(path, config={"components": {name: {key: value}}})` they are what the loaded
component uses; changed on a built pipeline with `set_runtime_settings` they are saved in
config.cfg; everything else in cfg comes from the saved component."""

import numpy
import pytest
import spacy
from discourse_toy import RELATIONS
from media_toy import ARTICLES
from spacy.language import Language
from spacy.util import load_config
from test_frame_inducer import _unit, toy_fit

from spacy_frames.pipeline.base import set_runtime_settings
from spacy_frames.pipeline.discourse_sense import DiscourseSense
from spacy_frames.pipeline.frame_elements import FrameElements
from spacy_frames.pipeline.frame_identifier import FrameIdentifier
from spacy_frames.pipeline.frame_inducer import FrameInducer
from spacy_frames.pipeline.media_framer import MediaFramer

FRAME_TEXTS = [
    "She gave him a gift and they bought a car .",
    "Prices rose sharply while we walked home .",
    "She handed me the keys and raised her hand .",
]
DISCOURSE_TEXTS = [" ".join(relation[:2]) for relation in RELATIONS]
COME = "The people who come to Pleasant Run love it ."


def load(path, name, **settings):
    return spacy.load(path, config={"components": {name: settings}})


def targets(nlp, texts=FRAME_TEXTS):
    return [{(s.start, s.end) for s in nlp(text)._.frames} for text in texts]


@pytest.mark.parametrize(
    "factory,cls",
    [
        ("frame_identifier", FrameIdentifier),
        ("frame_elements", FrameElements),
        ("discourse_sense", DiscourseSense),
        ("frame_inducer", FrameInducer),
        ("media_framer", MediaFramer),
    ],
)
def test_runtime_settings_are_factory_arguments(factory, cls):
    """set_runtime_settings writes them into the component's config block."""
    assert cls.runtime_settings
    assert set(cls.runtime_settings) <= set(Language.get_factory_meta(factory).default_config)


@pytest.fixture(scope="module")
def frames_nlp(trained_frames):
    return spacy.load(trained_frames)


@pytest.mark.parametrize("key", ["threshold", "oov_threshold"])
def test_detection_cut_offs_at_load_time(trained_frames, frames_nlp, key):
    low, high = (
        load(trained_frames, "frame_identifier", **{key: 0.0}),
        load(trained_frames, "frame_identifier", **{key: 1.01}),
    )
    assert low.get_pipe("frame_identifier").cfg[key] == 0.0 and high.get_pipe("frame_identifier").cfg[key] == 1.01
    assert frames_nlp.get_pipe("frame_identifier").cfg[key] == frames_nlp.config["components"]["frame_identifier"][key]
    found = {cut: targets(nlp) for cut, nlp in (("low", low), ("default", frames_nlp), ("high", high))}
    # a higher cut-off keeps fewer targets (or the same), and some cut-off changes them
    for fewer, more in (("high", "default"), ("default", "low")):
        assert all(a <= b for a, b in zip(found[fewer], found[more]))
    assert found["high"] != found["low"]


def test_top_k_at_load_time(trained_frames, frames_nlp):
    nlp = load(trained_frames, "frame_identifier", top_k=2)
    assert nlp.get_pipe("frame_identifier").cfg["top_k"] == 2
    spans = [span for text in FRAME_TEXTS for span in nlp(text)._.frames]
    assert spans and all(len(span._.frame_ranking) == 2 for span in spans)
    default = [span for text in FRAME_TEXTS for span in frames_nlp(text)._.frames]
    assert all(len(span._.frame_ranking) == 5 for span in default)


def test_lexicon_filter_at_load_time(trained_frames, frames_nlp):
    """Off, a target's frame is the best of all frames; on, the best of its LU's frames."""
    off = load(trained_frames, "frame_identifier", lexicon_filter=False)
    assert off.get_pipe("frame_identifier").cfg["lexicon_filter"] is False
    assert frames_nlp.get_pipe("frame_identifier").cfg["lexicon_filter"] is True
    inventory = off.get_pipe("frame_identifier").inventory

    def decided(nlp, lu=None):
        doc = nlp.make_doc("She handed me the keys .")
        doc.spans["targets"] = [doc[1:2]]
        doc[1:2]._.lexical_unit = lu
        span = nlp(doc)._.frames[0]
        return span.label_, span._.frame_ranking[0][0]

    frame, best = decided(off)
    assert frame == best
    # an LU none of whose frames is the best overall: the filter decides among its frames
    lu = next(
        lu
        for name in inventory.names
        if name != best
        for lu in inventory.lexical_units(name)
        if best not in inventory.frames_for_lu(lu)
    )
    assert decided(off, lu) == (best, best)
    frame, best_again = decided(frames_nlp, lu)
    assert best_again == best and frame != best and frame in inventory.frames_for_lu(lu)


def test_overlapping_candidates_at_load_time(trained_frames, frames_nlp):
    """On, a multiword LU's words are candidates beside it."""
    on = load(trained_frames, "frame_identifier", overlapping_candidates=True)
    assert on.get_pipe("frame_identifier").cfg["overlapping_candidates"] is True
    assert frames_nlp.get_pipe("frame_identifier").cfg["overlapping_candidates"] is False
    found = {}
    for setting, nlp in (("on", on), ("off", load(trained_frames, "frame_identifier"))):
        fi = nlp.get_pipe("frame_identifier")
        fi.add_frame("Arriving", "A Theme moves to a Goal.", lexical_units=["come.v"])
        fi.add_frame("Waking_up", "A Sleeper wakes up.", lexical_units=["come to.v"])
        found[setting] = [s.text for s in fi.candidates([nlp(COME)])[0]]
    assert "come to" in found["off"] and "come" not in found["off"]
    assert {"come to", "come"} <= set(found["on"])


def test_new_frame_memory_at_load_time(trained_frames):
    """The memory a frame added at run time gets: "zero", or the mean of the others'."""
    rows = {}
    for rule in ("zero", "mean"):
        fi = load(trained_frames, "frame_identifier", new_frame_memory=rule).get_pipe("frame_identifier")
        assert fi.cfg["new_frame_memory"] == rule
        fi._ensure_index()
        memory = numpy.full(fi.index.base.shape, 0.01, dtype="float32")  # as if learned
        fi.index.set_residual(memory)
        fi.add_frame("Cooking", "A Cook prepares Food by applying heat.", lexical_units=["cook.v"])
        rows[rule] = fi.index.residual[-1]
    assert not rows["zero"].any() and rows["mean"] == pytest.approx(0.01)


def test_tuned_settings_are_saved_in_the_config(trained_frames, tmp_path):
    """A setting changed with set_runtime_settings loads with the pipeline; a load-time
    value wins over it; a cfg changed by hand is not what config.cfg says, so it is lost."""
    nlp = spacy.load(trained_frames)
    fi = nlp.get_pipe("frame_identifier")
    configured = nlp.config["components"]["frame_identifier"]["top_k"]
    set_runtime_settings(nlp, "frame_identifier", {"threshold": 0.77, "oov_threshold": 0.66})
    assert fi.cfg["threshold"] == nlp.config["components"]["frame_identifier"]["threshold"] == 0.77
    fi.cfg["top_k"] = configured + 1
    with pytest.raises(ValueError, match="objective"):
        set_runtime_settings(nlp, "frame_identifier", {"objective": "in_candidate"})
    nlp.to_disk(tmp_path / "tuned")
    saved = load_config(tmp_path / "tuned" / "config.cfg")["components"]["frame_identifier"]
    assert (saved["threshold"], saved["oov_threshold"]) == (0.77, 0.66)
    tuned = spacy.load(tmp_path / "tuned").get_pipe("frame_identifier")
    assert (tuned.cfg["threshold"], tuned.cfg["oov_threshold"], tuned.cfg["top_k"]) == (0.77, 0.66, configured)
    assert tuned.cfg["objective"] == fi.cfg["objective"] and tuned.labels == fi.labels  # from the saved cfg
    override = load(tmp_path / "tuned", "frame_identifier", threshold=0.2).get_pipe("frame_identifier")
    assert (override.cfg["threshold"], override.cfg["oov_threshold"]) == (0.2, 0.66)


def test_media_threshold_at_load_time(trained_media, tmp_path):
    """`threshold` decides the frames without a tuned threshold; tuned ones are the
    component's state and win."""
    low, high = load(trained_media, "media_framer", threshold=0.05), load(trained_media, "media_framer", threshold=0.95)
    assert low.get_pipe("media_framer").cfg["threshold"] == 0.05
    assert high.get_pipe("media_framer").cfg["threshold"] == 0.95
    texts = [text for text, _ in ARTICLES]
    docs = {name: list(nlp.pipe(texts)) for name, nlp in (("low", low), ("high", high))}
    frames = {name: [doc._.media_frames for doc in name_docs] for name, name_docs in docs.items()}
    assert all(set(h) <= set(lo) for h, lo in zip(frames["high"], frames["low"]))
    assert frames["high"] != frames["low"]
    for a, b in zip(docs["low"], docs["high"]):  # the same scores
        assert a.cats == pytest.approx(b.cats)
    framer = low.get_pipe("media_framer")
    framer.set_thresholds({"thresholds": [0.5] * len(framer.labels)})
    low.to_disk(tmp_path / "tuned")
    tuned = load(tmp_path / "tuned", "media_framer", threshold=0.95)
    assert tuned.get_pipe("media_framer").cfg["thresholds"] == framer.cfg["thresholds"]
    plain = spacy.load(tmp_path / "tuned")
    assert [d._.media_frames for d in tuned.pipe(texts)] == [d._.media_frames for d in plain.pipe(texts)]


def test_discourse_decoding_at_load_time(trained_discourse):
    """decoding = "top-down": the level-1 head decides first, the score is p(level 1) * p(path | level 1)."""
    joint, top_down = (
        load(trained_discourse, "discourse_sense"),
        load(trained_discourse, "discourse_sense", decoding="top-down"),
    )
    assert joint.get_pipe("discourse_sense").cfg["decoding"] == "joint"
    assert top_down.get_pipe("discourse_sense").cfg["decoding"] == "top-down"
    got = {
        name: [r for text in DISCOURSE_TEXTS for r in nlp(text)._.discourse_relations]
        for name, nlp in (("joint", joint), ("top-down", top_down))
    }
    pairs = {name: [(r["arg1"], r["arg2"]) for r in relations] for name, relations in got.items()}
    assert pairs["joint"] == pairs["top-down"] and pairs["joint"]
    assert [r["score"] for r in got["joint"]] != pytest.approx([r["score"] for r in got["top-down"]])


def test_inducer_assignment_at_load_time(tmp_path):
    nlp = spacy.blank("en")
    inducer = nlp.add_pipe("frame_inducer")
    vectors, clusters, lemmas = toy_fit()
    name = dict(zip(clusters, inducer.set_clusters(vectors, clusters, frames=None, lemmas=lemmas)))
    nlp.to_disk(tmp_path / "inducer")
    query, lemmas = _unit([1, 0.95], [1, 0.95], [1, 0.95]), ["run", "walk", "unseen"]
    got = {}
    for rule in ("verb", "nearest"):
        loaded = load(tmp_path / "inducer", "frame_inducer", assignment=rule).get_pipe("frame_inducer")
        assert loaded.cfg["assignment"] == rule
        got[rule] = [loaded.centroids.names[i] for i in loaded.assign(query, lemmas)]
    # a seen verb goes to the nearest of its own clusters; "nearest": the nearest of all
    assert got == {"verb": [name["B"], name["C"], name["C"]], "nearest": [name["C"]] * 3}
