"""What reverse mode stores per loop iteration: only what the backward sweep reads and the
loop overwrites, reported by srcad.saved_values and in the generated header."""

import numpy as np
from corpus import loops

import srcad


def test_scalar_ode_stores_only_the_state():
    saved = srcad.saved_values(loops.ode_euler, 0.7, 1.3, argnums=(0, 1))
    assert [(s.name, str(s.type)) for s in saved] == [("y", "float")]
    assert saved[0].nbytes == 32
    text = srcad.source(srcad.grad(loops.ode_euler, argnums=(0, 1)), 0.7, 1.3)
    assert "saved per loop iteration" in text and "y (line" in text


def test_fill_loop_stores_nothing():
    # x[i] is recomputed from x (not modified) and i: nothing needs a stack
    assert srcad.saved_values(loops.fill_loop, np.ones(5)) == []
    assert "_stack" not in srcad.source(srcad.grad(loops.fill_loop), np.ones(5))


def test_carried_array_stores_one_array_per_iteration():
    saved = srcad.saved_values(loops.carried_array, np.ones(3))
    assert [(s.name, s.type.shape) for s in saved] == [("h", (3,))]


def test_loop_with_break_records_only_its_trip_count():
    # sin(x * i)' needs x (unchanged) and i (the index): no stack, just the trip count
    text = srcad.source(srcad.grad(loops.break_continue), 0.4)
    assert "_trips" in text and "_stack" not in text
    assert srcad.saved_values(loops.break_continue, 0.4) == []
