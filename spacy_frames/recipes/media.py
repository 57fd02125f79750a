"""media_framer's training recipes: mCPT's stages, one `spacy train` each, then thresholds
and scores.

A recipe (setting) is a chain of stages. A head stage trains the head over frozen bodies
(a frozen transformer's cached article vectors, multilingual USE vectors, or both:
`media_head.cfg`, `media_use.cfg`, `media_both.cfg`); an end-to-end stage fine-tunes the
transformer with the contrastive loss on truncated articles (`media_framer.cfg`). Each
stage starts from the previous stage's model. The per-frame thresholds are then tuned on
dev (`spacy-frames media-thresholds`) and the pipeline is scored on dev and test per
language (`spacy-frames evaluate-media`).

A run writes <runs>/<name>.json (the stages, the final model, the scores, the threshold
tuning and the time of each step) and is skipped when that file exists unless forced; its
models and its log stay under <work>/<name>/. Every path is relative to the project
directory, where the commands run.
"""

import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import srsly

from .runs import is_cached, run_logged, write_json

LANGS = ["en", "fr", "ge", "it", "po"]
BASE = "training/transformer"  # MiniLM as assembled (assemble-transformer)
FRAMES = "training/frames_final"  # frame_identifier's fine-tuned transformer
BODY_CONFIGS = {"minilm": "media_head.cfg", "use": "media_use.cfg", "both": "media_both.cfg"}


def head(langs, transformer=BASE, body="minilm", steps=300, alpha=None, **extra) -> Dict:
    """A frozen-body stage; alpha: the contrastive weight (None: the body config's own)."""
    spec = {"kind": "head", "langs": langs, "transformer": transformer, "body": body, "steps": steps, **extra}
    return spec if alpha is None else {**spec, "alpha": alpha}


def e2e(langs, alpha=1.0, steps=150, max_tokens=256, sampler=True, **extra) -> Dict:
    """An end-to-end stage: the transformer fine-tuned on articles truncated to `max_tokens`."""
    return {
        "kind": "e2e",
        "langs": langs,
        "alpha": alpha,
        "steps": steps,
        "max_tokens": max_tokens,
        "sampler": sampler,
        **extra,
    }


# The multilingual recipes: mCPT's phase one on every language's train split (a head over
# the frozen bodies), then the English phase (the same head trained on English train from
# phase one's weights: `init_from`), thresholds on English dev.
# body: "both" = frame_identifier's transformer + USE (what en_frames_trf packages), "use" = USE alone;
# "-a0": the same without the label-aware contrastive term (alpha 0; the body configs use 1.0).
# "-lin": a linear head (hidden_width 0).
# "-w512" / "-w256": USE reads the first 512 / 256 words of each article (use_max_words).
RECIPE_BODIES = {
    "headboth": dict(transformer=FRAMES, body="both"),
    "use": dict(body="use"),
    "headboth-a0": dict(transformer=FRAMES, body="both", alpha=0.0),
    "use-a0": dict(body="use", alpha=0.0),
    "headboth-a0-lin": dict(transformer=FRAMES, body="both", alpha=0.0, hidden_width=0),
    "use-a0-lin": dict(body="use", alpha=0.0, hidden_width=0),
    "headboth-a0-w512": dict(transformer=FRAMES, body="both", alpha=0.0, use_max_words=512),
    "headboth-a0-w256": dict(transformer=FRAMES, body="both", alpha=0.0, use_max_words=256),
}
MULTI_RECIPES = {
    "headboth-multi-en": "headboth",
    "use-multi-en": "use",
    "headboth-multi-en-a0": "headboth-a0",
    "use-multi-en-a0": "use-a0",
    "headboth-multi-en-a0-lin": "headboth-a0-lin",
    "use-multi-en-a0-lin": "use-a0-lin",
    "headboth-multi-en-a0-w512": "headboth-a0-w512",
    "headboth-multi-en-a0-w256": "headboth-a0-w256",
}


def multilingual_recipe(langs: List[str], body: str, english_phase: bool = True) -> Dict:
    """Phase one on the train splits of `langs`, then (if English is among them) the English
    phase; thresholds (and spaCy's dev scores) on English dev, or, without English or without
    the English phase, on the dev splits of `langs`."""
    stages = [head(list(langs), **RECIPE_BODIES[body])]
    if english_phase and "en" in langs:
        stages.append(head(["en"], **RECIPE_BODIES[body]))
        return {"stages": stages, "dev": ["en"]}
    return {"stages": stages, "dev": list(langs)}


# the recipes `spacy-frames train-media` trains, tested on every language; en_frames_trf
# packages headboth-multi-en-a0-w256 (project.yml: vars.media_setting)
RECIPES: Dict[str, Dict] = {
    name: {**multilingual_recipe(LANGS, body), "eval": LANGS} for name, body in MULTI_RECIPES.items()
}


def restrict_eval(spec: Dict, langs: Sequence[str]) -> Dict:
    """The setting scored on some of its test languages only (the main job scores English:
    what package_meta reads), the same training and thresholds."""
    unknown = [lang for lang in langs if lang not in spec["eval"]]
    if unknown or not langs:
        raise ValueError(f"--test-langs {','.join(langs)}: the setting tests on {','.join(spec['eval'])}")
    return {**spec, "eval": [lang for lang in spec["eval"] if lang in langs]}


def run_spec(
    setting: str, spec: Dict, test_langs: Optional[Sequence[str]] = None, tag: str = "", seed: int = 0
) -> Tuple[Dict, str]:
    """A setting's spec and its run's name: with `test_langs`, scored on those languages
    only and named <setting>@test-<langs>; then @<tag>, and _seed<n> for a seed other than 0."""
    name = setting
    if test_langs:
        spec = restrict_eval(spec, list(test_langs))
        name = f"{setting}@test-{'-'.join(spec['eval'])}"
    name = f"{name}@{tag}" if tag else name
    return spec, (name if seed == 0 else f"{name}_seed{seed}")


def summary_line(name: str, run: Dict) -> str:
    """A run's test scores on one line."""
    return f"{name}: test " + ", ".join(
        f"{lang} micro {s['micro_f1']:.3f}" for lang, s in run["scores"]["test"].items()
    )


@dataclass
class MediaProject:
    """Where media_framer runs read and write: the project directory `root` (the commands
    run there; transformer paths in a recipe are relative to it), the corpus directory
    (<lang>_<split>.spacy), the work directory (models, body caches, logs) and the run
    files' directory. Relative paths are taken relative to `root`."""

    root: Path
    corpus: Path = Path("corpus/media_frames")
    work: Path = Path("training/media")
    runs: Path = Path("metrics/media_framer/runs")

    def __post_init__(self):
        self.root = Path(self.root)
        self.corpus, self.work, self.runs = (self.root / path for path in (self.corpus, self.work, self.runs))

    def corpus_files(self, langs: List[str], split: str) -> List[str]:
        return [str(self.corpus / f"{lang}_{split}.spacy") for lang in langs]

    def test_corpus(self, spec: Dict) -> List[str]:
        """The test articles: the test splits of `eval`, or (leave one language out) every split."""
        return [path for split in spec.get("test_splits", ["test"]) for path in self.corpus_files(spec["eval"], split)]

    def body_cache(self, transformer: str, langs: List[str], log: Path, timings: Dict) -> str:
        """Article vectors of a frozen transformer over the train splits: written once per
        (transformer, language), merged per combination of languages. The languages still
        missing are encoded in one process (one pipeline load), then split per language."""
        name = transformer.replace("/", "_")
        paths = {lang: self.work / "cache" / f"{name}__{lang}.msgpack" for lang in langs}
        stale = [
            lang
            for lang, path in paths.items()
            if not path.exists() or Path(self.root / transformer).stat().st_mtime > path.stat().st_mtime
        ]
        if stale:
            pending = self.work / "cache" / f"{name}__pending.msgpack"
            timings[f"cache {name} {'-'.join(stale)}"] = run_logged(
                [
                    sys.executable,
                    "-m",
                    "spacy_frames",
                    "media-cache-body",
                    transformer,
                    *self.corpus_files(stale, "train"),
                    "-o",
                    str(pending),
                ],
                log,
                cwd=self.root,
            )
            vectors = srsly.read_msgpack(pending)
            for lang in stale:  # keys are "<lang>/<article id>" (corpora.media_cache.article_key)
                srsly.write_msgpack(paths[lang], {k: v for k, v in vectors.items() if k.split("/", 1)[0] == lang})
            pending.unlink()
        if len(langs) == 1:
            return str(paths[langs[0]].relative_to(self.root))
        merged = {}
        for lang in langs:
            merged.update(srsly.read_msgpack(paths[lang]))
        path = self.work / "cache" / f"{name}__{'-'.join(langs)}.msgpack"
        srsly.write_msgpack(path, merged)
        return str(path.relative_to(self.root))

    def stage_command(
        self,
        stage: Dict,
        out: Path,
        previous: Optional[str],
        dev: List[str],
        seed: int,
        configs: str,
        log: Path,
        timings: Dict,
    ) -> List[str]:
        """The `spacy train` command of one stage (a head stage's body cache written first)."""
        train = json.dumps(self.corpus_files(stage["langs"], "train"))
        common = [
            "--paths.train",
            train,
            "--paths.dev",
            json.dumps(self.corpus_files(dev, "dev")),
            "--system.seed",
            str(seed),
            "--training.max_steps",
            str(stage["steps"]),
            "--training.eval_frequency",
            str(stage["steps"]),
        ]
        if previous:
            common += ["--paths.media_init", previous]
        if stage["kind"] == "e2e":
            config = f"{configs}/media_framer.cfg"
            transformer = previous or BASE
            extra = [
                "--paths.transformer",
                transformer,
                "--components.media_framer.contrastive_weight",
                str(stage["alpha"]),
                "--corpora.train.max_tokens",
                str(stage["max_tokens"]),
            ]
            if not stage["sampler"]:
                extra += ["--training.batcher.min_positives", "0"]  # plain batches of the shuffled articles
            return [sys.executable, "-m", "spacy", "train", config, "--output", str(out), *common, *extra]
        transformer = previous if stage["transformer"] == "previous" else stage["transformer"]
        config = f"{configs}/" + BODY_CONFIGS[stage["body"]]
        extra = (
            [] if stage.get("alpha") is None else ["--components.media_framer.contrastive_weight", str(stage["alpha"])]
        )
        if stage.get("hidden_width") is not None:
            extra += ["--components.media_framer.model.hidden_width", str(stage["hidden_width"])]
        if stage.get("use_max_words"):
            if stage["body"] not in ("use", "both"):
                raise ValueError(f"use_max_words needs a USE body ('use' or 'both'), not {stage['body']!r}")
            extra += ["--components.media_framer.model.use_vectors.max_words", str(stage["use_max_words"])]
        if stage["body"] != "use":
            extra += [
                "--paths.transformer",
                transformer,
                "--paths.body_cache",
                self.body_cache(transformer, stage["langs"], log, timings),
            ]
        return [sys.executable, "-m", "spacy", "train", config, "--output", str(out), *common, *extra]

    def threshold_tuning(self, model: str) -> Optional[Dict]:
        """How media-thresholds chose the model's thresholds (global threshold, shrinkage of the
        per-frame ones towards it, cross-validated micro-F1 within dev), from its saved cfg."""
        cfg = self.root / model / "media_framer" / "cfg"
        return srsly.read_json(cfg).get("threshold_tuning") if cfg.exists() else None

    def train(
        self,
        setting: str,
        spec: Dict,
        name: str,
        *,
        seed: int = 0,
        configs: str = "configs",
        force: bool = False,
        rescore: bool = False,
        export: Optional[Path] = None,
    ) -> Optional[Dict]:
        """Train a setting's stages, tune thresholds on dev, score dev and test, and write the
        run file <runs>/<name>.json; with `export`, copy the final pipeline there. Returns the
        run, or None when its file exists (and not `force`). `rescore` keeps the run's model
        and only re-tunes thresholds and re-scores."""
        out_json = self.runs / f"{name}.json"
        if not rescore and is_cached(out_json, force, mark="", hint=""):
            return None
        work = self.work / name
        work.mkdir(parents=True, exist_ok=True)
        log = work / "log.txt"
        if not rescore:
            log.write_text("")
        dev = spec.get("dev", spec["eval"])
        timings: Dict[str, float] = {}
        previous = None
        if rescore:
            cached = srsly.read_json(out_json)
            timings = {k: v for k, v in cached["timings_s"].items() if k.startswith(("stage", "cache"))}
            previous = cached["model"]
        for k, stage in enumerate([] if rescore else spec["stages"]):
            out = work / f"stage{k}_{stage['kind']}"
            timings[f"stage{k} {stage['kind']} {'-'.join(stage['langs'])}"] = run_logged(
                self.stage_command(stage, out, previous, dev, seed, configs, log, timings), log, cwd=self.root
            )
            previous = str((out / "model-last").relative_to(self.root))
        timings["thresholds"] = run_logged(
            [sys.executable, "-m", "spacy_frames", "media-thresholds", previous, *self.corpus_files(dev, "dev")],
            log,
            cwd=self.root,
        )
        scores = {}
        for split in ("dev", "test"):
            path = work / f"scores_{split}.json"
            run_logged(
                [
                    sys.executable,
                    "-m",
                    "spacy_frames",
                    "evaluate-media",
                    previous,
                    *(self.test_corpus(spec) if split == "test" else self.corpus_files(dev, "dev")),
                    "-o",
                    str(path),
                ],
                log,
                cwd=self.root,
            )
            scores[split] = srsly.read_json(path)
        timings["training_total"] = round(sum(v for k, v in timings.items() if k.startswith(("stage", "cache"))), 1)
        run = {
            "setting": setting,
            "seed": seed,
            "stages": spec["stages"],
            "model": previous,
            "scores": scores,
            "dev_langs": dev,
            "test_corpus": [str(Path(p).relative_to(self.root)) for p in self.test_corpus(spec)],
            "threshold_tuning": self.threshold_tuning(previous),
            "timings_s": timings,
        }
        write_json(out_json, run, writer="srsly")
        if export is not None:
            if Path(export).is_symlink():  # a link to a model elsewhere: replaced, its target kept
                Path(export).unlink()
            shutil.rmtree(export, ignore_errors=True)
            shutil.copytree(self.root / previous, export)
        return run
