"""SemEval-2023 st2 reading and splitting, the contrast sampler and the framing metrics."""

import numpy
import pytest
import spacy
from conftest import SHARED_ASSETS
from media_toy import toy_articles
from spacy.tokens import DocBin
from spacy.training import Example

from spacy_frames.corpora.batching import create_contrast_batcher, example_labels
from spacy_frames.corpora.media_frames import (
    MEDIA_FRAMES,
    SPLITS,
    article_doc,
    articles_to_docbin,
    create_media_frames_reader,
    read_semeval_articles,
    split_articles,
    stratified_split,
)
from spacy_frames.scoring.media import f1_scores, label_matrix, tune_thresholds

SEMEVAL = SHARED_ASSETS / "media_frames" / "semeval2023_st2"
needs_semeval = pytest.mark.skipif(not SEMEVAL.is_dir(), reason="SemEval-2023 st2 mirror not available")


@needs_semeval
@pytest.mark.parametrize("lang,count", [("en", 433), ("fr", 158), ("ge", 132), ("it", 227), ("po", 145)])
def test_reads_semeval_counts_and_labels(lang, count):
    articles = read_semeval_articles(SEMEVAL, lang)
    assert len(articles) == count  # shared/README
    assert {f for a in articles for f in a.frames} <= set(MEDIA_FRAMES)
    assert all(a.text.strip() and a.frames for a in articles)


@needs_semeval
def test_split_is_fixed_and_stratified():
    articles = read_semeval_articles(SEMEVAL, "en")
    parts = split_articles(articles, seed=0)
    assert [a.id for a in split_articles(articles, seed=0)["test"]] == [a.id for a in parts["test"]]
    assert sum(len(parts[s]) for s in SPLITS) == len(articles)
    assert not {a.id for a in parts["train"]} & {a.id for a in parts["test"]}
    for frame in MEDIA_FRAMES:
        total = sum(frame in a.frames for a in articles)
        for split, share in zip(SPLITS, (0.7, 0.15, 0.15)):
            assert abs(sum(frame in a.frames for a in parts[split]) - share * total) <= 0.05 * total + 2


def test_stratified_split_hand_example():
    labels = [["a"], ["a"], ["a"], ["a"], ["b"], ["b"], ["b"], ["b"], ["a", "b"], []]
    assignment = stratified_split(labels, (0.5, 0.5), seed=1)
    assert sorted(assignment) == [0] * 5 + [1] * 5
    for label in ("a", "b"):
        assert sorted(s for s, ls in zip(assignment, labels) if label in ls) in ([0, 0, 0, 1, 1], [0, 0, 1, 1, 1])


def test_reader_truncates_and_filters(tmp_path):
    nlp = spacy.blank("en")
    fr = toy_articles("fr")[:2]
    articles_to_docbin(nlp, toy_articles() + fr).to_disk(tmp_path / "a.spacy")
    examples = list(create_media_frames_reader([str(tmp_path / "a.spacy")], languages=["fr"], max_tokens=5)(nlp))
    assert len(examples) == 2 and all(len(eg.reference) == 5 for eg in examples)
    assert (
        examples[0].reference.cats["Economic"] == 1.0
        and examples[0].predicted.user_data["media_article"]["lang"] == "fr"
    )
    with pytest.raises(ValueError, match="unknown language"):
        create_media_frames_reader([str(tmp_path / "a.spacy")], languages=["xx"])
    with pytest.raises(FileNotFoundError, match="convert-media-frames"):
        create_media_frames_reader([str(tmp_path / "missing.spacy")])
    DocBin().to_disk(tmp_path / "empty.spacy")
    with pytest.raises(ValueError, match="no articles"):
        list(create_media_frames_reader([str(tmp_path / "empty.spacy")])(nlp))


def test_reader_attaches_body_cache(tmp_path):
    import srsly

    nlp = spacy.blank("en")
    articles_to_docbin(nlp, toy_articles()[:2]).to_disk(tmp_path / "a.spacy")
    srsly.write_msgpack(tmp_path / "cache.msgpack", {"en/en0": [1.0, 2.0], "en/en1": [3.0, 4.0]})
    examples = list(
        create_media_frames_reader([str(tmp_path / "a.spacy")], body_cache=str(tmp_path / "cache.msgpack"))(nlp)
    )
    assert examples[1].predicted.user_data["media_body_vector"].tolist() == [3.0, 4.0]
    srsly.write_msgpack(tmp_path / "cache.msgpack", {"en/en0": [1.0, 2.0]})
    with pytest.raises(KeyError, match="en/en1"):
        list(create_media_frames_reader([str(tmp_path / "a.spacy")], body_cache=str(tmp_path / "cache.msgpack"))(nlp))


def test_contrast_batcher_puts_every_frame_in_every_batch():
    nlp = spacy.blank("en")
    examples = [Example(nlp.make_doc(a.text), article_doc(nlp, a)) for a in toy_articles() * 3]
    batches = list(create_contrast_batcher(size=8, min_positives=2)(examples))
    assert sorted(id(eg) for b in batches for eg in b) == sorted(id(eg) for eg in examples)  # each once
    left = {
        f: sum(f in example_labels(eg) for eg in examples) for f in {f for eg in examples for f in example_labels(eg)}
    }
    for batch in batches:
        for frame in left:  # two of every frame while the epoch still has two (4 frames x 2 fit in 8)
            count = sum(frame in example_labels(eg) for eg in batch)
            assert count >= min(2, left[frame])
            left[frame] -= count
    assert [len(b) for b in batches] == [8, 8, 8]
    plain = list(create_contrast_batcher(size=8, min_positives=0)(examples))  # sampler off
    assert [eg for b in plain for eg in b] == examples and [len(b) for b in plain] == [8, 8, 8]
    with pytest.raises(ValueError, match="min_positives"):
        create_contrast_batcher(size=4, min_positives=-1)
    with pytest.raises(ValueError, match="size"):
        create_contrast_batcher(size=0)


def test_f1_scores_hand_computed():
    gold = label_matrix([["Economic"], ["Economic", "Political"], []])
    pred = label_matrix([["Economic"], ["Political", "Morality"], ["Morality"]])
    scores = f1_scores(gold, pred)
    # tp 2 (Economic, Political), fp 2 (Morality x2), fn 1 (Economic): micro 4 / 7
    assert scores["micro_f1"] == pytest.approx(4 / 7)
    # Economic 2/3, Political 1, Morality 0 (frames absent from gold and predictions are left out)
    assert scores["macro_f1"] == pytest.approx((2 / 3 + 1 + 0) / 3)
    assert set(scores["per_frame_f1"]) == {"Economic", "Political", "Morality"}


def test_tune_thresholds_per_frame():
    gold = numpy.array([[1, 0], [1, 0], [0, 1], [0, 0]])
    scores = numpy.array([[0.3, 0.1], [0.35, 0.2], [0.1, 0.9], [0.2, 0.1]])
    thresholds = tune_thresholds(gold, scores, grid=[0.1, 0.25, 0.5, 0.8])
    assert thresholds == [0.25, 0.5]  # 0.25 separates frame 0; 0.5 and 0.8 tie on frame 1, 0.5 is nearer the default
    assert tune_thresholds(numpy.zeros((2, 1)), numpy.ones((2, 1)), default=0.4) == [0.4]


def test_shrunk_thresholds_choose_between_global_and_per_frame():
    from spacy_frames.scoring.media import tune_global_threshold, tune_shrunk_thresholds

    gold = numpy.array([[1, 0], [1, 0], [0, 1], [0, 0]])
    scores = numpy.array([[0.3, 0.1], [0.35, 0.2], [0.1, 0.9], [0.2, 0.1]])
    # one threshold for both frames: 0.25 catches frame 0's positives and frame 1's 0.9, and nothing else
    assert tune_global_threshold(gold, scores, grid=[0.1, 0.25, 0.5, 0.8]) == 0.25
    half = tune_shrunk_thresholds(gold, scores, shrinkage=0.5)
    glob = half["global"]
    own = tune_thresholds(gold, scores, default=glob)
    assert half["thresholds"] == [pytest.approx(glob + 0.5 * (t - glob)) for t in own]
    chosen = tune_shrunk_thresholds(gold, scores, rounds=3)
    assert chosen["shrinkage"] in (0.0, 0.25, 0.5, 0.75, 1.0) and set(chosen["cv_micro_f1"]) == {
        "0.0",
        "0.25",
        "0.5",
        "0.75",
        "1.0",
    }
