"""Shared fixtures.  Seeds are fixed here; matplotlib draws off-screen."""

import os

os.environ.setdefault("MPLBACKEND", "Agg")

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "suite", max_examples=40, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("suite")

SEED = 20261122


@pytest.fixture
def rng():
    return np.random.default_rng(SEED)
