"""benchmark_component: a component as its own encoder copy and as a head, both assembled and run."""

import pytest


@pytest.mark.slow
def test_benchmark_component_assembles_both_variants(trained_frames, trained_discourse, tmp_path):
    """Own copy (replace_listeners) and head (listening to the base transformer) both run."""
    import benchmark_component
    import spacy

    text = "Prices rose sharply. So demand outpaced the supply of grain."
    own = benchmark_component.assemble(str(trained_frames), str(trained_discourse), tmp_path / "own", True)
    head = benchmark_component.assemble(str(trained_frames), str(trained_discourse), tmp_path / "head", False)
    from spacy_frames.corpora.discourse import DiscourseRelation, input_doc, relation_doc

    # the own copy encodes the pair "Arg1 [SEP] Arg2" on its own: what the standalone
    # (listening) model sees when the separator is in the doc, as in training
    trained = spacy.load(trained_discourse)
    rel = DiscourseRelation(
        "t", "Implicit", "Prices rose sharply.", "So demand outpaced the supply of grain.", ["Contingency.Cause.Result"]
    )
    standalone = trained(input_doc(trained, relation_doc(trained, rel, separator="[SEP]")))._.discourse_relations
    assembled = spacy.load(own)(text)._.discourse_relations
    assert [r["sense"] for r in assembled] == [r["sense"] for r in standalone]
    assert assembled[0]["score"] == pytest.approx(standalone[0]["score"], abs=1e-4)
    assert text[slice(*assembled[0]["arg1"])] == "Prices rose sharply."
    # the head listens to the base pipeline's transformer: it runs, on other features
    relations = spacy.load(head)(text)._.discourse_relations
    assert len(relations) == 1 and relations[0]["arg1"] == assembled[0]["arg1"]
