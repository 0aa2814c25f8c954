import os

import pytest

os.environ.setdefault("TORCHINDUCTOR_FORCE_DISABLE_CACHES", "1")

torch = pytest.importorskip("torch")
