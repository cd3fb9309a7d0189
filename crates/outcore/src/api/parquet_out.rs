//! Results as Parquet (`--out FILE.parquet`): columns `id` (uint64, or
//! string in a store of string ids) and `value` (float64, int64, or the
//! labels' original ids), streamed in rank order (= ascending original id)
//! into row groups sized from the budget, with the arrow-rs writer. Query
//! answers ([`write_id_columns`]): columns of ids, `id` or `source` and
//! `target`. `outcore export` ([`export_parquet`]): `source`, `target` and,
//! in a weighted store, `weight` (float64), streamed in the layout's order.

use std::io::Write;
use std::path::Path;
use std::str::FromStr;
use std::sync::{Arc, Mutex};

use arrow_array::builder::{Float64Builder, Int64Builder, StringBuilder, UInt64Builder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use super::values::{Kind, VertexValues};
use crate::engine::results::Out;
use crate::error::{Error, IoContext, Result};
use crate::mem::Budget;
use crate::store::export::{for_each_edge, Layout};
use crate::store::walk::LabelNames;
use crate::store::{Id, Store};

/// How results are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutFormat {
    /// `id value` lines.
    Text,
    /// A Parquet file of columns `id` and `value`.
    Parquet,
}

impl OutFormat {
    /// Parquet for a name ending in `.parquet` (any case), else text.
    pub fn of(path: &Path) -> OutFormat {
        let name = path.to_string_lossy().to_ascii_lowercase();
        match name.ends_with(".parquet") {
            true => OutFormat::Parquet,
            false => OutFormat::Text,
        }
    }
}

impl FromStr for OutFormat {
    type Err = Error;

    fn from_str(s: &str) -> Result<OutFormat> {
        match s.trim().to_ascii_lowercase().as_str() {
            "text" | "txt" => Ok(OutFormat::Text),
            "parquet" => Ok(OutFormat::Parquet),
            _ => Err(Error::Invalid(format!(
                "unknown output format `{s}` (expected text or parquet)"
            ))),
        }
    }
}

/// Rows per batch handed to the writer.
const BATCH: usize = 64 << 10;

/// A writer's output, drained into the result file after every batch (the
/// arrow writer holds its row group until it is full, then emits it here).
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        let mut v = self.0.lock().unwrap_or_else(|e| e.into_inner());
        v.extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Shared {
    fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

enum Ids {
    Ints(UInt64Builder),
    Names(StringBuilder),
}

impl Ids {
    fn new(strings: bool) -> Ids {
        match strings {
            true => Ids::Names(StringBuilder::new()),
            false => Ids::Ints(UInt64Builder::new()),
        }
    }
    fn push(&mut self, id: &Id<'_>) {
        match (self, id) {
            (Ids::Ints(b), Id::Int(x)) => b.append_value(*x),
            (Ids::Ints(b), Id::Name(_)) => b.append_null(),
            (Ids::Names(b), Id::Name(n)) => b.append_value(String::from_utf8_lossy(n)),
            (Ids::Names(b), Id::Int(x)) => b.append_value(x.to_string()),
        }
    }
    fn finish(&mut self) -> ArrayRef {
        match self {
            Ids::Ints(b) => Arc::new(b.finish()),
            Ids::Names(b) => Arc::new(b.finish()),
        }
    }
}

enum Vals {
    Float(Float64Builder),
    Int(Int64Builder),
    Label(Ids),
}

impl Vals {
    fn finish(&mut self) -> ArrayRef {
        match self {
            Vals::Float(b) => Arc::new(b.finish()),
            Vals::Int(b) => Arc::new(b.finish()),
            Vals::Label(b) => b.finish(),
        }
    }
}

/// Rows per row group: a few MiB of the budget (about 32 bytes a row once
/// encoded, less after compression), from 64 Ki to 1 Mi rows.
fn group_rows(out: &Out<'_>) -> usize {
    rows_for(out.budget)
}

fn rows_for(budget: &Budget) -> usize {
    let share = budget.available() / 16;
    (share / 32).clamp(BATCH as u64, 1 << 20) as usize
}

impl VertexValues {
    /// Writes every vertex's original id and value to `out.path` as
    /// Parquet (see the module docs).
    pub fn write_parquet(&mut self, out: &Out<'_>) -> Result<()> {
        let kind = self.kind();
        let strings = out.store.manifest().string_ids;
        let id_type = if strings {
            DataType::Utf8
        } else {
            DataType::UInt64
        };
        let value_type = match kind {
            Kind::Float => DataType::Float64,
            Kind::Int => DataType::Int64,
            Kind::Label => id_type.clone(),
        };
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", id_type, false),
            Field::new("value", value_type, false),
        ]));
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(group_rows(out)))
            .set_compression(Compression::ZSTD(ZstdLevel::default()))
            .build();
        let buf = Shared::default();
        let parquet_err = |e: parquet::errors::ParquetError| {
            Error::Invalid(format!("{}: writing Parquet: {e}", out.path.display()))
        };
        let mut writer =
            ArrowWriter::try_new(buf.clone(), schema.clone(), Some(props)).map_err(parquet_err)?;
        let mut file = crate::outfile::OutFile::create(out.path)?;
        let target = file.target().to_path_buf();
        let mut names = match kind {
            Kind::Label => Some(LabelNames::open(out.store)?),
            _ => None,
        };
        let mut ids = Ids::new(strings);
        let mut vals = match kind {
            Kind::Float => Vals::Float(Float64Builder::new()),
            Kind::Int => Vals::Int(Int64Builder::new()),
            Kind::Label => Vals::Label(Ids::new(strings)),
        };
        let mut rows = 0usize;
        let flush = |ids: &mut Ids,
                     vals: &mut Vals,
                     writer: &mut ArrowWriter<Shared>,
                     file: &mut crate::outfile::OutFile|
         -> Result<()> {
            let batch = RecordBatch::try_new(schema.clone(), vec![ids.finish(), vals.finish()])
                .map_err(|e| Error::Invalid(format!("{}: {e}", out.path.display())))?;
            writer.write(&batch).map_err(parquet_err)?;
            file.writer().write_all(&buf.take()).at(&target)
        };
        self.for_each_ranked(out, |r, id, x| {
            ids.push(id);
            match &mut vals {
                Vals::Float(b) => b.append_value(f64::from_bits(x)),
                Vals::Int(b) => b.append_value(x as i64),
                Vals::Label(b) => {
                    let name = names.as_mut().expect("opened for labels").name(x, r, id)?;
                    b.push(&name);
                }
            }
            rows += 1;
            if rows.is_multiple_of(BATCH) {
                flush(&mut ids, &mut vals, &mut writer, &mut file)?;
            }
            Ok(())
        })?;
        flush(&mut ids, &mut vals, &mut writer, &mut file)?;
        writer.close().map_err(parquet_err)?;
        file.writer().write_all(&buf.take()).at(&target)?;
        file.commit()
    }

    /// The original ids of the vertices whose value `keep` keeps, as a
    /// Parquet file of column `id` (`--kcore-out X.parquet`), streamed in
    /// rank order, a batch of ids in memory at a time.
    pub fn write_set_parquet(&mut self, out: &Out<'_>, keep: impl Fn(u64) -> bool) -> Result<()> {
        let strings = out.store.manifest().string_ids;
        let mut sink = IdSink::create(out.path, strings, &["id"], false, 1 << 20)?;
        self.for_each_ranked(out, |_, id, x| match keep(x) {
            true => sink.push(&[id], None),
            false => Ok(()),
        })?;
        sink.finish()
    }
}

/// Columns of ids (uint64 or, in a store of string ids, string), and for
/// the edges of a weighted store a float64 `weight`, written as Parquet
/// (zstd) a row at a time: a batch of rows in builders, then handed to the
/// writer, whose finished row groups are drained into the file.
struct IdSink {
    schema: Arc<Schema>,
    writer: ArrowWriter<Shared>,
    buf: Shared,
    file: crate::outfile::OutFile,
    target: std::path::PathBuf,
    ids: Vec<Ids>,
    weights: Option<Float64Builder>,
    rows: usize,
}

fn parquet_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Invalid(format!("{}: writing Parquet: {e}", path.display()))
}

impl IdSink {
    fn create(
        path: &Path,
        strings: bool,
        names: &[&str],
        weighted: bool,
        group_rows: usize,
    ) -> Result<IdSink> {
        let t = match strings {
            true => DataType::Utf8,
            false => DataType::UInt64,
        };
        let mut fields: Vec<Field> = (names.iter())
            .map(|n| Field::new(*n, t.clone(), false))
            .collect();
        if weighted {
            fields.push(Field::new("weight", DataType::Float64, false));
        }
        let schema = Arc::new(Schema::new(fields));
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(group_rows))
            .set_compression(Compression::ZSTD(ZstdLevel::default()))
            .build();
        let buf = Shared::default();
        let writer = ArrowWriter::try_new(buf.clone(), schema.clone(), Some(props))
            .map_err(|e| parquet_error(path, e))?;
        let file = crate::outfile::OutFile::create(path)?;
        let target = file.target().to_path_buf();
        Ok(IdSink {
            schema,
            writer,
            buf,
            file,
            target,
            ids: names.iter().map(|_| Ids::new(strings)).collect(),
            weights: weighted.then(Float64Builder::new),
            rows: 0,
        })
    }

    /// One row: an id per id column, and the weight when there is a
    /// `weight` column.
    fn push(&mut self, row: &[&Id<'_>], weight: Option<f64>) -> Result<()> {
        self.ids.iter_mut().zip(row).for_each(|(b, id)| b.push(id));
        if let Some(b) = &mut self.weights {
            b.append_value(weight.unwrap_or(1.0));
        }
        self.rows += 1;
        match self.rows.is_multiple_of(BATCH) {
            true => self.flush(),
            false => Ok(()),
        }
    }

    fn flush(&mut self) -> Result<()> {
        let mut arrays: Vec<ArrayRef> = self.ids.iter_mut().map(|b| b.finish()).collect();
        if let Some(b) = &mut self.weights {
            arrays.push(Arc::new(b.finish()));
        }
        let batch = RecordBatch::try_new(self.schema.clone(), arrays)
            .map_err(|e| parquet_error(&self.target, e))?;
        let r = self.writer.write(&batch);
        r.map_err(|e| parquet_error(&self.target, e))?;
        self.file
            .writer()
            .write_all(&self.buf.take())
            .at(&self.target)
    }

    fn finish(mut self) -> Result<()> {
        self.flush()?;
        let r = self.writer.close();
        r.map_err(|e| parquet_error(&self.target, e))?;
        self.file
            .writer()
            .write_all(&self.buf.take())
            .at(&self.target)?;
        self.file.commit()
    }
}

/// Query answers as Parquet at `path`: one column per `(name, ids)`, all of
/// one length (`id`, or `source` and `target`), uint64 or, in a store of
/// string ids, string; in row groups of up to 1 Mi rows.
pub fn write_id_columns(path: &Path, strings: bool, columns: &[(&str, Vec<Id<'_>>)]) -> Result<()> {
    let names: Vec<&str> = columns.iter().map(|c| c.0).collect();
    let mut sink = IdSink::create(path, strings, &names, false, 1 << 20)?;
    let rows = columns.first().map_or(0, |c| c.1.len());
    let mut row = Vec::with_capacity(columns.len());
    for i in 0..rows {
        row.clear();
        row.extend(columns.iter().map(|c| &c.1[i]));
        sink.push(&row, None)?;
    }
    sink.finish()
}

/// `outcore export --out X.parquet`: the edges of `layout` as
/// [`for_each_edge`] gives them, in its order, as columns `source` and
/// `target` (uint64, or string in a store of string ids) and, in a weighted
/// store, `weight` (float64); streamed, in row groups sized from `budget`.
/// `path` may be `-` (standard output: the writer needs no seeking).
/// Returns the number of edges.
pub fn export_parquet(
    store: &Store,
    layout: Layout,
    both_directions: bool,
    path: &Path,
    budget: &Budget,
) -> Result<u64> {
    let m = store.manifest();
    let mut sink = IdSink::create(
        path,
        m.string_ids,
        &["source", "target"],
        m.weighted,
        rows_for(budget),
    )?;
    let n = for_each_edge(store, layout, both_directions, |s, d, w| {
        sink.push(&[&s, &d], Some(w))
    })?;
    sink.finish()?;
    Ok(n)
}
