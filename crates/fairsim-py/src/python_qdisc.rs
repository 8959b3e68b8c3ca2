//! Disciplines written in Python, run inside the engine: the adapter of an instance
//! (built by the registry, `python_host`) to the engine's `Qdisc` contract:
//! - The engine keeps the packets. A queued packet stays in the adapter's slab. Python holds a
//!   `Packet` view naming its slot (owner, slot, generation), so it can neither leak a packet
//!   nor send one twice.
//! - The hooks' context (`Context`) is one object per discipline, reused for every call, and
//!   valid only during a call: used after its hook returned it raises, naming the class and
//!   the hook. Drops and marks asked for in a hook are carried out when it returns, but counted
//!   at once: after `ctx.drop(p)` the context's `queued_packets`, `queued_bytes` and `admits`
//!   show the queue without `p`, so a push-out discipline sees the room it made.
//! - What is enforced (docs/extending.md): after `enqueue` the discipline holds the arriving
//!   packet or dropped it (a view nobody holds is a packet forgotten), and what it holds fits
//!   the port's buffer; when `dequeue` answers None with packets queued, none of them may be
//!   forgotten. Each breach stops the run.
//! - `ctx.random` is the discipline's own `random.Random`, seeded from the port's stream of the
//!   run (the run's seed and the port's place), so replications differ and a seed repeats.
//! - `ctx.wake_at(t)` in `dequeue` is the discipline's timer (`Qdisc::wake_at`): when it answers
//!   None, holding packets or not, the port asks again at `t` if its line is idle then.
//! - The port it is built for (`fairsim.Port`) names itself and every flow (name, ends, weight,
//!   packet size), made once per scenario and shared by its ports (`flows_of`).
//! - A hook that raises, or answers with the wrong thing, stops the run (`foreign::fail`). The
//!   message names the class, the hook and the simulated time, and gives the traceback of the
//!   user's code.

use crate::python_host::{self, Named, PyHost};
use fairsim::component::{About, Kind, ParamDoc};
use fairsim::net::{Packet, PacketKind, PacketPool};
use fairsim::params::{ParamError, Params};
use fairsim::qdisc::{DropReason, FlowMeta, PortInfo, Qdisc, QdiscCtx, Room};
use fairsim::units::{BufferLimit, Time};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use rand::RngCore;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// A queued packet's view, as a Python discipline sees it: read-only fields, and `tag`, which
/// the discipline may set (a bid, a class, anything).
#[pyclass(name = "Packet", module = "fairsim._core")]
pub struct PacketView {
    owner: u64,
    slot: u32,
    generation: u32,
    /// Whether the discipline still holds it: false once it was sent or dropped.
    held: bool,
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
        Py::new(py, PacketView { owner: 0, slot: 0, generation: 0, held: false, packet, tag: py.None() })
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
        kind_name(self.packet.kind())
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
    /// ACK only: the send time of the data packet it echoes, seconds (RFC 7323's TSecr: the
    /// earliest it newly acknowledges, so with delayed ACKs the round trip includes the wait).
    #[getter]
    fn echo_sent_at(&self) -> f64 {
        self.packet.echo_sent_at.as_secs_f64()
    }
    /// ACK only: the sequence number of the data packet it echoes.
    #[getter]
    fn echo_seq(&self) -> u64 {
        self.packet.echo_seq
    }
    /// ACK only: how long the receiver held it after that packet arrived (a delayed ACK's
    /// wait), seconds: `now - echo_sent_at - ack_delay` is the network's round trip.
    #[getter]
    fn ack_delay(&self) -> f64 {
        self.packet.ack_delay_ns as f64 * 1e-9
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
        self.packet.ect()
    }
    /// The congestion bit (CE, or DECbit's) as the packet arrived.
    #[getter]
    fn congestion(&self) -> bool {
        self.packet.congestion()
    }
    #[getter]
    fn retransmission(&self) -> bool {
        self.packet.retransmission()
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

/// What a hook may see and ask for. One per discipline, reused for every call: valid only
/// inside a hook.
#[pyclass(name = "Context", module = "fairsim._core")]
pub struct Context {
    now: f64,
    rate_bps: u64,
    queued_packets: usize,
    queued_bytes: u64,
    owner: u64,
    /// The buffer's room for this discipline now (the port's `buffer`, less a packet on the line
    /// where the line takes one of its places).
    room: Room,
    drops: Vec<((u32, u32), DropReason)>,
    marks: Vec<(u32, u32)>,
    /// The packet arriving in `enqueue` (not counted in `queued_*`); None in other hooks.
    arriving: Option<(u32, u32)>,
    /// Whether a hook is being called: between hooks the context may not be used.
    live: bool,
    /// The last hook called, and the discipline's label, for the message of a late use.
    last: &'static str,
    label: String,
    /// The discipline's `random.Random`, made at its first hook.
    random: Option<PyObject>,
    /// The earliest time `dequeue` asked to be called again at (`wake_at`), seconds.
    wake: Option<f64>,
}

#[pymethods]
impl Context {
    /// The simulated time, in seconds.
    #[getter]
    fn now(&self) -> PyResult<f64> {
        self.live().map(|_| self.now)
    }
    /// The rate of the line this queue feeds, in bit/s.
    #[getter]
    fn rate_bps(&self) -> PyResult<u64> {
        self.live().map(|_| self.rate_bps)
    }
    /// The packets queued (held by the discipline), not counting one arriving now, less those
    /// this hook dropped.
    #[getter]
    fn queued_packets(&self) -> PyResult<usize> {
        self.live().map(|_| self.queued_packets)
    }
    #[getter]
    fn queued_bytes(&self) -> PyResult<u64> {
        self.live().map(|_| self.queued_bytes)
    }
    /// The discipline's own random stream (`random.Random`), seeded from the run's seed and the
    /// port: the same seed repeats it, another seed gives another.
    #[getter]
    fn random(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.live()?;
        Ok(self.random.as_ref().map_or_else(|| py.None(), |r| r.clone_ref(py)))
    }

    /// Drops `packet` (queued, or arriving now) for `reason` (`tail_drop`, `early`, ...: the
    /// reasons results count, docs/results.md).
    #[pyo3(signature = (packet, reason="tail_drop"))]
    fn drop(&mut self, packet: PyRef<'_, PacketView>, reason: &str) -> PyResult<()> {
        self.live()?;
        let reason = DropReason::from_name(reason).filter(|r| r.by_discipline()).ok_or_else(|| {
            let known: Vec<&str> = DropReason::ALL.iter().filter(|r| r.by_discipline()).map(|r| r.as_str()).collect();
            PyValueError::new_err(format!("unknown drop reason {reason:?}; the reasons are {}", known.join(", ")))
        })?;
        let slot = self.held(&packet)?;
        if self.drops.iter().any(|(s, _)| *s == slot) {
            return Err(PyValueError::new_err(format!("{} is dropped already", packet.__repr__())));
        }
        self.drops.push((slot, reason));
        // counted at once: the rest of the hook sees the queue without it
        if self.arriving != Some(slot) {
            self.queued_packets -= 1;
            self.queued_bytes -= packet.packet.size as u64;
        }
        Ok(())
    }

    /// Marks `packet` congested, counted as a mark of this queue, and says whether it did: ECN's
    /// CE on an ECN-capable packet (RFC 3168 §5); a packet that is not ECN-capable is left as it
    /// is, and False tells the discipline to drop it instead, as the built-in AQMs do. With
    /// `decbit`, DECbit's congestion bit is set on any packet (DECbit's transport reads it
    /// without ECT).
    #[pyo3(signature = (packet, *, decbit = false))]
    fn mark(&mut self, packet: PyRef<'_, PacketView>, decbit: bool) -> PyResult<bool> {
        self.live()?;
        let slot = self.held(&packet)?;
        if !decbit && !packet.packet.ect() {
            return Ok(false);
        }
        self.marks.push(slot);
        Ok(true)
    }

    /// Asks the port to call `dequeue` again at `at` (seconds, not before `now`; `now` itself is
    /// taken as 1 ns later) if its line is idle then: the discipline's timer, for a `dequeue`
    /// that answers None while holding packets (a shaper waiting for tokens, a delay line).
    /// Without it such packets wait for the next arrival. Asked several times in one call, the
    /// earliest counts.
    fn wake_at(&mut self, at: f64) -> PyResult<()> {
        self.live()?;
        if self.last != "dequeue" {
            return Err(PyRuntimeError::new_err(format!(
                "discipline {}: `ctx.wake_at` is asked in `dequeue`, not in `{}` (after `enqueue` \
                 the port asks `dequeue` at once if its line is idle, and at the end of its \
                 transmission if not)",
                self.label, self.last
            )));
        }
        // an instant of this nanosecond (now, or now computed with a rounding below it) is taken
        // as 1 ns later: the engine's clock counts whole nanoseconds
        if !(at.is_finite() && (at * 1e9).round() >= (self.now * 1e9).round()) {
            return Err(PyValueError::new_err(format!(
                "discipline {}: `ctx.wake_at({at})` at {} s: the time is in seconds, not before now",
                self.label, self.now
            )));
        }
        self.wake = Some(self.wake.map_or(at, |w| w.min(at)));
        Ok(())
    }

    /// Whether the port's buffer has room for `packet` beside what the discipline holds: the
    /// drop-tail test of the built-in `fcfs`.
    fn admits(&self, packet: PyRef<'_, PacketView>) -> PyResult<bool> {
        self.live()?;
        Ok(self.room.admits(self.queued_packets, self.queued_bytes, packet.packet.size))
    }
}

impl Context {
    /// Refuses a use outside a hook: what it would read is stale and what it would ask for
    /// would never be carried out.
    fn live(&self) -> PyResult<()> {
        if self.live {
            return Ok(());
        }
        Err(PyRuntimeError::new_err(format!(
            "the context of discipline {} is used after its hook `{}` returned: a context is valid \
             only during the call it is given to",
            self.label, self.last
        )))
    }

    /// `packet`'s slot, if this discipline holds it.
    fn held(&self, packet: &PacketView) -> PyResult<(u32, u32)> {
        match packet.held_by(self.owner) {
            Some(slot) if packet.held => Ok(slot),
            Some(_) => Err(PyValueError::new_err(format!(
                "{} is no longer queued here (sent or dropped already)",
                packet.__repr__()
            ))),
            None => Err(PyValueError::new_err(format!("{} is not queued at this port", packet.__repr__()))),
        }
    }
}

/// A queued packet and the view Python was given of it.
type Queued = (Packet, Py<PacketView>);

/// Distinguishes the adapters of one process, so a packet view cannot be handed to another port.
static NEXT_OWNER: AtomicU64 = AtomicU64::new(1);

/// A Python discipline as the engine's `Qdisc`.
struct PyQdisc {
    /// `name (module:Class)`, for messages.
    label: String,
    instance: Py<PyAny>,
    /// Its `enqueue` and `dequeue`, bound once: a call by name looks the method up in the class
    /// at every packet.
    enqueue: Py<PyAny>,
    dequeue: Py<PyAny>,
    context: Py<Context>,
    owner: u64,
    limit: BufferLimit,
    /// The port's name (`a->b`), for messages.
    port: String,
    /// Queued packets with the view Python was given of each, by slot; a slot's generation
    /// counts its reuses. The adapter's reference to a view is what tells a packet the
    /// discipline forgot (a view no one else holds) from one it keeps.
    slots: Vec<(Option<Queued>, u32)>,
    free: Vec<u32>,
    queued: usize,
    bytes: u64,
    /// Whether the class defines the optional hooks `stats` (figures for the report) and
    /// `gauge` (the variable recorded beside the queue of a traced port).
    has_stats: bool,
    has_gauge: bool,
    /// The time of the last hook, for the messages of the optional ones.
    now: Time,
    /// The timer the last `dequeue` set (`Context::wake_at`).
    wake: Option<Time>,
    /// The longest any packet it sent had waited, and the largest it sent: a packet held much
    /// longer at the end of the run is reported (`stranded`).
    longest_wait: Time,
    largest: u32,
}

impl PyQdisc {
    /// Queues `pkt` in a free slot; returns the view Python is given of it, and the slot.
    fn insert(&mut self, py: Python<'_>, pkt: Packet) -> (Py<PacketView>, (u32, u32)) {
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
        entry.1 = entry.1.wrapping_add(1);
        let view = PacketView { owner: self.owner, slot, generation: entry.1, held: true, packet: pkt, tag: py.None() };
        let view = Py::new(py, view).expect("a packet view is created");
        entry.0 = Some((pkt, view.clone_ref(py)));
        (view, (slot, entry.1))
    }

    /// Takes the packet out of `slot` if it is still the one of `generation`; its view no
    /// longer holds it.
    fn take(&mut self, py: Python<'_>, (slot, generation): (u32, u32)) -> Option<Packet> {
        let entry = self.slots.get_mut(slot as usize).filter(|e| e.1 == generation)?;
        let (pkt, view) = entry.0.take()?;
        view.borrow_mut(py).held = false;
        self.free.push(slot);
        self.queued -= 1;
        self.bytes -= pkt.size as u64;
        Some(pkt)
    }

    /// Whether `slot` of `generation` still holds its packet.
    fn holds(&self, (slot, generation): (u32, u32)) -> bool {
        self.slots.get(slot as usize).is_some_and(|e| e.1 == generation && e.0.is_some())
    }

    /// The packets queued here, in slot order.
    fn held(&self) -> impl Iterator<Item = &Packet> {
        self.slots.iter().filter_map(|(e, _)| e.as_ref().map(|(p, _)| p))
    }

    /// A queued packet whose view only the adapter holds: one the discipline forgot.
    fn forgotten(&self, py: Python<'_>) -> Option<String> {
        self.slots
            .iter()
            .filter_map(|(e, _)| e.as_ref())
            .find_map(|(_, view)| (view.get_refcnt(py) <= 1).then(|| view.borrow(py).__repr__()))
    }

    /// A figure `stats` or `gauge` gave: its name becomes a column or a series of the results,
    /// so it is a name as Python's are (letters, digits and `_`, not starting with a digit), and
    /// its value a finite number; anything else stops the run.
    fn figure(&self, hook: &str, name: String, value: f64) -> (&'static str, f64) {
        let named = name.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_alphanumeric() || c == '_');
        if !named {
            self.fail(
                hook,
                self.now,
                format!("named a figure {name:?}: a name has letters, digits and _, not first a digit"),
            );
        }
        if !value.is_finite() {
            self.fail(hook, self.now, format!("gave {name} = {value}: a figure is a finite number"));
        }
        (python_host::interned(name), value)
    }

    /// Readies the reused context for `hook` at `ctx.now` (`arriving`: the slot and size of the
    /// packet `enqueue` is given, queued already); makes the discipline's random stream at its
    /// first hook.
    fn begin(&self, py: Python<'_>, hook: &'static str, arriving: Option<((u32, u32), u32)>, ctx: &mut QdiscCtx) {
        let mut c = self.context.borrow_mut(py);
        c.now = ctx.now.as_secs_f64();
        c.rate_bps = ctx.rate.0;
        c.queued_packets = self.queued - usize::from(arriving.is_some());
        c.queued_bytes = self.bytes - arriving.map_or(0, |(_, size)| size as u64);
        c.room = ctx.room(self.limit);
        c.drops.clear();
        c.marks.clear();
        c.wake = None;
        c.arriving = arriving.map(|(slot, _)| slot);
        (c.live, c.last) = (true, hook);
        if c.random.is_none() {
            let seed = ctx.rng().next_u64();
            let random = py.import("random").and_then(|r| r.getattr("Random")?.call1((seed,)));
            c.random = Some(random.expect("the standard library's random.Random is made").unbind());
        }
    }

    /// Carries out the drops and marks the hook asked for, and closes the context.
    fn finish(&mut self, py: Python<'_>, hook: &str, ctx: &mut QdiscCtx) {
        let (drops, marks) = {
            let mut c = self.context.borrow_mut(py);
            (c.live, c.arriving) = (false, None);
            if hook == "dequeue" {
                // rounded to the engine's nanoseconds; the port takes one not after now as 1 ns on
                self.wake = c.wake.map(Time::from_secs_f64);
            }
            (std::mem::take(&mut c.drops), std::mem::take(&mut c.marks))
        };
        for slot in marks {
            if let Some(Some((pkt, _))) =
                self.slots.get_mut(slot.0 as usize).filter(|e| e.1 == slot.1).map(|e| &mut e.0)
            {
                ctx.mark(pkt);
            }
        }
        for (slot, reason) in drops {
            match self.take(py, slot) {
                Some(pkt) => ctx.drop(pkt, reason),
                None => {
                    self.fail(hook, ctx.now, "dropped a packet it no longer holds (dropped or sent already)".into())
                }
            }
        }
    }

    /// Calls hook `name` with `args`; stops the run if it raises.
    fn call<'py>(
        &self,
        py: Python<'py>,
        (name, method): (&str, &Py<PyAny>),
        args: impl pyo3::call::PyCallArgs<'py>,
        now: Time,
    ) -> PyObject {
        let _inside = python_host::InHook::enter(py);
        match method.bind(py).call1(args) {
            Ok(value) => value.unbind(),
            Err(e) => python_host::raised(py, "discipline", &self.label, name, now, &e),
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
            let before = self.bytes;
            let (view, slot) = self.insert(py, pkt);
            let room = ctx.room(self.limit);
            self.begin(py, "enqueue", Some((slot, pkt.size)), ctx);
            let context = self.context.clone_ref(py);
            let answer = self.call(py, ("enqueue", &self.enqueue), (view.clone_ref(py), context), ctx.now);
            if let Err(what) = python_host::returned_nothing(answer.bind(py)) {
                self.fail("enqueue", ctx.now, what);
            }
            self.finish(py, "enqueue", ctx);
            // kept, or dropped: a view held by no one but the adapter (and `view` here) is lost
            if self.holds(slot) && view.get_refcnt(py) <= 2 {
                let shown = view.borrow(py).__repr__();
                self.fail(
                    "enqueue",
                    ctx.now,
                    format!(
                        "neither kept nor dropped {shown}: a discipline keeps the packet it is given \
                         (to return it from `dequeue`) or drops it with `ctx.drop`"
                    ),
                );
            }
            if room.broken_by_arrival(self.queued, self.bytes, self.bytes > before) {
                self.fail(
                    "enqueue",
                    ctx.now,
                    format!(
                        "holds {} packets ({} bytes) at port {}, more than {}: drop what does not fit \
                         (`ctx.admits(packet)` says whether it does)",
                        self.queued,
                        self.bytes,
                        self.port,
                        room.describe()
                    ),
                );
            }
        })
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Option<Packet> {
        self.now = ctx.now;
        Python::with_gil(|py| {
            self.begin(py, "dequeue", None, ctx);
            let context = self.context.clone_ref(py);
            let answer = self.call(py, ("dequeue", &self.dequeue), (context,), ctx.now);
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
            let Some(slot) = chosen else {
                // nothing to send with packets queued: none of them may be forgotten
                if self.queued > 0 {
                    if let Some(lost) = self.forgotten(py) {
                        self.fail(
                            "dequeue",
                            ctx.now,
                            format!("returned None and has forgotten {lost}: it is neither kept, sent nor dropped"),
                        );
                    }
                }
                return None;
            };
            match self.take(py, slot) {
                Some(pkt) => {
                    self.longest_wait = self.longest_wait.max(ctx.now - pkt.enqueued_at);
                    self.largest = self.largest.max(pkt.size);
                    Some(pkt)
                }
                None => self.fail(
                    "dequeue",
                    ctx.now,
                    "returned a packet it no longer holds (dropped or sent already)".into(),
                ),
            }
        })
    }

    fn wake_at(&mut self) -> Option<Time> {
        self.wake.take()
    }

    fn may_wake_when_empty(&self) -> bool {
        true // whether it does is the user's code's to say, at each dequeue
    }

    /// Packets held at the end far longer than any packet sent had waited. A discipline that
    /// forgot packets while keeping references to them (a debug list, a tag pointing at the
    /// packet) passes every check made during the run, but its forgotten packets age without
    /// bound, while what it sends waits as long as its real queue makes it. The bound is twice
    /// the sum of the longest wait seen and the time to send all it holds and a packet on the
    /// line: a correct queue's oldest packet at the end, however its queue grew, has waited no
    /// longer than that (docs/extending.md). A starved class (strict priority under a full higher
    /// band) is reported as well: it too is held and never sent, and a reader of the results
    /// should know.
    fn stranded(&self, now: Time) -> Option<String> {
        let oldest = self.held().map(|p| p.enqueued_at).min()?;
        let age = (now - oldest).as_secs_f64();
        let rate = Python::with_gil(|py| self.context.borrow(py).rate_bps).max(1) as f64;
        let drain = (self.bytes + self.largest as u64) as f64 * 8.0 / rate;
        (age > 2.0 * (self.longest_wait.as_secs_f64() + drain)).then(|| {
            format!(
                "its discipline {} holds {} packets at the end, the oldest for {age:.6} s, where no packet it sent \
                 waited over {:.6} s: starved, or forgotten (kept in a list or a tag of its own but no longer queued)",
                self.label,
                self.queued,
                self.longest_wait.as_secs_f64(),
            )
        })
    }

    fn len_packets(&self) -> usize {
        self.queued
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn for_each_packet(&self, _: &PacketPool, f: &mut dyn FnMut(&Packet)) {
        self.held().for_each(f)
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
                Ok(figures) => figures.into_iter().map(|(name, value)| self.figure("stats", name, value)).collect(),
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
                Ok(gauge) => gauge.map(|(name, value)| self.figure("gauge", name, value)),
                Err(e) => self.fail(
                    "gauge",
                    self.now,
                    format!("failed (it returns (name, number) or None): {}", python_host::traceback(py, &e)),
                ),
            }
        })
    }
}

/// The scenario's flows as `fairsim.FlowInfo`s, made once per scenario and shared by every port
/// built for it (a fabric has thousands of ports): the last one made is kept, with the flows it
/// was made from (held, so that their address names them).
fn flows_of(py: Python<'_>, port: &PortInfo) -> PyResult<Py<PyTuple>> {
    type Made = (Arc<[FlowMeta]>, Arc<[String]>, Py<PyTuple>);
    static MADE: Mutex<Option<Made>> = Mutex::new(None);
    let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((flows, nodes, tuple)) = made.as_ref() {
        if Arc::ptr_eq(flows, &port.flows) && Arc::ptr_eq(nodes, &port.nodes) {
            return Ok(tuple.clone_ref(py));
        }
    }
    let info = py.import("fairsim.extend.discipline")?.getattr("FlowInfo")?;
    let node = |n: fairsim::net::NodeId| port.nodes.get(n.idx()).map_or("", String::as_str);
    let each: PyResult<Vec<Bound<'_, PyAny>>> = port
        .flows
        .iter()
        .map(|f| info.call1((f.name.as_str(), node(f.src), node(f.dst), f.weight, f.packet_size)))
        .collect();
    let tuple = PyTuple::new(py, each?)?.unbind();
    *made = Some((port.flows.clone(), port.nodes.clone(), tuple.clone_ref(py)));
    Ok(tuple)
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
            let unexpected = |e: PyErr| ParamError { path: vec![], message: e.to_string() };
            let flows = flows_of(py, port).map_err(unexpected)?;
            let built_for = (packets, bytes, port.rate.0, flows, crossing, port.name.as_str());
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
                arriving: None,
                live: false,
                last: "__init__",
                label: label.clone(),
                random: None,
                wake: None,
            };
            let context = Py::new(py, context).map_err(unexpected)?;
            let qdisc = PyQdisc {
                label,
                enqueue: instance.getattr("enqueue").map_err(unexpected)?.unbind(),
                dequeue: instance.getattr("dequeue").map_err(unexpected)?.unbind(),
                instance: instance.unbind(),
                context,
                owner,
                limit: port.buffer,
                port: port.name.clone(),
                slots: vec![],
                free: vec![],
                queued: 0,
                bytes: 0,
                has_stats,
                has_gauge,
                now: Time::ZERO,
                wake: None,
                longest_wait: Time::ZERO,
                largest: 0,
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

    python_host::builds_with!(instance, PortInfo, dyn Qdisc);
}

/// Makes the Python registry the engine's host of disciplines it does not know (at import).
pub fn install() {
    fairsim::qdisc::FOREIGN.open(Box::new(PyHost::new("discipline", PyQdiscKind)));
}
