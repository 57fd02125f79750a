"""A small SetFit run for multi-label media framing; called by scripts/media_baselines.py
with the python of its own virtual environment (.venvs/setfit: setfit pins a transformers
that this project's environment does not have).

    .venvs/setfit/bin/python scripts/media_setfit.py INPUT.json OUTPUT.json

INPUT.json: {"encoder": dir, "train"/"dev"/"test": {"texts": [...], "labels": [[0/1] * n_frames]},
"settings": {"num_iterations", "max_steps", "batch_size", "max_length", "seed"}}.
OUTPUT.json: {"dev_scores", "test_scores"} (predict_proba, one column per frame),
"timings_s" and "versions". Thresholds are tuned by the caller on the dev scores.
"""

import json
import os
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("WANDB_DISABLED", "true")


def main(input_path: str, output_path: str) -> None:
    import numpy
    import setfit
    import torch
    from datasets import Dataset
    from setfit import SetFitModel, Trainer, TrainingArguments
    from transformers import set_seed

    torch.set_num_threads(1)
    data = json.load(open(input_path, encoding="utf8"))
    settings = data["settings"]
    set_seed(settings["seed"])  # python, numpy and torch
    start = time.time()
    model = SetFitModel.from_pretrained(data["encoder"], multi_target_strategy="one-vs-rest", local_files_only=True)
    model.model_body.max_seq_length = settings["max_length"]  # articles: their first wordpieces only
    train = Dataset.from_dict({"text": data["train"]["texts"], "label": data["train"]["labels"]})
    args = TrainingArguments(
        batch_size=settings["batch_size"],
        num_epochs=1,
        num_iterations=settings["num_iterations"],
        max_steps=settings["max_steps"],
        seed=settings["seed"],
        max_length=settings["max_length"],
        report_to="none",
        show_progress_bar=True,
        save_strategy="no",
        logging_strategy="no",
        output_dir=os.path.join(os.path.dirname(os.path.abspath(output_path)), "checkpoints"),  # not the cwd
    )
    Trainer(model=model, args=args, train_dataset=train).train()  # contrastive body, then the LR head
    trained = time.time()
    scores = {
        f"{split}_scores": numpy.asarray(model.predict_proba(data[split]["texts"], as_numpy=True), dtype=float).tolist()
        for split in ("dev", "test")
    }
    json.dump(
        {
            **scores,
            "timings_s": {"train": round(trained - start, 1), "predict": round(time.time() - trained, 1)},
            "versions": {"setfit": setfit.__version__, "torch": torch.__version__},
        },
        open(output_path, "w"),
    )


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: media_setfit.py INPUT.json OUTPUT.json")
    main(sys.argv[1], sys.argv[2])
