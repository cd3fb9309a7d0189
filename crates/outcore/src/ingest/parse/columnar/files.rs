//! The files of a Parquet or Arrow IPC input: directories expanded into
//! their Parquet files (a dataset), each file's schema and groups read
//! from its footer up front, and one group (a Parquet row group, an IPC
//! record batch) read as record batches of the chosen columns.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use arrow_ipc::reader::FileReader;
use arrow_schema::SchemaRef;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder, RowSelection,
    RowSelector,
};
use parquet::arrow::ProjectionMask;

use super::super::input;
use super::super::sniff::{self, Kind};
use crate::error::{Error, IoContext, Result};

/// How a file holds its groups.
pub(crate) enum Container {
    /// A Parquet file's footer, read once.
    Parquet(ArrowReaderMetadata),
    /// An Arrow IPC file of this many record batches.
    Ipc { batches: usize },
}

/// One Parquet or Arrow IPC file, its footer read.
pub(crate) struct ColFile {
    pub path: PathBuf,
    pub size: u64,
    pub schema: SchemaRef,
    pub container: Container,
}

impl ColFile {
    /// Row groups (Parquet) or record batches (IPC).
    pub fn groups(&self) -> usize {
        match &self.container {
            Container::Parquet(m) => m.metadata().num_row_groups(),
            Container::Ipc { batches } => *batches,
        }
    }

    /// Rows in all, when the footer says (Parquet).
    pub fn rows(&self) -> Option<u64> {
        match &self.container {
            Container::Parquet(m) => Some(m.metadata().file_metadata().num_rows().max(0) as u64),
            Container::Ipc { .. } => None,
        }
    }

    /// Rows in group `g` (Parquet; 0 for IPC, whose footer does not say).
    pub fn group_rows(&self, g: usize) -> u64 {
        match &self.container {
            Container::Parquet(m) => m.metadata().row_group(g).num_rows().max(0) as u64,
            Container::Ipc { .. } => 0,
        }
    }

    /// About the bytes of group `g` on disk (for progress).
    pub fn group_bytes(&self, g: usize) -> u64 {
        match &self.container {
            Container::Parquet(m) => m.metadata().row_group(g).compressed_size().max(0) as u64,
            Container::Ipc { batches } => self.size / (*batches).max(1) as u64,
        }
    }

    /// What a group is called in messages.
    pub fn group_word(&self) -> &'static str {
        match &self.container {
            Container::Parquet(_) => "row group",
            Container::Ipc { .. } => "record batch",
        }
    }

    /// Reads group `g`'s columns `cols` (ascending root column indices;
    /// the batches hold them in that order) in batches of up to `rows`
    /// rows, passing each to `f`.
    pub fn read_group(
        &self,
        g: usize,
        cols: &[usize],
        rows: usize,
        f: &mut dyn FnMut(RecordBatch) -> Result<()>,
    ) -> Result<()> {
        self.read(g, cols, rows, None, f)
    }

    /// [`Self::read_group`], only the rows of `selection` of a Parquet
    /// group (an IPC batch is read whole).
    fn read(
        &self,
        g: usize,
        cols: &[usize],
        rows: usize,
        selection: Option<RowSelection>,
        f: &mut dyn FnMut(RecordBatch) -> Result<()>,
    ) -> Result<()> {
        let file = File::open(&self.path).at(&self.path)?;
        let corrupt = |e: &dyn std::fmt::Display| self.corrupt(g, e);
        match &self.container {
            Container::Parquet(meta) => {
                let mask = ProjectionMask::roots(meta.parquet_schema(), cols.iter().copied());
                let mut builder =
                    ParquetRecordBatchReaderBuilder::new_with_metadata(file, meta.clone())
                        .with_row_groups(vec![g])
                        .with_projection(mask)
                        .with_batch_size(rows);
                if let Some(sel) = selection {
                    builder = builder.with_row_selection(sel);
                }
                let reader = builder.build().map_err(|e| corrupt(&e))?;
                for batch in reader {
                    f(batch.map_err(|e| corrupt(&e))?)?;
                }
            }
            Container::Ipc { .. } => {
                let mut reader = FileReader::try_new(BufReader::new(file), Some(cols.to_vec()))
                    .map_err(|e| corrupt(&e))?;
                reader.set_index(g).map_err(|e| corrupt(&e))?;
                match reader.next() {
                    Some(batch) => f(batch.map_err(|e| corrupt(&e))?)?,
                    None => return Err(corrupt(&"the record batch is missing")),
                }
            }
        }
        Ok(())
    }

    /// Reads runs of up to `per` rows of group `g`'s columns `cols`, one
    /// at each of `at` (ascending fractions of the group's rows; a run ends
    /// where the next begins): a sample, read through a Parquet row
    /// selection, so only the pages that hold the runs are decoded.
    pub fn sample_group(
        &self,
        g: usize,
        cols: &[usize],
        at: &[f64],
        per: usize,
        f: &mut dyn FnMut(RecordBatch) -> Result<()>,
    ) -> Result<()> {
        // The runs of a group of `rows` rows, as (start, length).
        let runs = |rows: usize| {
            let start = move |i: usize| match at.get(i) {
                Some(&x) => ((x * rows as f64) as usize).min(rows),
                None => rows,
            };
            (0..at.len()).map(move |i| (start(i), per.min(start(i + 1) - start(i))))
        };
        match &self.container {
            Container::Parquet(_) => {
                let rows = self.group_rows(g) as usize;
                let mut sel = Vec::new();
                let mut pos = 0;
                for (at, len) in runs(rows).filter(|r| r.1 > 0) {
                    sel.push(RowSelector::skip(at - pos));
                    sel.push(RowSelector::select(len));
                    pos = at + len;
                }
                match sel.is_empty() {
                    true => Ok(()),
                    false => self.read(g, cols, per.max(1), Some(RowSelection::from(sel)), f),
                }
            }
            // A record batch is read whole; the runs are slices of it.
            Container::Ipc { .. } => self.read_group(g, cols, usize::MAX, &mut |batch| {
                for (at, len) in runs(batch.num_rows()).filter(|r| r.1 > 0) {
                    f(batch.slice(at, len))?;
                }
                Ok(())
            }),
        }
    }

    /// The error for a group that cannot be decoded.
    fn corrupt(&self, g: usize, e: &dyn std::fmt::Display) -> Error {
        Error::Invalid(format!(
            "{}: {} {g}: cannot be read: {e} (is the file corrupt or truncated?)",
            self.path.display(),
            self.group_word()
        ))
    }
}

/// The files of `inputs`, in order: a directory stands for the Parquet and
/// Arrow files under it (a dataset; Hive-style `key=value` folders are read
/// through, their keys ignored), in path order, skipping names that start
/// with `.` or `_` (`_SUCCESS`, `_metadata`). Every file's footer is read.
pub(crate) fn open_all(inputs: &[PathBuf]) -> Result<Vec<ColFile>> {
    // Every input exists and can be read before any is looked into, as for
    // the text formats: a missing file is named as missing, whatever else
    // is wrong with the others.
    for p in inputs.iter().filter(|p| !p.is_dir()) {
        input::check(p)?;
    }
    let mut files = Vec::new();
    for p in inputs {
        if p.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found)?;
            found.sort();
            let before = files.len();
            for f in found {
                if let Some(kind) = columnar_kind(&f)? {
                    files.push(open_file(&f, kind)?);
                }
            }
            if files.len() == before {
                return Err(Error::Invalid(format!(
                    "{}: this directory holds no Parquet or Arrow file (expected a dataset of .parquet files)",
                    p.display()
                )));
            }
        } else {
            let f = input::check(p)?;
            let kind = columnar_kind(&f.path)?.ok_or_else(|| {
                let head = input::head(&f, false, sniff::HEAD).unwrap_or_default();
                Error::Invalid(format!(
                    "{}: this is not a Parquet or Arrow IPC file (it looks like {}); \
                     Parquet and Arrow inputs cannot be mixed with other formats in one import",
                    f.path.display(),
                    sniff::sniff(&head).name()
                ))
            })?;
            files.push(open_file(&f.path, kind)?);
        }
    }
    Ok(files)
}

/// Parquet or Arrow IPC by the first bytes of the file at `path`.
pub(crate) fn columnar_kind(path: &Path) -> Result<Option<Kind>> {
    let f = input::InputFile {
        path: path.to_path_buf(),
        size: 0,
        gz: false,
    };
    Ok(match sniff::sniff(&input::head(&f, false, sniff::HEAD)?) {
        k @ (Kind::Parquet | Kind::ArrowIpc) => Some(k),
        _ => None,
    })
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for e in std::fs::read_dir(dir).at(dir)? {
        let p = e.at(dir)?.path();
        let hidden = p
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with(['.', '_']));
        if hidden {
            continue;
        }
        if p.is_dir() {
            walk(&p, out)?;
        } else if p.is_file() {
            out.push(p);
        }
    }
    Ok(())
}

fn open_file(path: &Path, kind: Kind) -> Result<ColFile> {
    let file = File::open(path).at(path)?;
    let size = file.metadata().at(path)?.len();
    let bad = |e: &dyn std::fmt::Display| {
        Error::Invalid(format!(
            "{}: cannot be read as {}: {e} (is the file corrupt or truncated?)",
            path.display(),
            kind.name()
        ))
    };
    let (schema, container) = match kind {
        Kind::Parquet => {
            let meta =
                ArrowReaderMetadata::load(&file, ArrowReaderOptions::new()).map_err(|e| bad(&e))?;
            (meta.schema().clone(), Container::Parquet(meta))
        }
        _ => {
            let reader = FileReader::try_new(BufReader::new(file), None).map_err(|e| bad(&e))?;
            (
                reader.schema(),
                Container::Ipc {
                    batches: reader.num_batches(),
                },
            )
        }
    };
    Ok(ColFile {
        path: path.to_path_buf(),
        size,
        schema,
        container,
    })
}
