"""Training objectives of spacy_frames, as thinc losses (registered under @losses).

A thinc `Loss` returns `(grad, loss)` for `(guesses, truths)`; components call
it from `get_loss` and return `(loss, grad)` the spaCy way. Everything here is
numpy/cupy through thinc ops: no torch.

- frames.py: InfoNCE, BinaryCrossEntropy (frame identification, target detection);
- metric.py: deep metric learning for frame induction (Triplet, Contrastive,
  Softmax, ArcFace, AdaCos);
- discourse.py: the hierarchy-aware supervised contrastive loss of discourse_sense;
- media.py: the label-aware (HeroCon-style) contrastive loss of media_framer;
- frame_elements.py: candidate spans against "no FE" and their frame's FEs;
- midtune.py: semantic mid-tuning, sentence against the linearised form of its parse
  (triplet, and pair classification over SBERT-style pair features).
"""

from .base import ComputedLoss
from .discourse import HierarchicalContrastiveLoss, configure_hierarchical_contrastive_loss
from .frame_elements import FrameElementLoss, configure_frame_element_loss
from .frames import BinaryCrossEntropy, InfoNCE, configure_binary_cross_entropy, configure_info_nce
from .media import LabelAwareContrastiveLoss, configure_label_aware_contrastive_loss
from .metric import (
    AdaCosLoss,
    ArcFaceLoss,
    ContrastiveLoss,
    SoftmaxLoss,
    TripletLoss,
    configure_adacos_loss,
    configure_arcface_loss,
    configure_contrastive_loss,
    configure_softmax_loss,
    configure_triplet_loss,
)
from .midtune import (
    MidtunePairLoss,
    MidtuneTripletLoss,
    configure_midtune_pair_loss,
    configure_midtune_triplet_loss,
    pair_features,
)

__all__ = [
    "ComputedLoss",
    "InfoNCE",
    "BinaryCrossEntropy",
    "TripletLoss",
    "ContrastiveLoss",
    "SoftmaxLoss",
    "ArcFaceLoss",
    "AdaCosLoss",
    "HierarchicalContrastiveLoss",
    "LabelAwareContrastiveLoss",
    "FrameElementLoss",
    "MidtuneTripletLoss",
    "MidtunePairLoss",
    "pair_features",
    "configure_info_nce",
    "configure_binary_cross_entropy",
    "configure_triplet_loss",
    "configure_contrastive_loss",
    "configure_softmax_loss",
    "configure_arcface_loss",
    "configure_adacos_loss",
    "configure_hierarchical_contrastive_loss",
    "configure_label_aware_contrastive_loss",
    "configure_frame_element_loss",
    "configure_midtune_triplet_loss",
    "configure_midtune_pair_loss",
]
