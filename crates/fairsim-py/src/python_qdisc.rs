//! Disciplines written in Python, run inside the engine (issue 33): the adapter of an instance
//! (built by the registry, `python_host`) to the engine's `Qdisc` contract:
//! - The engine keeps the packets. A queued packet stays in the adapter's slab. Python holds a
//!   `Packet` view naming its slot (owner, slot, generation), so it can neither leak a packet
//!   nor send one twice.
//! - The hooks' context (`Context`) is one object per discipline, reused for every call.
//!   Drops and marks asked for in a hook are carried out when it returns.
//! - A hook that raises, or answers with the wrong thing, stops the run (`foreign::fail`). The
//!   message names the class, the hook and the simulated time, and gives the traceback of the
//!   user's code.

use crate::python_host::{self, Named, PyHost};
use fairsim::component::{About, Builder, Kind, ParamDoc};
use fairsim::net::{Packet, PacketKind};
use fairsim::params::{ParamError, Params};
use fairsim::qdisc::{DropReason, PortInfo, Qdisc, QdiscCtx, Room};
use fairsim::units::{BufferLimit, Time};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// A queued packet's view, as a Python discipline sees it: read-only fields, and `tag`, which
/// the discipline may set (a bid, a class, anything).
#[pyclass(name = "Packet", module = "fairsim._core")]
pub struct PacketView {
    owner: u64,
    slot: u32,
    generation: u32,
    packet: Packet,
    /// Free for the discipline's own use; `None` at arrival.
    #[pyo3(get, set)]
    tag: PyObject,
}

/// A packet kind as Python reads it.
fn kind_name(kind: PacketKind) -> &'static str {
    match kind {
        PacketKind::Data => "data",
        PacketKind::Ack => "ack",
    }
}

impl PacketView {
    /// Its slot and generation, if the discipline `owner` holds it.
    fn held_by(&self, owner: u64) -> Option<(u32, u32)> {
        (self.owner == owner).then_some((self.slot, self.generation))
    }

    /// A view of a packet no discipline holds (an ACK a controller is shown): no context takes
    /// it, since none has its owner.
    pub fn detached(py: Python<'_>, packet: Packet) -> PyResult<Py<PacketView>> {
        Py::new(py, PacketView { owner: 0, slot: 0, generation: 0, packet, tag: py.None() })
    }
}

#[pymethods]
impl PacketView {
    /// The flow's index in the scenario's `[flows]`, in order.
    #[getter]
    fn flow(&self) -> u32 {
        self.packet.flow.0
    }
    /// `"data"` or `"ack"`.
    #[getter]
    fn kind(&self) -> &'static str {
        kind_name(self.packet.kind)
    }
    /// (flow, kind): a flow's ACKs are their own conversation (as the built-in disciplines count).
    #[getter]
    fn conversation(&self) -> (u32, &'static str) {
        (self.flow(), self.kind())
    }
    /// Bytes on the wire.
    #[getter]
    fn size(&self) -> u32 {
        self.packet.size
    }
    /// Data: the sequence number in packets; ACK: the cumulative acknowledgement.
    #[getter]
    fn seq(&self) -> u64 {
        self.packet.seq
    }
    /// Unique in the run.
    #[getter]
    fn id(&self) -> u64 {
        self.packet.id
    }
    /// When the sender sent it, in seconds.
    #[getter]
    fn sent_at(&self) -> f64 {
        self.packet.sent_at.as_secs_f64()
    }
    /// When it reached this queue, in seconds.
    #[getter]
    fn enqueued_at(&self) -> f64 {
        self.packet.enqueued_at.as_secs_f64()
    }
    #[getter]
    fn priority(&self) -> u8 {
        self.packet.priority
    }
    /// ECN-capable transport (RFC 3168's ECT).
    #[getter]
    fn ect(&self) -> bool {
        self.packet.ect
    }
    /// The congestion bit (CE, or DECbit's) as the packet arrived.
    #[getter]
    fn congestion(&self) -> bool {
        self.packet.congestion
    }
    #[getter]
    fn retransmission(&self) -> bool {
        self.packet.retransmission
    }
    /// CSFQ's rate label in bit/s (0 when unlabelled).
    #[getter]
    fn label(&self) -> f32 {
        self.packet.label
    }
    fn __repr__(&self) -> String {
        format!("<Packet flow {} {} seq {} size {}>", self.flow(), self.kind(), self.seq(), self.size())
    }
}

/// What a hook may see and ask for. One per discipline, reused for every call: read it only
/// inside a hook.
#[pyclass(name = "Context", module = "fairsim._core")]
pub struct Context {
    /// The simulated time, in seconds.
    #[pyo3(get)]
    now: f64,
    /// The rate of the line this queue feeds, in bit/s.
    #[pyo3(get)]
    rate_bps: u64,
    /// The packets queued (held by the discipline), not counting one arriving now.
    #[pyo3(get)]
    queued_packets: usize,
    #[pyo3(get)]
    queued_bytes: u64,
    owner: u64,
    /// The buffer's room for this discipline now (the port's `buffer`, less a packet on the line
    /// where the line takes one of its places).
    room: Room,
    drops: Vec<((u32, u32), DropReason)>,
    marks: Vec<(u32, u32)>,
}

#[pymethods]
impl Context {
    /// Drops `packet` (queued, or arriving now) for `reason` (`tail_drop`, `early`, ...: the
    /// reasons results count, docs/results.md).
    #[pyo3(signature = (packet, reason="tail_drop"))]
    fn drop(&mut self, packet: PyRef<'_, PacketView>, reason: &str) -> PyResult<()> {
        let reason = DropReason::from_name(reason).filter(|r| *r != DropReason::Loss).ok_or_else(|| {
            let known: Vec<&str> =
                DropReason::ALL.iter().filter(|r| **r != DropReason::Loss).map(|r| r.as_str()).collect();
            PyValueError::new_err(format!("unknown drop reason {reason:?}; the reasons are {}", known.join(", ")))
        })?;
        self.drops.push((self.own(&packet)?, reason));
        Ok(())
    }

    /// Sets `packet`'s congestion bit (ECN's CE, DECbit's), counted as a mark of this queue.
    fn mark(&mut self, packet: PyRef<'_, PacketView>) -> PyResult<()> {
        let slot = self.own(&packet)?;
        self.marks.push(slot);
        Ok(())
    }

    /// Whether the port's buffer has room for `packet` beside what the discipline holds: the
    /// drop-tail test of the built-in `fcfs`.
    fn admits(&self, packet: PyRef<'_, PacketView>) -> bool {
        self.room.admits(self.queued_packets, self.queued_bytes, packet.packet.size)
    }
}

impl Context {
    fn own(&self, packet: &PacketView) -> PyResult<(u32, u32)> {
        packet
            .held_by(self.owner)
            .ok_or_else(|| PyValueError::new_err(format!("{} is not queued at this port", packet.__repr__())))
    }
}

/// Distinguishes the adapters of one process, so a packet view cannot be handed to another port.
static NEXT_OWNER: AtomicU64 = AtomicU64::new(1);

/// A Python discipline as the engine's `Qdisc`.
struct PyQdisc {
    /// `name (module:Class)`, for messages.
    label: String,
    instance: Py<PyAny>,
    context: Py<Context>,
    owner: u64,
    limit: BufferLimit,
    /// Queued packets, by slot; a slot's generation counts its reuses.
    slots: Vec<(Option<Packet>, u32)>,
    free: Vec<u32>,
    queued: usize,
    bytes: u64,
    /// Whether the class defines the optional hooks `stats` (figures for the report) and
    /// `gauge` (the variable recorded beside the queue of a traced port).
    has_stats: bool,
    has_gauge: bool,
    /// The time of the last hook, for the messages of the optional ones.
    now: Time,
}

/// A name Python gave (a figure's, a gauge's) as the engine keeps names: each distinct one
/// leaked once.
fn interned(name: String) -> &'static str {
    static NAMES: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    match names.iter().find(|n| **n == name) {
        Some(n) => n,
        None => {
            let leaked: &'static str = Box::leak(name.into_boxed_str());
            names.push(leaked);
            leaked
        }
    }
}

impl PyQdisc {
    fn insert(&mut self, pkt: Packet) -> (u32, u32) {
        self.queued += 1;
        self.bytes += pkt.size as u64;
        let slot = match self.free.pop() {
            Some(s) => s,
            None => {
                self.slots.push((None, 0));
                self.slots.len() as u32 - 1
            }
        };
        let entry = &mut self.slots[slot as usize];
        entry.0 = Some(pkt);
        entry.1 = entry.1.wrapping_add(1);
        (slot, entry.1)
    }

    /// Takes the packet out of `slot` if it is still the one of `generation`.
    fn take(&mut self, (slot, generation): (u32, u32)) -> Option<Packet> {
        let entry = self.slots.get_mut(slot as usize).filter(|e| e.1 == generation)?;
        let pkt = entry.0.take()?;
        self.free.push(slot);
        self.queued -= 1;
        self.bytes -= pkt.size as u64;
        Some(pkt)
    }

    /// Readies the reused context for a hook at `ctx.now`.
    fn begin(&self, py: Python<'_>, ctx: &QdiscCtx) {
        let mut c = self.context.borrow_mut(py);
        c.now = ctx.now.as_secs_f64();
        c.rate_bps = ctx.rate.0;
        c.queued_packets = self.queued;
        c.queued_bytes = self.bytes;
        c.room = ctx.room(self.limit);
        c.drops.clear();
        c.marks.clear();
    }

    /// Carries out the drops and marks the hook asked for.
    fn finish(&mut self, py: Python<'_>, hook: &str, ctx: &mut QdiscCtx) {
        let (drops, marks) = {
            let mut c = self.context.borrow_mut(py);
            (std::mem::take(&mut c.drops), std::mem::take(&mut c.marks))
        };
        for slot in marks {
            if let Some(Some(pkt)) = self.slots.get_mut(slot.0 as usize).filter(|e| e.1 == slot.1).map(|e| &mut e.0) {
                ctx.mark(pkt);
            }
        }
        for (slot, reason) in drops {
            match self.take(slot) {
                Some(pkt) => ctx.drop(pkt, reason),
                None => {
                    self.fail(hook, ctx.now, "dropped a packet it no longer holds (dropped or sent already)".into())
                }
            }
        }
    }

    /// Calls hook `name` with `args`; stops the run if it raises.
    fn call<'py>(&self, py: Python<'py>, name: &str, args: impl pyo3::call::PyCallArgs<'py>, now: Time) -> PyObject {
        match self.instance.bind(py).call_method1(name, args) {
            Ok(value) => value.unbind(),
            Err(e) => self.fail(name, now, format!("raised:\n{}", python_host::traceback(py, &e))),
        }
    }

    fn fail(&self, hook: &str, now: Time, what: String) -> ! {
        python_host::fail("discipline", &self.label, hook, now, what)
    }
}

impl Qdisc for PyQdisc {
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QdiscCtx) {
        self.now = ctx.now;
        Python::with_gil(|py| {
            self.begin(py, ctx);
            let (slot, generation) = self.insert(pkt);
            let view = PacketView { owner: self.owner, slot, generation, packet: pkt, tag: py.None() };
            let view = Py::new(py, view).expect("a packet view is created");
            let context = self.context.clone_ref(py);
            let answer = self.call(py, "enqueue", (view, context), ctx.now);
            if let Err(what) = python_host::returned_nothing(answer.bind(py)) {
                self.fail("enqueue", ctx.now, what);
            }
            self.finish(py, "enqueue", ctx);
        })
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<Packet> {
        self.now = ctx.now;
        Python::with_gil(|py| {
            self.begin(py, ctx);
            let context = self.context.clone_ref(py);
            let answer = self.call(py, "dequeue", (context,), ctx.now);
            let chosen = if answer.is_none(py) {
                None
            } else {
                let answer = answer.bind(py);
                let Ok(view) = answer.downcast::<PacketView>() else {
                    let shown = python_host::shown(answer);
                    self.fail("dequeue", ctx.now, format!("returned {shown}; it returns a queued packet or None"));
                };
                let view = view.borrow();
                let Some(slot) = view.held_by(self.owner) else {
                    self.fail("dequeue", ctx.now, format!("returned {}, which was never queued here", view.__repr__()));
                };
                Some(slot)
            };
            self.finish(py, "dequeue", ctx);
            let slot = chosen?;
            match self.take(slot) {
                Some(pkt) => Some(pkt),
                None => self.fail(
                    "dequeue",
                    ctx.now,
                    "returned a packet it no longer holds (dropped or sent already)".into(),
                ),
            }
        })
    }

    fn len_packets(&self) -> usize {
        self.queued
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn for_each_packet(&self, f: &mut dyn FnMut(&Packet)) {
        self.slots.iter().filter_map(|(p, _)| p.as_ref()).for_each(f)
    }

    fn stats(&self) -> Vec<(&'static str, f64)> {
        if !self.has_stats {
            return vec![];
        }
        Python::with_gil(|py| {
            let answer = self.instance.bind(py).call_method0("stats").and_then(|s| {
                let dict = s.downcast_into::<pyo3::types::PyDict>()?;
                dict.items().extract::<Vec<(String, f64)>>() // in the dict's order: reports repeat
            });
            match answer {
                Ok(figures) => figures.into_iter().map(|(name, value)| (interned(name), value)).collect(),
                Err(e) => self.fail(
                    "stats",
                    self.now,
                    format!("failed (it returns a dict of numbers): {}", python_host::traceback(py, &e)),
                ),
            }
        })
    }

    fn gauge(&self) -> Option<(&'static str, f64)> {
        if !self.has_gauge {
            return None;
        }
        Python::with_gil(|py| {
            let answer =
                self.instance.bind(py).call_method0("gauge").and_then(|g| g.extract::<Option<(String, f64)>>());
            match answer {
                Ok(gauge) => gauge.map(|(name, value)| (interned(name), value)),
                Err(e) => self.fail(
                    "gauge",
                    self.now,
                    format!("failed (it returns (name, number) or None): {}", python_host::traceback(py, &e)),
                ),
            }
        })
    }
}

/// A discipline the registry knows.
#[derive(Clone, Copy)]
struct PyQdiscKind(Named);

impl PyQdiscKind {
    /// An instance built for `port` from `params`, adapted.
    fn instance(&self, params: &Params, port: &PortInfo) -> Result<(PyQdisc, Params), ParamError> {
        Python::with_gil(|py| {
            let (packets, bytes) = match port.buffer {
                BufferLimit::Packets(n) => (Some(n), None),
                BufferLimit::Bytes(n) => (None, Some(n)),
                BufferLimit::Unlimited => (None, None),
            };
            let crossing: Vec<(u32, &str)> = port.crossing.iter().map(|(f, k)| (f.0, kind_name(*k))).collect();
            let built_for = (packets, bytes, port.rate.0, port.flows.len(), crossing);
            let (instance, label, params) = self.0.instance(py, params, built_for)?;
            let defines = |hook: &str| instance.hasattr(hook).unwrap_or(false);
            let (has_stats, has_gauge) = (defines("stats"), defines("gauge"));
            let owner = NEXT_OWNER.fetch_add(1, Ordering::Relaxed);
            let context = Context {
                now: 0.0,
                rate_bps: port.rate.0,
                queued_packets: 0,
                queued_bytes: 0,
                owner,
                room: Room::of(port.buffer),
                drops: vec![],
                marks: vec![],
            };
            let context = Py::new(py, context).map_err(|e| ParamError { path: vec![], message: e.to_string() })?;
            let qdisc = PyQdisc {
                label,
                instance: instance.unbind(),
                context,
                owner,
                limit: port.buffer,
                slots: vec![],
                free: vec![],
                queued: 0,
                bytes: 0,
                has_stats,
                has_gauge,
                now: Time::ZERO,
            };
            Ok((qdisc, params))
        })
    }
}

impl Kind<PortInfo, dyn Qdisc> for PyQdiscKind {
    fn about(&self) -> About {
        self.0.about()
    }

    fn parameters(&self) -> Vec<ParamDoc> {
        self.0.parameters()
    }

    fn parameter_names(&self) -> Vec<&'static str> {
        vec![] // checked by the registry, which knows each class's own
    }

    fn build(&self, params: &Params, port: &PortInfo) -> Result<(Box<dyn Qdisc>, Params), ParamError> {
        let (qdisc, params) = self.instance(params, port)?;
        Ok((Box::new(qdisc), params))
    }

    fn builder(&self, params: &Params) -> Result<Builder<PortInfo, dyn Qdisc>, ParamError> {
        let (params, kind) = (params.clone(), *self);
        Ok(Box::new(move |port| Ok(Box::new(kind.instance(&params, port)?.0))))
    }
}

/// Makes the Python registry the engine's host of disciplines it does not know (at import).
pub fn install() {
    fairsim::qdisc::FOREIGN.open(Box::new(PyHost::new("discipline", PyQdiscKind)));
}
