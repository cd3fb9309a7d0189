//! Building stores from Python: `import_edges`, `generate` and
//! `build_from_arrays` (what `outcore.from_networkx` streams edges into).

use crate::{interruptible, parse, to_py};
use numpy::PyReadonlyArray1;
use outcore::api;
use outcore::ingest::build::{BuildOptions, BuildReport, OrderChoice};
use outcore::ingest::parse::ParseOptions;
use outcore::mem::Budget;
use outcore::store::csrcode::Code;
use pyo3::prelude::*;
use std::path::PathBuf;

/// `compress=`: True (the default, the same as "fast"), False (the plain
/// layout), "fast" or "small".
#[derive(FromPyObject)]
pub enum Compress {
    Flag(bool),
    Code(String),
}

/// Store-building options shared by import, generate and from-arrays.
#[allow(clippy::too_many_arguments)]
fn build_options(
    memory: Option<u64>,
    force: bool,
    tmp_dir: Option<PathBuf>,
    order: &str,
    drop_self_loops: bool,
    page_size: Option<u64>,
    group_tiles: Option<u32>,
    compress: Compress,
) -> PyResult<BuildOptions> {
    let d = BuildOptions::default();
    let mut opts = BuildOptions {
        memory: memory.unwrap_or_else(Budget::default_limit),
        force,
        scratch_dir: tmp_dir,
        drop_self_loops,
        page_bytes: page_size.unwrap_or(d.page_bytes),
        group_tiles: group_tiles.unwrap_or(d.group_tiles),
        ..d
    };
    (opts.compress, opts.csr_code) = match compress {
        Compress::Flag(on) => (on, Code::Fast),
        Compress::Code(code) => (true, parse::<Code>(&code)?),
    };
    parse::<OrderChoice>(order)?.apply(&mut opts);
    Ok(opts)
}

fn report(r: BuildReport, progress: bool) -> String {
    let line = api::report_line(&r);
    if progress {
        eprintln!("{line}");
    }
    line
}

/// Imports edge lists into a store; returns the build's one-line report.
#[pyfunction]
#[pyo3(signature = (paths, store, *, format=None, directed=true, weighted=false, memory=None,
    force=false, header=false, columns=None, delimiter=None, ids="auto", allow_empty=false, tmp_dir=None,
    order="auto", drop_self_loops=false, page_size=None, group_tiles=None, compress=Compress::Flag(true),
    progress=true))]
#[allow(clippy::too_many_arguments)]
pub fn import_edges(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    store: PathBuf,
    format: Option<&str>,
    directed: bool,
    weighted: bool,
    memory: Option<u64>,
    force: bool,
    header: bool,
    columns: Option<String>,
    delimiter: Option<&str>,
    ids: &str,
    allow_empty: bool,
    tmp_dir: Option<PathBuf>,
    order: &str,
    drop_self_loops: bool,
    page_size: Option<u64>,
    group_tiles: Option<u32>,
    compress: Compress,
    progress: bool,
) -> PyResult<String> {
    let format = format.map(parse).transpose()?;
    let delimiter = match delimiter {
        None => None,
        Some("tab") | Some("\t") => Some(b'\t'),
        Some(d) if d.len() == 1 && d.is_ascii() && d != "\"" && d != "\n" => Some(d.as_bytes()[0]),
        Some(d) => {
            return Err(to_py(outcore::Error::Invalid(format!(
                "delimiter: expected one ASCII character such as `;` or `|`, or `tab`; got `{d}`"
            ))))
        }
    };
    let popts = ParseOptions {
        weighted,
        header,
        columns,
        directed,
        delimiter,
        ids: parse(ids)?,
        allow_empty,
        store_ids: false,
    };
    let opts = build_options(
        memory,
        force,
        tmp_dir,
        order,
        drop_self_loops,
        page_size,
        group_tiles,
        compress,
    )?;
    let r = interruptible(py, progress, || {
        api::import(&paths, &store, format, &popts, &opts)
    })?;
    Ok(report(r, progress))
}

/// Imports the record batches of `stream`, any object with
/// `__arrow_c_stream__` (the Arrow C stream interface: pyarrow, Polars),
/// read once in batches; `columns`: "SRC,DST[,W]" names; `name`: what the
/// input is called in messages; `rows`: about how many rows it holds.
#[pyfunction]
#[pyo3(signature = (stream, store, *, name, columns, rows=None, directed=true, weighted=false,
    memory=None, force=false, ids="auto", allow_empty=false, tmp_dir=None, order="auto",
    drop_self_loops=false, page_size=None, group_tiles=None, compress=Compress::Flag(true),
    progress=true))]
#[allow(clippy::too_many_arguments)]
pub fn import_stream(
    py: Python<'_>,
    stream: &Bound<'_, PyAny>,
    store: PathBuf,
    name: String,
    columns: String,
    rows: Option<u64>,
    directed: bool,
    weighted: bool,
    memory: Option<u64>,
    force: bool,
    ids: &str,
    allow_empty: bool,
    tmp_dir: Option<PathBuf>,
    order: &str,
    drop_self_loops: bool,
    page_size: Option<u64>,
    group_tiles: Option<u32>,
    compress: Compress,
    progress: bool,
) -> PyResult<String> {
    let reader = arrow_reader(stream, &name)?;
    let popts = ParseOptions {
        weighted,
        columns: Some(columns),
        directed,
        ids: parse(ids)?,
        allow_empty,
        ..Default::default()
    };
    let opts = build_options(
        memory,
        force,
        tmp_dir,
        order,
        drop_self_loops,
        page_size,
        group_tiles,
        compress,
    )?;
    let r = interruptible(py, progress, move || {
        api::import_batches(reader, &name, rows, &store, &popts, &opts)
    })?;
    Ok(report(r, progress))
}

/// The record batches of `stream`, any object with `__arrow_c_stream__`
/// (called `name` in messages).
pub(crate) fn arrow_reader(
    stream: &Bound<'_, PyAny>,
    name: &str,
) -> PyResult<Box<dyn arrow_array::RecordBatchReader + Send>> {
    use arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
    use pyo3::types::PyCapsule;
    let capsule = stream.call_method0("__arrow_c_stream__")?;
    let capsule = capsule.cast::<PyCapsule>()?;
    if capsule.name()? != Some(c"arrow_array_stream") {
        return Err(to_py(outcore::Error::Invalid(format!(
            "{name}: __arrow_c_stream__ gave a capsule that is not an `arrow_array_stream`"
        ))));
    }
    // SAFETY: a capsule named `arrow_array_stream` holds an
    // ArrowArrayStream (the Arrow PyCapsule interface); `from_raw` moves it
    // out, leaving a released one for the capsule's destructor.
    let reader = unsafe {
        RecordBatchStreamReader::from_raw(capsule.pointer() as *mut FFI_ArrowArrayStream)
    }
    .map_err(|e| to_py(outcore::Error::Invalid(format!("{name}: {e}"))))?;
    Ok(Box::new(reader))
}

/// Generates a synthetic graph into a store; returns the build's report.
#[pyfunction]
#[pyo3(signature = (kind, store, *, scale=16, edge_factor=16, a=None, b=None, c=None,
    vertices=65536, edges=None, rows=256, cols=256, max_weight=100, seed=1, directed=None,
    weighted=false, memory=None, force=false, tmp_dir=None, order="auto", compress=Compress::Flag(true),
    progress=true))]
#[allow(clippy::too_many_arguments)]
pub fn generate(
    py: Python<'_>,
    kind: &str,
    store: PathBuf,
    scale: u32,
    edge_factor: u64,
    a: Option<f64>,
    b: Option<f64>,
    c: Option<f64>,
    vertices: u64,
    edges: Option<u64>,
    rows: u64,
    cols: u64,
    max_weight: u64,
    seed: u64,
    directed: Option<bool>,
    weighted: bool,
    memory: Option<u64>,
    force: bool,
    tmp_dir: Option<PathBuf>,
    order: &str,
    compress: Compress,
    progress: bool,
) -> PyResult<String> {
    use outcore::gen::{self, GenConfig, GenKind};
    let kind: GenKind = parse(kind)?;
    let mut cfg = GenConfig::new(kind);
    if kind != GenKind::Rmat && (a.is_some() || b.is_some() || c.is_some()) {
        return Err(to_py(outcore::Error::Invalid(
            "a, b and c set the R-MAT initiator and apply to rmat only".into(),
        )));
    }
    (cfg.a, cfg.b, cfg.c) = (a.unwrap_or(cfg.a), b.unwrap_or(cfg.b), c.unwrap_or(cfg.c));
    (cfg.scale, cfg.edge_factor, cfg.vertices) = (scale, edge_factor, vertices);
    cfg.edges = edges.unwrap_or(16 * vertices);
    (cfg.rows, cfg.cols, cfg.max_weight, cfg.seed) = (rows, cols, max_weight, seed);
    cfg.directed = directed.unwrap_or(cfg.directed);
    cfg.weighted = weighted;
    cfg.validate().map_err(to_py)?;
    let mut opts = build_options(memory, force, tmp_dir, order, false, None, None, compress)?;
    (opts.directed, opts.weighted) = (cfg.directed, cfg.weighted);
    opts.format = format!("generate {}", cfg.describe());
    let r = interruptible(py, progress, || {
        let mut source = gen::generator(&cfg)?;
        api::build(source.as_mut(), &store, &opts)
    })?;
    Ok(report(r, progress))
}

/// Builds a store from edge arrays (integer ids; `vertices` lists those
/// that must exist without edges); returns the build's report.
#[pyfunction]
#[pyo3(signature = (store, src, dst, weights=None, vertices=None, *, directed=true,
    memory=None, force=false, tmp_dir=None, order="auto", compress=Compress::Flag(true), progress=true))]
#[allow(clippy::too_many_arguments)]
pub fn build_from_arrays(
    py: Python<'_>,
    store: PathBuf,
    src: PyReadonlyArray1<'_, u64>,
    dst: PyReadonlyArray1<'_, u64>,
    weights: Option<PyReadonlyArray1<'_, f64>>,
    vertices: Option<PyReadonlyArray1<'_, u64>>,
    directed: bool,
    memory: Option<u64>,
    force: bool,
    tmp_dir: Option<PathBuf>,
    order: &str,
    compress: Compress,
    progress: bool,
) -> PyResult<String> {
    let (s, d) = (src.as_slice()?, dst.as_slice()?);
    let w = weights.as_ref().map(|w| w.as_slice()).transpose()?;
    if s.len() != d.len() || w.is_some_and(|w| w.len() != s.len()) {
        return Err(to_py(outcore::Error::Invalid(
            "src, dst and weights must have the same length".into(),
        )));
    }
    let mut source = outcore::ingest::VecSource::new(
        (0..s.len()).map(|i| (s[i], d[i], w.map_or(1.0, |w| w[i]))),
    );
    if let Some(v) = &vertices {
        source.vertices = v.as_slice()?.to_vec();
    }
    let mut opts = build_options(memory, force, tmp_dir, order, false, None, None, compress)?;
    (opts.directed, opts.weighted) = (directed, w.is_some());
    opts.format = "python arrays".into();
    let r = interruptible(py, progress, || api::build(&mut source, &store, &opts))?;
    Ok(report(r, progress))
}
