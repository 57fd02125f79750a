__title__ = "spacy-frames"
__version__ = "0.1.0"
