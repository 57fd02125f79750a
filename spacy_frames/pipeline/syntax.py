"""Part-of-speech tags, lemmas, sentences and the dependency parse from an installed spaCy
pipeline (en_core_web_sm, from `python -m spacy download en_core_web_sm`), run on the
pipeline's own docs: en_frames_trf ships none of that pipeline's weights and reads it, as
the user installed it, when it is loaded.

    [components.syntax]
    factory = "installed_syntax"
    package = "en_core_web_sm"
    components = ["tok2vec","tagger","parser","attribute_ruler","lemmatizer"]
    version = ">=3.8.0,<3.9.0"

frame_identifier looks lexical units up by lemma and POS, frame_elements reads the parse
(subtree candidates, syntax features) and the sentences, discourse_sense the sentences.
"""

import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator, List, Optional, Sequence

import spacy
from spacy.language import Language
from spacy.tokens import Doc
from spacy.util import get_model_meta, get_package_path, is_package

DEFAULT_COMPONENTS = ["tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer"]


@Language.factory(
    "installed_syntax",
    default_config={"package": "en_core_web_sm", "components": DEFAULT_COMPONENTS, "version": ">=3.8.0,<3.9.0"},
)
def make_installed_syntax(
    nlp: Language, name: str, package: str, components: List[str], version: Optional[str]
) -> "InstalledSyntax":
    """Create the component.

    package (str): the installed spaCy pipeline package (or a pipeline directory) to run.
    components (List[str]): its components to run, in its order (a listener's tok2vec too).
    version (Optional[str]): the versions of `package` the pipeline was trained with (a
        specifier, e.g. ">=3.8.0,<3.9.0"); another version works but warns.
    """
    return InstalledSyntax(nlp, name, package=package, components=components, version=version)


class InstalledSyntax:
    """Run some components of an installed spaCy pipeline on the docs (module docstring)."""

    def __init__(
        self,
        nlp: Language,
        name: str = "syntax",
        *,
        package: str = "en_core_web_sm",
        components: Iterable[str] = DEFAULT_COMPONENTS,
        version: Optional[str] = None,
    ) -> None:
        self.name = name
        self.package = package
        self.components = list(components)
        self.version = version
        self.syntax_nlp = load_syntax_pipeline(nlp, name, package, self.components, version)
        self._procs = [self.syntax_nlp.get_pipe(c) for c in self.components]

    @property
    def inner_pipeline(self) -> Language:
        """The installed pipeline it runs (`spacy-frames.numpy_blas.v1` reaches its layers
        through it)."""
        return self.syntax_nlp

    def __call__(self, doc: Doc) -> Doc:
        for proc in self._procs:
            doc = proc(doc)
        return doc

    def pipe(self, docs: Iterable[Doc], batch_size: int = 128) -> Iterator[Doc]:
        for proc in self._procs:
            docs = proc.pipe(docs, batch_size=batch_size) if hasattr(proc, "pipe") else map(proc, docs)
        yield from docs

    def skip(self, names: Sequence[str]) -> None:
        """Run without the components `names` from now on (e.g. the parser where only tags
        and lemmas are read)."""
        self._procs = [self.syntax_nlp.get_pipe(c) for c in self.components if c not in names]

    @contextmanager
    def skipping(self, names: Sequence[str]):
        """`skip` inside the block only."""
        kept = self._procs
        self.skip(names)
        try:
            yield self
        finally:
            self._procs = kept

    # the weights are the installed package's: nothing of them is saved with the pipeline
    def to_disk(self, path, *, exclude=tuple()) -> None:
        Path(path).mkdir(parents=True, exist_ok=True)

    def from_disk(self, path, *, exclude=tuple()) -> "InstalledSyntax":
        return self

    def to_bytes(self, *, exclude=tuple()) -> bytes:
        return b""

    def from_bytes(self, bytes_data: bytes, *, exclude=tuple()) -> "InstalledSyntax":
        return self


def load_syntax_pipeline(
    nlp: Language, name: str, package: str, components: List[str], version: Optional[str]
) -> Language:
    """`package` with only `components`, on `nlp`'s vocab (as spaCy loads a sourced
    component); a clear error when it is not installed or lacks a component."""
    path = Path(package)
    if not is_package(package) and not (path / "config.cfg").exists():
        raise OSError(
            f"[{name}] this pipeline takes its part-of-speech tags, lemmas, sentences and "
            f"dependency parse from the spaCy pipeline '{package}', which is not installed. "
            f"Install it with: python -m spacy download {package}"
        )
    meta = get_model_meta(get_package_path(package) if is_package(package) else path)
    missing = [c for c in components if c not in meta.get("components", [])]
    if missing:
        raise ValueError(f"[{name}] '{package}' has no component {missing}: it has {meta.get('components')}")
    if version and not _satisfies(meta.get("version", ""), version):
        warnings.warn(
            f"[{name}] '{package}' is version {meta.get('version')}; this pipeline was trained with {version}: "
            "its tags and parses, and the frames read from them, may differ.",
            stacklevel=2,
        )
    # loaded on the pipeline's vocab, whose state (vectors) it would clobber: kept and put
    # back, as spaCy does when it sources a component (the strings it adds stay)
    state = nlp.vocab.to_bytes(exclude=["lookups", "strings"])
    excluded = [c for c in meta.get("components", []) if c not in components]
    syntax_nlp = spacy.load(package, vocab=nlp.vocab, exclude=[*excluded, "lookups"])
    nlp.vocab.from_bytes(state, exclude=["lookups", "strings"])
    return syntax_nlp


def _satisfies(found: str, specifier: str) -> bool:
    from packaging.specifiers import SpecifierSet

    return found in SpecifierSet(specifier)
