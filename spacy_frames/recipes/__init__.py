"""Recipes that fit learned state outside one `spacy train`: the frame_inducer's cluster
centroids (`inducer`, `spacy-frames fit-inducer`) and media_framer's multi-stage training
(`media`, `spacy-frames train-media`); `runs` writes their run files and logs their
commands."""
