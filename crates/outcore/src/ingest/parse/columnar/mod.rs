//! Parquet and Arrow IPC inputs, read with the arrow-rs crates: files or
//! directories of files (a dataset), columns chosen by name, streamed one
//! group (Parquet row group, IPC record batch) at a time in batches of a
//! few ten thousand rows, groups decoded on every core and delivered in
//! input order ([`stream`]). Integer ids of any width are read as they
//! are; string, binary and dictionary ids take the string-id path. Record
//! batches from a stream (the Arrow C stream interface) go the same way
//! ([`batches`]).

mod batches;
mod convert;
mod files;
mod sample;
mod stream;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::Schema;

use self::convert::RowFault;
use self::files::ColFile;
use super::named::{NamedBatch, Namer};
use super::{input, IdKind, ParseOptions};
use crate::error::{Error, Result};
use crate::ingest::{EdgeSource, RawEdge};

pub use batches::BatchSource;
pub(crate) use files::columnar_kind;

/// Rows per batch with integer ids (about 1.5 MB of edges).
const ROWS: usize = 64 << 10;
/// Rows per batch with string ids.
const NAMED_ROWS: usize = 16 << 10;

/// The columns read from one file: root column indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cols {
    src: usize,
    dst: usize,
    weight: Option<usize>,
}

impl Cols {
    /// The distinct columns, ascending (the order of a projected batch).
    fn projection(&self) -> Vec<usize> {
        let mut v = vec![self.src, self.dst];
        v.extend(self.weight);
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// Parquet or Arrow IPC files as an [`EdgeSource`].
pub(crate) struct ColumnarSource {
    name: String,
    files: Vec<ColFile>,
    cols: Vec<Cols>,
    strings: bool,
    consumed: Arc<AtomicU64>,
}

/// The column `spec` names in `schema` (of the input `what`): a name, or
/// a 0-based index.
fn find(schema: &Schema, spec: &str, what: &str) -> Result<usize> {
    let spec = spec.trim();
    if let Some(i) = schema.fields().iter().position(|f| f.name() == spec) {
        return Ok(i);
    }
    match spec.parse::<usize>() {
        Ok(i) if i < schema.fields().len() => Ok(i),
        _ => Err(Error::Invalid(format!(
            "{what}: no column `{spec}`; its columns are: {}",
            describe_fields(schema)
        ))),
    }
}

fn describe_fields(schema: &Schema) -> String {
    let f: Vec<String> = schema
        .fields()
        .iter()
        .map(|f| format!("{} ({})", f.name(), f.data_type()))
        .collect();
    f.join(", ")
}

/// The columns of the input `what`: `--columns` by name or number, else
/// the first two integer or string columns and, read weighted, the first
/// float column (else the next integer one).
fn choose(schema: &Schema, what: &str, opts: &ParseOptions) -> Result<Cols> {
    let fields = schema.fields();
    let cols = if let Some(spec) = &opts.columns {
        let parts =
            super::shape::column_parts(spec, opts.weighted, "column names or 0-based numbers")?;
        let at = |i: usize| find(schema, parts[i], what);
        Cols {
            src: at(0)?,
            dst: at(1)?,
            weight: if opts.weighted { Some(at(2)?) } else { None },
        }
    } else {
        let ids: Vec<usize> = (0..fields.len())
            .filter(|&i| {
                let t = fields[i].data_type();
                convert::is_int(t) || convert::is_name(t)
            })
            .take(2)
            .collect();
        let [src, dst] = ids[..] else {
            return Err(Error::Invalid(format!(
                "{what}: expected two integer or string columns of vertex ids; its columns are: {}",
                describe_fields(schema)
            )));
        };
        let weight = match opts.weighted {
            false => None,
            true => {
                let float = (0..fields.len()).find(|&i| fields[i].data_type().is_floating());
                let int = (dst + 1..fields.len()).find(|&i| fields[i].data_type().is_integer());
                Some(float.or(int).ok_or_else(|| {
                    Error::Invalid(format!(
                        "{what}: read weighted, but no number column besides the ids; its columns are: {} (choose with --columns SRC,DST,W)",
                        describe_fields(schema)
                    ))
                })?)
            }
        };
        Cols { src, dst, weight }
    };
    let t = |i: usize| fields[i].data_type();
    for (i, role) in [(cols.src, "source"), (cols.dst, "target")] {
        if !convert::is_int(t(i)) && !convert::is_name(t(i)) {
            // pandas keeps an integer column with a missing value as floats.
            let hint = match t(i).is_floating() {
                true => " (an integer column with missing values becomes float64 in pandas: drop the rows without ids, or use the nullable Int64 dtype)",
                false => "",
            };
            return Err(Error::Invalid(format!(
                "{what}: column `{}` ({}) cannot hold {role} vertex ids: expected integers or strings{hint}",
                fields[i].name(),
                t(i)
            )));
        }
    }
    if let Some(w) = cols.weight {
        if !convert::is_weight(t(w)) {
            return Err(Error::Invalid(format!(
                "{what}: column `{}` ({}) cannot hold weights: expected integers or floats",
                fields[w].name(),
                t(w)
            )));
        }
    }
    Ok(cols)
}

/// The note saying which columns of the input `what` were taken by default.
fn note_columns(schema: &Schema, what: &str, c: &Cols) {
    if crate::progress::quiet() {
        return;
    }
    let name = |i: usize| format!("`{}`", schema.fields()[i].name());
    let weight = c
        .weight
        .map(|w| format!(", weights from {}", name(w)))
        .unwrap_or_default();
    eprintln!(
        "note: {what}: reading source ids from column {}, target ids from {}{weight}; choose others with --columns SRC,DST{}",
        name(c.src),
        name(c.dst),
        if c.weight.is_some() { ",W" } else { "" }
    );
}

/// The first id column of `c` that holds names, not integers.
fn named_column(schema: &Schema, c: &Cols) -> Option<usize> {
    [c.src, c.dst]
        .into_iter()
        .find(|&i| !convert::is_int(schema.fields()[i].data_type()))
}

/// Whether the ids are read as strings: asked for, or (`--ids auto`) some
/// id column holds names (`named`: the input, its schema and that column).
fn string_ids(opts: &ParseOptions, named: Option<(String, &Schema, usize)>) -> Result<bool> {
    Ok(match (opts.ids, named) {
        (IdKind::String, _) => true,
        (IdKind::Int, Some((what, schema, i))) => {
            let hint = match opts.store_ids {
                true => opts.not_integers_hint(),
                false => "read them with --ids string or auto",
            };
            return Err(Error::Invalid(format!(
                "{what}: column `{}` holds {} vertex ids, not integers ({hint})",
                schema.fields()[i].name(),
                schema.fields()[i].data_type()
            )));
        }
        (_, n) => n.is_some(),
    })
}

/// Refuses a read of the other id kind than the source holds (`strings`):
/// named batches of integer ids, integer batches of string ids.
fn ids_are(name: &str, strings: bool, want_strings: bool) -> Result<()> {
    match (strings, want_strings) {
        (false, true) => Err(Error::Invalid(format!("{name}: vertex ids are integers"))),
        (true, false) => Err(Error::Invalid(format!(
            "{name}: vertex ids are strings; they are read by for_each_named_batch"
        ))),
        _ => Ok(()),
    }
}

/// The column positions of `cols` in a batch projected to
/// [`Cols::projection`].
fn local(cols: Cols) -> Cols {
    let proj = cols.projection();
    let at = |c: usize| proj.iter().position(|&p| p == c).unwrap_or(0);
    Cols {
        src: at(cols.src),
        dst: at(cols.dst),
        weight: cols.weight.map(at),
    }
}

/// The edges of batch `b` with integer ids in columns `c`.
fn int_batch(b: &RecordBatch, c: Cols) -> std::result::Result<Vec<RawEdge>, RowFault> {
    let w = c.weight.map(|w| b.column(w).as_ref());
    convert::edges(b.column(c.src), b.column(c.dst), w)
}

/// The edges of batch `b` with string ids in columns `c`, as fingerprints.
fn named_batch(b: &RecordBatch, c: Cols) -> std::result::Result<NamedBatch, RowFault> {
    let mut namer = Namer::default();
    let w = c.weight.map(|w| b.column(w).as_ref());
    convert::named_edges(&mut namer, b.column(c.src), b.column(c.dst), w)?;
    Ok(namer.batch)
}

/// " in column `x`" for a fault in a column of batch `b` (columns `c`).
fn in_column(b: &RecordBatch, c: Cols, f: &RowFault) -> String {
    let col = match f.arg {
        Some(0) => Some(c.src),
        Some(1) => Some(c.dst),
        Some(2) => c.weight,
        _ => None,
    };
    col.map(|i| format!(" in column `{}`", b.schema().field(i).name()))
        .unwrap_or_default()
}

impl ColumnarSource {
    pub(crate) fn open(inputs: &[PathBuf], opts: &ParseOptions) -> Result<ColumnarSource> {
        if opts.header || opts.delimiter.is_some() {
            return Err(Error::Invalid(
                "--header and --delimiter apply to text inputs, not Parquet or Arrow".into(),
            ));
        }
        let files = files::open_all(inputs)?;
        let cols = files
            .iter()
            .map(|f| choose(&f.schema, &f.path.display().to_string(), opts))
            .collect::<Result<Vec<_>>>()?;
        if opts.columns.is_none() {
            for (i, (f, c)) in files.iter().zip(&cols).enumerate() {
                let name = |j: usize| files[j].schema.fields()[cols[j].src].name();
                if i == 0 || name(i) != name(i - 1) {
                    note_columns(&f.schema, &f.path.display().to_string(), c);
                }
            }
        }
        let named = files.iter().zip(&cols).find_map(|(f, c)| {
            named_column(&f.schema, c).map(|i| (f.path.display().to_string(), &*f.schema, i))
        });
        let strings = string_ids(opts, named)?;
        let rows: Option<u64> = files.iter().map(ColFile::rows).sum();
        let groups: usize = files.iter().map(ColFile::groups).sum();
        if !opts.allow_empty && (rows == Some(0) || groups == 0) {
            return Err(Error::Invalid(format!(
                "the input has no edges: {} holds no rows (the wrong file? pass --allow-empty to build a store without edges)",
                input::describe(inputs)
            )));
        }
        Ok(ColumnarSource {
            name: input::describe(inputs),
            files,
            cols,
            strings,
            consumed: Arc::new(AtomicU64::new(0)),
        })
    }

    /// Every group of every file as (file, group).
    fn groups(&self) -> Vec<(usize, usize)> {
        (self.files.iter().enumerate())
            .flat_map(|(i, f)| (0..f.groups()).map(move |g| (i, g)))
            .collect()
    }

    /// Reads every group on all threads, turning each batch into a `T`
    /// with `convert(batch, src, dst, weight)` (the columns' positions in
    /// the batch), delivered to `sink` in input order.
    fn run<T: Send>(
        &self,
        rows: usize,
        convert: &(dyn Fn(&RecordBatch, Cols) -> std::result::Result<T, RowFault> + Sync),
        sink: &mut dyn FnMut(T) -> Result<()>,
    ) -> Result<()> {
        self.consumed.store(0, Ordering::Relaxed);
        let groups = self.groups();
        let work = |u: usize, emit: &mut dyn FnMut(T) -> Result<()>| {
            let (fi, g) = groups[u];
            let (file, cols) = (&self.files[fi], self.cols[fi]);
            let (proj, local) = (cols.projection(), local(cols));
            let mut row = 0usize;
            file.read_group(g, &proj, rows, &mut |batch| {
                let t = convert(&batch, local).map_err(|f| {
                    Error::Invalid(format!(
                        "{}: {} {g}, row {} (counting from 0 in the group): {}{}",
                        file.path.display(),
                        file.group_word(),
                        row + f.row,
                        f.what,
                        in_column(&batch, local, &f)
                    ))
                })?;
                row += batch.num_rows();
                emit(t)
            })?;
            self.consumed
                .fetch_add(file.group_bytes(g), Ordering::Relaxed);
            Ok(())
        };
        let threads = rayon::current_num_threads();
        stream::ordered(groups.len(), threads, &work, sink)
    }
}

impl EdgeSource for ColumnarSource {
    fn describe(&self) -> String {
        self.name.clone()
    }

    fn input_bytes(&self) -> Option<u64> {
        Some(self.files.iter().map(|f| f.size).sum())
    }

    fn bytes_consumed(&self) -> u64 {
        self.consumed.load(Ordering::Relaxed)
    }

    fn consumed_counter(&self) -> Option<Arc<AtomicU64>> {
        Some(self.consumed.clone())
    }

    fn expected_edges(&self) -> Option<u64> {
        self.files.iter().map(ColFile::rows).sum()
    }

    fn string_ids(&self) -> bool {
        self.strings
    }

    fn sample_edges(&mut self) -> Result<Option<Vec<RawEdge>>> {
        match self.strings {
            true => Ok(None),
            false => sample::sample(&self.files, &self.cols),
        }
    }

    fn for_each_named_batch(&mut self, f: &mut dyn FnMut(&NamedBatch) -> Result<()>) -> Result<()> {
        ids_are(&self.name, self.strings, true)?;
        self.run(NAMED_ROWS, &named_batch, &mut |batch: NamedBatch| f(&batch))
    }

    fn for_each_edge_batch(&mut self, f: &mut dyn FnMut(&[RawEdge]) -> Result<()>) -> Result<()> {
        ids_are(&self.name, self.strings, false)?;
        self.run(ROWS, &int_batch, &mut |edges: Vec<RawEdge>| f(&edges))
    }
}
