//! Opening the inputs as a [`FileSource`]: the options checked against the
//! format, the files resolved (LDBC) and checked up front, each format's
//! parser chosen (csv/tsv columns and header rows resolved, Matrix Market
//! headers read), and `--ids auto`'s choice between integer and string ids
//! from the first data line.

use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use super::input::{self, InputFile};
use super::{binary, ldbc, mtx, named, sniff, text};
use super::{FileSource, IdKind, InputFormat, Kind, Named, ParseOptions};
use crate::error::{Error, Result};

/// Bytes of text per block when ids are strings.
const NAMED_BLOCK_SIZE: usize = 1 << 20;

/// `--ids auto` chose strings: says so.
fn note_strings(file: &InputFile, why: &str) {
    if !crate::progress::quiet() {
        eprintln!(
            "note: {}: the first line's vertex ids are not integers; reading every id as a string (--ids string){why}",
            file.path.display()
        );
    }
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
}
