"""The frame_elements research model: the options the studies screened and the product
does not ship, as a lab component of its own.

It is frame_elements with every studied option (experiments/frame_elements,
experiments/joint_stage): a learned pruner over every span up to a length (`prune_k`),
target-conditioned token features and a per-target attention layer (`target_tokens`,
`target_context`), frame-aware queries (`frame_queries`), definition queries and label
vectors started from the definitions (`fe_queries`, `label_init`), negative sampling
(`negative_fraction`), the span's boundary tokens and syntax as options (`endpoints`,
`syntax`) and the phrase and clause candidates (`fe_candidate_suggester.v2`). Registered
through entry points (experiments/pyproject.toml), so `spacy train` finds it without
`--code`:

- factory `frame_elements_research` (`component.py`);
- architecture `frames-lab.FrameElementScorer.v1` (`model.py`, with `features.py`,
  `options.py`, `span_pruner.py`, `target_tokens.py`);
- misc `frames-lab.fe_candidate_suggester.v1` / `.v2` (`suggester.py`);
- the loss and the scorer are the product's (`spacy-frames.FrameElementLoss.v1`,
  `spacy-frames.frame_elements_scorer.v1`); the pruner's loss is `losses.span_pruner_loss`.

`python -m frames_lab.fe_research tune ...` fits a trained pipeline's candidate set,
decoding and threshold on dev (`cli.py`). The studies' configs are under
experiments/frame_elements/configs/. Importing this package registers nothing.
"""
