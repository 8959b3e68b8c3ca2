//! Thin Python bindings of the fairsim engine (`fairsim._core`).
//!
//! Only what the Python package needs: parse a scenario, build a simulation, advance it in
//! chunks with the GIL released (so the caller can show progress, honour Ctrl-C and run pairs
//! on several threads), and hand back the report as JSON, its long tables as Arrow columns
//! (`arrow_report.rs`). Everything user-facing lives in Python.

mod arrow_report;
mod panics;
mod python_app;
mod python_controller;
mod python_host;
mod python_qdisc;

use fairsim::{Error, Scenario, Simulation};
use panics::guard;
use pyo3::exceptions::{PyException, PyOSError};
use pyo3::prelude::*;
use pyo3::{create_exception, types::PyList};
use std::sync::Arc;

create_exception!(_core, FairsimError, PyException, "Base class of fairsim's errors.");
create_exception!(_core, ScenarioError, FairsimError, "A scenario is malformed; `.diagnostics` lists each problem.");

fn to_py(e: Error) -> PyErr {
    let message = e.to_string();
    match e {
        Error::Scenario(diags) => Python::with_gil(|py| {
            let err = ScenarioError::new_err(message);
            // each with its place and its override as the engine writes them, so that the
            // command line only styles them
            let shown: Vec<serde_json::Value> = diags
                .iter()
                .map(|d| {
                    let mut v = serde_json::to_value(d).expect("diagnostics serialise");
                    v["place"] = d.place().into();
                    v["override_shown"] = d.override_shown().into();
                    v
                })
                .collect();
            let list = serde_json::to_string(&shown).expect("diagnostics serialise");
            let set = || -> PyResult<()> {
                let json = py.import("json")?;
                err.value(py).setattr("diagnostics", json.call_method1("loads", (list,))?)
            };
            set().map(|()| err).unwrap_or_else(|e| e)
        }),
        Error::Io { .. } => PyOSError::new_err(message),
        Error::Usage(_) => FairsimError::new_err(message),
    }
}

/// A validated scenario.
#[pyclass(name = "Scenario", module = "fairsim._core", frozen)]
struct PyScenario {
    inner: Arc<Scenario>,
}

#[pymethods]
impl PyScenario {
    #[getter]
    fn name(&self) -> &str {
        &self.inner.name
    }
    #[getter]
    fn description(&self) -> &str {
        &self.inner.description
    }
    #[getter]
    fn file(&self) -> &str {
        &self.inner.file
    }
    #[getter]
    fn reference(&self) -> Option<&str> {
        self.inner.reference.as_deref()
    }
    #[getter]
    fn notes(&self) -> Option<&str> {
        self.inner.notes.as_deref()
    }
    #[getter]
    fn pairs(&self) -> Vec<String> {
        self.inner.pairs.iter().map(|p| p.name.clone()).collect()
    }
    #[getter]
    fn pair_descriptions(&self) -> Vec<Option<String>> {
        self.inner.pairs.iter().map(|p| p.description.clone()).collect()
    }
    #[getter]
    fn flows(&self) -> Vec<String> {
        self.inner.flows.iter().map(|f| f.name.clone()).collect()
    }
    #[getter]
    fn links(&self) -> Vec<String> {
        self.inner.links.iter().map(|l| l.name.clone()).collect()
    }
    #[getter]
    fn nodes(&self) -> Vec<String> {
        self.inner.nodes.to_vec()
    }
    #[getter]
    fn seed(&self) -> u64 {
        self.inner.run.seed
    }
    #[getter]
    fn duration_s(&self) -> f64 {
        self.inner.run.duration.as_secs_f64()
    }
    #[getter]
    fn overrides(&self) -> Vec<String> {
        self.inner.overrides.clone()
    }

    /// The scenario for one pair and seed as a complete TOML file, every default written out.
    #[pyo3(signature = (pair, seed=None))]
    fn resolved_toml(&self, pair: &str, seed: Option<u64>) -> PyResult<String> {
        guard(|| self.inner.resolved_toml(pair, seed.unwrap_or(self.inner.run.seed)).map_err(to_py))
    }

    /// `resolved_toml` as a TOML reader reads it, as JSON (non-finite floats as `{"$float": "inf"}`);
    /// with `ends`, only the first and last `ends` links and flows.
    #[pyo3(signature = (pair, seed=None, ends=None))]
    fn resolved_json(&self, pair: &str, seed: Option<u64>, ends: Option<usize>) -> PyResult<String> {
        guard(|| self.inner.resolved_json(pair, seed.unwrap_or(self.inner.run.seed), ends).map_err(to_py))
    }

    /// What a run with `seed` draws (`Scenario::draws_key`): with one resolved scenario of a
    /// pair, it determines the resolved scenario of each of its seeds.
    fn draws_key(&self, seed: u64) -> String {
        self.inner.draws_key(seed)
    }

    /// Raises `FairsimError` (with the likely name) unless the scenario has a pair called `name`.
    fn check_pair(&self, name: &str) -> PyResult<()> {
        guard(|| self.inner.pair(Some(name)).map(|_| ()).map_err(to_py))
    }

    /// A run of this scenario under `pair` (the first if None) seeded with `seed`, on `threads`
    /// threads where it splits if they were `given`, else on as many of them as the engine's
    /// cost model expects to pay (`engine::parallel`; the results are the same at any count).
    #[pyo3(signature = (pair=None, seed=None, threads=1, given=true))]
    fn simulation(&self, pair: Option<&str>, seed: Option<u64>, threads: usize, given: bool) -> PyResult<PySimulation> {
        let inner = guard(|| Simulation::shared(Arc::clone(&self.inner), pair, seed).map_err(to_py))?;
        let threads = if given { fairsim::Threads::new(threads) } else { fairsim::Threads::up_to(threads) };
        Ok(PySimulation { inner, broken: None, threads })
    }

    /// The threads `[run] threads` gives one run, if it says.
    #[getter]
    fn threads(&self) -> Option<usize> {
        self.inner.run.threads
    }
}

/// One run in progress.
#[pyclass(name = "Simulation", module = "fairsim._core")]
struct PySimulation {
    inner: Simulation,
    /// What stopped this run (a panic, or a Python discipline's failure): its state is unknown,
    /// so it refuses to go on.
    broken: Option<panics::Caught>,
    /// How the run goes on the threads it may use.
    threads: fairsim::Threads,
}

impl PySimulation {
    /// Runs `f` on the simulation without the GIL; a panic breaks the simulation for good.
    fn guarded<T: Send>(&mut self, py: Python<'_>, f: impl FnOnce(&mut Simulation) -> T + Send) -> PyResult<T> {
        self.guarded_as(py, false, f)
    }

    /// The same for `f` that only reads the run (`reading`): a run stopped from outside inside a
    /// Python hook may still be read (its report so far), never stepped again.
    fn guarded_as<T: Send>(
        &mut self,
        py: Python<'_>,
        reading: bool,
        f: impl FnOnce(&mut Simulation) -> T + Send,
    ) -> PyResult<T> {
        match &self.broken {
            Some(panics::Caught::Stopped) if reading => {}
            Some(caught) => return Err(panics::error_of(&caught.earlier())),
            None => {}
        }
        let (sim, threads) = (&mut self.inner, &mut self.threads);
        py.allow_threads(|| {
            panics::catch(|| {
                if reading {
                    threads.stop(sim); // a run stopped early on several threads, put together
                }
                f(sim)
            })
        })
        .map_err(|caught| {
            let err = panics::error_of(&caught);
            self.broken = Some(caught);
            err
        })
    }
}

#[pymethods]
impl PySimulation {
    /// Processes up to `max_events` events without holding the GIL; returns whether the run ended.
    fn step(&mut self, py: Python<'_>, max_events: u64) -> PyResult<bool> {
        // taken out while it steps: the closure has the run, and the threads' state beside it
        let mut threads = std::mem::replace(&mut self.threads, fairsim::Threads::new(1));
        let ended = self.guarded(py, |sim| threads.step(sim, max_events));
        self.threads = threads;
        ended
    }

    /// Why the run goes on one thread, once it has started, if it does; `None` on several.
    #[getter]
    fn serial_reason(&self) -> Option<String> {
        self.threads.serial_reason().map(str::to_string)
    }

    /// The events each partition has handled so far, by partition; empty on one thread.
    #[getter]
    fn partition_events(&self) -> Vec<u64> {
        self.threads.handled().to_vec()
    }

    /// How the run went on its threads, in a line (`Threads::note`); `None` before its first
    /// step.
    #[getter]
    fn threads_note(&self) -> Option<String> {
        self.threads.note()
    }

    /// Panics inside a step, for the tests of the panic boundary (hidden: not part of the API).
    fn _panic_for_tests(&mut self, py: Python<'_>) -> PyResult<()> {
        self.guarded(py, |_| panic!("deliberate panic for tests"))
    }
    #[getter]
    fn now_s(&self) -> f64 {
        self.inner.now().as_secs_f64()
    }
    #[getter]
    fn end_s(&self) -> f64 {
        self.inner.end_time().as_secs_f64()
    }
    #[getter]
    fn done(&self) -> bool {
        self.inner.is_done()
    }
    /// Why the run stopped before its end, if it did.
    #[getter]
    fn error(&self) -> Option<String> {
        self.inner.error().map(str::to_string)
    }
    #[getter]
    fn events(&self) -> u64 {
        self.inner.events_processed()
    }
    /// The pcap file of each captured port (`[run] pcap`), as (port, bytes), so far.
    fn pcaps<'py>(&mut self, py: Python<'py>) -> PyResult<Vec<(String, Bound<'py, pyo3::types::PyBytes>)>> {
        let files = self.guarded_as(py, true, |sim| sim.pcaps())?;
        Ok(files.into_iter().map(|(port, bytes)| (port, pyo3::types::PyBytes::new(py, &bytes))).collect())
    }

    /// The event trace of each port whose events are recorded (`[run] events`), as (port, text).
    fn event_traces(&mut self, py: Python<'_>) -> PyResult<Vec<(String, String)>> {
        self.guarded_as(py, true, |sim| sim.event_traces())
    }

    /// The report so far, as JSON (see docs/results.md).
    fn report_json(&mut self, py: Python<'_>) -> PyResult<String> {
        self.guarded_as(py, true, |sim| serde_json::to_string(&sim.report()).expect("reports serialise"))
    }

    /// The report so far: its long tables (`flows`, `queues`, `flow_intervals`,
    /// `queue_intervals`) apart, in `Columns`, each as Arrow record batches if it has at least
    /// `min_rows` rows, otherwise as the JSON text of its rows; the rest as JSON, where those
    /// tables are empty lists (`arrow_report.rs`; `fairsim.columns` reads them back as rows). A
    /// table that cannot be laid out as columns is JSON text too.
    fn report_columns(&mut self, py: Python<'_>, min_rows: usize) -> PyResult<(String, Columns)> {
        let (rest, tables) = self.guarded_as(py, true, |sim| {
            // each long table is made a row at a time into its columns or its text, never whole
            let made = sim.report_tables();
            let report = made.short_report();
            let (flow_intervals, queue_intervals) = made.interval_rows();
            let mut tables = arrow_report::Taken::default();
            arrow_report::take(&mut tables, ("flows", made.flows().len(), min_rows), || made.flows());
            arrow_report::take(&mut tables, ("queues", made.queues().len(), min_rows), || made.queues());
            let rows = ("flow_intervals", flow_intervals, min_rows);
            arrow_report::take(&mut tables, rows, || made.flow_intervals());
            let rows = ("queue_intervals", queue_intervals, min_rows);
            arrow_report::take(&mut tables, rows, || made.queue_intervals());
            (serde_json::to_string(&report).expect("reports serialise"), tables)
        })?;
        Ok((rest, Columns(tables)))
    }
}

/// A report's long tables (`Simulation.report_columns`), still the engine's: Arrow record
/// batches, handed to pyarrow when Python asks (`to_pyarrow`), and short tables' JSON texts,
/// handed over once (`take_texts`). The caller lets the run go first, so that neither adds to
/// the run's state: pyarrow's import (about 43 MB) and its conversion were the last 31 MiB of
/// the peak of a k = 64 `fairsim run`, and a text made into a Python string while the run was
/// alive was there twice over (docs/performance.md, "The report after the run").
#[pyclass(name = "Columns", module = "fairsim._core")]
struct Columns(arrow_report::Taken);

#[pymethods]
impl Columns {
    /// The bytes the tables hold (`fairsim.memory.return_freed` reads it).
    #[getter]
    fn nbytes(&self) -> usize {
        let batches: usize = self.0.batches.iter().map(|(_, batch)| batch.get_array_memory_size()).sum();
        batches + self.0.texts.iter().map(|(_, text)| text.len()).sum::<usize>()
    }

    /// The tables laid out as columns, as (name, pyarrow record batch), sharing these batches'
    /// memory. With none, pyarrow is not imported.
    fn to_pyarrow(&self, py: Python<'_>) -> PyResult<Vec<(&'static str, PyObject)>> {
        let pyarrow = |batch: &arrow_array::RecordBatch| pyo3_arrow::PyRecordBatch::new(batch.clone()).to_pyarrow(py);
        self.0.batches.iter().map(|(name, batch)| Ok((*name, pyarrow(batch)?))).collect()
    }

    /// The short tables' JSON texts, as (name, text), given up as they are handed over: a second
    /// call finds none.
    fn take_texts(&mut self) -> Vec<(&'static str, String)> {
        std::mem::take(&mut self.0.texts)
    }
}

/// A scenario's text as Python gives it: decoded, or the file's bytes (checked to be UTF-8).
#[derive(FromPyObject)]
enum Text {
    Str(String),
    Bytes(Vec<u8>),
}

/// Parses and validates a scenario (`str`, or `bytes` that must be UTF-8); `file` names it in
/// messages and `origin` names the overrides there (`--set` for the CLI, `set=` for the API).
#[pyfunction]
#[pyo3(signature = (data, file, overrides=Vec::new(), origin="--set"))]
fn loads(data: Text, file: &str, overrides: Vec<String>, origin: &str) -> PyResult<PyScenario> {
    let bytes = match &data {
        Text::Str(s) => s.as_bytes(),
        Text::Bytes(b) => b,
    };
    let inner = guard(|| Scenario::parse_bytes(bytes, file, &overrides, origin).map_err(to_py))?;
    Ok(PyScenario { inner: Arc::new(inner) })
}

/// The name in `known` closest to `name` when it is likely a typo of it, else None.
#[pyfunction]
fn suggest(name: &str, known: Vec<String>) -> Option<String> {
    fairsim::error::suggest(name, known.iter().map(String::as_str)).map(str::to_string)
}

/// `; did you mean `x`?` when `name` is likely a typo of a name in `known`, else "": the
/// engine's wording, for messages written in Python.
#[pyfunction]
fn did_you_mean(name: &str, known: Vec<String>) -> String {
    fairsim::error::did_you_mean(name, known.iter().map(String::as_str))
}

/// The accepted unit of `accepted` nearest to `unit`, which is not one (`Mbit` → `Mbit/s`,
/// `msec` → `ms`, `Mbs` → `Mbps`), else None: the engine's suggestion, for messages written in
/// Python.
#[pyfunction]
fn nearest_unit(unit: &str, accepted: Vec<String>) -> Option<String> {
    let accepted: Vec<&str> = accepted.iter().map(String::as_str).collect();
    fairsim::units::nearest_unit(unit, &accepted).map(str::to_string)
}

/// Every unit a scenario value may be written in (the engine's `units::catalogue`): (spelling,
/// dimension — `time`, `rate`, `size` or `packets` —, base units in one: nanoseconds, bit/s,
/// bytes, packets), those messages suggest first within a dimension.
#[pyfunction]
fn units() -> Vec<(&'static str, &'static str, u128)> {
    fairsim::units::catalogue::UNITS.iter().map(|u| (u.name, u.dimension.name(), u.factor)).collect()
}

/// The columns of the engine's tables (`stats::catalogue`): (table, name, unit, description,
/// source: where a flows' or queues' column is in the report), in each table's order.
#[pyfunction]
fn columns() -> Vec<(&'static str, &'static str, &'static str, &'static str, &'static str)> {
    fairsim::stats::catalogue::all().map(|c| (c.table, c.name, c.unit, c.description, c.source)).collect()
}

/// The spellings tables show quantities in, largest first, with their base units in one:
/// {dimension: [(spelling, factor)]} (`units::catalogue::SHOWN`).
#[pyfunction]
fn shown_units() -> std::collections::HashMap<&'static str, Vec<(&'static str, u128)>> {
    use fairsim::units::catalogue::{factor, SHOWN};
    SHOWN
        .iter()
        .map(|(d, names)| (d.name(), names.iter().map(|n| (*n, factor(*d, n).unwrap_or(1))).collect()))
        .collect()
}

/// A scenario's quantity in base units, read as the scenario loader reads it: `kind` is
/// `time` (nanoseconds), `rate` (bit/s), `size` (bytes) or `buffer` (("packets" or "bytes" or
/// "unlimited", the limit)); a ValueError with the loader's message otherwise.
#[pyfunction]
fn parse(kind: &str, text: &str) -> PyResult<(String, u64)> {
    use fairsim::units::{parse_buffer, parse_bytes, parse_rate, parse_time, BufferLimit};
    let bad = |e: fairsim::units::UnitError| pyo3::exceptions::PyValueError::new_err(e.to_string());
    Ok(match kind {
        "time" => ("ns".into(), parse_time(text).map_err(bad)?.0),
        "rate" => ("bit/s".into(), parse_rate(text).map_err(bad)?.0),
        "size" => ("bytes".into(), parse_bytes(text).map_err(bad)?.0),
        "buffer" => match parse_buffer(text).map_err(bad)? {
            BufferLimit::Packets(n) => ("packets".into(), n),
            BufferLimit::Bytes(n) => ("bytes".into(), n),
            BufferLimit::Unlimited => ("unlimited".into(), 0),
        },
        other => return Err(pyo3::exceptions::PyValueError::new_err(format!("no quantity `{other}`"))),
    })
}

/// Jain's index of `values` (the engine's, `stats::fairness`); None for none or all zero.
#[pyfunction]
fn jain(values: Vec<f64>) -> Option<f64> {
    fairsim::stats::fairness::jain(&values)
}

/// The figures the engine derives (`stats::metrics`) from a flow's counters of several
/// intervals (each a map of the interval rows' `counter` columns), merged as the engine merges
/// them, over `seconds`: the figures of the whole window, as JSON.
#[pyfunction]
fn flow_metrics(intervals: Vec<std::collections::HashMap<String, u64>>, seconds: f64) -> PyResult<String> {
    guard(|| {
        let mut c = fairsim::stats::FlowCounters::default();
        for i in intervals {
            c.merge(&from_map(i)?);
        }
        Ok(serde_json::to_string(&fairsim::stats::FlowMetrics::of(&c, seconds)).expect("figures serialise"))
    })
}

fn from_map<T: serde::de::DeserializeOwned>(counters: std::collections::HashMap<String, u64>) -> PyResult<T> {
    let value = serde_json::to_value(counters).expect("a map of numbers");
    serde_json::from_value(value).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
}

/// One registered component as Python sees it: (name, summary, reference, parameters, whether
/// it is written in Python), each parameter (name, default or None, description).
type Listed = (&'static str, &'static str, &'static str, Vec<(String, Option<String>, String)>, bool);

fn listed<Ctx: ?Sized, Out: ?Sized>(kind: &dyn fairsim::component::Kind<Ctx, Out>, foreign: bool) -> Listed {
    let about = kind.about();
    let params = kind.parameters().into_iter().map(|p| (p.name, p.default, p.doc)).collect();
    (about.name, about.summary, about.reference, params, foreign)
}

/// The built-in kinds of a registry, then those its door to foreign components knows.
fn listed_all<Ctx: ?Sized + 'static, Out: ?Sized + 'static>(
    builtin: &[&dyn fairsim::component::Kind<Ctx, Out>],
    door: &fairsim::foreign::Door<Ctx, Out>,
) -> Vec<Listed> {
    let builtin = builtin.iter().map(|k| listed(*k, false));
    builtin.chain(door.kinds().into_iter().map(|k| listed(k, true))).collect()
}

/// The registered disciplines, transports and applications, each as `Listed`.
#[pyfunction]
fn catalogue(py: Python<'_>) -> PyResult<(Bound<'_, PyList>, Bound<'_, PyList>, Bound<'_, PyList>)> {
    guard(|| catalogue_lists(py))
}

fn catalogue_lists(py: Python<'_>) -> PyResult<(Bound<'_, PyList>, Bound<'_, PyList>, Bound<'_, PyList>)> {
    let qdiscs = listed_all(fairsim::qdisc::QDISCS, &fairsim::qdisc::FOREIGN);
    let none: Listed = (fairsim::transport::NONE, "no flow control: open-loop sources", "", vec![], false);
    let mut transports = listed_all(fairsim::transport::TRANSPORTS, &fairsim::transport::FOREIGN);
    transports.push(none);
    let apps = listed_all(fairsim::traffic::APPS, &fairsim::traffic::FOREIGN);
    Ok((PyList::new(py, qdiscs)?, PyList::new(py, transports)?, PyList::new(py, apps)?))
}

/// Mean, standard deviation and 95% Student-t half-width of `values` (the engine's summaries),
/// as `(mean, std, ci95, n)`; `None` for no values.
#[pyfunction]
fn summarize(values: Vec<f64>) -> PyResult<Option<(f64, f64, f64, usize)>> {
    guard(|| {
        Ok(fairsim::stats::summary::Summary::of(values.into_iter().map(Some)).map(|s| (s.mean, s.std, s.ci95, s.n)))
    })
}

/// Line and column of the field at `path` in TOML `text` (for errors in tables read by Python).
#[pyfunction]
fn locate(text: &str, path: Vec<String>) -> PyResult<Option<(usize, usize)>> {
    guard(|| Ok(fairsim::scenario::locate_field(text, &path)))
}

/// Returns the heaps' free pages to the system: glibc's `malloc_trim`, elsewhere nothing
/// (`fairsim::memory`; `fairsim.memory` says when Python calls it).
#[pyfunction]
fn return_freed(py: Python<'_>) {
    py.allow_threads(fairsim::memory::return_freed)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    panics::install_hook();
    python_qdisc::install();
    python_controller::install();
    python_app::install();
    m.add_class::<python_controller::Loss>()?;
    m.add_class::<python_controller::ControllerContext>()?;
    m.add_class::<python_qdisc::PacketView>()?;
    m.add_class::<python_qdisc::Context>()?;
    m.add_class::<PyScenario>()?;
    m.add_class::<PySimulation>()?;
    m.add_class::<Columns>()?;
    m.add_function(wrap_pyfunction!(loads, m)?)?;
    m.add_function(wrap_pyfunction!(return_freed, m)?)?;
    m.add_function(wrap_pyfunction!(suggest, m)?)?;
    m.add_function(wrap_pyfunction!(did_you_mean, m)?)?;
    m.add_function(wrap_pyfunction!(nearest_unit, m)?)?;
    m.add_function(wrap_pyfunction!(units, m)?)?;
    m.add_function(wrap_pyfunction!(shown_units, m)?)?;
    m.add_function(wrap_pyfunction!(parse, m)?)?;
    m.add_function(wrap_pyfunction!(jain, m)?)?;
    m.add_function(wrap_pyfunction!(flow_metrics, m)?)?;
    m.add_function(wrap_pyfunction!(columns, m)?)?;
    m.add_function(wrap_pyfunction!(catalogue, m)?)?;
    m.add_function(wrap_pyfunction!(locate, m)?)?;
    m.add_function(wrap_pyfunction!(summarize, m)?)?;
    m.add("FairsimError", m.py().get_type::<FairsimError>())?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("InternalError", m.py().get_type::<panics::InternalError>())?;
    m.add("RunStopped", m.py().get_type::<panics::RunStopped>())?;
    m.add("Stopped", m.py().get_type::<python_host::Stopped>())?;
    m.add_function(wrap_pyfunction!(python_host::interrupt_hooks, m)?)?;
    m.add_function(wrap_pyfunction!(python_host::in_hook, m)?)?;
    m.add_function(wrap_pyfunction!(panics::panic_for_tests, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("MAX_THREADS", fairsim::limits::MAX_THREADS)?;
    Ok(())
}
