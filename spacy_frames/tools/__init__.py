"""Project tooling around the pipeline: `assets.py` (fetching the project's assets),
`benchmark.py` (words/s and memory of pipelines), `annotate.py` (annotating and rendering
text) and `experiments.py` (the experiment scripts' run cache, training commands, grid and
report)."""
