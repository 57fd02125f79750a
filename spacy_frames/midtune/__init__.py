"""Semantic mid-tuning (Umair & Ferraro 2021): a sentence encoder (E1) and a
semantic-form encoder (E2) trained so that a sentence is close to the linearised form of
its own parse and far from corrupted or foreign forms.

- `forms`: forms from FrameNet frames (with or without frame elements) or the
  dependency parse, their linearisation and negatives;
- `loop`: the training loop of E1 / E2 (torch and transformers only, so it also runs on a
  machine without spaCy); `train`: `midtune`, the loop with the registered losses;
- the losses are in `spacy_frames.losses.midtune` (MidtuneTripletLoss, MidtunePairLoss).
"""

from .forms import (
    FRAME,
    PRED,
    Predicate,
    SemanticForm,
    dependency_form,
    drop_filler,
    drop_role,
    foreign_form,
    frame_only_form,
    framenet_form,
    linearize,
    name_counts,
    negatives,
    swap_fillers,
    swap_frame,
)

__all__ = [
    "FRAME",
    "PRED",
    "Predicate",
    "SemanticForm",
    "framenet_form",
    "frame_only_form",
    "dependency_form",
    "linearize",
    "drop_role",
    "drop_filler",
    "swap_fillers",
    "foreign_form",
    "swap_frame",
    "negatives",
    "name_counts",
]
