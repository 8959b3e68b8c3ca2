"""Components written in Python, run inside the engine (docs/extending.md): queueing
disciplines (`Discipline`), congestion controllers (`Controller`) and applications
(`Application`).

    import fairsim

    @fairsim.discipline("my_lifo")
    class MyLifo(fairsim.Discipline):
        '''Last in, first out, with drop-tail.'''

        def __init__(self, port):
            super().__init__(port)
            self.stack = []

        def enqueue(self, packet, ctx):
            if ctx.admits(packet):
                self.stack.append(packet)
            else:
                ctx.drop(packet, "tail_drop")

        def dequeue(self, ctx):
            return self.stack.pop() if self.stack else None

A scenario then names it as it names any discipline (`qdisc = "my_lifo"`, in a pair or on a
link, with parameters: `qdisc = { kind = "my_lifo", ... }`); a controller is named as a transport
(`transport = "const10"`). A class that is importable but not registered is named with its
module: `{ kind = "python", class = "mymodule:MyLifo" }`. Worker processes (sweeps,
reproductions, Dask) import the modules that registered classes (`registering_modules`), so a
registered class must live in an importable module, not in `__main__`, to run on Dask.
"""

from fairsim.extend.application import AppFlow, Application
from fairsim.extend.controller import Controller, Flow, Loss
from fairsim.extend.discipline import Context, Discipline, FlowInfo, Packet, Port
from fairsim.extend.registry import application, controller, discipline, import_modules, registering_modules

__all__ = [
    "AppFlow",
    "Application",
    "Context",
    "Controller",
    "Discipline",
    "Flow",
    "FlowInfo",
    "Loss",
    "Packet",
    "Port",
    "application",
    "controller",
    "discipline",
    "import_modules",
    "registering_modules",
]
