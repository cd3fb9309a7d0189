//! `outcore._outcore`: the native half of the Python package, a thin layer
//! over [`outcore::api`] (the same functions the CLI calls). The Python half
//! (`python/outcore`) adds the documented API, type hints and the NetworkX
//! backend. Every engine call runs on a worker thread with the GIL released
//! while this thread waits; a Ctrl-C seen between waits asks the engines to
//! stop ([`outcore::cancel`]), waits for them to clean up, and raises
//! `KeyboardInterrupt`.

use numpy::IntoPyArray;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::path::PathBuf;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use outcore::api::query::{Answer, Query};
use outcore::api::{self, Columns, IdColumn, ValueColumn};
use outcore::engine::results::Out;
use outcore::mem::Budget;
use outcore::store::{Id, IdLookup, Store};

mod build;
mod shard;
mod update;
use build::{build_from_arrays, generate, import_edges, import_stream};

/// An outcore error as the Python exception the package defines for it
/// (`outcore.errors`), with the CLI's message in Python's terms: the flags
/// it names become the arguments that set them (`outcore.errors`'
/// `_python_message`: `--weighted` reads `weighted=True`).
pub(crate) fn to_py(e: outcore::Error) -> PyErr {
    use outcore::Error as E;
    let class = match &e {
        E::Parse { .. } | E::Invalid(_) => "InputError",
        E::Budget(_) => "BudgetError",
        E::Store { .. } | E::NoStore { .. } => "StoreError",
        E::DiskFull { .. } => "DiskFullError",
        E::Io { .. } => "OutcoreIOError",
        E::Interrupted => return PyKeyboardInterrupt::new_err("interrupted"),
    };
    let msg = e.to_string();
    Python::attach(|py| {
        let errors = match py.import("outcore.errors") {
            Ok(m) => m,
            Err(err) => return err,
        };
        let msg = errors
            .call_method1("_python_message", (&msg,))
            .and_then(|m| m.extract::<String>())
            .unwrap_or(msg);
        match errors.getattr(class) {
            Ok(cls) => PyErr::from_type(cls.cast_into().expect("an exception class"), msg),
            Err(err) => err,
        }
    })
}

/// Sets progress output for one call, and restores it after.
struct Progress(bool);

impl Progress {
    fn show(on: bool) -> Progress {
        let was = outcore::progress::quiet();
        outcore::progress::set_quiet(!on || was);
        Progress(was)
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        outcore::progress::set_quiet(self.0);
    }
}

/// Runs `work` on a worker thread, the GIL released, watching for Ctrl-C.
pub(crate) fn interruptible<T: Send>(
    py: Python<'_>,
    progress: bool,
    work: impl FnOnce() -> outcore::Result<T> + Send,
) -> PyResult<T> {
    let _shown = Progress::show(progress);
    let finished = (Mutex::new(false), Condvar::new());
    let signal = &finished;
    std::thread::scope(|s| {
        let worker = s.spawn(move || {
            // Marks the end even when `work` panics.
            struct Done<'a>(&'a (Mutex<bool>, Condvar));
            impl Drop for Done<'_> {
                fn drop(&mut self) {
                    *self.0 .0.lock().unwrap_or_else(|e| e.into_inner()) = true;
                    self.0 .1.notify_all();
                }
            }
            let _done = Done(signal);
            work()
        });
        let mut interrupted = None;
        loop {
            let done = py.detach(|| {
                let (lock, cv) = signal;
                let g = lock.lock().unwrap_or_else(|e| e.into_inner());
                let (g, _) = cv
                    .wait_timeout_while(g, Duration::from_millis(50), |d| !*d)
                    .unwrap_or_else(|e| e.into_inner());
                *g
            });
            if done {
                break;
            }
            if interrupted.is_none() {
                if let Err(e) = py.check_signals() {
                    // Ask the engines to stop; they remove what they wrote.
                    outcore::cancel::request();
                    interrupted = Some(e);
                }
            }
        }
        let result = worker.join();
        if let Some(e) = interrupted {
            outcore::cancel::reset();
            return Err(e);
        }
        match result {
            Ok(r) => r.map_err(to_py),
            Err(_) => Err(PyRuntimeError::new_err(
                "outcore: internal error (a worker thread panicked; see stderr)",
            )),
        }
    })
}

pub(crate) fn parse<T: std::str::FromStr<Err = outcore::Error>>(s: &str) -> PyResult<T> {
    s.parse().map_err(to_py)
}

/// Original ids as a numpy uint64 array (no copy) or a list of str.
fn ids_to_py(py: Python<'_>, c: IdColumn) -> PyResult<Py<PyAny>> {
    Ok(match c {
        IdColumn::Ints(v) => v.into_pyarray(py).into_any().unbind(),
        IdColumn::Names(v) => {
            let names = v.iter().map(|b| String::from_utf8_lossy(b).into_owned());
            PyList::new(py, names)?.into_any().unbind()
        }
    })
}

fn id_text(id: &Id<'_>) -> String {
    match id {
        Id::Int(x) => x.to_string(),
        Id::Name(b) => String::from_utf8_lossy(b).into_owned(),
    }
}

/// What `RawStore.run` returns: (ids, values, stats JSON, summary, seconds,
/// iterations).
type RunTuple = (Py<PyAny>, Py<PyAny>, String, String, f64, Option<usize>);

/// An open store (`outcore.Store` wraps it).
#[pyclass(frozen, module = "outcore._outcore")]
struct RawStore {
    store: Store,
}

#[pymethods]
impl RawStore {
    #[new]
    fn open(path: PathBuf) -> PyResult<RawStore> {
        Ok(RawStore {
            store: Store::open_with_delta(&path).map_err(to_py)?,
        })
    }

    #[getter]
    fn num_vertices(&self) -> u64 {
        self.store.manifest().num_vertices
    }

    #[getter]
    fn num_edges(&self) -> u64 {
        self.store.manifest().num_edges
    }

    #[getter]
    fn directed(&self) -> bool {
        self.store.manifest().directed
    }

    #[getter]
    fn weighted(&self) -> bool {
        self.store.manifest().weighted
    }

    #[getter]
    fn string_ids(&self) -> bool {
        self.store.manifest().string_ids
    }

    #[getter]
    fn path(&self) -> PathBuf {
        self.store.path().to_path_buf()
    }

    /// `outcore info --json`, as text.
    fn info_json(&self) -> PyResult<String> {
        let mut j = api::info_json(&self.store);
        api::update::policy::annotate_info(&self.store, &mut j).map_err(to_py)?;
        Ok(j.to_string())
    }

    /// The vertex `source="max-degree"` picks (the highest out-degree; of
    /// several, the smallest original id), as its original id in text.
    fn max_degree_vertex(&self, py: Python<'_>) -> PyResult<String> {
        let store = &self.store;
        interruptible(py, false, || {
            let dense = api::run::max_degree_vertex(store)?;
            Ok(id_text(&IdLookup::open(store)?.original(dense)?))
        })
    }

    /// Recomputes every checksum; returns (files, bytes) checked.
    fn verify(&self, py: Python<'_>) -> PyResult<(u64, u64)> {
        let r = interruptible(py, false, || {
            outcore::store::verify::verify(self.store.path())
        })?;
        Ok((r.files as u64, r.bytes))
    }

    /// Runs an algorithm; returns (ids, values, stats JSON, summary,
    /// seconds, iterations).
    #[pyo3(signature = (algorithm, *, source=None, iterations=10, damping=0.85, tol=None,
        weighted=false, memory=None, engine="auto", io=None, segment=None, segments=None,
        cache=None, depth=None, delta=None, tmp_dir=None, seed=0, walks_per_vertex=1, length=10,
        restart=0.0, walks=None, sources=None, samples=None, normalized=false, progress=true))]
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        py: Python<'_>,
        algorithm: &str,
        source: Option<String>,
        iterations: usize,
        damping: f64,
        tol: Option<f64>,
        weighted: bool,
        memory: Option<u64>,
        engine: &str,
        io: Option<&str>,
        segment: Option<u64>,
        segments: Option<usize>,
        cache: Option<u64>,
        depth: Option<usize>,
        delta: Option<f64>,
        tmp_dir: Option<PathBuf>,
        seed: u64,
        walks_per_vertex: u64,
        length: u32,
        restart: f64,
        walks: Option<PathBuf>,
        sources: Option<PathBuf>,
        samples: Option<u64>,
        normalized: bool,
        progress: bool,
    ) -> PyResult<RunTuple> {
        let opts = api::RunOptions {
            algorithm: parse(algorithm)?,
            source,
            iterations,
            damping,
            tol,
            weighted,
            memory: memory.unwrap_or_else(Budget::default_limit),
            engine: parse(engine)?,
            io: io.map(parse).transpose()?,
            segment,
            segments,
            cache,
            depth,
            delta,
            tmp_dir,
            seed,
            walks_per_vertex,
            length,
            restart,
            walks_out: walks,
            sources,
            samples,
            normalized,
        };
        let store = &self.store;
        let (cols, stats, summary, seconds, iters) = interruptible(py, progress, || {
            let t = Instant::now();
            let budget = Budget::checked(opts.memory)?;
            let mut run = api::run(store, &opts, &budget)?;
            let seconds = t.elapsed().as_secs_f64();
            let scratch = api::run::scratch_dir(store, opts.tmp_dir.as_deref());
            let out = Out {
                path: std::path::Path::new("-"),
                store,
                budget: &budget,
                scratch: &scratch,
            };
            let mut stats = serde_json::to_value(&run.stats).unwrap_or_default();
            if let Some(o) = stats.as_object_mut() {
                o.insert("command".into(), "run".into());
                o.insert("store".into(), store.path().display().to_string().into());
            }
            // The result's summary and the disk rate, for Result.report().
            api::summary::annotate(&mut stats, opts.algorithm, &mut run.values, store, &budget)?;
            let cols: Columns = run.values.collect(&out)?;
            let stats = stats.to_string();
            Ok((cols, stats, run.summary, seconds, run.iterations))
        })?;
        let ids = ids_to_py(py, cols.ids)?;
        let values = match cols.values {
            ValueColumn::Float(v) => v.into_pyarray(py).into_any().unbind(),
            ValueColumn::Int(v) => v.into_pyarray(py).into_any().unbind(),
            ValueColumn::Ids(IdColumn::Ints(v)) if v.iter().all(|&x| x <= i64::MAX as u64) => {
                let v: Vec<i64> = v.into_iter().map(|x| x as i64).collect();
                v.into_pyarray(py).into_any().unbind()
            }
            ValueColumn::Ids(c) => ids_to_py(py, c)?,
        };
        Ok((ids, values, stats, summary, seconds, iters))
    }

    /// A targeted query; vertex ids given and returned as text. Returns
    /// (vertices, None) for khop, else (sources, targets), and stats JSON.
    #[pyo3(signature = (kind, *, source=None, hops=1, vertices=None, set_a=None, set_b=None,
        memory=None, io=None, depth=None))]
    #[allow(clippy::too_many_arguments)]
    fn query(
        &self,
        py: Python<'_>,
        kind: &str,
        source: Option<String>,
        hops: u32,
        vertices: Option<Vec<String>>,
        set_a: Option<Vec<String>>,
        set_b: Option<Vec<String>>,
        memory: Option<u64>,
        io: Option<&str>,
        depth: Option<usize>,
    ) -> PyResult<(Vec<String>, Option<Vec<String>>, String)> {
        use outcore::engine::select::{SelectConfig, SelectEngine};
        let io = io.map(parse).transpose()?;
        let store = &self.store;
        let kind = kind.to_string();
        let (answer, stats) = interruptible(py, false, move || {
            let lookup = IdLookup::open(store)?;
            let dense = |ids: &Option<Vec<String>>, what: &str| {
                let ids = ids.as_deref().unwrap_or_default();
                api::query::dense_ids(&lookup, ids, |_| format!("{what}: "))
            };
            let src = || match &source {
                Some(s) => Ok(dense(&Some(vec![s.clone()]), "source")?[0]),
                None => Err(outcore::Error::Invalid(format!("{kind} needs a source"))),
            };
            let (va, vb) = (dense(&set_a, "set_a")?, dense(&set_b, "set_b")?);
            let vs = dense(&vertices, "vertices")?;
            let q = match kind.as_str() {
                "khop" => Query::Khop {
                    source: src()?,
                    hops,
                },
                "egonet" => Query::Egonet {
                    source: src()?,
                    hops,
                },
                "induced" => Query::Induced { vertices: &vs },
                "cross" => Query::Cross { a: &va, b: &vb },
                k => return Err(outcore::Error::Invalid(format!("unknown query `{k}`"))),
            };
            let budget = Budget::checked(memory.unwrap_or_else(Budget::default_limit))?;
            let cfg = SelectConfig {
                io,
                depth,
                ..Default::default()
            };
            let mut eng = SelectEngine::new(store, "out", false, &budget, &cfg)?;
            api::query::run(store, &lookup, &mut eng, &q)
        })?;
        let stats = serde_json::to_string(&stats).unwrap_or_default();
        Ok(match answer {
            Answer::Vertices(v) => (v.iter().map(id_text).collect(), None, stats),
            Answer::Edges(e) => {
                let s = e.iter().map(|(s, _)| id_text(s)).collect();
                let d = e.iter().map(|(_, d)| id_text(d)).collect();
                (s, Some(d), stats)
            }
        })
    }
}

/// Bytes of a size such as `512MiB`, `4GiB`, `4G` or `4GB`.
#[pyfunction]
fn parse_size(text: &str) -> PyResult<u64> {
    outcore::size::parse_size(text).map_err(to_py)
}

/// The HTML report (`outcore report`) of stats JSON texts, each named.
#[pyfunction]
fn report_html(stats: Vec<(String, String)>) -> PyResult<String> {
    let mut docs = Vec::new();
    for (name, text) in stats {
        let json = serde_json::from_str(&text)
            .map_err(|e| to_py(outcore::Error::Invalid(format!("{name}: not JSON: {e}"))))?;
        docs.push(api::report::Doc { name, json });
    }
    Ok(api::report::page(&docs))
}

/// The native module.
#[pymodule]
fn _outcore(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RawStore>()?;
    m.add_class::<shard::RawShardJob>()?;
    m.add_class::<shard::RawPartition>()?;
    m.add_function(wrap_pyfunction!(import_edges, m)?)?;
    m.add_function(wrap_pyfunction!(import_stream, m)?)?;
    m.add_function(wrap_pyfunction!(generate, m)?)?;
    m.add_function(wrap_pyfunction!(build_from_arrays, m)?)?;
    m.add_function(wrap_pyfunction!(update::update_store, m)?)?;
    m.add_function(wrap_pyfunction!(update::compact_store, m)?)?;
    m.add_function(wrap_pyfunction!(parse_size, m)?)?;
    m.add_function(wrap_pyfunction!(report_html, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
