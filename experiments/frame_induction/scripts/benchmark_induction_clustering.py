"""Time, peak memory and BcF of exact one-step clustering against the FAISS path.

    python scripts/benchmark_induction_clustering.py metrics/frame_inducer_clustering_scale.json \
        --dev training/frame_induction/vanilla/embeddings/fold1.npz \
        --test training/frame_induction/vanilla/embeddings/fold0.npz

1. On a real fold (embeddings from the experiment cache): exact one-step (average
   linkage over all instances, quadratic memory) and the FAISS path (k-means into
   groups, average linkage over the groups), both calibrated on the dev fold.
2. On synthetic data (default 1,000,000 x 384, 2,000 noisy classes): the FAISS path
   only; exact linkage would need n^2 / 2 distances (4 TB at 1M).
Every measurement runs in a fresh process, so its peak RSS is its own.
"""

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import typer

app = typer.Typer(add_completion=False)


def _measure(kind: str, args: dict) -> dict:
    cmd = [sys.executable, __file__, "one", kind, json.dumps(args)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


@app.command("one", hidden=True)
def one(kind: str, args: str):
    """One measurement in this process; prints a JSON line."""
    import numpy

    from spacy_frames.clustering import calibrate, cluster, cluster_scores
    from spacy_frames.scoring.induction_eval import load_embeddings, mixed

    opts = json.loads(args)
    if kind == "synthetic":
        rng = numpy.random.default_rng(0)
        n, d, k = opts["n"], opts["dim"], opts["classes"]
        centres = rng.standard_normal((k, d)).astype("float32")
        gold = rng.integers(0, k, n)
        X = centres[gold] + 0.5 * rng.standard_normal((n, d)).astype("float32")
        X /= numpy.linalg.norm(X, axis=1, keepdims=True)
        dev_idx = rng.choice(n, opts["dev"], replace=False)
        X_dev, f_dev = X[dev_idx], gold[dev_idx]
    else:
        dev, test = load_embeddings(opts["dev"]), load_embeddings(opts["test"])
        X_dev, f_dev = mixed(dev, 0.0), dev["frames"]
        X, gold = mixed(test, 0.0), test["frames"]
    method = "faiss" if kind in ("faiss", "synthetic") else "one-step"
    start = time.time()
    params = calibrate(method, X_dev, None, f_dev) if method == "one-step" else _faiss_params(X_dev, f_dev, opts)
    calibrated = time.time()
    labels = cluster(method, X, None, params)
    done = time.time()
    scores = cluster_scores(gold, labels)
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "method": method,
                "n_instances": int(len(X)),
                "dim": int(X.shape[1]),
                "n_dev": int(len(X_dev)),
                "calibrate_s": round(calibrated - start, 1),
                "cluster_s": round(done - calibrated, 1),
                "peak_rss_mib": round(peak_mib),
                "n_clusters": scores["n_clusters"],
                "bcf": round(scores["bcf"], 2),
                "pif": round(scores["pif"], 2),
                "n_groups": params.get("n_groups"),
            }
        )
    )


def _faiss_params(X_dev, f_dev, opts):
    from spacy_frames.clustering import faiss_params

    return faiss_params(X_dev, f_dev, n_groups=opts.get("n_groups", 4096))


@app.command("run")
def run(
    output: Path = typer.Argument(...),
    dev: Path = typer.Option(..., "--dev", help="Dev-fold embeddings (.npz) for the calibration"),
    test: Path = typer.Option(..., "--test", help="Test-fold embeddings (.npz) that are clustered"),
    n_groups: int = typer.Option(4096, "--n-groups", help="k-means groups of the FAISS path"),
    synthetic: int = typer.Option(1_000_000, "--synthetic", help="Synthetic instances for the FAISS path (0: skip)"),
):
    """Run the measurements and write them to OUTPUT."""
    result = {"n_threads": "all (2 cores)", "fold": {}, "synthetic": None}
    fold = {"dev": str(dev), "test": str(test), "n_groups": n_groups}
    result["fold"]["exact_one_step"] = _measure("exact", fold)
    result["fold"]["faiss"] = _measure("faiss", fold)
    if synthetic:
        result["synthetic"] = _measure(
            "synthetic",
            {"n": synthetic, "dim": 384, "classes": 2000, "dev": min(20000, synthetic // 5), "n_groups": n_groups},
        )
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(result, indent=2) + "\n")
    typer.echo(json.dumps(result, indent=2))


if __name__ == "__main__":
    app()
