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
mod input;
mod ldbc;
mod lex;
mod mtx;
pub mod named;
mod pipeline;
mod sample;
mod sniff;
mod text;

#[cfg(test)]
mod tests;

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use self::input::InputFile;
use self::pipeline::{BlockParser, Cut, Event, DEFAULT_BLOCK_SIZE};
use crate::error::{Error, Result};
use crate::ingest::{EdgeSource, RawEdge};

/// A rough estimate of the parser's peak memory while streaming (text blocks
/// in flight plus their parsed batches, assuming lines of 12 bytes or more),
/// for budgeting. It grows with the rayon thread count.
pub fn pipeline_memory_bytes() -> u64 {
    pipeline::memory_estimate()
}

/// Bytes of text per block when ids are strings.
const NAMED_BLOCK_SIZE: usize = 1 << 20;

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
}

impl InputFormat {
    /// Every format, in the order they are listed to users.
    pub const ALL: [InputFormat; 7] = [
        InputFormat::Snap,
        InputFormat::Csv,
        InputFormat::Tsv,
        InputFormat::Mtx,
        InputFormat::Ldbc,
        InputFormat::Bin32,
        InputFormat::Bin64,
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
        }
    }

    fn is_delimited(self) -> bool {
        matches!(self, InputFormat::Csv | InputFormat::Tsv)
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
    /// csv/tsv: the first line of each file is a header.
    pub header: bool,
    /// csv/tsv: `SRC,DST[,W]` as 0-based column indices, or header names when `header`.
    pub columns: Option<String>,
    /// mtx symmetric: each off-diagonal entry (i,j) yields both (i,j) and (j,i).
    pub directed: bool,
    /// csv/tsv: the field separator (default `,` for csv, tab for tsv).
    pub delimiter: Option<u8>,
    /// What the vertex ids are (text formats).
    pub ids: IdKind,
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
    /// (after a csv/tsv header) are not integers, else integers (the CLI's
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
    Ok(Box::new(FileSource::open(
        inputs,
        format,
        opts,
        DEFAULT_BLOCK_SIZE,
    )?))
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
    sniff::is_matrix_market(&input::check(path)?)
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

/// `--ids auto` chose strings: says so.
fn note_strings(file: &InputFile, why: &str) {
    if !crate::progress::quiet() {
        eprintln!(
            "note: {}: the first line's vertex ids are not integers; reading every id as a string (--ids string){why}",
            file.path.display()
        );
    }
}

/// Parsed input files as an [`EdgeSource`].
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

impl FileSource {
    /// `open` with a chosen block size (tests use tiny blocks).
    pub(crate) fn open(
        inputs: &[PathBuf],
        format: InputFormat,
        opts: &ParseOptions,
        block_size: usize,
    ) -> Result<FileSource> {
        if inputs.is_empty() {
            return Err(Error::Invalid("no input files given".into()));
        }
        if opts.columns.is_some() && !format.is_delimited() {
            return Err(Error::Invalid(format!(
                "column selection applies only to csv and tsv inputs, not {format}"
            )));
        }
        if opts.header && !format.is_delimited() {
            return Err(Error::Invalid(format!(
                "header lines apply only to csv and tsv inputs, not {format}"
            )));
        }
        if opts.delimiter.is_some() && !format.is_delimited() {
            return Err(Error::Invalid(format!(
                "--delimiter applies only to csv and tsv inputs, not {format}"
            )));
        }
        if opts.weighted && matches!(format, InputFormat::Bin32 | InputFormat::Bin64) {
            return Err(Error::Invalid(format!(
                "{format} inputs carry no weights; they cannot be read weighted"
            )));
        }
        let (vertex_files, edge_files) = if format == InputFormat::Ldbc {
            let files = ldbc::resolve(inputs)?;
            (files.vertices, files.edges)
        } else {
            let files = inputs
                .iter()
                .map(|p| input::check(p))
                .collect::<Result<Vec<_>>>()?;
            (Vec::new(), files)
        };
        if format != InputFormat::Mtx {
            for f in &edge_files {
                if sniff::is_matrix_market(f)? {
                    return Err(Error::Invalid(format!(
                        "{}: this is a Matrix Market file (it starts with %%MatrixMarket), not {format}; read it with --format mtx",
                        f.path.display()
                    )));
                }
            }
        }
        let mut skip = vec![0u64; edge_files.len()];
        let text = matches!(
            format,
            InputFormat::Snap | InputFormat::Ldbc | InputFormat::Csv | InputFormat::Tsv
        );
        if opts.ids == IdKind::String && !text {
            return Err(Error::Invalid(format!(
                "--ids string applies to text formats (snap, csv, tsv, ldbc), not {format}"
            )));
        }
        let mut strings = opts.ids == IdKind::String;
        let kind = match format {
            InputFormat::Snap | InputFormat::Ldbc => {
                if opts.ids == IdKind::Auto {
                    strings = sniff::has_string_ids(&edge_files[0], None, (0, 1), false)?;
                    if strings {
                        note_strings(&edge_files[0], "");
                    }
                }
                Kind::Snap(Arc::new(text::SnapParser {
                    weighted: opts.weighted,
                }))
            }
            InputFormat::Csv | InputFormat::Tsv => {
                let delim = opts.delimiter.unwrap_or(if format == InputFormat::Csv {
                    b','
                } else {
                    b'\t'
                });
                // Column names need a header line.
                let named_columns = opts.columns.as_deref().is_some_and(|c| {
                    c.split(',')
                        .take(2)
                        .any(|p| p.trim().parse::<usize>().is_err())
                });
                let announced = opts.header || named_columns;
                if opts.ids == IdKind::Auto {
                    let f = &edge_files[0];
                    let c = text::resolve_columns(
                        f,
                        delim,
                        announced,
                        opts.columns.as_deref(),
                        opts.weighted,
                    )?;
                    strings = sniff::has_string_ids(f, Some(delim), (c.src, c.dst), announced)?;
                    if strings {
                        let why = if announced {
                            ""
                        } else {
                            "; the first line is read as data (pass --header if it names the columns)"
                        };
                        note_strings(f, why);
                    }
                }
                let mut columns = Vec::with_capacity(edge_files.len());
                for (f, skip) in edge_files.iter().zip(skip.iter_mut()) {
                    let header = announced
                        || (!strings && sniff::has_header(f, delim, opts.columns.as_deref())?);
                    columns.push(text::resolve_columns(
                        f,
                        delim,
                        header,
                        opts.columns.as_deref(),
                        opts.weighted,
                    )?);
                    *skip = header as u64;
                }
                Kind::Delimited(Arc::new(text::DelimitedParser { delim, columns }))
            }
            InputFormat::Mtx => {
                let headers = edge_files
                    .iter()
                    .map(mtx::read_header)
                    .collect::<Result<Vec<_>>>()?;
                for (f, h) in edge_files.iter().zip(&headers) {
                    if opts.weighted && h.field == mtx::Field::Pattern {
                        return Err(Error::Invalid(format!(
                            "{}: a `pattern` matrix has no values; it cannot be read weighted",
                            f.path.display()
                        )));
                    }
                }
                skip = headers.iter().map(|h| h.skip_lines).collect();
                Kind::Mtx(Arc::new(mtx::MtxParser {
                    files: headers,
                    weighted: opts.weighted,
                    directed: opts.directed,
                }))
            }
            InputFormat::Bin32 | InputFormat::Bin64 => {
                let parser = binary::BinParser {
                    wide: format == InputFormat::Bin64,
                };
                for f in &edge_files {
                    binary::check_size(f, parser.record_size())?;
                }
                Kind::Bin(Arc::new(parser))
            }
        };
        let named = strings.then(|| {
            let layout = match &kind {
                Kind::Delimited(p) => named::Layout::Delimited(Arc::clone(p)),
                _ => named::Layout::Blanks {
                    weighted: opts.weighted,
                },
            };
            Named {
                edges: Arc::new(named::NamedParser(layout)),
                vertices: Arc::new(named::NamedParser(named::Layout::Vertices)),
            }
        });
        Ok(FileSource {
            named,
            name: input::describe(inputs),
            vertex_files,
            edge_files,
            kind,
            skip,
            consumed: Arc::new(AtomicU64::new(0)),
            // A block of names parses into several times its size (edges as
            // fingerprints, the names, a table): smaller blocks keep the
            // pipeline inside its share of the budget.
            block_size: if strings {
                block_size.min(NAMED_BLOCK_SIZE)
            } else {
                block_size
            },
        })
    }

    fn vertex_bytes(&self) -> u64 {
        self.vertex_files.iter().map(|f| f.size).sum()
    }

    /// Runs the edge files through `parser`, passing batches to `f`.
    fn edges<P: BlockParser<Item = RawEdge>>(
        &self,
        parser: &Arc<P>,
        cut: Cut,
        f: &mut dyn FnMut(&[RawEdge]) -> Result<()>,
    ) -> Result<()> {
        let mut sink = |ev: Event<'_, RawEdge>| match ev {
            Event::Block(_, items) if !items.is_empty() => f(items),
            _ => Ok(()),
        };
        pipeline::run(
            &self.edge_files,
            cut,
            self.block_size,
            Arc::clone(&self.consumed),
            Arc::clone(parser),
            &mut sink,
        )
    }

    /// Runs the vertex files (`vertices`) or the edge files (headers
    /// skipped) through a line parser.
    fn lines<P: BlockParser>(
        &self,
        vertices: bool,
        parser: Arc<P>,
        sink: &mut dyn FnMut(Event<'_, P::Item>) -> Result<()>,
    ) -> Result<()> {
        let (files, skip) = match vertices {
            true => (&self.vertex_files, vec![0; self.vertex_files.len()]),
            false => (&self.edge_files, self.skip.clone()),
        };
        pipeline::run(
            files,
            Cut::Lines { skip },
            self.block_size,
            Arc::clone(&self.consumed),
            parser,
            sink,
        )
    }

    fn mtx_edges(
        &self,
        parser: &Arc<mtx::MtxParser>,
        f: &mut dyn FnMut(&[RawEdge]) -> Result<()>,
    ) -> Result<()> {
        let mut counter = mtx::EntryCounter::new(self.edge_files.len());
        let files = &self.edge_files;
        let headers = &parser.files;
        let mut sink = |ev: Event<'_, RawEdge>| match ev {
            Event::Block(info, items) => {
                let i = info.file;
                counter.block(
                    &files[i],
                    &headers[i],
                    info.data,
                    info.line_base,
                    info.stats.records,
                    i,
                )?;
                if items.is_empty() {
                    Ok(())
                } else {
                    f(items)
                }
            }
            Event::FileEnd { file } => counter.file_end(&files[file], &headers[file], file),
        };
        pipeline::run(
            files,
            Cut::Lines {
                skip: self.skip.clone(),
            },
            self.block_size,
            Arc::clone(&self.consumed),
            Arc::clone(parser),
            &mut sink,
        )
    }
}

impl EdgeSource for FileSource {
    fn describe(&self) -> String {
        self.name.clone()
    }

    fn input_bytes(&self) -> Option<u64> {
        Some(self.vertex_bytes() + self.edge_files.iter().map(|f| f.size).sum::<u64>())
    }

    fn bytes_consumed(&self) -> u64 {
        self.consumed.load(Ordering::Relaxed)
    }

    fn ids_fit_u32(&self) -> bool {
        match &self.kind {
            Kind::Bin(p) => !p.wide && self.vertex_files.is_empty(),
            Kind::Mtx(p) => p
                .files
                .iter()
                .all(|h| h.rows.max(h.cols) <= u32::MAX as u64),
            _ => false,
        }
    }

    /// Bytes over 8 (a bin32 record, a short text line); gzip about
    /// quadruples the bytes.
    fn expected_edges(&self) -> Option<u64> {
        Some(
            self.edge_files
                .iter()
                .map(|f| if f.gz { 4 * f.size } else { f.size })
                .sum::<u64>()
                / 8,
        )
    }

    fn consumed_counter(&self) -> Option<Arc<AtomicU64>> {
        Some(self.consumed.clone())
    }

    fn for_each_vertex_batch(&mut self, f: &mut dyn FnMut(&[u64]) -> Result<()>) -> Result<()> {
        self.consumed.store(0, Ordering::Relaxed);
        if let Kind::Mtx(p) = &self.kind {
            let n = p
                .files
                .iter()
                .map(|h| h.rows.max(h.cols))
                .max()
                .unwrap_or(0);
            return mtx::vertex_range(n, f);
        }
        if self.vertex_files.is_empty() {
            return Ok(());
        }
        let mut sink = |ev: Event<'_, u64>| match ev {
            Event::Block(_, items) if !items.is_empty() => f(items),
            _ => Ok(()),
        };
        self.lines(true, Arc::new(text::VertexParser), &mut sink)
    }

    fn string_ids(&self) -> bool {
        self.named.is_some()
    }

    fn for_each_named_batch(
        &mut self,
        f: &mut dyn FnMut(&named::NamedBatch) -> Result<()>,
    ) -> Result<()> {
        let Some(named) = &self.named else {
            return Err(Error::Invalid(format!(
                "{}: vertex ids are integers",
                self.name
            )));
        };
        let mut sink = |ev: Event<'_, named::NamedBatch>| match ev {
            Event::Block(_, items) => items.iter().try_for_each(&mut *f),
            _ => Ok(()),
        };
        self.consumed.store(0, Ordering::Relaxed);
        self.lines(true, Arc::clone(&named.vertices), &mut sink)?;
        self.consumed.store(self.vertex_bytes(), Ordering::Relaxed);
        self.lines(false, Arc::clone(&named.edges), &mut sink)
    }

    fn sample_edges(&mut self) -> Result<Option<Vec<RawEdge>>> {
        use sample::{sample, Records};
        let files = &self.edge_files;
        match &self.kind {
            _ if self.named.is_some() => Ok(None),
            Kind::Snap(p) => sample(files, &**p, Records::Lines),
            Kind::Delimited(p) => sample(files, &**p, Records::Lines),
            Kind::Bin(p) => sample(files, &**p, Records::Bytes(p.record_size())),
            // Symmetric matrices add mirrored entries: read whole.
            Kind::Mtx(_) => Ok(None),
        }
    }

    fn for_each_edge_batch(&mut self, f: &mut dyn FnMut(&[RawEdge]) -> Result<()>) -> Result<()> {
        if self.named.is_some() {
            return Err(Error::Invalid(format!(
                "{}: vertex ids are strings; they are read by for_each_named_batch",
                self.name
            )));
        }
        self.consumed.store(self.vertex_bytes(), Ordering::Relaxed);
        let lines = Cut::Lines {
            skip: self.skip.clone(),
        };
        match &self.kind {
            Kind::Snap(p) => self.edges(p, lines, f),
            Kind::Delimited(p) => self.edges(p, lines, f),
            Kind::Mtx(p) => self.mtx_edges(p, f),
            Kind::Bin(p) => self.edges(p, Cut::Records(p.record_size()), f),
        }
    }
}
