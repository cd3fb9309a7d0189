//! Record batches from a stream as an [`EdgeSource`]: what Python hands
//! over through the Arrow C stream interface (a pandas or Polars
//! DataFrame, a pyarrow Table, RecordBatchReader or Dataset, numpy arrays).
//! The columns are chosen by name as for Parquet ([`super::choose`]) and
//! read by the same conversions, with the same id regimes (integers of any
//! width; strings, binary and dictionaries into the string-id path) and
//! errors naming the row and column.
//!
//! A stream is read once, but a build may read its source again (an id
//! wider than 32 bits, an id map outgrowing its share of the budget, a BFS
//! order). Every batch read is therefore also written, its chosen columns
//! only, to an Arrow IPC stream file beside the store
//! (`.NAME.outcore-stream-PID`, removed when the source is dropped); a
//! later pass reads that file back, then goes on with the stream. No batch
//! is held in memory beyond the one being converted: the spill costs disk
//! (the chosen columns once), not memory.

use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{ArrayRef, RecordBatch, RecordBatchReader};
use arrow_ipc::reader::StreamReader;
use arrow_ipc::writer::StreamWriter;
use arrow_schema::{DataType, SchemaRef};

use super::super::named::NamedBatch;
use super::convert::RowFault;
use super::{choose, ids_are, in_column, int_batch, local, named_batch, note_columns, Cols};
use super::{named_column, string_ids, ParseOptions, NAMED_ROWS, ROWS};
use crate::error::{Error, IoContext, Result};
use crate::ingest::{EdgeSource, RawEdge};

/// A stream of record batches as an edge source; see the module docs.
pub struct BatchSource {
    name: String,
    /// The rest of the stream; `None` once it has ended.
    stream: Option<Box<dyn RecordBatchReader + Send>>,
    cols: Cols,
    strings: bool,
    rows_hint: Option<u64>,
    allow_empty: bool,
    spill: Spill,
}

/// The batches read so far, their chosen columns in an IPC stream file.
struct Spill {
    path: PathBuf,
    writer: Option<StreamWriter<BufWriter<File>>>,
    batches: usize,
    rows: u64,
}

impl Drop for Spill {
    fn drop(&mut self) {
        self.writer = None;
        let _ = std::fs::remove_file(&self.path);
    }
}

impl Spill {
    fn fail(&self, e: &dyn std::fmt::Display) -> Error {
        Error::Invalid(format!(
            "{}: the copy of the input read so far: {e}",
            self.path.display()
        ))
    }

    fn write(&mut self, b: &RecordBatch) -> Result<()> {
        if self.writer.is_none() {
            let f = File::create(&self.path).at(&self.path)?;
            let w = StreamWriter::try_new(BufWriter::with_capacity(1 << 20, f), &b.schema())
                .map_err(|e| self.fail(&e))?;
            self.writer = Some(w);
        }
        if let Some(w) = self.writer.as_mut() {
            let r = w.write(b);
            r.map_err(|e| self.fail(&e))?;
        }
        self.batches += 1;
        self.rows += b.num_rows() as u64;
        Ok(())
    }

    /// The batches written so far, read back.
    fn replay(&mut self) -> Result<impl Iterator<Item = Result<RecordBatch>> + '_> {
        if let Some(w) = self.writer.as_mut() {
            let r = w.flush();
            r.map_err(|e| self.fail(&e))?;
        }
        let file = File::open(&self.path).at(&self.path)?;
        let reader =
            StreamReader::try_new(BufReader::new(file), None).map_err(|e| self.fail(&e))?;
        let path = &self.path;
        Ok(reader.take(self.batches).map(move |b| {
            b.map_err(|e| Error::Invalid(format!("{}: cannot be read back: {e}", path.display())))
        }))
    }
}

impl BatchSource {
    /// The source of `stream`, called `name` in messages, holding about
    /// `rows` rows when known, for a store at `store` (the spill goes
    /// beside it). The columns are chosen from the stream's schema now.
    pub fn open(
        stream: Box<dyn RecordBatchReader + Send>,
        name: &str,
        rows: Option<u64>,
        store: &Path,
        opts: &ParseOptions,
    ) -> Result<BatchSource> {
        if opts.header || opts.delimiter.is_some() {
            return Err(Error::Invalid(
                "header and delimiter apply to text inputs, not record batches".into(),
            ));
        }
        let schema: SchemaRef = stream.schema();
        let cols = choose(&schema, name, opts)?;
        if opts.columns.is_none() {
            note_columns(&schema, name, &cols);
        }
        let named = named_column(&schema, &cols).map(|i| (name.to_string(), &*schema, i));
        let strings = string_ids(opts, named)?;
        Ok(BatchSource {
            name: name.to_string(),
            stream: Some(stream),
            cols,
            strings,
            rows_hint: rows,
            allow_empty: opts.allow_empty,
            spill: Spill {
                path: spill_path(store),
                writer: None,
                batches: 0,
                rows: 0,
            },
        })
    }

    /// One pass: the spilled batches, then the rest of the stream, each
    /// batch cut into pieces of up to `rows` rows (each spilled), each
    /// piece turned into a `T` by `convert` and passed to `sink`.
    fn run<T>(
        &mut self,
        rows: usize,
        convert: &dyn Fn(&RecordBatch, Cols) -> std::result::Result<T, RowFault>,
        sink: &mut dyn FnMut(T) -> Result<()>,
    ) -> Result<()> {
        let (proj, local) = (self.cols.projection(), local(self.cols));
        let name = &self.name;
        // Rows delivered so far.
        let mut at = 0u64;
        let mut deliver = |b: &RecordBatch, at: &mut u64| -> Result<()> {
            let t = convert(b, local).map_err(|f| {
                Error::Invalid(format!(
                    "{name}: row {} (counting from 0): {}{}",
                    *at + f.row as u64,
                    f.what,
                    in_column(b, local, &f)
                ))
            })?;
            *at += b.num_rows() as u64;
            sink(t)
        };
        if self.spill.batches > 0 {
            for b in self.spill.replay()? {
                deliver(&b?, &mut at)?;
            }
        }
        let mut batch = 0usize;
        while let Some(stream) = self.stream.as_mut() {
            let Some(next) = stream.next() else {
                self.stream = None;
                break;
            };
            let b = next.map_err(|e| {
                Error::Invalid(format!("{name}: record batch {batch} cannot be read: {e}"))
            })?;
            let b = b
                .project(&proj)
                .map_err(|e| Error::Invalid(format!("{name}: record batch {batch}: {e}")))?;
            let mut off = 0;
            while off < b.num_rows() {
                let piece = compact(b.slice(off, rows.min(b.num_rows() - off)));
                self.spill.write(&piece)?;
                deliver(&piece, &mut at)?;
                off += piece.num_rows();
            }
            batch += 1;
        }
        if at == 0 && !self.allow_empty {
            return Err(Error::Invalid(format!(
                "the input has no edges: {name} holds no rows (pass allow_empty to build a store without edges)"
            )));
        }
        Ok(())
    }
}

/// `b` with its string and binary views compacted: a slice of a view
/// array keeps all of its data buffers, which the spill would write whole
/// for every piece.
fn compact(b: RecordBatch) -> RecordBatch {
    let views = |t: &DataType| matches!(t, DataType::Utf8View | DataType::BinaryView);
    if !b.columns().iter().any(|c| views(c.data_type())) {
        return b;
    }
    let cols: Vec<ArrayRef> = (b.columns().iter())
        .map(|c| match c.data_type() {
            DataType::Utf8View => Arc::new(c.as_string_view().gc()) as ArrayRef,
            DataType::BinaryView => Arc::new(c.as_binary_view().gc()) as ArrayRef,
            _ => c.clone(),
        })
        .collect();
    RecordBatch::try_new(b.schema(), cols).unwrap_or(b)
}

/// `.NAME.outcore-stream-PID` beside the store at `store`; leftovers of
/// killed processes go first.
fn spill_path(store: &Path) -> PathBuf {
    let parent = match store.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = store
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "store".into());
    crate::stale::clean(&parent, &name, "outcore-stream");
    parent.join(format!(".{name}.outcore-stream-{}", std::process::id()))
}

impl EdgeSource for BatchSource {
    fn describe(&self) -> String {
        self.name.clone()
    }

    fn expected_edges(&self) -> Option<u64> {
        self.rows_hint
    }

    fn string_ids(&self) -> bool {
        self.strings
    }

    fn for_each_named_batch(&mut self, f: &mut dyn FnMut(&NamedBatch) -> Result<()>) -> Result<()> {
        ids_are(&self.name, self.strings, true)?;
        self.run(NAMED_ROWS, &named_batch, &mut |b: NamedBatch| f(&b))
    }

    fn for_each_edge_batch(&mut self, f: &mut dyn FnMut(&[RawEdge]) -> Result<()>) -> Result<()> {
        ids_are(&self.name, self.strings, false)?;
        self.run(ROWS, &int_batch, &mut |edges: Vec<RawEdge>| f(&edges))
    }
}
