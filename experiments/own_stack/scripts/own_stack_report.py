"""One table of `evaluate-own-stack` and `benchmark-own-stack`: per pipeline (a folder of
`metrics/own_stack_pipeline/`), the measures en_frames_trf is held to, in percent.

    python scripts/own_stack_report.py metrics/own_stack_pipeline --output metrics/own_stack_pipeline.json
"""

import json
from pathlib import Path
from typing import Any, Dict, Optional

import typer

ROW_KEYS = ("target_p", "target_r", "target_f", "frame_acc", "frame_r1", "fe_os_f", "fe_f")


def _rows(path: Path) -> Dict[str, Optional[float]]:
    if not path.exists():
        return {}
    data = json.loads(path.read_text())
    values = {row["key"]: row["value"] for row in data["rows"]}
    out = {key: _pct(values.get(key)) for key in ROW_KEYS if key in values}
    out["tag_acc"] = _pct(data.get("scores", {}).get("tag_acc"))
    return out


def _discourse(path: Path) -> Dict[str, Any]:
    if not path.exists():
        return {}
    scores = json.loads(path.read_text())["scores"]
    return {f"{level}_{k}": scores[level][k] for level in ("l1", "l2") for k in ("acc", "macro_f1")}


def _benchmark(path: Path) -> Dict[str, Any]:
    if not path.exists():
        return {}
    data = json.loads(path.read_text())
    out: Dict[str, Any] = {
        "sentences_full_over_bare": data["full_over_bare"],
        "sentences_words_per_second": data["words_per_second"]["full_n_process_1"],
    }
    for name, doc in data.get("documents", {}).items():
        wps = doc["words_per_second"]
        out[f"documents {name} full_over_bare"] = round(wps["full"] / wps["bare_transformer"], 3)
        out[f"documents {name} words_per_second"] = wps["full"]
    out["component_seconds"] = data.get("component_seconds")
    return out


def _pct(value: Optional[float]) -> Optional[float]:
    return None if value is None else round(100 * value, 2)


def report(folder: Path, output: Path = typer.Option(..., "--output", "-o")) -> None:
    table = {}
    for run in sorted(p for p in folder.iterdir() if p.is_dir()):
        table[run.name] = {
            "fn15_dev": _rows(run / "fn15_dev.json"),
            "fn15_test": _rows(run / "fn15_test.json"),
            "fn15_test_gold_targets": _rows(run / "fn15_test_gold_targets.json"),
            "gdtb_test_documents": _discourse(run / "gdtb_test_documents.json"),
            "benchmark": _benchmark(run / "benchmark.json"),
        }
    output.write_text(json.dumps(table, indent=2) + "\n")
    for name, parts in table.items():
        typer.echo(name)
        for part, values in parts.items():
            shown = {k: v for k, v in values.items() if k != "component_seconds"}
            typer.echo(f"  {part}: {shown}")


if __name__ == "__main__":
    typer.run(report)
