"""The studies' tests share the product tests' fixtures (the tiny encoder, toy corpora and
the toy pipelines trained from them): tests/conftest.py, loaded under its own name."""

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "product_conftest", Path(__file__).resolve().parents[1] / "tests" / "conftest.py"
)
_product = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_product)
globals().update({name: value for name, value in vars(_product).items() if not name.startswith("_")})
