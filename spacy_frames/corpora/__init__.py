"""Corpus readers and converters of spacy_frames.

`spacy_frames.corpora.framenet` (frame inventory), `framenet_sentences` (sentences and
targets, to ``Doc``) and `framenet_convert` (``DocBin`` corpora) read FrameNet 1.5 (the
release zip) and FrameNet 1.7 (frame XML, lexicon JSON, open-sesame CoNLL) and write spaCy
``DocBin`` corpora plus the frame inventory. Import the submodules directly; this package
imports nothing.
"""
