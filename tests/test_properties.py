"""Whatever a Python user passes, fairsim returns results or raises one of its own errors."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fairsim

from conftest import SMALL

FIELDS = [
    "run.warmup",
    "run.seed",
    "links.out.rate",
    "links.out.buffer",
    "links.out.delay",
    "flows.ftp.window",
    "flows.ftp.packet_size",
    "flows.telnet.mean_gap",
    "flows.noise.rate",
    "flows.noise.acks",
]
VALUES = st.one_of(
    st.integers(min_value=-3, max_value=5000),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.sampled_from(["10ms", "2s", "64kbps", "1Mbps", "20", "1000B", "nonsense", "", "[", "{ kind = 1 }"]),
    st.lists(st.integers(0, 3), max_size=2),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(FIELDS), VALUES, min_size=1, max_size=3))
def test_overrides_give_results_or_fairsim_errors(overrides):
    sc = fairsim.loads(SMALL)
    try:
        res = fairsim.run(sc, pair="G/RD", set={**overrides, "run.duration": "120s", "run.interval": "20s"})
    except fairsim.FairsimError as e:
        assert str(e)  # a message, whatever went wrong
        return
    for run in res.runs:
        for f in run["flows"]:
            t = f["run_totals"]
            assert t["sent"] == t["delivered"] + t["dropped"] + f["in_network"]
