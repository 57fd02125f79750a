"""Scorers and evaluation drivers, one pair of modules per task.

- `<task>.py`: the scoring functions a component's registered scorer returns, and their
  metrics (light: the component module imports it);
- `<task>_eval.py`: evaluation drivers that load a pipeline, run it over a converted
  corpus and compute the numbers written to metrics/ (the CLI and scripts call them);
- `prf.py`: precision, recall and F1 from counts, used by all of them.
- `report.py`: every score of a pipeline on gold data as one table (`spacy-frames evaluate`).

Scoring imports no component: what is fitted on dev after training (detection cut-offs,
the target calibration, the FE threshold) is the components' own methods, which call the
scorers here.

frames: frame identification and target detection; induction: frame induction (with
clustering/); discourse: discourse senses; media: media frames; frame_elements: FE spans.
"""
