"""First-token ([CLS]) vs mean pooling of the pair "[CLS] Arg1 [SEP] Arg2 [SEP]", probed on
GDTB dev.

Long & Webber classify from RoBERTa's first token; our encoder (all-MiniLM-L6-v2) was
trained by sentence-transformers with mean pooling (its 1_Pooling/config.json), and the
spaCy listener pools wordpieces onto tokens, so [CLS] never reaches a component. Before
building a listener output that keeps [CLS], this measures which pooling carries more of
the sense on this encoder: the frozen encoder reads every GDTB implicit relation as a
pair, a logistic regression per pooling is trained on train (C chosen on dev) and scored
on dev only (model selection; the test set is not read). A linear probe on the frozen
encoder, not the fine-tuned component: it ranks the poolings, it does not predict the
fine-tuned accuracy.

    python scripts/discourse_pooling_probe.py ../../corpus/discourse metrics/discourse_sense/pooling_probe.json
"""

import json
import time
from pathlib import Path
from typing import Dict, List, Tuple

import numpy
import typer
from spacy.tokens import DocBin
from spacy.vocab import Vocab

ARGS_KEY = "discourse_args"
POOLINGS = ("first-token", "mean")
C_GRID = (0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 1.0)
app = typer.Typer(add_completion=False)


def read_pairs(path: Path) -> Tuple[List[Tuple[str, str]], List[List[str]]]:
    """(arg1, arg2) texts and gold sense paths of a converted GDTB split."""
    from spacy_frames.extensions import install_extensions

    install_extensions()
    pairs, senses = [], []
    for doc in DocBin().from_disk(path).get_docs(Vocab()):
        gold = doc._.discourse_gold or {}
        if not gold.get("senses") or len(doc.spans.get(ARGS_KEY, [])) != 2:
            continue
        arg1, arg2 = doc.spans[ARGS_KEY]
        pairs.append((arg1.text, arg2.text))
        senses.append(list(gold["senses"]))
    return pairs, senses


def level(path: str, n: int) -> str:
    return ".".join(path.split(".")[:n])


def embed(encoder: Path, pairs: List[Tuple[str, str]], batch_size: int = 32) -> Dict[str, numpy.ndarray]:
    """Last-layer [CLS] row and attention-masked mean (sentence-transformers' pooling) per pair."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(encoder))
    model = AutoModel.from_pretrained(str(encoder)).eval()
    cls, mean = [], []
    with torch.no_grad():
        for i in range(0, len(pairs), batch_size):
            a1, a2 = zip(*pairs[i : i + batch_size])
            enc = tokenizer(list(a1), list(a2), truncation=True, max_length=256, padding=True, return_tensors="pt")
            hidden = model(**enc).last_hidden_state
            mask = enc["attention_mask"].unsqueeze(-1).float()
            cls.append(hidden[:, 0].numpy())
            mean.append(((hidden * mask).sum(1) / mask.sum(1)).numpy())
    return {"first-token": numpy.concatenate(cls), "mean": numpy.concatenate(mean)}


def accuracy(pred: List[str], gold: List[List[str]], n: int) -> float:
    return 100.0 * sum(p in {level(s, n) for s in g} for p, g in zip(pred, gold)) / len(gold)


@app.command()
def main(
    corpus: Path = typer.Argument(Path("../../corpus/discourse")),
    output: Path = typer.Argument(Path("metrics/discourse_sense/pooling_probe.json")),
    encoder: Path = typer.Option(Path("../../assets/encoders/all-MiniLM-L6-v2"), "--encoder"),
    cache_dir: Path = typer.Option(
        Path("training/discourse"), "--cache-dir", help="Where the frozen embeddings are kept (never committed)"
    ),
):
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    start = time.time()
    train_pairs, train_senses = read_pairs(corpus / "gdtb_train.spacy")
    dev_pairs, dev_senses = read_pairs(corpus / "gdtb_dev.spacy")
    cache = Path(cache_dir) / f"pooling_probe_{encoder.name}.npz"
    if cache.exists():
        saved = numpy.load(cache)
        train_x = {p: saved[f"train_{p}"] for p in POOLINGS}
        dev_x = {p: saved[f"dev_{p}"] for p in POOLINGS}
    else:
        train_x, dev_x = embed(encoder, train_pairs), embed(encoder, dev_pairs)
        cache.parent.mkdir(parents=True, exist_ok=True)
        numpy.savez(
            cache, **{f"{split}_{p}": x[p] for split, x in (("train", train_x), ("dev", dev_x)) for p in POOLINGS}
        )
    result = {
        "encoder": str(encoder),
        "n_train": len(train_pairs),
        "n_dev": len(dev_pairs),
        "probe": "logistic regression, C chosen on dev",
        "dev": {},
    }
    for n in (1, 2):
        # a two-sense relation trains on its first sense; a prediction matching either is correct
        labels = [level(s[0], n) for s in train_senses]
        for pooling in POOLINGS:
            scaler = StandardScaler().fit(train_x[pooling])
            xs, xd = scaler.transform(train_x[pooling]), scaler.transform(dev_x[pooling])
            by_c = {}
            for c in C_GRID:
                clf = LogisticRegression(C=c, max_iter=2000).fit(xs, labels)
                by_c[str(c)] = round(accuracy(list(clf.predict(xd)), dev_senses, n), 2)
            best = max(by_c, key=by_c.get)
            result["dev"].setdefault(pooling, {})[f"L{n}_acc"] = by_c[best]
            result["dev"][pooling][f"L{n}_by_C"] = by_c
    result["seconds"] = round(time.time() - start, 1)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(result, indent=2) + "\n")
    typer.echo(json.dumps(result["dev"], indent=1))


if __name__ == "__main__":
    app()
