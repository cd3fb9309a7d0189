//! Edge-list parsers: SNAP, CSV/TSV, Matrix Market, LDBC Graphalytics and
//! packed binary, plain or gzipped, as one [`EdgeSource`].
//!
//! Several input files form one stream, read in the given order. Files are
//! read in blocks by a reader thread (which also decompresses `.gz`), the
//! blocks are parsed in parallel on rayon, and batches are delivered strictly
//! in input order (one batch per block, up to a few million edges). Memory
//! stays bounded at about [`pipeline_memory_bytes`] whatever the input size.
//!
//! Progress: `input_bytes()` is the total size of the files on disk
//! (compressed size for `.gz`); `bytes_consumed()` counts the bytes read from
//! disk so far (compressed bytes for `.gz`), running slightly ahead of the
//! delivered batches. The edge pass restarts the count after the vertex files
//! (LDBC `.v`), so each pass can be repeated.

mod binary;
mod columnar;
mod input;
mod ldbc;
mod lex;
mod mtx;
pub mod named;
mod pipeline;
mod sample;
mod setup;
mod shape;
mod sniff;
mod source;
mod text;

#[cfg(test)]
mod tests;

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

pub use self::columnar::BatchSource;
use self::input::InputFile;
use self::pipeline::DEFAULT_BLOCK_SIZE;
use crate::error::{Error, Result};
use crate::ingest::EdgeSource;

/// A rough estimate of the parser's peak memory while streaming (text blocks
/// in flight plus their parsed batches, assuming lines of 12 bytes or more),
/// for budgeting. It grows with the rayon thread count.
pub fn pipeline_memory_bytes() -> u64 {
    pipeline::memory_estimate()
}

/// The formats `open` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    Snap,
    Csv,
    Tsv,
    Mtx,
    Ldbc,
    Bin32,
    Bin64,
    /// Parquet files or directories of them (a dataset).
    Parquet,
    /// Arrow IPC (Feather v2) files.
    Arrow,
}

impl InputFormat {
    /// Every format, in the order they are listed to users.
    pub const ALL: [InputFormat; 9] = [
        InputFormat::Snap,
        InputFormat::Csv,
        InputFormat::Tsv,
        InputFormat::Mtx,
        InputFormat::Ldbc,
        InputFormat::Bin32,
        InputFormat::Bin64,
        InputFormat::Parquet,
        InputFormat::Arrow,
    ];

    /// The name accepted by `from_str` ("snap", "csv", ...).
    pub fn name(self) -> &'static str {
        match self {
            InputFormat::Snap => "snap",
            InputFormat::Csv => "csv",
            InputFormat::Tsv => "tsv",
            InputFormat::Mtx => "mtx",
            InputFormat::Ldbc => "ldbc",
            InputFormat::Bin32 => "bin32",
            InputFormat::Bin64 => "bin64",
            InputFormat::Parquet => "parquet",
            InputFormat::Arrow => "arrow",
        }
    }

    fn is_delimited(self) -> bool {
        matches!(self, InputFormat::Csv | InputFormat::Tsv)
    }

    /// Read as lines of text (sniffed as such, string ids allowed).
    fn is_text(self) -> bool {
        !matches!(
            self,
            InputFormat::Bin32 | InputFormat::Bin64 | InputFormat::Parquet | InputFormat::Arrow
        )
    }

    /// Parquet or Arrow: columns read with the arrow-rs crates.
    pub fn is_columnar(self) -> bool {
        matches!(self, InputFormat::Parquet | InputFormat::Arrow)
    }
}

impl fmt::Display for InputFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for InputFormat {
    type Err = Error;

    fn from_str(s: &str) -> Result<InputFormat> {
        let t = s.trim();
        InputFormat::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(t))
            .ok_or_else(|| {
                let names: Vec<&str> = InputFormat::ALL.iter().map(|f| f.name()).collect();
                Error::Invalid(format!(
                    "unknown input format `{s}` (expected one of: {})",
                    names.join(", ")
                ))
            })
    }
}

/// How to read the inputs.
#[derive(Clone, Debug, Default)]
pub struct ParseOptions {
    /// Read a weight column (3rd field / W column / mtx value); a missing or
    /// non-numeric weight is an error. Unweighted edges get weight 1.0.
    pub weighted: bool,
    /// snap/csv/tsv: the first line of each file is a header. (A first
    /// data line whose ids are not integers followed by one whose ids are
    /// is taken as a header anyway, with a note.)
    pub header: bool,
    /// csv/tsv: `SRC,DST[,W]` as 0-based column indices, or header names when `header`.
    pub columns: Option<String>,
    /// mtx symmetric: each off-diagonal entry (i,j) yields both (i,j) and (j,i).
    pub directed: bool,
    /// csv/tsv: the field separator (default `,` for csv, tab for tsv).
    pub delimiter: Option<u8>,
    /// What the vertex ids are (text formats).
    pub ids: IdKind,
    /// Accept an input without edges (empty files, only comments or a
    /// header): a store without edges. Refused by default, as a sign of
    /// the wrong file or options.
    pub allow_empty: bool,
    /// The ids are a store's (an update's edges): `ids` is the kind that
    /// store holds, not a choice, so a line of the other kind is refused
    /// as such, with no advice to read ids of the other kind.
    pub store_ids: bool,
}

impl ParseOptions {
    /// The way out of ids that are not integers where integers are read:
    /// read them as strings, or (a store's ids) none but the store's kind.
    pub(crate) fn not_integers_hint(&self) -> &'static str {
        match self.store_ids {
            true => "this store's vertex ids are integers: an update gives ids of the same kind",
            false => "vertex ids that are not integers? pass --ids string",
        }
    }
}

/// What vertex ids an input holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IdKind {
    /// Non-negative integers below 2^64 (the library's default).
    #[default]
    Int,
    /// Arbitrary byte strings ([`crate::ingest::names`]): text formats only.
    String,
    /// Strings when the ids of the first data line of the first edge file
    /// are not integers (digits, whatever their size) and it is no header
    /// (no line of integer ids follows it), else integers (the CLI's
    /// default).
    Auto,
}

impl FromStr for IdKind {
    type Err = Error;

    fn from_str(s: &str) -> Result<IdKind> {
        match s.trim().to_ascii_lowercase().as_str() {
            "int" | "integer" => Ok(IdKind::Int),
            "string" | "str" => Ok(IdKind::String),
            "auto" => Ok(IdKind::Auto),
            _ => Err(Error::Invalid(format!(
                "unknown id kind `{s}` (expected one of: auto, int, string)"
            ))),
        }
    }
}

/// Opens `inputs` (one stream, in order) as an edge source. Every input is
/// checked up front (exists, readable, header/size where known) and the
/// options are validated against the format.
pub fn open(
    inputs: &[PathBuf],
    format: InputFormat,
    opts: &ParseOptions,
) -> Result<Box<dyn EdgeSource>> {
    if format.is_columnar() {
        return Ok(Box::new(columnar::ColumnarSource::open(inputs, opts)?));
    }
    Ok(Box::new(FileSource::open(
        inputs,
        format,
        opts,
        DEFAULT_BLOCK_SIZE,
    )?))
}

/// Parquet or Arrow when the first bytes of the file at `path` say so
/// (whatever its name), or when it is a directory (a Parquet dataset).
pub fn columnar_format(path: &std::path::Path) -> Result<Option<InputFormat>> {
    if path.is_dir() {
        return Ok(Some(InputFormat::Parquet));
    }
    input::check(path)?;
    Ok(match columnar::columnar_kind(path)? {
        Some(sniff::Kind::Parquet) => Some(InputFormat::Parquet),
        Some(_) => Some(InputFormat::Arrow),
        None => None,
    })
}

/// [`open`] reading blocks of `block_size` bytes: small blocks exercise the
/// cuts between blocks (tests and fuzz targets; `open` takes 4 MiB).
#[doc(hidden)]
pub fn open_with_block_size(
    inputs: &[PathBuf],
    format: InputFormat,
    opts: &ParseOptions,
    block_size: usize,
) -> Result<Box<dyn EdgeSource>> {
    Ok(Box::new(FileSource::open(
        inputs, format, opts, block_size,
    )?))
}

/// True when the file at `path` (gzip or not) starts with the Matrix
/// Market banner `%%MatrixMarket`, whatever its name.
pub fn is_matrix_market(path: &std::path::Path) -> Result<bool> {
    let mut file = input::check(path)?;
    if !file.gz && sniff::sniff(&input::head(&file, false, sniff::HEAD)?) == sniff::Kind::Gzip {
        // Compressed by its first bytes only: a binary list may start so.
        file.gz = true;
        return Ok(shape::is_matrix_market(&file).unwrap_or(false));
    }
    shape::is_matrix_market(&file)
}

/// The parser of the edge files.
enum Kind {
    Snap(Arc<text::SnapParser>),
    Delimited(Arc<text::DelimitedParser>),
    Mtx(Arc<mtx::MtxParser>),
    Bin(Arc<binary::BinParser>),
}

/// The parsers of an input with string ids.
struct Named {
    edges: Arc<named::NamedParser>,
    vertices: Arc<named::NamedParser>,
}

/// Parsed input files as an [`EdgeSource`] (opened in `setup.rs`, read in
/// `source.rs`).
pub(crate) struct FileSource {
    /// Set when the vertex ids are strings.
    named: Option<Named>,
    name: String,
    vertex_files: Vec<InputFile>,
    edge_files: Vec<InputFile>,
    kind: Kind,
    /// Lines to skip at the start of each edge file (headers).
    skip: Vec<u64>,
    consumed: Arc<AtomicU64>,
    block_size: usize,
}
