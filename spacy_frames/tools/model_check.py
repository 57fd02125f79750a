"""Loading a pipeline with an error that names the damaged file.

Our components' deserialisers raise `ModelDataError` themselves (pipeline/base.py), and so
does the shared transformer's weights loader (ml/transformer.py). The files spaCy core reads
do not: a damaged meta.json gives srsly's "Unexpected character found when decoding
'null'", a broken config.cfg confection's "File contains no section headers" (with file
'<string>'), a truncated tagger, parser or tokenizer file msgpack's "Unpack failed:
incomplete input", a missing one
a FileNotFoundError from deep inside; none of them says what to do, and spacy.load has
no hook to change that. So `check_model_dir` reads meta.json and config.cfg before
spacy.load does, and `load_pipeline` loads and, when a reader fails inside spaCy's
`util.from_disk` (every component, the vocab and the tokenizer are read through it),
raises `ModelDataError` for the file that reader was given.
"""

import re
import traceback
from pathlib import Path
from typing import Optional, Union

from ..errors import ModelDataError, file_read_by_spacy, model_data_error


def check_model_dir(path: Union[str, Path]) -> Path:
    """Check that `path` is a pipeline directory whose meta.json and config.cfg can be
    read; raise ModelDataError naming the file otherwise."""
    import srsly
    from spacy.util import load_config

    path = Path(path)
    if not path.is_dir():
        raise FileNotFoundError(f"No pipeline directory at {path}")
    meta_path, config_path = path / "meta.json", path / "config.cfg"
    try:
        meta = srsly.read_json(meta_path)
    except Exception as err:
        raise model_data_error(meta_path, err) from err
    if not isinstance(meta, dict):
        raise model_data_error(meta_path, ValueError(f"a JSON object was expected, not {type(meta).__name__}"))
    if not config_path.is_file():
        raise model_data_error(config_path, FileNotFoundError(config_path))
    try:
        config = load_config(config_path, interpolate=False)
    except Exception as err:
        # confection's message spans lines and blank lines: keep what says why
        raise model_data_error(config_path, ValueError(" ".join(str(err).split()))) from err
    if not isinstance(config.get("nlp", {}).get("pipeline"), list):
        raise model_data_error(config_path, ValueError("no [nlp] pipeline"))
    return path


def failed_file(err: BaseException) -> Optional[Path]:
    """The file or directory the innermost `spacy.util.from_disk` reader was reading when
    `err` was raised (None if it was raised elsewhere)."""
    return file_read_by_spacy(frame for frame, _ in traceback.walk_tb(err.__traceback__))


def load_pipeline(model: Union[str, Path], **kwargs):
    """`spacy.load(model, **kwargs)`, a directory checked first, with a damaged file
    reported as ModelDataError (see the module docstring)."""
    import spacy
    from catalogue import RegistryError
    from confection import ConfigValidationError

    if Path(model).exists():
        check_model_dir(model)
    try:
        return spacy.load(model, **kwargs)
    except ModelDataError:
        raise
    except ConfigValidationError as err:
        # a config.cfg that parses but lacks settings (e.g. cut at a section boundary)
        if not Path(model).is_dir():
            raise
        raise model_data_error(Path(model) / "config.cfg", ValueError(" ".join(str(err).split()))) from err
    except RegistryError as err:
        # a config.cfg cut inside a quoted function name: the name keeps its opening quote
        # (any other unknown name is a missing plugin, spaCy's own message says so)
        if not Path(model).is_dir() or not re.search(r"function '\"", str(err)):
            raise
        raise model_data_error(Path(model) / "config.cfg", err) from err
    except Exception as err:
        where = failed_file(err)
        if where is None:
            raise
        raise model_data_error(where, err) from err
