//! Updating a store from Python: `Store.update`, `add_edges` and
//! `remove_edges` (python/outcore/store.py) over `api::update`.

use crate::build::arrow_reader;
use crate::{interruptible, parse, to_py};
use outcore::api::update::{self, Compaction};
use outcore::api::UpdateOptions;
use outcore::ingest::parse::{BatchSource, InputFormat, ParseOptions};
use outcore::ingest::EdgeSource;
use outcore::mem::Budget;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::{Path, PathBuf};

/// Edges to add or remove: edge-list files, or a stream of record batches
/// (the object with `__arrow_c_stream__`, its name in messages, the
/// "SRC,DST[,W]" column names, about how many rows).
#[derive(FromPyObject)]
pub enum Edits<'py> {
    Paths(Vec<PathBuf>),
    Stream((Bound<'py, PyAny>, String, String, Option<u64>)),
}

/// Opens `edits` as a source with the store's id kind (`spill`: where a
/// stream's batches are spilled, beside the store).
fn open(
    edits: Option<Edits<'_>>,
    format: Option<&str>,
    popts: &ParseOptions,
    spill: &Path,
) -> PyResult<Vec<Box<dyn EdgeSource>>> {
    Ok(match edits {
        None => Vec::new(),
        Some(Edits::Paths(p)) => {
            let format = format.map(parse::<InputFormat>).transpose()?;
            update::open_edits(&p, format, popts).map_err(to_py)?
        }
        Some(Edits::Stream((stream, name, columns, rows))) => {
            let reader = arrow_reader(&stream, &name)?;
            let o = ParseOptions {
                columns: Some(columns),
                ..popts.clone()
            };
            let s = BatchSource::open(reader, &name, rows, spill, &o).map_err(to_py)?;
            vec![Box::new(s)]
        }
    })
}

/// Removes the edges of `remove`, then adds those of `add`, in the store at
/// `store`: into its delta, compacted when the delta reaches `compact_at`
/// of the base (`None`: $OUTCORE_COMPACT_AT, else 0.1; 0: a rewrite, no
/// delta), never when `compact` is false ([`update::update_with_policy`]).
/// Returns the counts as a dict.
#[pyfunction]
#[pyo3(signature = (store, *, add=None, remove=None, format=None, header=false, columns=None,
    delimiter=None, memory=None, tmp_dir=None, compact_at=None, compact=true, progress=true))]
#[allow(clippy::too_many_arguments)]
pub fn update_store<'py>(
    py: Python<'py>,
    store: PathBuf,
    add: Option<Edits<'py>>,
    remove: Option<Edits<'py>>,
    format: Option<String>,
    header: bool,
    columns: Option<String>,
    delimiter: Option<String>,
    memory: Option<u64>,
    tmp_dir: Option<PathBuf>,
    compact_at: Option<f64>,
    compact: bool,
    progress: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let delimiter = match delimiter.as_deref() {
        None => None,
        Some("tab") | Some("\t") => Some(b'\t'),
        Some(d) if d.len() == 1 && d.is_ascii() => Some(d.as_bytes()[0]),
        Some(d) => {
            return Err(to_py(outcore::Error::Invalid(format!(
                "delimiter `{d}`: expected one ASCII character, or \"tab\""
            ))))
        }
    };
    let policy = Compaction::resolve(compact_at, compact).map_err(to_py)?;
    // Locked from here until the updated store is in place.
    let target = update::open(&store).map_err(to_py)?;
    let popts = update::edit_options(target.store(), header, columns, delimiter);
    let adds = open(add, format.as_deref(), &popts, &store)?;
    let ropts = update::removal_options(&popts);
    let spill = store.with_extension("removals");
    let removes = open(remove, format.as_deref(), &ropts, &spill)?;
    let opts = UpdateOptions {
        memory: memory.unwrap_or_else(Budget::default_limit),
        scratch_dir: tmp_dir,
    };
    let r = interruptible(py, progress, move || {
        update::update_with_policy(target, adds, removes, &opts, policy)
    })?;
    let d = PyDict::new(py);
    match (&r.delta, &r.compaction) {
        (Some(x), _) => {
            if progress {
                eprintln!("{}", update::delta_line(&store, x));
            }
            d.set_item("vertices_before", x.vertices_before)?;
            d.set_item("edges_before", x.edges_before)?;
            d.set_item("removed", x.counts.removed)?;
            d.set_item("removals_absent", x.counts.removals_absent)?;
            d.set_item("additions_read", x.additions_read)?;
            d.set_item("added", x.counts.added)?;
            d.set_item("reweighted", x.counts.reweighted)?;
            d.set_item("generation", x.generation)?;
        }
        (None, Some(u)) => {
            if progress {
                eprintln!("{}", u.line());
            }
            d.set_item("vertices_before", u.vertices_before)?;
            d.set_item("edges_before", u.edges_before)?;
            d.set_item("removed", u.removed())?;
            d.set_item("removals_absent", u.removals_absent)?;
            d.set_item("additions_read", u.additions_read)?;
        }
        (None, None) => {}
    }
    if progress {
        eprintln!("{}", r.reason);
    }
    let (vertices, edges) = r.counts();
    d.set_item("vertices", vertices)?;
    d.set_item("edges", edges)?;
    d.set_item("delta", r.delta.is_some())?;
    d.set_item("compacted", r.compacted())?;
    d.set_item("compaction", &r.reason)?;
    d.set_item("delta_fraction", r.size.map(|s| s.fraction))?;
    d.set_item("seconds", r.seconds)?;
    Ok(d)
}

/// Merges the delta of the store at `store` into a new base
/// ([`update::compact`]); returns whether there was one to merge and the
/// seconds taken.
#[pyfunction]
#[pyo3(signature = (store, *, memory=None, tmp_dir=None, progress=true))]
pub fn compact_store(
    py: Python<'_>,
    store: PathBuf,
    memory: Option<u64>,
    tmp_dir: Option<PathBuf>,
    progress: bool,
) -> PyResult<(bool, f64)> {
    let target = update::open(&store).map_err(to_py)?;
    let opts = UpdateOptions {
        memory: memory.unwrap_or_else(Budget::default_limit),
        scratch_dir: tmp_dir,
    };
    let r = interruptible(py, progress, move || update::compact(target, &opts))?;
    if let (true, Some(r)) = (progress, &r) {
        eprintln!("compacted: {}", r.line());
    }
    Ok((r.is_some(), r.map_or(0.0, |r| r.build.seconds)))
}
