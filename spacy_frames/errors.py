"""The error a damaged or incomplete saved pipeline gives: it names the file that could not
be read and says what to do. Every loader of the package raises it (the components', the
shared transformer's weights, `tools/model_check.py` for the files spaCy reads itself)."""

from pathlib import Path
from types import FrameType
from typing import Iterable, Optional, Union


class ModelDataError(OSError, ValueError):
    """A file of a saved pipeline could not be read. An OSError and a ValueError (as
    io.UnsupportedOperation is), so callers catching either report it cleanly."""


def model_data_error(where: Union[str, Path], err: BaseException) -> ModelDataError:
    """The error for `where` (a file, or what was read) that failed with `err`."""
    inner = getattr(err, "filename", None) if isinstance(err, FileNotFoundError) else None
    if inner and Path(inner) != Path(where):
        reason = f"{inner} is missing"
    elif isinstance(err, FileNotFoundError) or isinstance(where, Path) and not where.exists():
        reason = "the file is missing"
    else:
        reason = f"{type(err).__name__}: {str(err).strip() or 'no details'}".rstrip(".")
    return ModelDataError(
        f"Could not read {where}: {reason}. The model directory is damaged or incomplete: "
        "reinstall the package or retrain it."
    )


def file_read_by_spacy(frames: Iterable[FrameType]) -> Optional[Path]:
    """The file or directory that the innermost call of spaCy's `util.from_disk` among
    `frames` (outermost first) was reading (None: no such call): every component, the
    vocab and the tokenizer are read through it, each reader given `path / key`."""
    from spacy import util

    found = None
    for frame in frames:
        if frame.f_code is util.from_disk.__code__ and "key" in frame.f_locals:
            found = Path(frame.f_locals["path"]) / frame.f_locals["key"]
    return found
