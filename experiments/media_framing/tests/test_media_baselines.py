"""scripts/media_baselines.py on tiny synthetic articles: no corpus, no MiniLM, no SetFit."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy
import pytest

from spacy_frames.corpora.media_frames import MEDIA_FRAMES

SCRIPT = Path(__file__).parents[1] / "scripts" / "media_baselines.py"
ECONOMIC, CRIME, POLITICAL = (MEDIA_FRAMES.index(f) for f in ("Economic", "Crime_and_punishment", "Political"))
# sklearn warns about the frames no toy article has (constant labels)
pytestmark = pytest.mark.filterwarnings("ignore:Label not")
WORDS = {
    ECONOMIC: "tax budget money inflation",
    CRIME: "police prison court arrest",
    POLITICAL: "party vote election minister",
}


@pytest.fixture(scope="module")
def mb():
    spec = importlib.util.spec_from_file_location("media_baselines_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def articles(frame_sets, seed):
    """Each article: filler words plus the cue words of its frames; gold as a (n, 14) matrix."""
    rng = numpy.random.RandomState(seed)
    texts, gold = [], numpy.zeros((len(frame_sets), len(MEDIA_FRAMES)), dtype="int8")
    for i, frames in enumerate(frame_sets):
        words = list(rng.choice("the a of today said people city".split(), 12))
        for f in frames:
            words += WORDS[f].split()
            gold[i, f] = 1
        rng.shuffle(words)
        texts.append(" ".join(words))
    return texts, gold


SETS = [(ECONOMIC,), (CRIME,), (POLITICAL,), (ECONOMIC, POLITICAL), (CRIME, POLITICAL), (POLITICAL,)]


def test_paragraphs_split_on_newlines_and_cap(mb):
    assert mb.paragraphs("One.\n\nTwo.\n   \nThree.\nFour.") == ["One.", "Two.", "Three.", "Four."]
    assert mb.paragraphs("\n".join(f"p{i}" for i in range(50))) == [f"p{i}" for i in range(40)]
    assert mb.paragraphs("p1\np2\np3", limit=2) == ["p1", "p2"]
    assert mb.paragraphs("  \n\n ") == [" "]  # an empty article still gets one (empty) paragraph


def test_label_prior_predicts_the_frequent_frames(mb):
    train, ytr = articles(SETS * 2, 0)
    dev, ydev = articles(SETS, 1)
    dev_pred, (test_pred,), settings = mb.prior_system(train, ytr, dev, ydev, [dev[:3]])
    assert dev_pred.shape == ydev.shape and test_pred.shape == (3, len(MEDIA_FRAMES))
    assert (dev_pred == dev_pred[0]).all()  # the same frames for every article
    assert "Political" in settings["frames"]  # the most frequent frame (4 of 6)
    assert set(settings["frames"]) <= {"Economic", "Crime_and_punishment", "Political"}


def test_ngram_svm_learns_the_cue_words(mb):
    train, ytr = articles(SETS * 3, 0)
    dev, ydev = articles(SETS, 1)
    test, ytest = articles(SETS, 2)
    dev_pred, (test_pred,), settings = mb.svm_system(train, ytr, dev, ydev, [test])
    assert settings["C"] in mb.SVM_C and settings["features"] > 0
    assert mb.scored(ytest, test_pred)["micro_f1"] >= 0.8
    scores = mb.scored(ytest, test_pred, per_frame=True)
    assert set(scores["per_frame_f1"]) == {"Economic", "Crime_and_punishment", "Political"}


def test_lr_on_vectors_tunes_thresholds_on_dev(mb):
    rng = numpy.random.RandomState(0)

    _, ytr = articles(SETS * 4, 0)
    _, ydev = articles(SETS * 2, 1)
    basis = rng.normal(size=(len(MEDIA_FRAMES), 8))
    make = lambda y: mb.normalise(y @ basis + 0.1 * rng.normal(size=(len(y), 8)))
    dev_pred, (test_pred,), settings = mb.lr_system(make(ytr), ytr, make(ydev), ydev, [make(ydev)])
    assert settings["C"] in mb.LR_C and set(settings["thresholds"]) == set(MEDIA_FRAMES)
    assert mb.scored(ydev, dev_pred)["micro_f1"] >= 0.9 and mb.scored(ydev, test_pred)["micro_f1"] >= 0.9


def test_embedding_cache_is_keyed_by_article_ids(mb, tmp_path, monkeypatch):
    monkeypatch.setattr(mb, "CACHE", tmp_path)
    calls = []

    def embed(texts, desc):
        calls.append(desc)
        return numpy.ones((len(texts), 4), dtype="float32")

    split = mb.Split("xx_dev", ["a", "b"], numpy.zeros((2, len(MEDIA_FRAMES))), ["1", "2"])
    assert mb.cached("toy", split, embed).shape == (2, 4)
    assert mb.cached("toy", split, embed).shape == (2, 4) and calls == ["toy xx_dev"]  # second time: from disk
    mb.cached("toy", split._replace(ids=["1", "3"]), embed)  # other articles: embedded anew
    assert len(calls) == 2


@pytest.mark.slow
def test_cli_reports_a_missing_corpus(tmp_path):
    result = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "nowhere"), str(tmp_path / "out.json"), "--skip-setfit"],
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0 and "corpus files missing" in result.stderr
    assert not (tmp_path / "out.json").exists()


def test_lolo_use_lr_fits_on_the_other_languages_only(mb, monkeypatch):
    """BASELINES.md's floor: the held-out language's vectors never reach the fit; it is scored
    on all of its articles with the fixed threshold."""
    rng = numpy.random.RandomState(0)
    basis = rng.normal(size=(len(MEDIA_FRAMES), 8))
    vectors, gold = {}, {}
    for k, lang in enumerate(mb.LANGUAGES):
        for split, n in (("train", 4), ("dev", 1), ("test", 1)):
            _, y = articles(SETS * n, k)
            gold[lang, split] = y
            vectors[lang, split] = mb.normalise(y @ basis + 0.1 * rng.normal(size=(len(y), 8)))
    fitted = []
    from sklearn.multiclass import OneVsRestClassifier

    original = OneVsRestClassifier.fit

    def spy(self, X, y):
        fitted.append(X.shape[0])
        return original(self, X, y)

    monkeypatch.setattr(OneVsRestClassifier, "fit", spy)
    result = mb.lolo_use_lr(vectors, gold, "ge")
    assert result["n"] == len(SETS) * 6 and result["micro_f1"] >= 0.9
    assert fitted == [4 * len(SETS) * 6]  # every article of the other four, none of ge's
    fitted.clear()
    mb.lolo_use_lr(vectors, gold, "fr", train_splits=("train",))
    assert fitted == [4 * len(SETS) * 4]  # train splits of the other four only
