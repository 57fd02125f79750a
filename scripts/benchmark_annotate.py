"""Documents/s of `spacy-frames annotate` on one machine: 1 process, --n-process 2 and
--dask local:2, over the same documents, each run a fresh CLI process (model loading and
worker start-up included, as a user pays them). The outputs are compared byte for byte and,
where they differ, field by field: a worker runs torch on one thread and one process on two, so
a float sum may round differently; `same_up_to_rounding` says whether every difference is a
score within one unit of its last written digit (every label, span and text the same).

    python scripts/benchmark_annotate.py MODEL CORPUS.spacy OUTPUT.json [--n-docs 400]
"""

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import typer
from spacy.tokens import DocBin
from spacy.vocab import Vocab

SETTINGS = {"1 process": [], "--n-process 2": ["--n-process", "2"], "--dask local:2": ["--dask", "local:2"]}


def main(
    model: str,
    corpus: Path,
    output: Path,
    n_docs: int = typer.Option(
        400, help="Documents: the corpus's docs, consecutive ones joined three at a time (news-length paragraphs)"
    ),
    batch_size: int = typer.Option(32),
):
    texts = [doc.text for doc in DocBin().from_disk(corpus).get_docs(Vocab())]
    docs = [" ".join(texts[i : i + 3]) for i in range(0, len(texts), 3)][:n_docs]
    if len(docs) < n_docs:
        sys.exit(f"{corpus} gives only {len(docs)} documents")
    result = {
        "model": model,
        "corpus": str(corpus),
        "documents": len(docs),
        "words": sum(len(d.split()) for d in docs),
        "batch_size": batch_size,
        "cpus": os.cpu_count(),
        "machine": platform.machine(),
        "runs": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "docs.txt"
        source.write_text("".join(d.replace("\n", " ") + "\n" for d in docs), encoding="utf-8")
        outputs = {}
        for name, flags in SETTINGS.items():
            out = Path(tmp) / f"{len(outputs)}.jsonl"
            command = [
                sys.executable,
                "-m",
                "spacy_frames",
                "annotate",
                model,
                str(source),
                str(out),
                "--batch-size",
                str(batch_size),
                "--no-progress",
                *flags,
            ]
            start = time.perf_counter()
            subprocess.run(command, check=True)
            seconds = time.perf_counter() - start
            outputs[name] = out.read_bytes()
            result["runs"][name] = {"seconds": round(seconds, 1), "documents_per_second": round(len(docs) / seconds, 2)}
            typer.echo(f"{name}: {result['runs'][name]}")
        first = next(iter(outputs.values()))
        result["identical_outputs"] = all(data == first for data in outputs.values())
        # where they differ: records, the top-level fields that differ, and whether only by rounding
        differences = {name: record_differences(first, data) for name, data in outputs.items() if data != first}
        result["same_up_to_rounding"] = all(d["same_up_to_rounding"] for d in differences.values())
        result["differences"] = differences
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(result, indent=2) + "\n")


# the CLI writes scores with 4 decimals: two floats a last-bit apart may round one unit apart
ROUNDING_UNIT = 1e-4


def values_within(a, b, tolerance: float = ROUNDING_UNIT) -> bool:
    """Whether two JSON values are equal but for floats at most `tolerance` apart."""
    if isinstance(a, float) or isinstance(b, float):
        numbers = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b))
        # 1e-12: 0.6131 - 0.613 is a hair over 1e-4 in binary floats
        return numbers and abs(a - b) <= tolerance + 1e-12
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(values_within(a[k], b[k], tolerance) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(values_within(x, y, tolerance) for x, y in zip(a, b))
    return a == b


def first_difference(a, b, path):
    """The path to the first value where two JSON values differ, and the two values there."""
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        key = next(k for k in a if a[k] != b[k])
        return first_difference(a[key], b[key], [*path, key])
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        index = next(i for i, (x, y) in enumerate(zip(a, b)) if x != y)
        return first_difference(a[index], b[index], [*path, index])
    return path, a, b


def record_differences(reference: bytes, other: bytes) -> dict:
    ref, oth = reference.decode("utf-8").splitlines(), other.decode("utf-8").splitlines()
    fields, examples = {}, []
    beyond_rounding = 0
    for i, (a, b) in enumerate(zip(ref, oth)):
        if a == b:
            continue
        a, b = json.loads(a), json.loads(b)
        beyond_rounding += not values_within(a, b)
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                fields[key] = fields.get(key, 0) + 1
                if len(examples) < 5:
                    path, ours, theirs = first_difference(a.get(key), b.get(key), [key])
                    examples.append({"record": i, "path": path, "reference": ours, "other": theirs})
    return {
        "records": len(ref),
        "other_records": len(oth),
        "differing_records": sum(x != y for x, y in zip(ref, oth)),
        "differing_fields": fields,
        "same_up_to_rounding": len(ref) == len(oth) and not beyond_rounding,
        "examples": examples,
    }


if __name__ == "__main__":
    typer.run(main)
