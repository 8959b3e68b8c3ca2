"""What a run found doubtful without stopping: its report's `warnings`, each naming its port,
raised as Python warnings so that a notebook, a script and `fairsim run` all show them."""

from __future__ import annotations

import warnings

from fairsim.replications import FairsimWarning


class RunFinding(FairsimWarning):
    """A run found something doubtful that did not stop it: a discipline written in Python
    holding packets at the end that it seems never to send (docs/extending.md)."""


def warn_of_findings(runs: list[dict], stacklevel: int = 3) -> None:
    for run in runs:
        for finding in run.get("warnings", ()):
            where = f"pair {run['pair']}, seed {run['seed']}"
            warnings.warn(f"{where}: port {finding}", RunFinding, stacklevel=stacklevel)
