"""The laboratory's shared code: what the studies under experiments/ run besides the
spacy_frames package (`pip install -e experiments`).

- `runs`: the run cache, timed training, the grid over settings and seeds, the report;
- `collect_training_time`: the timing.json files of training runs in one table
  (`python -m frames_lab.collect_training_time`);
- `fe_research`: the research frame_elements (the options the product does not ship), a
  component of its own registered through entry points (`python -m frames_lab.fe_research`).
"""
