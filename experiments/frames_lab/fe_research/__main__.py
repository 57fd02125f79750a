"""`python -m frames_lab.fe_research`: the research frame_elements' commands (`cli.py`)."""

from .cli import app

if __name__ == "__main__":
    app()
