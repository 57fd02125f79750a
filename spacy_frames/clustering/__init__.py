"""Clustering for semantic frame induction (Yamada, Sasano & Takeda 2021, 2023).

- `metrics`: purity / inverse purity / PiF and B-cubed P/R/F of a clustering;
- `xmeans`: X-means with pyclustering's BIC splitting, on sklearn k-means;
- `hierarchy`: group-average dendrograms (BLAS distances + fastcluster) and cuts;
- `induction`: one-step, two-step and faiss-scaled clustering with their dev
  calibration, baselines, and cluster centroids.

Importing this package loads numpy and scipy only; sklearn and faiss are
imported inside the functions that need them.
"""

from .induction import (
    METHODS,
    all_in_one,
    average_linkage,
    calibrate,
    calibrate_and_cluster,
    centroids,
    cluster,
    decide_threshold,
    faiss_cluster,
    faiss_params,
    make_senses,
    one_cluster_per_lemma,
    onestep_cluster,
    onestep_params,
    twostep_cluster,
    twostep_params,
)
from .metrics import bcubed, cluster_scores, purity
from .xmeans import xmeans

__all__ = [
    "METHODS",
    "all_in_one",
    "average_linkage",
    "calibrate",
    "calibrate_and_cluster",
    "centroids",
    "cluster",
    "decide_threshold",
    "faiss_cluster",
    "faiss_params",
    "make_senses",
    "one_cluster_per_lemma",
    "onestep_cluster",
    "onestep_params",
    "twostep_cluster",
    "twostep_params",
    "bcubed",
    "cluster_scores",
    "purity",
    "xmeans",
]
