//! Runs over the shards of a partitioned store from Python (issue 54,
//! `outcore.ray`): [`RawShardJob`], one shard's vertex program a superstep
//! at a time over [`api::shard::open`] (the bulk-synchronous steps a
//! driver calls between its exchanges of message logs), and
//! [`RawPartition`], the partition's global id map for the result.
//!
//! Message logs cross as numpy arrays: [`RawShardJob::scatter`] hands its
//! outboxes' vectors to numpy without a copy, and
//! [`RawShardJob::receive`] reads the arrays it is given in place, also
//! when they are read-only (Ray's object store hands out read-only
//! buffers). The heavy calls run with the GIL released.

use crate::{interruptible, parse, to_py};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use outcore::algo::output::{Cell, Lines};
use outcore::api::shard::ShardJob;
use outcore::api::{self, Kind};
use outcore::engine::shard::{Ids, Targets};
use outcore::engine::vertex::Aggregate;
use outcore::mem::Budget;
use outcore::store::partition::Partition;
use outcore::store::Id;
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::path::PathBuf;
use std::sync::Mutex;

/// An aggregate as Python sees it: its two sums.
type Agg = (f64, f64);

fn agg_of(a: &Aggregate) -> Agg {
    (a.sums[0], a.sums[1])
}

/// A shard's values: global ids, values as u64 bits, their kind.
type PyValues<'py> = (
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<u64>>,
    &'static str,
);

/// One outbox: the receiving shard, its local ids (uint32, or uint64 for a
/// shard past 2^32 vertices), the message bytes.
type PyOutbox = (usize, Py<PyAny>, Py<PyArray1<u8>>);

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Float => "float",
        Kind::Int => "int",
        Kind::Label => "label",
    }
}

fn kind_of(name: &str) -> PyResult<Kind> {
    match name {
        "float" => Ok(Kind::Float),
        "int" => Ok(Kind::Int),
        "label" => Ok(Kind::Label),
        k => Err(to_py(outcore::Error::Invalid(format!(
            "value kind `{k}`: expected float, int or label"
        )))),
    }
}

/// One shard's run of an algorithm (`outcore.ray`'s actors hold one).
#[pyclass(frozen, module = "outcore._outcore")]
pub struct RawShardJob {
    job: Mutex<Box<dyn ShardJob>>,
    /// The aggregate and active count of the shard's `init`s.
    init: (Agg, u64),
    /// The first global id the shard owns.
    first_global: u64,
    max_steps: usize,
    kind: Kind,
}

impl RawShardJob {
    /// Runs `f` on the job with the GIL released.
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut dyn ShardJob) -> outcore::Result<T> + Send,
    ) -> PyResult<T> {
        let job = &self.job;
        interruptible(py, false, move || {
            let mut j = job.lock().unwrap_or_else(|e| e.into_inner());
            f(&mut **j)
        })
    }
}

#[pymethods]
impl RawShardJob {
    /// Opens shard `k` of the partition at `dir` for `algorithm` with the
    /// single-machine run's options.
    #[new]
    #[pyo3(signature = (dir, k, algorithm, *, source=None, iterations=10, damping=0.85,
        tol=None, weighted=false, memory=None, engine="auto", io=None, segment=None,
        segments=None, cache=None, depth=None, tmp_dir=None))]
    #[allow(clippy::too_many_arguments)]
    fn open(
        py: Python<'_>,
        dir: PathBuf,
        k: usize,
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
        tmp_dir: Option<PathBuf>,
    ) -> PyResult<RawShardJob> {
        let mut o = api::RunOptions::new(parse(algorithm)?);
        o.source = source;
        o.iterations = iterations;
        o.damping = damping;
        o.tol = tol;
        o.weighted = weighted;
        o.memory = memory.unwrap_or_else(Budget::default_limit);
        o.engine = parse(engine)?;
        o.io = io.map(parse).transpose()?;
        o.segment = segment;
        o.segments = segments;
        o.cache = cache;
        o.depth = depth;
        o.tmp_dir = tmp_dir;
        let (job, agg, active, first) = interruptible(py, false, || {
            let first = Partition::open(&dir)?.manifest().bounds.get(k).copied();
            let (job, agg, active) = api::shard::open(&dir, k, &o)?;
            Ok((job, agg, active, first.unwrap_or(0)))
        })?;
        Ok(RawShardJob {
            max_steps: job.max_steps(),
            kind: job.kind(),
            job: Mutex::new(job),
            init: (agg_of(&agg), active),
            first_global: first,
        })
    }

    /// The aggregate (two sums) and active count of the shard's `init`s.
    #[getter]
    fn init(&self) -> (Agg, u64) {
        self.init
    }

    /// Supersteps at most.
    #[getter]
    fn max_steps(&self) -> usize {
        self.max_steps
    }

    /// How to read the values: "float", "int" or "label".
    #[getter]
    fn kind(&self) -> &'static str {
        kind_name(self.kind)
    }

    /// Sets the aggregate superstep 0 begins with (every shard's `init`s').
    fn set_aggregate(&self, py: Python<'_>, agg: Agg) -> PyResult<()> {
        let a = Aggregate {
            sums: [agg.0, agg.1],
        };
        self.with(py, |j| {
            j.set_aggregate(a);
            Ok(())
        })
    }

    /// Superstep `step`'s deliveries: None when the program stops before
    /// it, else a list of (shard, local ids, message bytes uint8), one per
    /// shard with messages, in shard order; the ids are uint32 (uint64 for
    /// a receiver past 2^32 vertices), as the receiver's `receive` wants.
    fn scatter(&self, py: Python<'_>, step: usize) -> PyResult<Option<Vec<PyOutbox>>> {
        let boxes = self.with(py, |j| j.scatter(step))?;
        Ok(boxes.map(|b| {
            b.into_iter()
                .map(|o| {
                    let t = match o.targets {
                        Targets::U32(t) => t.into_pyarray(py).into_any().unbind(),
                        Targets::U64(t) => t.into_pyarray(py).into_any().unbind(),
                    };
                    (o.to, t, o.bytes.into_pyarray(py).unbind())
                })
                .collect()
        }))
    }

    /// Folds the messages shard `sender` sent this shard (read in place):
    /// `targets` as its `scatter` gave them (uint32 or uint64; the width
    /// this shard's outboxes carry, or the outbox is refused).
    #[pyo3(name = "receive")]
    fn receive_py(
        &self,
        py: Python<'_>,
        sender: usize,
        targets: &Bound<'_, PyAny>,
        bytes: PyReadonlyArray1<'_, u8>,
    ) -> PyResult<()> {
        let contiguous = |e| {
            to_py(outcore::Error::Invalid(format!(
                "receive: the arrays must be contiguous ({e})"
            )))
        };
        let narrow = targets.extract::<PyReadonlyArray1<'_, u32>>().ok();
        let wide = match narrow {
            Some(_) => None,
            None => Some(
                targets
                    .extract::<PyReadonlyArray1<'_, u64>>()
                    .map_err(|_| {
                        let dtype = targets.getattr("dtype").map(|d| d.to_string());
                        to_py(outcore::Error::Invalid(format!(
                    "receive: the target ids must be a uint32 or uint64 numpy array, not {}",
                    dtype.unwrap_or_else(|_| "that".into())
                )))
                    })?,
            ),
        };
        let t = match (&narrow, &wide) {
            (Some(a), _) => Ids::U32(a.as_slice().map_err(contiguous)?),
            (_, Some(a)) => Ids::U64(a.as_slice().map_err(contiguous)?),
            _ => unreachable!("one of the two widths was extracted"),
        };
        let b = bytes.as_slice().map_err(contiguous)?;
        self.with(py, |j| j.receive(sender, t, b))
    }

    /// Applies the owned vertices: their aggregate and how many are active
    /// next superstep.
    fn apply(&self, py: Python<'_>) -> PyResult<(Agg, u64)> {
        let (a, active) = self.with(py, |j| j.apply())?;
        Ok((agg_of(&a), active))
    }

    /// Ends superstep `step` with the summed aggregate and active count:
    /// True when the run is complete.
    fn finish(&self, py: Python<'_>, step: usize, agg: Agg, active: u64) -> PyResult<bool> {
        let a = Aggregate {
            sums: [agg.0, agg.1],
        };
        self.with(py, |j| Ok(j.finish(step, a, active)))
    }

    /// The owned vertices' (global ids, values as uint64 bits, kind); once,
    /// at the end of the run.
    fn values<'py>(&self, py: Python<'py>) -> PyResult<PyValues<'py>> {
        let v = self.with(py, |j| Ok(j.values()))?;
        let first = self.first_global;
        let ids: Vec<u64> = (first..first + v.len() as u64).collect();
        Ok((
            ids.into_pyarray(py),
            v.into_pyarray(py),
            kind_name(self.kind),
        ))
    }

    /// The shard's run statistics, as JSON.
    fn stats(&self, py: Python<'_>) -> PyResult<String> {
        let s = self.with(py, |j| Ok(j.stats()))?;
        Ok(serde_json::to_string(&s).unwrap_or_default())
    }

    /// The bytes the shard's state charges to its budget (states, bits,
    /// message cells, the grouped arena) and the most its budget had
    /// charged at once: (state bytes, budget peak).
    fn charged(&self) -> (u64, u64) {
        let j = self.job.lock().unwrap_or_else(|e| e.into_inner());
        (j.state_bytes(), j.budget_peak())
    }

    /// The superstep the job is at the beginning of (0 after opening,
    /// `step + 1` after `finish(step)`).
    #[getter]
    fn next_step(&self) -> usize {
        let j = self.job.lock().unwrap_or_else(|e| e.into_inner());
        j.next_step()
    }

    /// Writes the job at the beginning of its next superstep to `path`
    /// (atomically, with a checksum): (superstep, bytes, seconds).
    fn checkpoint(&self, py: Python<'_>, path: PathBuf) -> PyResult<(usize, u64, f64)> {
        let c = self.with(py, |j| j.checkpoint(&path))?;
        Ok((c.step, c.bytes, c.seconds))
    }

    /// Loads the checkpoint at `path` (of this shard and job, at the
    /// beginning of superstep `step`) into this job, opened afresh; the
    /// next call is `scatter(step)`.
    fn restore(&self, py: Python<'_>, path: PathBuf, step: usize) -> PyResult<()> {
        self.with(py, |j| j.restore(&path, step))
    }
}

/// A partitioned store's manifest and global id map (`outcore.ray.open`).
#[pyclass(frozen, module = "outcore._outcore")]
pub struct RawPartition {
    part: Partition,
}

#[pymethods]
impl RawPartition {
    #[new]
    fn open(dir: PathBuf) -> PyResult<RawPartition> {
        Ok(RawPartition {
            part: Partition::open(&dir).map_err(to_py)?,
        })
    }

    #[getter]
    fn path(&self) -> PathBuf {
        self.part.path().to_path_buf()
    }

    #[getter]
    fn parts(&self) -> u64 {
        self.part.manifest().parts
    }

    #[getter]
    fn num_vertices(&self) -> u64 {
        self.part.manifest().num_vertices
    }

    #[getter]
    fn num_edges(&self) -> u64 {
        self.part.manifest().num_edges
    }

    #[getter]
    fn directed(&self) -> bool {
        self.part.manifest().directed
    }

    #[getter]
    fn weighted(&self) -> bool {
        self.part.manifest().weighted
    }

    #[getter]
    fn string_ids(&self) -> bool {
        self.part.manifest().string_ids
    }

    /// `partition.json`, as text.
    fn manifest_json(&self) -> String {
        self.part.manifest().to_json()
    }

    /// (global ids in rank order: ascending original id; the original ids
    /// in that order, numpy uint64 or a list of str).
    fn ids<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyArray1<u64>>, Py<PyAny>)> {
        let part = &self.part;
        let string_ids = part.manifest().string_ids;
        let (order, ints, names) = interruptible(py, false, || {
            let ids = part.load_ids()?;
            let n = part.manifest().num_vertices;
            let order: Vec<u64> = (0..n).map(|r| ids.dense_of_rank(r)).collect();
            let (mut ints, mut names) = (Vec::new(), Vec::new());
            for r in 0..n {
                match ids.original_of_rank(r) {
                    Id::Int(x) if !string_ids => ints.push(x),
                    id => names.push(id.to_string()),
                }
            }
            Ok((order, ints, names))
        })?;
        let originals = match string_ids {
            true => PyList::new(py, names)?.into_any().unbind(),
            false => ints.into_pyarray(py).into_any().unbind(),
        };
        Ok((order.into_pyarray(py), originals))
    }

    /// Writes one `id value` line per vertex in ascending original id to
    /// `path` ("-": stdout), as `outcore run --out` does: `values` by global
    /// id, as `kind` ("float", "int", "label") says.
    fn write(
        &self,
        py: Python<'_>,
        path: PathBuf,
        values: PyReadonlyArray1<'_, u64>,
        kind: &str,
    ) -> PyResult<()> {
        let kind = kind_of(kind)?;
        let part = &self.part;
        let n = part.manifest().num_vertices;
        let values = values.as_slice().map_err(|e| {
            to_py(outcore::Error::Invalid(format!(
                "write: the values must be contiguous ({e})"
            )))
        })?;
        if values.len() as u64 != n {
            return Err(to_py(outcore::Error::Invalid(format!(
                "write: {} values for the partition's {n} vertices",
                values.len()
            ))));
        }
        interruptible(py, false, || {
            let ids = part.load_ids()?;
            let f = outcore::outfile::OutFile::create(&path)?;
            let mut lines = Lines::new(f)?;
            for r in 0..n {
                let id = ids.original_of_rank(r);
                let x = values[ids.dense_of_rank(r) as usize];
                match kind {
                    Kind::Float => lines.push(&id, Cell::Float(f64::from_bits(x)))?,
                    Kind::Int => lines.push(&id, Cell::Int(x as i64))?,
                    Kind::Label => {
                        let label = ids.original_of_rank(x);
                        lines.push(&id, Cell::Id(&label))?
                    }
                }
            }
            lines.finish()
        })
    }
}
