//! Updating a store from Python: `Store.update`, `add_edges` and
//! `remove_edges` (python/outcore/store.py) over `api::update`.

use crate::build::arrow_reader;
use crate::{interruptible, parse, to_py};
use outcore::api::{self, update, UpdateOptions};
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
/// `store`; returns the counts as a dict.
#[pyfunction]
#[pyo3(signature = (store, *, add=None, remove=None, format=None, header=false, columns=None,
    delimiter=None, memory=None, tmp_dir=None, progress=true))]
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
        api::update(target, adds, removes, &opts)
    })?;
    if progress {
        eprintln!("{}", r.line());
    }
    let d = PyDict::new(py);
    let man = &r.build.manifest;
    d.set_item("vertices_before", r.vertices_before)?;
    d.set_item("edges_before", r.edges_before)?;
    d.set_item("vertices", man.num_vertices)?;
    d.set_item("edges", man.num_edges)?;
    d.set_item("removed", r.removed())?;
    d.set_item("removals_absent", r.removals_absent)?;
    d.set_item("additions_read", r.additions_read)?;
    d.set_item("seconds", r.build.seconds)?;
    Ok(d)
}
