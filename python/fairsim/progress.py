"""One progress bar for all the runs of a call: runs done out of the total (the bar moves with
each running run's fraction of its simulated time; the count says whole runs finished), elapsed
time and an estimate of the time left.

On a terminal the bar is rich's, on standard error (standard output carries tables and JSON).
In a Jupyter notebook it is an HTML `<progress>` element with a text line, redrawn in place
through an IPython display handle: no ipywidgets needed, and front ends that show only text get
the text line. Neither appears before the runs have taken a second (FAIRSIM_PROGRESS_AFTER sets
another delay in seconds; 0 draws from the start, which is how the tests see a bar whatever the
machine's speed), and rich's progress module is imported only then (it takes longer to import than
a small run takes to run).
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.progress import Progress

#: Nothing is drawn for calls shorter than this (seconds), unless FAIRSIM_PROGRESS_AFTER says otherwise.
SHOW_AFTER = 1.0
#: A notebook bar is redrawn at most this often (seconds): each redraw is a message to the front end.
NOTEBOOK_REDRAW = 0.5


def in_notebook() -> bool:
    """Whether this Python runs in a Jupyter kernel (whose standard streams are not terminals)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython else None
    return getattr(shell, "kernel", None) is not None


def show_after() -> float:
    """The delay before a bar appears: FAIRSIM_PROGRESS_AFTER (seconds, at least 0) or SHOW_AFTER.
    Read at each call, so a notebook can set it between cells."""
    text = os.environ.get("FAIRSIM_PROGRESS_AFTER")
    if text is None:
        return SHOW_AFTER
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        # a display setting is not worth stopping a run for: say so once and keep the default
        warnings.warn(
            f"FAIRSIM_PROGRESS_AFTER={text!r} is not a number of seconds (0 or more); "
            f"progress bars appear after {SHOW_AFTER:g} s",
            stacklevel=3,
        )
        return SHOW_AFTER
    return seconds


def progress_bar(label: str, total: int, enabled: bool | None, unit: str = "runs"):
    """The bar for `total` runs (or other `unit`s): for a notebook, a terminal, or nothing
    (`enabled` False, or None and neither a notebook nor standard error on a terminal)."""
    notebook = in_notebook()
    if enabled is None:
        enabled = notebook or sys.stderr.isatty()
    if not enabled:
        return _NoBar()
    return _NotebookBar(label, total, unit) if notebook else _TerminalBar(label, total, unit)


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def _finished(done: float, finished: int | None) -> int:
    """The whole runs to show: `finished` where the caller counts them, else `done`'s whole part."""
    return int(done) if finished is None else finished


class _NoBar:
    def update(self, done: float, note: str = "", finished: int | None = None) -> None:
        pass

    def close(self, done: float, stopped: bool = False, finished: int | None = None) -> None:
        pass


class _TerminalBar:
    def __init__(self, label: str, total: int, unit: str = "runs"):
        self.label, self.total, self.unit = label, total, unit
        self.started = time.monotonic()
        self.show_after = show_after()
        self.progress: Progress | None = None

    def update(self, done: float, note: str = "", finished: int | None = None) -> None:
        if self.progress is None:
            if time.monotonic() - self.started < self.show_after:
                return
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

            self.progress = Progress(
                TextColumn("{task.description}", markup=False),  # a scenario's name: not markup
                BarColumn(),
                TextColumn("{task.fields[finished]}/{task.total:.0f} " + self.unit),
                TextColumn("{task.fields[note]}", markup=False),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                transient=True,
                console=Console(stderr=True, force_jupyter=False),
            )
            self.progress.start()
            self.task = self.progress.add_task(self.label, total=self.total, note=note, finished=0)
        self.progress.update(self.task, completed=done, note=note, finished=_finished(done, finished))

    def close(self, done: float, stopped: bool = False, finished: int | None = None) -> None:
        if self.progress is not None:
            self.update(done, finished=finished)
            self.progress.stop()


class _NotebookBar:
    def __init__(self, label: str, total: int, unit: str = "runs"):
        self.label, self.total, self.unit = label, total, unit
        self.started = time.monotonic()
        self.show_after = show_after()
        self.handle = None
        self.drawn = 0.0
        self.note = ""

    def update(
        self, done: float, note: str = "", finished: int | None = None, final: str | None = None
    ) -> None:
        self.note = note
        now = time.monotonic()
        elapsed = now - self.started
        if final is None and (elapsed < self.show_after or now - self.drawn < NOTEBOOK_REDRAW):
            return
        self.drawn = now
        if final is not None:
            state = final
        else:
            left = elapsed * (self.total - done) / done if done > 0 else None
            state = f"elapsed {_clock(elapsed)}, left " + (_clock(left) if left is not None else "?")
        state = ", ".join(x for x in (note, state) if x)
        view = _BarView(self.label, done, _finished(done, finished), self.total, self.unit, state)
        if self.handle is None:
            from IPython.display import display

            self.handle = display(view, display_id=True)
        else:
            self.handle.update(view)

    def close(self, done: float, stopped: bool = False, finished: int | None = None) -> None:
        if self.handle is None:
            return
        elapsed = _clock(time.monotonic() - self.started)
        final = f"stopped after {elapsed}" if stopped else f"done in {elapsed}"
        self.update(done, self.note, finished=finished, final=final)


class _BarView:
    """What a notebook shows: an HTML bar, or its text line where HTML is not shown."""

    def __init__(self, label: str, done: float, finished: int, total: int, unit: str, state: str):
        self.text = f"{label}: {finished}/{total} {unit}, {state}"
        self.done, self.total = done, total

    def __repr__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        from html import escape

        return (
            f'<div class="fairsim-progress"><progress value="{self.done:.3f}" max="{self.total}" '
            f'style="width: 20em"></progress> <code>{escape(self.text)}</code></div>'
        )
