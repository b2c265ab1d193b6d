"""Hypothesis: every complete backend agrees on random small boards.

Boards are random Futoshiki (n <= 5, random clues and inequalities, satisfiable
or not), random general boards with repeated labels, and boards with relations
of every kind (Killer cages, Keen cages, Towers clues...); for each, every complete
backend must give the same status and the same number of solutions up to a
limit, equal to the brute-force oracle's count (tests/oracle.py), and every
solution must pass verify(). With ``pytest --backend NAME`` the suite runs for
that backend alone, against the oracle.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .strategies import (
    COMPLETE,
    LIMIT,  # noqa: F401  (kept importable from here for the suites added beside these)
    agree,
    futoshiki_boards,
    multiset_boards,
    relation_boards,
)


@pytest.mark.skipif(not COMPLETE, reason="no complete backend selected")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(futoshiki_boards(), st.sampled_from(["lists", "none"]))
def test_backends_agree_on_random_futoshiki(board, filtering):
    agree(board, filtering)


@pytest.mark.skipif(not COMPLETE, reason="no complete backend selected")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(multiset_boards(), st.sampled_from(["lists", "none"]))
def test_backends_agree_on_random_multiset_boards(board, filtering):
    agree(board, filtering)


@pytest.mark.skipif(not COMPLETE, reason="no complete backend selected")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(relation_boards(), st.sampled_from(["lists", "none"]))
def test_backends_agree_on_random_relation_boards(board, filtering):
    agree(board, filtering)
