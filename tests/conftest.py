"""Shared test fixtures: a tiny random BERT built on the fly, the test configs (markers: pyproject.toml)."""

from pathlib import Path

import pytest
from syntax_toy import tiny_syntax_path

ROOT = Path(__file__).resolve().parents[1]
TEST_CONFIG_DIR = ROOT / "configs" / "test"
SHARED_ASSETS = ROOT.parent / "shared" / "assets"
MINILM_DIR = ROOT / "assets" / "encoders" / "all-MiniLM-L6-v2"

TINY_BERT_SENTENCES = [
    "The committee decided to postpone the vote after protesters blocked the entrance.",
    "She gave him a book about frames and he read it over the weekend.",
    "Prices rose sharply because demand outpaced the supply of grain.",
    "They walked to the station, bought tickets and boarded the train to Berlin.",
    "Your contribution to Goodwill will mean more than you may know.",
    "In contrast, the new law reduced taxes for small businesses.",
]


def build_tiny_bert(path: Path, sentences=TINY_BERT_SENTENCES, hidden: int = 64, layers: int = 2) -> Path:
    """Save a random 2-layer BERT (hidden 64) with a WordPiece vocab trained on `sentences`."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
    from transformers import BertConfig, BertModel, BertTokenizerFast

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    # the "##" pieces given up front, in a fixed order: the trainer numbers them in its
    # hash-map order, random per process, and those numbers break its ties between merges
    normalized = (tokenizer.normalizer.normalize_str(text) for text in sentences)
    words = (word for text in normalized for word, _ in tokenizer.pre_tokenizer.pre_tokenize_str(text))
    pieces = sorted({"##" + char for word in words for char in word[1:]})
    trainer = trainers.WordPieceTrainer(vocab_size=300, special_tokens=specials + pieces)
    tokenizer.train_from_iterator(sentences, trainer=trainer)
    path.mkdir(parents=True, exist_ok=True)
    vocab = sorted(tokenizer.get_vocab().items(), key=lambda item: item[1])
    (path / "vocab.txt").write_text("\n".join(token for token, _ in vocab) + "\n")
    BertTokenizerFast(vocab_file=str(path / "vocab.txt"), do_lower_case=True).save_pretrained(path)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=2,
        intermediate_size=2 * hidden,
        max_position_embeddings=128,
    )
    import torch

    torch.manual_seed(0)
    BertModel(config).save_pretrained(path)
    return path


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("encoders") / "tiny-bert")


@pytest.fixture(scope="session")
def transformer_nlp(tiny_bert):
    """The shared transformer pipeline from configs/test, initialized with the tiny BERT."""
    import spacy

    config = spacy.util.load_config(TEST_CONFIG_DIR / "transformer.cfg", overrides={"paths.encoder": str(tiny_bert)})
    nlp = spacy.util.load_model_from_config(config, auto_fill=True)
    nlp.initialize()
    return nlp


@pytest.fixture(scope="session")
def toy_corpus(tmp_path_factory):
    import spacy
    from frames_toy import write_toy_corpus

    return write_toy_corpus(tmp_path_factory.mktemp("toy_corpus"), spacy.blank("en").vocab)


def frames_config(tiny_bert, toy_corpus, stage: int = 1, **overrides):
    import spacy

    paths = {
        "paths.encoder": str(tiny_bert),
        "paths.syntax": str(tiny_syntax_path()),
        "paths.train": str(toy_corpus / "train.spacy"),
        "paths.dev": str(toy_corpus / "dev.spacy"),
        "paths.frames": str(toy_corpus / "frames.json"),
    }
    paths.update(overrides)
    return spacy.util.load_config(TEST_CONFIG_DIR / f"frames_stage{stage}.cfg", overrides=paths)


@pytest.fixture(scope="session")
def transformer_dir(transformer_nlp, tmp_path_factory):
    path = tmp_path_factory.mktemp("pipelines") / "transformer"
    transformer_nlp.to_disk(path)
    return path


@pytest.fixture(scope="session")
def trained_frames(tiny_bert, toy_corpus, transformer_dir, tmp_path_factory):
    """Stage 1 trained on the toy corpus with `spacy train` (tiny twin config)."""
    from spacy.cli.train import train

    output = tmp_path_factory.mktemp("frames_stage1")
    config_path = output / "config.cfg"
    frames_config(tiny_bert, toy_corpus, **{"paths.transformer": str(transformer_dir)}).to_disk(config_path)
    train(config_path, output, overrides={"training.max_steps": 40, "training.eval_frequency": 20})
    return output / "model-last"


@pytest.fixture(scope="session")
def toy_folds(tmp_path_factory):
    import spacy
    from inducer_toy import write_toy_folds

    return write_toy_folds(tmp_path_factory.mktemp("toy_folds"), spacy.blank("en").vocab)


def component_config(name: str, tiny_bert, transformer_dir, train, dev, **overrides):
    """configs/test/<name>.cfg with the tiny BERT, the shared transformer and the corpora."""
    import spacy

    paths = {
        "paths.encoder": str(tiny_bert),
        "paths.transformer": str(transformer_dir),
        "paths.train": [str(train)],
        "paths.dev": [str(dev)],
    }
    paths.update(overrides)
    return spacy.util.load_config(TEST_CONFIG_DIR / f"{name}.cfg", overrides=paths)


def train_tiny(config, output, max_steps: int, eval_frequency: int):
    """`spacy train` of a tiny twin config; returns model-last."""
    from spacy.cli.train import train

    config.to_disk(output / "config.cfg")
    train(
        output / "config.cfg",
        output,
        overrides={"training.max_steps": max_steps, "training.eval_frequency": eval_frequency},
    )
    return output / "model-last"


def transformer_weights(nlp):
    """The shared transformer's torch weights, copied."""
    module = nlp.get_pipe("transformer").model.layers[0].shims[0]._model
    return {name: tensor.detach().numpy().copy() for name, tensor in module.state_dict().items()}


def inducer_config(tiny_bert, toy_folds, transformer_dir, **overrides):
    return component_config(
        "inducer", tiny_bert, transformer_dir, toy_folds / "fold0.spacy", toy_folds / "fold1.spacy", **overrides
    )


@pytest.fixture(scope="session")
def trained_inducer(tiny_bert, toy_folds, transformer_dir, tmp_path_factory):
    """frame_inducer trained on the toy instances with `spacy train` (tiny twin config)."""
    return train_tiny(inducer_config(tiny_bert, toy_folds, transformer_dir), tmp_path_factory.mktemp("inducer"), 20, 10)


@pytest.fixture(scope="session")
def toy_discourse(tmp_path_factory):
    import spacy
    from discourse_toy import write_toy_discourse

    return write_toy_discourse(tmp_path_factory.mktemp("toy_discourse"), spacy.blank("en"))


def discourse_config(tiny_bert, toy_discourse, transformer_dir, **overrides):
    return component_config(
        "discourse", tiny_bert, transformer_dir, toy_discourse / "train.spacy", toy_discourse / "dev.spacy", **overrides
    )


@pytest.fixture(scope="session")
def trained_discourse(tiny_bert, toy_discourse, transformer_dir, tmp_path_factory):
    """discourse_sense trained on the toy relations with `spacy train` (tiny twin config)."""
    return train_tiny(
        discourse_config(tiny_bert, toy_discourse, transformer_dir), tmp_path_factory.mktemp("discourse"), 40, 20
    )


@pytest.fixture(scope="session")
def trained_discourse_head(tiny_bert, toy_discourse, trained_fe, tmp_path_factory):
    """The packaged discourse_sense's shape (configs/test/discourse_head.cfg): the pair head
    trained on the toy frame parser's frozen transformer (stage 2 with frame_elements), so it listens to
    en_frames_trf's transformer as trained."""
    config = component_config(
        "discourse_head", tiny_bert, trained_fe, toy_discourse / "train.spacy", toy_discourse / "dev.spacy"
    )
    return train_tiny(config, tmp_path_factory.mktemp("discourse_head"), 40, 20)


@pytest.fixture(scope="session")
def toy_media(tmp_path_factory):
    from media_toy import write_toy_media

    return write_toy_media(tmp_path_factory.mktemp("toy_media"))


def media_config(tiny_bert, toy_media, transformer_dir, name: str = "media_framer", **overrides):
    return component_config(
        name, tiny_bert, transformer_dir, toy_media / "train.spacy", toy_media / "dev.spacy", **overrides
    )


@pytest.fixture(scope="session")
def trained_media(tiny_bert, toy_media, transformer_dir, tmp_path_factory):
    """media_framer trained end-to-end on the toy articles with `spacy train` (tiny twin config)."""
    return train_tiny(media_config(tiny_bert, toy_media, transformer_dir), tmp_path_factory.mktemp("media"), 160, 80)


@pytest.fixture(scope="session")
def trained_media_head(tiny_bert, toy_media, trained_fe, tmp_path_factory):
    """The packaged media_framer's shape (configs/test/media_both.cfg): a head over the toy
    frame_identifier pipeline's frozen transformer (its article vectors cached) and USE, so
    it listens to en_frames_trf's transformer as trained."""
    import spacy

    from spacy_frames.corpora.media_cache import write_body_cache

    output = tmp_path_factory.mktemp("media_head")
    cache = output / "body.msgpack"
    write_body_cache(spacy.load(trained_fe), "media_framer", [toy_media / "train.spacy"], cache)
    config = media_config(tiny_bert, toy_media, trained_fe, "media_both", **{"paths.body_cache": str(cache)})
    return train_tiny(config, output, 20, 10)


@pytest.fixture(scope="session")
def fn15_zip(tmp_path_factory) -> Path:
    """The FrameNet 1.5 fixture release packed like the real one: members under ``fndata-1.5/``."""
    import zipfile

    path = tmp_path_factory.mktemp("fn15") / "fndata-1.5.zip"
    root = Path(__file__).parent / "fixtures" / "framenet" / "fndata-1.5"
    with zipfile.ZipFile(path, "w") as zf:
        for file in sorted(root.rglob("*")):
            if file.is_file():
                zf.write(file, "fndata-1.5/" + file.relative_to(root).as_posix())
    return path


@pytest.fixture(scope="session")
def inventory(fn15_zip):
    """The fixture release's frame inventory (read-only in the tests that use it)."""
    from spacy_frames.corpora.framenet import read_fn15_inventory

    return read_fn15_inventory(fn15_zip)


@pytest.fixture(scope="session")
def toy_fe_corpus(tmp_path_factory):
    import spacy
    from fe_toy import write_toy_fe_corpus

    return write_toy_fe_corpus(tmp_path_factory.mktemp("toy_fe"), spacy.blank("en").vocab)


def fe_config(tiny_bert, trained_frames, toy_fe_corpus, **overrides):
    """configs/test/frames_stage2_fe.cfg, the shipped stage 2 small: frame_identifier's
    stage 2 from the toy stage 1 and frame_elements on one transformer, on the toy FE corpus."""
    import spacy

    paths = {
        "paths.encoder": str(tiny_bert),
        "paths.stage1": str(trained_frames),
        "paths.syntax": str(tiny_syntax_path()),
        "paths.train": str(toy_fe_corpus / "train.spacy"),
        "paths.dev": str(toy_fe_corpus / "dev.spacy"),
        "paths.frames": str(toy_fe_corpus / "frames.json"),
    }
    paths.update(overrides)
    return spacy.util.load_config(TEST_CONFIG_DIR / "frames_stage2_fe.cfg", overrides=paths)


@pytest.fixture(scope="session")
def trained_fe(tiny_bert, trained_frames, toy_fe_corpus, tmp_path_factory):
    """frame_identifier's stage 2 and frame_elements trained jointly on the toy FEs with
    `spacy train` (the shipped stage 2's tiny twin)."""
    config = fe_config(tiny_bert, trained_frames, toy_fe_corpus)
    return train_tiny(config, tmp_path_factory.mktemp("frame_elements"), 60, 20)


@pytest.fixture(scope="session")
def trained_inducer_head(trained_fe, toy_folds, tiny_bert, tmp_path_factory):
    """The packaged inducer's shape: a head (configs/test/inducer_head.cfg) on the toy
    frame_identifier pipeline's frozen transformer, alpha 0 and no masked-pass encoder."""
    config = component_config(
        "inducer_head",
        tiny_bert,
        trained_fe,
        toy_folds / "fold0.spacy",
        toy_folds / "fold1.spacy",
        **{"components.frame_inducer.alpha": 0.0, "components.frame_inducer.model.mask_encoder": None},
    )
    return train_tiny(config, tmp_path_factory.mktemp("inducer_head"), 20, 10)


def assemble_frames_trf(output: Path, frames, elements, inducer, discourse, media, **overrides) -> Path:
    """configs/test/frames_trf.cfg assembled as `spacy assemble` builds en_frames_trf
    (overrides: config settings, e.g. another inducer's replace_listeners)."""
    import spacy
    from spacy.training.initialize import get_sourced_components

    config = spacy.util.load_config(
        TEST_CONFIG_DIR / "frames_trf.cfg",
        overrides={
            "paths.frames": str(frames),
            "paths.elements": str(elements),
            "paths.inducer": str(inducer),
            "paths.discourse": str(discourse),
            "paths.media": str(media),
            **overrides,
        },
        interpolate=False,
    )
    nlp = spacy.util.load_model_from_config(config, auto_fill=True)
    with nlp.select_pipes(disable=[*get_sourced_components(config.interpolate())]):
        nlp.initialize()
    nlp.to_disk(output)
    return output


@pytest.fixture(scope="session")
def tiny_frames_trf(
    trained_fe, trained_inducer_head, trained_discourse_head, trained_media_head, tmp_path_factory
) -> Path:
    """A tiny en_frames_trf: every component, trained on its toy data, assembled from
    configs/test/frames_trf.cfg (the head inducer with centroids fitted on its toy instances,
    the heads on the frame parser's transformer)."""
    import spacy
    from test_frame_inducer import fit_clusters

    tmp = tmp_path_factory.mktemp("frames_trf")
    inducer_nlp = spacy.load(trained_inducer_head)
    fit_clusters(inducer_nlp)
    inducer_nlp.to_disk(tmp / "inducer")
    return assemble_frames_trf(
        tmp / "frames_trf", trained_fe, trained_fe, tmp / "inducer", trained_discourse_head, trained_media_head
    )
