import numpy as np
import pytest

# pytester runs pytest inside a test: the plugin's own behaviour is tested
# the way a user would meet it.
pytest_plugins = ["pytester"]


@pytest.fixture
def logits():
    return np.random.default_rng(31).standard_normal((64, 256)).astype(np.float32) * 4
