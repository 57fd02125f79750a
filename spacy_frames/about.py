__title__ = "spacy-frames"
__version__ = "0.2.0"
