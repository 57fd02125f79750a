"""Can the frame memory be mixed with the definitions at inference time
(no retraining) so that R@1 over all frames carries over to FrameNet 1.7?

Encodes the gold targets of FN1.5 dev and FN1.7 dev once (the FN1.7 inventory swapped in,
memory kept by frame name), then ranks all frames offline with each frame's vector
normalise(definition + s_f * memory) for
- a global scale s_f = lambda;
- evidence shrinkage s_f = n_f / (n_f + k), n_f = the frame's gold targets in FN1.5
  train + exemplars (what stage 2 learned its memory from);
- the memory of frames without evidence predicted from their definition (ridge
  regression definition -> memory over the frames with evidence).
R@1 on FN1.5 dev, FN1.7 dev and FN1.7 dev's targets whose frame is new in 1.7.

    python scripts/frame_memory_probe.py MODEL OUTPUT.json
"""

import json
from collections import Counter
from pathlib import Path

import numpy
import spacy
import typer
from spacy.tokens import DocBin

from spacy_frames.extensions import TARGETS_KEY, install_extensions
from spacy_frames.inventory.frames import FrameInventory
from spacy_frames.scoring.frames_eval import frame_examples


def target_vectors(nlp, path: Path):
    fi = nlp.get_pipe("frame_identifier")
    examples = [eg for eg in frame_examples(nlp, path, gold_targets=True) if eg.predicted.spans.get(TARGETS_KEY)]
    with nlp.select_pipes(disable=["frame_identifier"]):
        docs = list(nlp.pipe([eg.predicted for eg in examples], batch_size=32))
    vectors = numpy.concatenate([fi.predict(docs[i : i + 32])["vectors"] for i in range(0, len(docs), 32)])
    gold = [s.label_ for doc in docs for s in doc.spans[TARGETS_KEY]]
    assert len(gold) == len(vectors)
    return vectors, gold


def recall_at_1(vectors, base, memory, names, gold, scale, mask=None) -> float:
    matrix = base + memory * scale[:, None]
    matrix = matrix / (numpy.linalg.norm(matrix, axis=1, keepdims=True) + 1e-8)
    top = (vectors @ matrix.T).argmax(1)
    ok = numpy.array([names[t] == g for t, g in zip(top, gold)])
    ok = ok if mask is None else ok[mask]
    return round(100 * float(ok.mean()), 2) if len(ok) else None


def main(model: str, output: Path, corpus_dir: Path = Path("../../corpus")):
    install_extensions()
    nlp = spacy.load(model, exclude=["frame_elements", "parser"])
    fi = nlp.get_pipe("frame_identifier")
    if fi.index.residual is None:
        raise SystemExit(f"{model}: frame_identifier has no frame memory to probe")
    v15, g15 = target_vectors(nlp, corpus_dir / "framenet15/dev.spacy")
    b15, m15, names15 = fi.index.base.copy(), fi.index.residual.copy(), list(fi.index.names)
    fn15 = FrameInventory().from_disk(corpus_dir / "framenet15/frames.json")
    fi.set_inventory(FrameInventory().from_disk(corpus_dir / "framenet17/frames.json"))
    v17, g17 = target_vectors(nlp, corpus_dir / "framenet17/dev.spacy")
    b17, m17, names17 = fi.index.base, fi.index.residual, list(fi.index.names)
    counts = Counter()
    for part in ("train", "exemplars"):
        for doc in DocBin().from_disk(corpus_dir / f"framenet15/{part}.spacy").get_docs(nlp.vocab):
            counts.update(s.label_ for s in doc.spans.get(TARGETS_KEY, []))
    new = numpy.array([g not in fn15 for g in g17])
    n15 = numpy.array([counts.get(n, 0) for n in names15], dtype=float)
    n17 = numpy.array([counts.get(n, 0) for n in names17], dtype=float)

    def row(setting, s15, s17, m17_used=m17):
        return {
            "setting": setting,
            "fn15_dev_r1": recall_at_1(v15, b15, m15, names15, g15, s15),
            "fn17_dev_r1": recall_at_1(v17, b17, m17_used, names17, g17, s17),
            "fn17_dev_new_frame_r1": recall_at_1(v17, b17, m17_used, names17, g17, s17, new),
        }

    rows = [
        row(f"global scale {lam}", numpy.full(len(n15), lam), numpy.full(len(n17), lam))
        for lam in (1.0, 0.8, 0.6, 0.4, 0.2, 0.0)
    ]
    rows += [row(f"evidence shrinkage k={k}", n15 / (n15 + k), n17 / (n17 + k)) for k in (1, 5, 20, 50, 200)]
    known = [i for i, n in enumerate(names15) if counts.get(n, 0) > 0]
    for alpha in (0.1, 1.0, 10.0):
        W = numpy.linalg.solve(b15[known].T @ b15[known] + alpha * numpy.eye(b15.shape[1]), b15[known].T @ m15[known])
        predicted = m17.copy()
        for j, name in enumerate(names17):
            if counts.get(name, 0) == 0:
                predicted[j] = b17[j] @ W
        rows.append(
            row(
                f"memory predicted from the definition (ridge alpha {alpha}) for frames without evidence",
                numpy.ones(len(n15)),
                numpy.ones(len(n17)),
                predicted,
            )
        )
    result = {
        "model": model,
        "fn15_dev_targets": len(g15),
        "fn17_dev_targets": len(g17),
        "fn17_dev_new_frame_targets": int(new.sum()),
        "memory_norm_mean": round(float(numpy.linalg.norm(m15, axis=1).mean()), 3),
        "definition_norm_mean": round(float(numpy.linalg.norm(b15, axis=1).mean()), 3),
        "rows": rows,
    }
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(result, indent=1) + "\n")
    for r in rows:
        typer.echo(f"{r['setting']:<95} {r['fn15_dev_r1']:>6} {r['fn17_dev_r1']:>6} {r['fn17_dev_new_frame_r1']:>6}")


if __name__ == "__main__":
    typer.run(main)
