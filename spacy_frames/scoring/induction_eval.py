"""Evaluation of frame induction, the protocol of Yamada et al. (2021, 2023).

For one rotation (train / dev / test folds split by verb lemma):
1. embed every instance of the dev and test folds with a pipeline's frame_inducer
   (v_word, and v_mask unless only alpha = 0 is wanted), cached as .npz;
2. for each clustering method, choose alpha (0, 0.1, ..., 1) by B-cubed F1 on dev,
   with the method's stopping criterion calibrated on dev (clustering/induction.py);
3. cluster the test fold with that alpha and calibration, and score it
   (PU / iPU / PiF, BcP / BcR / BcF, #pLU, #C);
4. the trivial baselines (one cluster per verb lemma, all in one) on the same fold,
   and the similarity-ranking recall of the paper's Table 6 (ALL / SAME / DIFF).
"""

from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import numpy

from ..clustering import (
    all_in_one,
    calibrate_and_cluster,
    cluster,
    cluster_scores,
    one_cluster_per_lemma,
    twostep_cluster,
)
from ..extensions import TARGETS_KEY
from ..ml.frame_inducer import mix
from ..suggesters.frames import target_lemma

ALPHAS = tuple(round(0.1 * i, 1) for i in range(11))
SCORE_KEYS = ("pu", "ipu", "pif", "bcp", "bcr", "bcf")


def load_instances(path, vocab) -> List[Any]:
    """The instance docs of a fold DocBin (one target each)."""
    from spacy.tokens import DocBin

    from ..extensions import install_extensions

    install_extensions()
    docs = [doc for doc in DocBin().from_disk(path).get_docs(vocab) if len(doc.spans.get(TARGETS_KEY, []))]
    if not docs:
        raise ValueError(f"'{path}' holds no frame-induction instances.")
    return docs


def embed_targets(
    nlp,
    docs: Sequence[Any],
    targets: List[List[Any]],
    *,
    alpha: Optional[float] = None,
    with_mask: bool = False,
    batch_size: int = 64,
    progress: bool = True,
    name: str = "frame_inducer",
):
    """Embed the given targets of `docs` with the pipeline's frame_inducer: (v, v_word,
    v_mask) with one row per target, in doc order. v mixes them with `alpha` (default:
    the component's); `with_mask` computes v_mask even when that alpha is 0.

    Only the inducer's upstream transformer runs on the docs (they carry their targets).
    Docs go in length-sorted batches (less padding) and their transformer output is
    dropped after each batch, so memory stays flat over large corpora.
    """
    from tqdm import tqdm

    from ..util import find_upstream_transformer

    inducer = get_inducer(nlp, name)
    alpha = inducer.cfg["alpha"] if alpha is None else alpha
    transformer = find_upstream_transformer(nlp, inducer.name, inducer.model.get_ref("tok2vec"))
    docs = list(docs)
    offsets = numpy.cumsum([0] + [len(t) for t in targets])
    n = int(offsets[-1])
    order = [i for i in sorted(range(len(docs)), key=lambda i: len(docs[i])) if targets[i]]
    words: List[Any] = [None] * n
    masks: List[Any] = [None] * n
    width = 0
    bar = tqdm(total=n, desc="embedding", unit=" targets", disable=not progress, mininterval=2.0)
    for start in range(0, len(order), batch_size):
        idx = order[start : start + batch_size]
        batch = list(transformer.pipe([docs[i] for i in idx], batch_size=batch_size))
        _, v_word, v_mask = inducer.embed(
            batch, [targets[i] for i in idx], alpha=0.5 if (with_mask or alpha > 0) else 0.0
        )
        row = 0
        for i in idx:
            for j in range(offsets[i], offsets[i + 1]):
                words[j] = v_word[row]
                masks[j] = v_mask[row] if v_mask is not None else None
                row += 1
        for doc in batch:
            doc._.trf_data = None
        width = v_word.shape[1]
        bar.update(row)
    bar.close()
    v_word = numpy.stack(words).astype("float32") if n else numpy.zeros((0, width), "float32")
    v_mask = numpy.stack(masks).astype("float32") if n and masks[0] is not None else None
    return mix(v_word, v_mask, alpha), v_word, v_mask


def embed_instances(
    nlp, docs: Sequence[Any], *, with_mask: bool = True, batch_size: int = 64, progress: bool = True
) -> Dict[str, Any]:
    """v_word (and v_mask) of each instance's gold target, with lemma, frame and LU."""
    spans = [doc.spans[TARGETS_KEY][0] for doc in docs]
    _, v_word, v_mask = embed_targets(
        nlp, docs, [[span] for span in spans], alpha=0.0, with_mask=with_mask, batch_size=batch_size, progress=progress
    )
    return {
        "v_word": v_word,
        "v_mask": v_mask,
        "frames": numpy.array([s.label_ for s in spans]),
        "lus": numpy.array([s._.lexical_unit or "" for s in spans]),
        "lemmas": numpy.array([target_lemma(s) for s in spans]),
    }


def get_inducer(nlp, name: str = "frame_inducer"):
    if name not in nlp.component_names:
        raise ValueError(f"The pipeline has no '{name}' component (components: {nlp.component_names}).")
    return nlp.get_pipe(name)


def save_embeddings(path, data: Dict[str, Any]) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {k: v for k, v in data.items() if v is not None}
    numpy.savez(path, **arrays)


def load_embeddings(path) -> Dict[str, Any]:
    with numpy.load(path, allow_pickle=False) as f:
        data = {k: f[k] for k in f.files}
    data.setdefault("v_mask", None)
    return data


def mixed(data: Dict[str, Any], alpha: float) -> numpy.ndarray:
    if alpha > 0 and data.get("v_mask") is None:
        raise ValueError("alpha > 0 needs v_mask: embed with the masked pass")
    return mix(data["v_word"], data.get("v_mask"), alpha)


def run_method(
    method: str, dev: Dict[str, Any], test: Dict[str, Any], alphas: Sequence[float] = ALPHAS, seed: int = 0
) -> Dict[str, Any]:
    """Choose alpha on dev (BcF), with the stopping criterion calibrated on dev for each
    alpha; cluster and score test with the chosen alpha and its calibration."""
    alphas = [a for a in alphas if a == 0 or dev.get("v_mask") is not None]
    dev_bcf, params = {}, {}
    for alpha in alphas:
        params[alpha], labels = calibrate_and_cluster(method, mixed(dev, alpha), dev["lemmas"], dev["frames"], seed)
        dev_bcf[alpha] = cluster_scores(dev["frames"], labels)["bcf"]
    best = max(alphas, key=lambda a: (dev_bcf[a], -a))
    X = mixed(test, best)
    n_plu = None
    if method == "two-step":
        labels, plu = twostep_cluster(X, test["lemmas"], params[best], random_state=seed)
        n_plu = int(len(set(plu.tolist())))
    else:
        labels = cluster(method, X, test["lemmas"], params[best])
    scores = cluster_scores(test["frames"], labels)
    return {
        "alpha": best,
        "n_plu": n_plu,
        "n_clusters": scores["n_clusters"],
        **{k: scores[k] for k in SCORE_KEYS},
        "params": {k: (v.item() if hasattr(v, "item") else v) for k, v in params[best].items()},
        "dev_bcf_by_alpha": {str(a): round(v, 2) for a, v in dev_bcf.items()},
    }


def baselines(test: Dict[str, Any]) -> Dict[str, Dict[str, Any]]:
    out = {}
    for name, labels in (
        ("1cpv", one_cluster_per_lemma(test["lemmas"])),
        ("all_in_one", all_in_one(len(test["frames"]))),
    ):
        scores = cluster_scores(test["frames"], labels)
        out[name] = {"n_clusters": scores["n_clusters"], **{k: scores[k] for k in SCORE_KEYS}}
    return out


def ranking_recall(
    X: numpy.ndarray, frames: Sequence[str], lemmas: Sequence[str], block: int = 2048
) -> Dict[str, float]:
    """Similarity-ranking recall (Table 6 of Yamada et al. 2023), R-precision style:
    for each instance, rank the candidate instances by cosine; with n the number of
    candidates of the same frame, the share of those among the top n. ALL: every other
    instance; SAME: those of the same verb; DIFF: those of other verbs. Averaged over the
    instances that have at least one same-frame candidate."""
    X = numpy.ascontiguousarray(X, dtype="float32")
    frames = numpy.asarray(frames)
    lemmas = numpy.asarray(lemmas)
    totals = {"all": [], "same": [], "diff": []}
    for start in range(0, len(X), block):
        sims = X[start : start + block] @ X.T
        for r in range(sims.shape[0]):
            i = start + r
            same_frame = frames == frames[i]
            same_frame[i] = False
            same_lemma = lemmas == lemmas[i]
            others = numpy.ones(len(X), dtype=bool)
            others[i] = False
            for key, cand in (("all", others), ("same", others & same_lemma), ("diff", others & ~same_lemma)):
                positives = same_frame & cand
                n = int(positives.sum())
                if n == 0:
                    continue
                scores = numpy.where(cand, sims[r], -numpy.inf)
                top = numpy.argpartition(-scores, n - 1)[:n]
                totals[key].append(positives[top].sum() / n)
    return {key: round(100.0 * float(numpy.mean(v)), 2) if v else None for key, v in totals.items()}


def evaluate_fold(
    dev: Dict[str, Any],
    test: Dict[str, Any],
    methods: Sequence[str] = ("one-step", "two-step"),
    seed: int = 0,
    ranking: bool = True,
) -> Dict[str, Any]:
    result: Dict[str, Any] = {"n_test": int(len(test["frames"])), "n_dev": int(len(dev["frames"]))}
    for method in methods:
        result[method] = run_method(method, dev, test, seed=seed)
    if ranking:
        alpha = result.get("two-step", {}).get("alpha", 0.0)
        result["ranking_recall"] = {
            "alpha": alpha,
            **ranking_recall(mixed(test, alpha), test["frames"], test["lemmas"]),
        }
        # the embedding itself (v_word, what fine-tuning optimises), as the paper's Table 6
        result["ranking_recall_vword"] = {
            "alpha": 0.0,
            **ranking_recall(mixed(test, 0.0), test["frames"], test["lemmas"]),
        }
    return result


def _mean(values: Sequence[Optional[float]]) -> Optional[float]:
    values = [v for v in values if v is not None]
    return round(float(numpy.mean(values)), 2) if values else None


def summarize_runs(runs: Dict[str, Dict[str, Any]], systems: Sequence[str], n_folds: int) -> Dict[str, Any]:
    """Table 3 (systems x one-step / two-step, averaged over folds), the baselines per
    fold and averaged, Table 6 (ranking recall); systems with missing folds are marked."""
    table: Dict[str, Any] = {}
    lines = [
        "| system | clustering | folds | alpha | #pLU | #C | PU | iPU | PiF | BcP | BcR | BcF |",
        "|" + "---|" * 12,
    ]
    for system in systems:
        folds = [k for k in range(n_folds) if f"{system}_fold{k}" in runs]
        for method in ("one-step", "two-step"):
            rows = [runs[f"{system}_fold{k}"][method] for k in folds if method in runs[f"{system}_fold{k}"]]
            if not rows:
                continue
            entry = {"folds": folds, "alpha": [round(r["alpha"], 1) for r in rows]}
            for key in ("n_plu", "n_clusters") + SCORE_KEYS:
                entry[key] = _mean([r.get(key) for r in rows])
            table.setdefault(system, {})[method] = entry
            cells = [
                system,
                method,
                f"{len(folds)}/{n_folds}",
                "/".join(str(a) for a in entry["alpha"]),
                entry["n_plu"] if entry["n_plu"] is not None else "–",
                entry["n_clusters"],
            ]
            cells += [f"{entry[k]:.1f}" for k in SCORE_KEYS]
            lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    baseline: Dict[str, Any] = {}
    for k in range(n_folds):
        run = next((r for name, r in runs.items() if name.endswith(f"_fold{k}") and "1cpv" in r), None)
        if run is not None:
            baseline[f"fold{k}"] = {name: run[name] for name in ("1cpv", "all_in_one")}
    per_fold = list(baseline.values())
    for name in ("1cpv", "all_in_one"):
        rows = [b[name] for b in per_fold]
        if rows:
            baseline[f"{name}_mean"] = {key: _mean([r[key] for r in rows]) for key in ("n_clusters",) + SCORE_KEYS}
            m = baseline[f"{name}_mean"]
            lines.append(
                f"| {name} | – | {len(rows)}/{n_folds} | – | – | {m['n_clusters']} | "
                + " | ".join(f"{m[k]:.1f}" for k in SCORE_KEYS)
                + " |"
            )
    ranking, ranking_vword = {}, {}
    for key_name, out in (("ranking_recall", ranking), ("ranking_recall_vword", ranking_vword)):
        for system in systems:
            rows = [
                runs[f"{system}_fold{k}"][key_name]
                for k in range(n_folds)
                if key_name in runs.get(f"{system}_fold{k}", {})
            ]
            if rows:
                out[system] = {key: _mean([r[key] for r in rows]) for key in ("all", "same", "diff")}
                out[system]["folds"] = len(rows)
    return {
        "table3": table,
        "baselines": baseline,
        "ranking_recall": ranking,
        "ranking_recall_vword": ranking_vword,
        "table": lines,
        "runs": {
            name: {k: v for k, v in run.items() if k in ("timing", "rotation", "loss", "overrides")}
            for name, run in runs.items()
        },
    }
