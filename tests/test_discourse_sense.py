"""discourse_sense on a tiny random BERT and toy relations."""

import math

import numpy
import pytest
import spacy
from conftest import discourse_config
from discourse_toy import RELATIONS, toy_relations
from spacy.tokens import Doc, DocBin, SpanGroup
from spacy.training import Example
from spacy.util import make_tempdir

from spacy_frames.corpora.discourse import input_doc, relation_doc
from spacy_frames.ml.transformer import wordpiece_counts
from spacy_frames.scoring.discourse_eval import evaluate_corpus

TEXT = "Prices rose sharply. So demand outpaced the supply of grain. Then they boarded the train to Berlin."


def initialized(tiny_bert, toy_discourse, transformer_dir, **overrides):
    from spacy.training.initialize import init_nlp

    return init_nlp(discourse_config(tiny_bert, toy_discourse, transformer_dir, **overrides))


def toy_examples(nlp):
    refs = [relation_doc(nlp, rel) for rel in toy_relations()]
    return [Example(input_doc(nlp, ref), ref) for ref in refs]


def with_args(nlp, text, spans):
    doc = nlp.make_doc(text)
    doc.spans["discourse_args"] = SpanGroup(
        doc, name="discourse_args", spans=[doc.char_span(a, b, alignment_mode="expand") for a, b in spans]
    )
    return doc


def test_add_pipe_default_config_and_bad_settings():
    nlp = spacy.blank("en")
    component = nlp.add_pipe("discourse_sense")
    assert component.labels == ()
    assert nlp("One. Two.")._.discourse_relations == []  # not initialized: no senses, no output
    with pytest.raises(ValueError, match="head_weights"):
        spacy.blank("en").add_pipe("discourse_sense", config={"head_weights": [0.0, 0.0, 0.0]})
    with pytest.raises(ValueError, match="representation"):
        spacy.blank("en").add_pipe(
            "discourse_sense",
            config={
                "model": {
                    "@architectures": "spacy-frames.DiscourseSense.v1",
                    "representation": "cls",
                    "tok2vec": {
                        "@architectures": "spacy.HashEmbedCNN.v2",
                        "width": 8,
                        "depth": 1,
                        "embed_size": 100,
                        "window_size": 1,
                        "maxout_pieces": 2,
                        "subword_features": False,
                        "pretrained_vectors": None,
                    },
                }
            },
        )
    with pytest.raises(ValueError, match="not a level-2 or level-3"):
        component.add_label("Expansion")
    with pytest.raises(ValueError, match="unknown discourse sense"):
        component.add_label("Elaboration")


def test_initialize_reads_senses_and_empty_corpus_fails(tiny_bert, toy_discourse, transformer_dir, tmp_path):
    nlp = initialized(tiny_bert, toy_discourse, transformer_dir)
    component = nlp.get_pipe("discourse_sense")
    assert set(component.labels) == {sense for _, _, sense, _ in RELATIONS}
    assert component.tables["level1"] == ["Temporal", "Contingency", "Comparison", "Expansion"]
    DocBin().to_disk(tmp_path / "empty.spacy")
    with pytest.raises(ValueError, match="no relations"):
        initialized(tiny_bert, toy_discourse, transformer_dir, **{"paths.train": [str(tmp_path / "empty.spacy")]})


def test_overfits_toy_relations(trained_discourse):
    nlp = spacy.load(trained_discourse)
    for a1, a2, sense, _ in RELATIONS:
        doc = nlp(with_args(nlp, f"{a1} {a2}", [(0, len(a1)), (len(a1) + 1, len(a1) + 1 + len(a2))]))
        (relation,) = doc._.discourse_relations
        assert relation["sense"] == sense
        assert relation["level1"] == sense.split(".")[0] and relation["level2"] == ".".join(sense.split(".")[:2])
        assert 0.0 < relation["score"] <= 1.0


def test_update_skips_examples_without_gold(tiny_bert, toy_discourse, transformer_dir):
    nlp = initialized(tiny_bert, toy_discourse, transformer_dir)
    plain = [Example(nlp.make_doc(TEXT), nlp.make_doc(TEXT))]
    assert nlp.update(plain)["discourse_sense"] == 0.0
    assert nlp.update(plain + toy_examples(nlp))["discourse_sense"] > 0.0


@pytest.mark.parametrize("beta,weights", [(0.0, [0.0, 1.0, 0.0]), (1.0, [1.0, 1.0, 0.0])])
def test_ablation_settings_train_and_name_level2_senses(tiny_bert, toy_discourse, transformer_dir, beta, weights):
    from thinc.api import Adam

    nlp = initialized(
        tiny_bert,
        toy_discourse,
        transformer_dir,
        **{"components.discourse_sense.contrastive_weight": beta, "components.discourse_sense.head_weights": weights},
    )
    optimizer = Adam(0.001)
    examples = toy_examples(nlp)
    first = nlp.update(examples, sgd=optimizer)["discourse_sense"]
    for _ in range(15):
        last = nlp.update(examples, sgd=optimizer)["discourse_sense"]
    assert last < first
    (relation,) = nlp(examples[0].predicted.copy())._.discourse_relations
    assert relation["sense"].count(".") == 1  # without the finest head the answer stops at level 2


def test_adjacent_sentences_raw_text_and_bad_args(trained_discourse):
    nlp = spacy.load(trained_discourse)
    relations = nlp(TEXT)._.discourse_relations
    assert len(relations) == 2
    assert relations[0]["arg2"] == relations[1]["arg1"]
    assert TEXT[slice(*relations[0]["arg1"])] == "Prices rose sharply."
    # one span is not a pair: adjacent sentences, with a warning
    with pytest.warns(UserWarning, match="two non-empty spans"):
        doc = nlp(with_args(nlp, TEXT, [(0, 20)]))
    assert len(doc._.discourse_relations) == 2
    # overlapping arguments are still a pair
    doc = nlp(with_args(nlp, TEXT, [(0, 40), (21, 60)]))
    arg1, arg2 = doc.spans["discourse_args"]
    assert [(r["arg1"], r["arg2"]) for r in doc._.discourse_relations] == [
        ([arg1.start_char, arg1.end_char], [arg2.start_char, arg2.end_char])
    ]


@pytest.mark.slow
def test_empty_one_sentence_and_very_long_docs(trained_discourse):
    nlp = spacy.load(trained_discourse)
    assert nlp("")._.discourse_relations == []
    assert nlp("Just one sentence here.")._.discourse_relations == []
    assert nlp("   ")._.discourse_relations == []
    words = ("Prices rose very sharply . So demand outpaced supply . " * 2000).split()
    doc = nlp(Doc(nlp.vocab, words=words))
    assert len(doc) == 20000
    assert len(doc._.discourse_relations) == 3999


def test_serialization_roundtrips(trained_discourse):
    nlp = spacy.load(trained_discourse)
    expected = nlp(TEXT)._.discourse_relations
    with make_tempdir() as d:
        nlp.to_disk(d)
        assert spacy.load(d)(TEXT)._.discourse_relations == expected
    fresh = spacy.load(trained_discourse)
    fresh.get_pipe("discourse_sense").from_bytes(nlp.get_pipe("discourse_sense").to_bytes())
    assert fresh(TEXT)._.discourse_relations == expected
    blank = spacy.blank("en").add_pipe("discourse_sense")
    with pytest.raises(ValueError, match="no senses"):
        blank.from_bytes(spacy.blank("en").add_pipe("discourse_sense").to_bytes())


@pytest.mark.parametrize("n_process", [1, 2])
def test_pipe_equals_call_and_survives_docbin(trained_discourse, n_process):
    nlp = spacy.load(trained_discourse)
    texts = [TEXT, "A short one. And another.", "", TEXT + " And more text follows here."]
    single = [nlp(t)._.discourse_relations for t in texts]
    piped = list(nlp.pipe(texts, n_process=n_process, batch_size=2))
    assert [d._.discourse_relations for d in piped] == single
    restored = (
        DocBin(store_user_data=True).from_bytes(DocBin(docs=piped, store_user_data=True).to_bytes()).get_docs(nlp.vocab)
    )
    assert [d._.discourse_relations for d in restored] == single
    assert Doc(nlp.vocab).from_bytes(piped[0].to_bytes())._.discourse_relations == single[0]


def test_evaluate_corpus_scores_toy_dev(trained_discourse, toy_discourse):
    nlp = spacy.load(trained_discourse)
    scores, predicted, gold = evaluate_corpus(nlp, toy_discourse / "dev.spacy")
    assert len(predicted) == len(gold) == len(RELATIONS)
    assert scores["l2"]["acc"] == 100.0 and scores["l1"]["macro_f1"] == 100.0


def test_cli_evaluate_and_predict_rels(trained_discourse, toy_discourse, tmp_path):
    import json

    from typer.testing import CliRunner

    from spacy_frames.cli import app
    from spacy_frames.corpora.discourse import read_rels

    runner = CliRunner()
    result = runner.invoke(
        app,
        [
            "evaluate-discourse",
            str(trained_discourse),
            str(toy_discourse / "dev.spacy"),
            "-o",
            str(tmp_path / "s.json"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "s.json").read_text())["dev"]["l2"]["acc"] == 100.0
    rows = [
        "doc\tunit1_toks\tunit2_toks\tunit1_txt\tunit2_txt\ts1_toks\ts2_toks\tunit1_sent\tunit2_sent\tdir\trel_type\torig_label\tlabel"
    ]
    for a1, a2, sense, _ in RELATIONS:
        rows.append(
            "\t".join(
                [
                    "toy",
                    "1-2",
                    "3-4",
                    a1,
                    a2,
                    "1-2",
                    "3-4",
                    a1,
                    a2,
                    "1<2",
                    "implicit",
                    sense.lower(),
                    ".".join(sense.split(".")[:2]).lower(),
                ]
            )
        )
    (tmp_path / "in.rels").write_text("\n".join(rows) + "\n")
    result = runner.invoke(
        app, ["predict-rels", str(trained_discourse), str(tmp_path / "in.rels"), str(tmp_path / "out.rels")]
    )
    assert result.exit_code == 0, result.output
    assert [r.senses for r in read_rels(tmp_path / "out.rels")] == [[sense] for _, _, sense, _ in RELATIONS]
    result = runner.invoke(
        app,
        ["evaluate-discourse", str(trained_discourse), str(tmp_path / "missing.spacy"), "-o", str(tmp_path / "x.json")],
    )
    assert result.exit_code == 1 and "convert-discourse" in result.output


@pytest.mark.slow
def test_head_on_frozen_transformer_trains_only_the_head(tiny_bert, toy_discourse, transformer_dir, tmp_path):
    """configs/discourse_head.cfg: the sourced transformer is frozen and annotates; only
    discourse_sense's dense layer and heads change."""
    from conftest import component_config, train_tiny, transformer_weights

    config = component_config(
        "discourse_head", tiny_bert, transformer_dir, toy_discourse / "train.spacy", toy_discourse / "dev.spacy"
    )
    nlp = spacy.load(train_tiny(config, tmp_path, 10, 5))
    before, after = transformer_weights(spacy.load(transformer_dir)), transformer_weights(nlp)
    assert before.keys() == after.keys() and all(numpy.array_equal(before[k], after[k]) for k in before)
    relations = nlp(TEXT)._.discourse_relations
    assert len(relations) == 2 and all(numpy.isfinite(r["score"]) for r in relations)


def test_augmented_copies_weigh_less_in_the_cross_entropy(tiny_bert, toy_discourse, transformer_dir):
    """augmented_weight scales the cross-entropy of connective-inserted copies."""
    nlp = initialized(tiny_bert, toy_discourse, transformer_dir)  # multi-task CE, no contrastive term
    component = nlp.get_pipe("discourse_sense")
    examples = toy_examples(nlp)[:2]
    augmented = [Example(eg.predicted.copy(), eg.reference.copy()) for eg in examples]
    for eg in augmented:
        eg.reference._.discourse_gold = dict(eg.reference._.discourse_gold, augmented=True)
    component.cfg["augmented_weight"] = 1.0  # the original method's
    _, _, weights = component._gold(examples + augmented)
    assert weights == [1.0, 1.0, 1.0, 1.0]
    component.cfg["augmented_weight"] = 0.1  # configs/discourse.cfg's
    _, senses, weights = component._gold(examples + augmented)
    assert weights == [1.0, 1.0, 0.1, 0.1] and len(senses) == 4
    n = len(senses)
    logits = [component.model.ops.alloc2f(n, len(component.tables[h])) for h in ("level1", "level2", "leaf")]
    loss, (d_features, d_logits) = component.get_loss(examples, (None, logits, senses, weights))
    # uniform logits: every row's loss is log(#classes); the weighted mean is the same
    expected = sum(math.log(len(component.tables[h])) for h in ("level1", "level2", "leaf"))
    assert loss == pytest.approx(expected, rel=1e-5)
    row_norms = numpy.abs(d_logits[1]).sum(axis=1)
    assert row_norms[2] == pytest.approx(0.1 * row_norms[0], rel=1e-4)


@pytest.mark.parametrize(
    "decoding,sense,score",
    [
        # joint: p(path) ∝ p(l1) * p(l2): Cause .6 * .1 = .06, Conjunction and Level-of-detail .4 * .45 = .18 each
        ("joint", "Expansion.Conjunction", 0.18 / 0.42),
        # top-down: Contingency (.6) decides; Cause is its only path below: .6 * 1
        ("top-down", "Contingency.Cause", 0.6),
    ],
)
def test_decoding_joint_and_top_down_by_hand(decoding, sense, score):
    component = spacy.blank("en").add_pipe(
        "discourse_sense", config={"decoding": decoding, "head_weights": [1.0, 1.0, 0.0]}
    )
    for label in ("Contingency.Cause.Result", "Expansion.Conjunction", "Expansion.Level-of-detail.Arg2-as-detail"):
        component.add_label(label)
    assert component.tables["level1"] == ["Contingency", "Expansion"]
    assert component.tables["level2"] == ["Contingency.Cause", "Expansion.Conjunction", "Expansion.Level-of-detail"]
    l1 = numpy.log([[0.6, 0.4]])
    l2 = numpy.log([[0.1, 0.45, 0.45]])
    senses, scores = component.decode([l1, l2, numpy.zeros((1, 3))])
    assert component.hierarchy.l2(senses[0]) == sense
    assert scores[0] == pytest.approx(score)


def test_decoding_is_a_load_time_setting(trained_discourse):
    nlp = spacy.load(trained_discourse, config={"components": {"discourse_sense": {"decoding": "top-down"}}})
    assert nlp.get_pipe("discourse_sense").decoding == "top-down"
    assert nlp.get_pipe("discourse_sense").cfg["decoding"] == "top-down"
    doc = nlp(TEXT)
    assert len(doc._.discourse_relations) == 2
    with pytest.raises(ValueError, match="decoding must be one of"):
        spacy.blank("en").add_pipe("discourse_sense", config={"decoding": "greedy"})


def test_relation_doc_puts_the_separator_between_the_arguments():
    nlp = spacy.blank("en")
    rel = toy_relations()[0]
    doc = relation_doc(nlp, rel, separator="[SEP]")
    arg1, arg2 = doc.spans["discourse_args"]
    assert doc.text == f"{rel.arg1} [SEP] {rel.arg2}"
    assert (arg1.text, arg2.text) == (rel.arg1, rel.arg2)
    assert [t.text for t in doc[arg1.end : arg2.start]] == ["[SEP]"]  # one token, outside both arguments
    copy = relation_doc(nlp, rel, connective="so", separator="[SEP]")
    assert copy.text == f"{rel.arg1} [SEP] so {rel.arg2}" and copy.spans["discourse_args"][1].text == rel.arg2
    assert relation_doc(nlp, rel).text == f"{rel.arg1} {rel.arg2}"
    assert [t.text for t in input_doc(nlp, doc)] == [t.text for t in doc]


def test_relation_batcher_keeps_every_copy_with_its_original(toy_discourse):
    import random

    from spacy.util import registry

    from spacy_frames.corpora.batching import relation_batch_stats

    nlp = spacy.blank("en")
    reader = registry.readers.get("spacy-frames.DiscourseCorpus.v1")(
        [str(toy_discourse / "train.spacy")], augment=True, split_senses=True, separator="[SEP]"
    )
    examples = list(reader(nlp))
    assert len(examples) == 2 * len(RELATIONS)
    batcher = registry.batchers.get("spacy-frames.relation_batcher.v1")(size=3)
    for seed in range(5):
        random.Random(seed).shuffle(examples)  # as spaCy does every epoch
        batches = list(batcher(examples))
        assert [len(b) for b in batches] == [6, 6, 4]  # 3 relations a batch, each with its copy
        for batch in batches:
            ids = [eg.reference._.discourse_gold["id"] for eg in batch]
            assert all(ids.count(i) == 2 for i in ids)
        stats = relation_batch_stats(batches)
        assert stats["share_copies_with_original"] == 1.0 and stats["share_anchors_without_positive"] == 0.0
        assert stats["anchors"] == 16 and stats["mean_positives_per_anchor"] >= 1.0
    plain = registry.batchers.get("spacy.batch_by_sequence.v1")(size=6, get_length=None)
    random.Random(0).shuffle(examples)
    assert relation_batch_stats(plain(examples))["share_copies_with_original"] < 1.0
    with pytest.raises(ValueError, match="size"):
        registry.batchers.get("spacy-frames.relation_batcher.v1")(size=0)


def test_reader_separator_must_match_the_component(tiny_bert, toy_discourse, transformer_dir):
    with pytest.raises(ValueError, match="separator"):
        initialized(tiny_bert, toy_discourse, transformer_dir, **{"corpora.train.separator": ""})


def test_own_encoder_encodes_each_pair_with_the_separator(trained_discourse, toy_discourse):
    """Packaged with replace_listeners, the component encodes every pair as "Arg1 [SEP]
    Arg2" on its own: the same input, and so the same senses, as the training-time
    listener model reading relation docs that hold the separator."""
    listening = spacy.load(trained_discourse)
    assert listening.get_pipe("discourse_sense").encodes_pairs is False
    own = spacy.load(trained_discourse)
    own.replace_listeners("transformer", "discourse_sense", ["model.tok2vec"])
    own.remove_pipe("transformer")
    component = own.get_pipe("discourse_sense")
    assert component.encodes_pairs is True
    refs = [relation_doc(listening, rel, separator="[SEP]") for rel in toy_relations()]
    expected = [d._.discourse_relations for d in listening.pipe(input_doc(listening, r) for r in refs)]
    plain = [relation_doc(own, rel) for rel in toy_relations()]  # no separator in the user's doc
    got = [d._.discourse_relations for d in own.pipe(input_doc(own, r) for r in plain)]
    assert [[r["sense"] for r in rels] for rels in got] == [[r["sense"] for r in rels] for rels in expected]
    for rels, exp in zip(got, expected):
        assert rels[0]["score"] == pytest.approx(exp[0]["score"], abs=1e-4)
    relations = own(TEXT)._.discourse_relations  # adjacent sentences, offsets into the user's text
    assert [TEXT[slice(*r["arg1"])] for r in relations] == [
        "Prices rose sharply.",
        "So demand outpaced the supply of grain.",
    ]


def test_own_encoder_batches_pairs_by_length_and_keeps_document_order(trained_discourse):
    """Pairs of an own encoder batch across docs, sorted by wordpieces and bounded in pairs
    and padded wordpieces (one long pair beside a 20,000-word document's took 7 GB in one
    call); the relations still come back per doc, in document order, as with one call."""
    own = spacy.load(trained_discourse)
    own.replace_listeners("transformer", "discourse_sense", ["model.tok2vec"])
    own.remove_pipe("transformer")
    component = own.get_pipe("discourse_sense")
    texts = [
        TEXT,
        "Short. " + "Very much longer words follow in this second sentence here . " * 12 + "End.",
        "",
        "A b. C d. E f.",
    ]
    whole = [d._.discourse_relations for d in own.pipe(texts, batch_size=8)]
    counts = wordpiece_counts(component.model, ["", "Prices rose.", "委员会决定推迟投票。"])
    assert counts[0] == 0 and 0 < counts[1] < counts[2] and wordpiece_counts(component.model, []) == []
    assert (
        wordpiece_counts(spacy.load(trained_discourse).get_pipe("discourse_sense").model, ["a"]) is None
    )  # a listener
    calls = []
    classify = component._classify
    component._classify = lambda inputs, *args: calls.append(len(inputs[0])) or classify(inputs, *args)
    component.cfg["max_pairs_per_batch"] = 2
    split = [d._.discourse_relations for d in own.pipe(texts, batch_size=8)]
    assert sum(calls) == sum(len(r) for r in whole) and max(calls) <= 2 and len(calls) >= 3
    assert [[(r["arg1"], r["arg2"], r["sense"]) for r in rels] for rels in split] == [
        [(r["arg1"], r["arg2"], r["sense"]) for r in rels] for rels in whole
    ]
    for rels, exp in zip(split, whole):
        assert [r["score"] for r in rels] == pytest.approx([r["score"] for r in exp], abs=1e-4)
        assert [r["arg1"][0] for r in rels] == sorted(r["arg1"][0] for r in rels)


V2 = {
    "components.discourse_sense.model.@architectures": "spacy-frames.DiscourseSense.v2",
    "components.discourse_sense.model.edges": True,
    "components.discourse_sense.model.cross_attention": True,
}


def test_v2_edges_and_cross_attention_overfit_and_round_trip(tiny_bert, toy_discourse, transformer_dir):
    from thinc.api import Adam

    nlp = initialized(tiny_bert, toy_discourse, transformer_dir, **V2)
    model = nlp.get_pipe("discourse_sense").model
    width = model.get_ref("tok2vec").get_dim("nO")
    # pair, Arg1, Arg2 pooled, four edge tokens, 2 x width of cross-attention
    assert model.get_ref("dense").get_dim("nI") == 7 * width + 2 * width
    examples = toy_examples(nlp)
    optimizer = Adam(0.001)
    W_before = model.get_ref("cross").get_param("W").copy()
    first = nlp.update(examples, sgd=optimizer)["discourse_sense"]
    for _ in range(40):
        last = nlp.update(examples, sgd=optimizer)["discourse_sense"]
    assert last < 0.5 * first
    assert not numpy.allclose(model.get_ref("cross").get_param("W"), W_before)  # the attention learns
    predicted = [nlp(eg.predicted.copy())._.discourse_relations[0]["sense"] for eg in examples]
    gold = [sense for _, _, sense, _ in RELATIONS]
    assert sum(p == g for p, g in zip(predicted, gold)) >= len(gold) - 1
    expected = nlp(TEXT)._.discourse_relations
    with make_tempdir() as d:
        nlp.to_disk(d)
        assert spacy.load(d)(TEXT)._.discourse_relations == expected


def test_v2_reads_empty_and_one_token_arguments(tiny_bert, toy_discourse, transformer_dir):
    nlp = initialized(tiny_bert, toy_discourse, transformer_dir, **V2)
    doc = nlp(with_args(nlp, "Yes. No.", [(0, 4), (5, 8)]))
    (relation,) = doc._.discourse_relations
    assert relation["sense"]
    assert nlp("")._.discourse_relations == []


def write_toy_gdtb(root, text, relations):
    """A GDTB folder with one test document: its raw text and Implicit relations given as
    ((arg1 start, end), (arg2 start, end), sense) in characters."""
    (root / "pdtb" / "raw").mkdir(parents=True)
    (root / "pdtb" / "gold").mkdir(parents=True)
    (root / "splits.md").write_text("# Splits\n\n## test\n\n  * GUM_news_toy\n", encoding="utf8")
    (root / "pdtb" / "raw" / "GUM_news_toy").write_text(text, encoding="utf8")
    lines = []
    for (a, b), (c, d), sense in relations:
        fields = [""] * 33
        fields[0], fields[7], fields[8] = "Implicit", "so", sense
        fields[14], fields[20] = f"{a}..{b}", f"{c}..{d}"
        lines.append("|".join(fields))
    (root / "pdtb" / "gold" / "GUM_news_toy").write_text("\n".join(lines) + "\n", encoding="utf8")


def test_evaluate_documents_scores_each_gold_relation_by_the_overlapping_pair(trained_discourse, tmp_path):
    from spacy_frames.scoring.discourse_eval import best_overlap, evaluate_documents

    # the overlap rule by hand: the pair over both arguments wins; a pair over one only is none
    pairs = [((0, 10), (11, 30), "A"), ((11, 30), (31, 50), "B")]
    assert best_overlap(pairs, (12, 29), (31, 40)) == "B"
    assert best_overlap(pairs, (0, 5), (31, 40)) is None
    nlp = spacy.load(trained_discourse)
    a1, a2, sense, _ = RELATIONS[2]  # "They walked to the station." "Then they boarded ..."
    b2 = "So demand outpaced the supply of grain."
    text = f"{a1} {a2} {b2}"
    start2, start3 = len(a1) + 1, len(a1) + len(a2) + 2
    write_toy_gdtb(
        tmp_path,
        text,
        [
            ((0, len(a1)), (start2, start2 + len(a2)), sense),
            ((start2, start2 + len(a2)), (start3, len(text)), "Contingency.Cause.Result"),
            # arguments no predicted pair spans (Arg2 before Arg1): not reached, counted wrong
            ((start3, len(text)), (0, len(a1)), "Expansion.Conjunction"),
        ],
    )
    expected = {(tuple(r["arg1"]), tuple(r["arg2"])): r["sense"] for r in nlp(text)._.discourse_relations}
    result = evaluate_documents(nlp, tmp_path, "test")
    assert result["documents"] == 1 and result["gold_implicit"] == 3 and result["words"] == len(nlp(text))
    assert result["reached"] == pytest.approx(200 / 3, abs=0.01)
    gold = [sense, "Contingency.Cause.Result"]
    got = [
        expected[((0, len(a1)), (start2, start2 + len(a2)))],
        expected[((start2, start2 + len(a2)), (start3, len(text)))],
    ]
    n_right = sum(g.split(".")[:2] == p.split(".")[:2] for g, p in zip(gold, got))
    assert result["scores"]["l2"]["acc"] == pytest.approx(100 * n_right / 3, abs=0.01)
    assert result["scores_reached"]["l2"]["n"] == 2
    with pytest.raises(ValueError, match="no implicit relations"):
        write_toy_gdtb(tmp_path / "empty", "Nothing here.", [])
        evaluate_documents(nlp, tmp_path / "empty", "test")
