"""`spacy-frames` / `python -m spacy_frames`: thin typer wrappers over library functions."""

from pathlib import Path
from typing import List, Optional

import typer

app = typer.Typer(name="spacy-frames", no_args_is_help=True, add_completion=False)
Arg = typer.Argument
Opt = typer.Option


def _fail(err: Exception) -> None:
    typer.secho(f"✘ {err}", fg=typer.colors.RED, err=True)
    raise typer.Exit(1)


@app.command("fetch-assets")
def fetch_assets_cli(
    # fmt: off
    project_yml: Path = Arg(Path("project.yml"), help="project.yml whose `assets` to fetch"),
    mirror: Optional[str] = Opt(
        None,
        "--mirror",
        "-m",
        help="Mirror directory ('' = download from upstream; default: the project's vars.assets_mirror when it exists)",
    ),
    only: List[str] = Opt([], "--only", help="Fetch only assets whose dest contains this (repeatable)"),
    extra: bool = Opt(False, "--extra", help="Also fetch optional assets (e.g. all-mpnet-base-v2)"),
    # fmt: on
):
    """Fetch project assets from the mirror (or upstream) and verify their checksums."""
    from ..tools.assets import AssetError, fetch_assets, project_mirror

    try:
        if mirror is None:
            mirror = project_mirror(project_yml)
            typer.echo(f"Mirror: {mirror}" if mirror else "No mirror directory: fetching from upstream")
        rows = fetch_assets(project_yml, mirror or None, only=only, extra=extra)
    except AssetError as err:
        _fail(err)
    for row in rows:
        typer.echo(f"✔ {row['asset']}: {row['status']}")


@app.command("benchmark")
def benchmark_cli(
    # fmt: off
    models: List[str] = Arg(..., help="Pipelines (paths or package names) measured one after another"),
    corpus: Path = Opt(..., "--corpus", help=".spacy corpus whose texts are annotated"),
    output: Path = Opt(..., "--output", "-o", help="JSON file to write"),
    n_threads: int = Opt(2, "--n-threads", help="torch threads"),
    n_words: int = Opt(20000, "--n-words", help="About this many words are annotated"),
    batch_size: int = Opt(64, "--batch-size"),
    without: List[str] = Opt(
        [], "--without", help="Also measure each pipeline without these components (comma-separated; repeatable)"
    ),
    # fmt: on
):
    """Measure words/s and peak memory of pipelines, each in a fresh process."""
    import srsly

    from ..tools.benchmark import benchmark

    try:
        result = benchmark(
            models,
            corpus,
            n_threads=n_threads,
            n_words=n_words,
            batch_size=batch_size,
            without=[[c for c in spec.split(",") if c] for spec in without],
        )
    except (FileNotFoundError, ValueError, OSError) as err:
        _fail(err)
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, result)
    for row in result["results"]:
        label = f" without {', '.join(row['disabled'])}" if row["disabled"] else ""
        typer.echo(f"{row['model']}{label}: {row['words_per_second']} words/s, peak {row['peak_rss_mib']} MiB")


@app.command("benchmark-pipeline")
def benchmark_pipeline_cli(
    # fmt: off
    model: str = Arg(..., help="The full pipeline: installed package name or path"),
    bare: str = Opt(..., "--bare", help="The bare transformer pipeline it is compared with"),
    corpus: Path = Opt(..., "--corpus", help=".spacy corpus whose texts are annotated"),
    output: Path = Opt(..., "--output", "-o", help="JSON file to write"),
    n_threads: int = Opt(2, "--n-threads", help="Torch threads in all (split between processes)"),
    n_words: int = Opt(20000, "--n-words", help="About this many words are annotated"),
    # fmt: on
):
    """The pipeline in one run: words/s full vs bare (1 and 2 processes), component shares, peak memory, load time, size."""
    import srsly

    from ..tools.pipeline_benchmark import benchmark_pipeline

    try:
        result = benchmark_pipeline(model, bare, corpus, n_words=n_words, n_threads=n_threads)
    except (FileNotFoundError, ValueError, OSError) as err:
        _fail(err)
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, result)
    typer.echo(srsly.json_dumps({k: v for k, v in result.items() if k != "runs"}, indent=2))


@app.command("annotate")
def annotate_cli(
    # fmt: off
    model: str = Arg(..., help="Pipeline: installed package name or path"),
    input_path: Optional[str] = Arg(
        None,
        metavar="INPUT",
        help="With OUTPUT: the corpus (.txt, a directory of .txt, .jsonl, .csv, .tsv, - for stdin); without: one text to annotate and print (default: read stdin)",
    ),
    output: Optional[Path] = Arg(None, help="Records out: .jsonl (one per document) or .spacy (DocBin)"),
    text_key: str = Opt("text", "--text-key", help=".jsonl: the text field"),
    id_key: str = Opt("id", "--id-key", help=".jsonl: the id field (else the line number)"),
    column: str = Opt("text", "--column", help=".csv/.tsv: the text column"),
    id_column: Optional[str] = Opt(None, "--id-column", help=".csv/.tsv: the id column (else the row number)"),
    exclude: List[str] = Opt([], "--exclude", help="Leave this component out, for speed (repeatable)"),
    batch_size: int = Opt(64, "--batch-size"),
    n_process: int = Opt(1, "--n-process", help="Worker processes of nlp.pipe"),
    resume: bool = Opt(False, "--resume", help="Continue after the last complete record of an existing OUTPUT"),
    skip_bad: bool = Opt(
        False, "--skip-bad", help="Skip unreadable documents (logged in OUTPUT.skipped.jsonl) instead of stopping"
    ),
    dask: Optional[str] = Opt(
        None, "--dask", help="Run on Dask: local:N (a LocalCluster of N workers) or a scheduler address tcp://HOST:PORT"
    ),
    progress: bool = Opt(True, "--progress/--no-progress", help="Progress bar on stderr"),
    # fmt: on
):
    """Annotate a corpus into OUTPUT (records in input order), or one text and print its parse."""
    import sys

    if output is None:
        from ..tools.annotate import annotate, format_doc

        if input_path is not None and Path(input_path).exists():
            _fail(
                ValueError(
                    f"{input_path} is a file or directory: give an OUTPUT (.jsonl or .spacy) to annotate it as a corpus"
                )
            )
        try:
            doc = annotate(model, input_path if input_path is not None else sys.stdin.read(), exclude=exclude)
        except (OSError, ValueError) as err:
            _fail(err)
        typer.echo(format_doc(doc))
        return
    import spacy

    from ..tools.annotate_corpus import annotate_corpus, skipped_path

    try:
        nlp = spacy.load(model, exclude=exclude) if dask is None else None
        summary = annotate_corpus(
            nlp,
            input_path or "-",
            output,
            batch_size=batch_size,
            n_process=n_process,
            resume=resume,
            skip_bad=skip_bad,
            progress=progress,
            dask=dask,
            model=model,
            exclude=exclude,
            reader_options={"text_key": text_key, "id_key": id_key, "column": column, "id_column": id_column},
        )
    except KeyboardInterrupt:
        typer.secho(f"Interrupted: every complete record is in {output}; continue with --resume", err=True)
        raise typer.Exit(130) from None
    except (OSError, ValueError, ImportError) as err:
        _fail(err)
    resumed = f" after the {summary.resumed_after} already there" if summary.resumed_after else ""
    typer.secho(f"✔ {summary.documents} records written to {output}{resumed}", fg=typer.colors.GREEN, err=True)
    if summary.skipped:
        typer.secho(f"⚠ {len(summary.skipped)} unreadable documents skipped: {skipped_path(output)}", err=True)


@app.command("evaluate-frame-elements")
def evaluate_frame_elements_cli(
    # fmt: off
    model: str = Arg(..., help="Trained pipeline with frame_identifier and frame_elements"),
    output: Path = Opt(..., "--output", "-o", help="JSON file to write"),
    fn15_dir: Path = Opt(Path("corpus/framenet15"), "--fn15", help="Converted FrameNet 1.5 corpus"),
    fn17_dir: Optional[Path] = Opt(Path("corpus/framenet17"), "--fn17", help="Converted FrameNet 1.7 dev ('' to skip)"),
    splits: List[str] = Opt(
        ["dev"], "--split", help="FN1.5 split(s) on gold frames: dev (tuning), test (report once); repeatable"
    ),
    end_to_end: bool = Opt(False, "--end-to-end", help="Also FN1.5 test from raw text (predicted targets and frames)"),
    # fmt: on
):
    """Frame-element P/R/F: gold targets and frames on FN1.5 and FN1.7 dev, end to end."""
    import srsly

    from ..scoring.frame_elements_eval import evaluate_frame_elements

    try:
        result = evaluate_frame_elements(
            model, fn15_dir, fn17_dir if fn17_dir and str(fn17_dir) else None, splits, end_to_end
        )
    except (OSError, ValueError) as err:
        _fail(err)
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, result)
    for key, scores in result.items():
        if isinstance(scores, dict) and "fe_f" in scores:
            typer.echo(
                f"{key}: FE P {scores['fe_p']}  R {scores['fe_r']}  F {scores['fe_f']}  (core F {scores['fe_core_f']}, non-core F {scores['fe_noncore_f']}; {scores['gold_fes']} gold FEs)"
            )


@app.command("tune-fe-threshold")
def tune_fe_threshold_cli(
    # fmt: off
    model: str = Arg(..., help="Trained pipeline with frame_elements"),
    corpus: Path = Opt(Path("corpus/framenet15/dev.spacy"), "--corpus", help="Dev corpus with gold FEs"),
    output: Path = Opt(..., "--output", "-o", help="JSON file to write (the sweep)"),
    output_model: Optional[Path] = Opt(None, "--output-model", help="Save the pipeline with the chosen settings here"),
    ngram_gap: List[str] = Opt(
        ["none", "2", "0"],
        "--ngram-gap",
        help="Candidate n-gram gaps to try (repeat; 'none': every n-gram of the window)",
    ),
    # fmt: on
):
    """Choose frame_elements' candidate n-gram gap, decoding and decision threshold for FE F1
    on dev (gold frames)."""
    import srsly

    from ..scoring.frame_elements_eval import tune_fe_threshold

    try:
        gaps = [None if g.lower() in ("none", "null") else int(g) for g in ngram_gap]
    except ValueError:
        raise typer.BadParameter(f"--ngram-gap takes integers >= 0 or 'none', got {ngram_gap}") from None
    try:
        result = tune_fe_threshold(model, corpus, output_model, ngram_gaps=gaps)
    except (OSError, ValueError) as err:
        _fail(err)
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, result)
    best, before = result["best"], result["before"]
    typer.echo(
        f"best: n-gram gap {best['ngram_gap']}, {best['decoding']} decoding, threshold {best['threshold']}: "
        f"FE P {best['fe_p']}  R {best['fe_r']}  F {best['fe_f']} ({best['candidate_rows']} candidate rows)"
        + (f" (was {before['fe_f']} at {before['threshold']}, {before['candidate_rows']} rows)" if before else "")
    )


@app.command("evaluate-frames")
def evaluate_frames_cli(
    # fmt: off
    model: str = Arg(..., help="Trained pipeline with a frame_identifier"),
    output: Path = Opt(..., "--output", "-o", help="JSON file to write"),
    fn15_dir: Path = Opt(Path("corpus/framenet15"), "--fn15", help="Converted FrameNet 1.5 corpus"),
    fn17_dir: Optional[Path] = Opt(Path("corpus/framenet17"), "--fn17", help="Converted FrameNet 1.7 dev ('' to skip)"),
    split: str = Opt("test", "--split", help="FN1.5 split to score: dev (tuning) or test (report once)"),
    baseline: bool = Opt(True, "--baseline/--no-baseline", help="Also score the lookup-table baseline"),
    # fmt: on
):
    """Frame identification (gold targets), target detection, FN1.7 dev, lookup baseline."""
    import srsly

    from ..scoring.frames_eval import evaluate_frame_identifier

    try:
        result = evaluate_frame_identifier(
            model, fn15_dir, fn17_dir if fn17_dir and str(fn17_dir) else None, split, baseline
        )
    except (OSError, ValueError) as err:
        _fail(err)
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, result)
    gold = result["fn15_gold_targets"]
    typer.echo(
        f"FN1.5 {split} (gold targets): Acc {gold['frame_acc']}  R@1 {gold['frame_r1']}  R@3 {gold['frame_r3']}  "
        f"R@5 {gold['frame_r5']}  Overall {gold['frame_overall']}  ambiguous Acc {gold['frame_acc_ambiguous']}"
    )
    det = result["fn15_target_detection"]
    typer.echo(f"target detection: P {det['target_p']}  R {det['target_r']}  F {det['target_f']}")
    if "lookup_baseline" in result:
        typer.echo(
            f"lookup baseline: Acc {result['lookup_baseline']['frame_acc']}  ambiguous {result['lookup_baseline']['frame_acc_ambiguous']}"
        )
    if result.get("fn17_dev"):
        typer.echo(f"FN1.7 dev: {result['fn17_dev']}")


@app.command("tune-detection")
def tune_detection_cli(
    # fmt: off
    model: str = Arg(..., help="Trained pipeline with a frame_identifier"),
    output: Path = Opt(..., "--output", "-o", help="JSON file to write (the whole grid and the best cut-offs)"),
    corpus: Path = Opt(Path("corpus/framenet15/dev.spacy"), "--corpus", help="Dev corpus the cut-offs are tuned on"),
    output_model: Optional[Path] = Opt(None, "--output-model", help="Save the pipeline with the chosen cut-offs here"),
    train: Optional[Path] = Opt(
        None,
        "--train",
        help="Training corpus: also fit the target calibration (target rates from it, weights by cross-validation on dev) and save that",
    ),
    # fmt: on
):
    """Tune the target detector's cut-offs (in-lexicon and out-of-lexicon) for F1 on dev;
    with --train, fit the target calibration too (and use it)."""
    import json

    from ..scoring.frames_eval import tune_detection

    try:
        result = tune_detection(model, corpus, output_model, train=train)
    except (OSError, ValueError) as err:
        _fail(err)
    output.parent.mkdir(parents=True, exist_ok=True)
    # the stdlib writes 0.95 as 0.95 (srsly's ujson: 0.9500000000000001)
    output.write_text(json.dumps(result, indent=2) + "\n", encoding="utf8")
    best, before = result["best"], result["before"]
    if before:
        typer.echo(
            f"before: threshold {before['threshold']} oov {before['oov_threshold']}: P {before['target_p']} R {before['target_r']} F {before['target_f']}"
        )
    typer.echo(
        f"best:   threshold {best['threshold']} oov {best['oov_threshold']}: P {best['target_p']} R {best['target_r']} F {best['target_f']}"
    )
    if "calibrated" in result:
        cal = result["calibrated"]["best"]
        typer.echo(
            f"calibrated (5-fold CV on dev): l2 {cal['l2']} threshold {cal['threshold']}: P {cal['target_p']} R {cal['target_r']} F {cal['target_f']}"
        )
    if output_model is not None:
        typer.echo(f"saved to {output_model}")


@app.command("induce")
def induce_cli(
    # fmt: off
    model: str = Arg(..., help="Pipeline with a frame_inducer"),
    input_path: Path = Arg(..., help=".spacy corpus whose targets are clustered"),
    output_path: Path = Arg(..., help=".spacy file written with span._.induced_frame set"),
    method: str = Opt("two-step", "--method", "-m", help="two-step | one-step | faiss"),
    dev: Optional[Path] = Opt(None, "--dev", help="Gold-labelled corpus the stopping criterion is calibrated on"),
    calibrate_on_input: bool = Opt(False, "--calibrate-on-input", help="Calibrate on the input's own gold frames"),
    store_centroids: Optional[Path] = Opt(
        None, "--store-centroids", help="Save the pipeline with these clusters as centroids here"
    ),
    batch_size: int = Opt(64, "--batch-size"),
    # fmt: on
):
    """Embed every target of a corpus, cluster them and write induced frames (optionally as centroids)."""
    import json

    from .induce import induce

    try:
        result = induce(
            model,
            input_path,
            output_path,
            method=method,
            dev=dev,
            calibrate_on_input=calibrate_on_input,
            store_centroids=store_centroids,
            batch_size=batch_size,
        )
    except (OSError, ValueError) as err:
        _fail(err)
    typer.echo(json.dumps(result, indent=1))


@app.command("evaluate-discourse")
def evaluate_discourse_cli(
    # fmt: off
    model: str = Arg(..., help="Pipeline with a discourse_sense"),
    corpora: List[Path] = Arg(..., help="Converted discourse corpora (corpus/discourse/*.spacy), arguments given"),
    output: Path = Opt(..., "--output", "-o", help="JSON file to write"),
    # fmt: on
):
    """Level-1 / level-2 accuracy, macro-F1 and per-sense F1 of discourse senses."""
    import json

    import spacy

    from ..scoring.discourse_eval import evaluate_corpus

    try:
        nlp = spacy.load(model)
        result = {path.stem: evaluate_corpus(nlp, path)[0] for path in corpora}
    except (OSError, ValueError) as err:
        _fail(err)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(result, indent=1) + "\n", encoding="utf8")
    for name, scores in result.items():
        typer.echo(
            f"{name}: L1 acc {scores['l1']['acc']} F1 {scores['l1']['macro_f1']}  L2 acc {scores['l2']['acc']} F1 {scores['l2']['macro_f1']}"
        )


@app.command("predict-rels")
def predict_rels_cli(
    # fmt: off
    model: str = Arg(..., help="Pipeline with a discourse_sense"),
    input_path: Path = Arg(..., help="DISRPT .rels file"),
    output_path: Path = Arg(..., help=".rels file written with the predicted senses"),
    # fmt: on
):
    """Classify the relations of a DISRPT .rels file and write them back for the DISRPT scorer."""
    import json

    import spacy

    from ..scoring.discourse_eval import predict_rels

    try:
        result = predict_rels(spacy.load(model), input_path, output_path)
    except (OSError, ValueError, KeyError) as err:
        _fail(err)
    typer.echo(
        json.dumps(
            {
                "relations": result["relations"],
                "implicit": {k: {m: v[m] for m in ("acc", "macro_f1")} for k, v in result["implicit_scores"].items()},
            }
        )
    )


@app.command("media-cache-body")
def media_cache_body_cli(
    # fmt: off
    model: str = Arg(..., help="Pipeline whose (frozen) transformer encodes the articles"),
    corpora: List[Path] = Arg(..., help="Converted media-frames corpora (corpus/media_frames/*.spacy)"),
    output: Path = Opt(..., "--output", "-o", help="msgpack file of article vectors (the reader's body_cache)"),
    component: str = Opt("media_framer", "--component", "-c", help="Component whose listener is cached"),
    # fmt: on
):
    """Encode whole articles once with a frozen transformer, for the head-only training stages."""
    import spacy

    from ..corpora.media_cache import write_body_cache

    try:
        n = write_body_cache(spacy.load(model), component, corpora, output)
    except (OSError, ValueError) as err:
        _fail(err)
    typer.echo(f"✔ {n} article vectors written to {output}")


@app.command("media-thresholds")
def media_thresholds_cli(
    # fmt: off
    model: Path = Arg(..., help="Trained pipeline with media_framer (updated in place unless --output)"),
    dev: List[Path] = Arg(..., help="Dev corpora (corpus/media_frames/*_dev.spacy)"),
    output: Optional[Path] = Opt(None, "--output", "-o", help="Save the tuned pipeline here instead"),
    component: str = Opt("media_framer", "--component", "-c"),
    # fmt: on
):
    """Tune each frame's decision threshold on dev and save it with the component."""
    import spacy

    from ..scoring.media_eval import tune_media_thresholds

    try:
        nlp = spacy.load(model)
        thresholds = tune_media_thresholds(nlp, component, dev)
    except (OSError, ValueError) as err:
        _fail(err)
    nlp.to_disk(output or model)
    typer.echo("\n".join(f"{label}\t{t:.2f}" for label, t in thresholds.items()))
    typer.echo(f"✔ thresholds saved in {output or model}")


@app.command("evaluate-media")
def evaluate_media_cli(
    # fmt: off
    model: str = Arg(..., help="Pipeline with media_framer"),
    corpora: List[Path] = Arg(..., help="Test corpora (corpus/media_frames/<lang>_test.spacy)"),
    output: Optional[Path] = Opt(None, "--output", "-o", help="JSON file for the scores"),
    component: str = Opt("media_framer", "--component", "-c"),
    # fmt: on
):
    """Micro/macro-F1 of doc._.media_frames per language."""
    import json

    import spacy

    from ..scoring.media_eval import evaluate_media

    try:
        scores = evaluate_media(spacy.load(model), component, corpora)
    except (OSError, ValueError) as err:
        _fail(err)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(json.dumps(scores, indent=1))
    for lang, s in scores.items():
        typer.echo(f"{lang}\tmicro-F1 {s['micro_f1']:.3f}\tmacro-F1 {s['macro_f1']:.3f}\tn {s['n']}")


@app.command("half-storage")
def half_storage_cli(
    # fmt: off
    model: Path = Arg(..., help="Pipeline directory (rewritten in place unless --output)"),
    component: List[str] = Opt(
        ..., "--component", "-c", help="Component whose own encoder weights are stored in float16 (repeat)"
    ),
    output: Optional[Path] = Opt(None, "--output", "-o", help="Save here instead"),
    # fmt: on
):
    """Store the named components' own torch weights in float16 (loaded back as float32)."""
    import json

    from ..tools.half_storage import half_storage

    try:
        result = half_storage(model, list(component), output)
    except (OSError, ValueError) as err:
        _fail(err)
    typer.echo(json.dumps(result, indent=1))


from . import evaluate_cli, midtune_train_cli, render_cli, robustness_cli  # noqa: E402,F401
