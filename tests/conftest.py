import os

from hypothesis import HealthCheck, settings

# "ci" keeps the whole suite within minutes on 2 cores; "thorough" is for runs by hand:
#   HYPOTHESIS_PROFILE=thorough .venv/bin/python -m pytest tests/engine/test_properties.py
settings.register_profile("ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "thorough", max_examples=3000, deadline=None, suppress_health_check=list(HealthCheck)
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
