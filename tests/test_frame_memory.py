"""Memory offsets for frames without one (spacy_frames/pipeline/frame_memory.py)."""

import numpy
import pytest

from spacy_frames.pipeline.frame_memory import parse_rule, predict_memory


def _frames():
    base = numpy.array([[1, 0], [0, 1], [0.6, 0.8], [0.8, 0.6]], dtype="float32")
    memory = numpy.array([[0.2, 0.0], [0.0, 0.4], [0, 0], [9, 9]], dtype="float32")
    fresh = numpy.array([False, False, True, True])  # row 3's stale memory is ignored
    return base, memory, fresh


def test_zero_keeps_the_memory_and_mean_fills_fresh_rows():
    base, memory, fresh = _frames()
    assert numpy.array_equal(predict_memory(base, memory, fresh, "zero"), memory)
    filled = predict_memory(base, memory, fresh, "mean")
    assert filled[:2].tolist() == memory[:2].tolist()
    assert filled[2] == pytest.approx([0.1, 0.2]) and filled[3] == pytest.approx([0.1, 0.2])


def test_ridge_without_penalty_recovers_a_linear_map():
    base, memory, fresh = _frames()
    # known rows: e1 -> (0.2, 0), e2 -> (0, 0.4): the map is diag(0.2, 0.4)
    filled = predict_memory(base, memory, fresh, "ridge@0")
    assert filled[2] == pytest.approx([0.12, 0.32], abs=1e-6)
    assert filled[3] == pytest.approx([0.16, 0.24], abs=1e-6)
    # a penalty shrinks towards zero: (B'B + I)^-1 B'M = diag(0.1, 0.2)
    assert predict_memory(base, memory, fresh, "ridge@1")[2] == pytest.approx([0.06, 0.16], abs=1e-6)


def test_knn_weights_the_nearest_definitions_by_cosine():
    base, memory, fresh = _frames()
    assert predict_memory(base, memory, fresh, "knn@1")[2] == pytest.approx([0.0, 0.4])  # nearer e2 (0.8)
    # both neighbours: weights 0.6 and 0.8 -> (0.6 * 0.2, 0.8 * 0.4) / 1.4
    assert predict_memory(base, memory, fresh, "knn@2")[2] == pytest.approx([0.12 / 1.4, 0.32 / 1.4])


def test_nothing_to_learn_from_leaves_the_memory():
    base, memory, _ = _frames()
    only_one = numpy.array([False, True, True, True])
    assert numpy.array_equal(predict_memory(base, memory, only_one, "mean"), memory)


@pytest.mark.parametrize("rule", ["ridge", "knn@0", "knn@1.5", "mean@3", "nearest", "ridge@-1", "ridge@x"])
def test_bad_rules_fail_clearly(rule):
    with pytest.raises(ValueError, match="new_frame_memory"):
        parse_rule(rule)
