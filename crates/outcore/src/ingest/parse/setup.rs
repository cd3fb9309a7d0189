//! Opening the inputs as a [`FileSource`]: the options checked against the
//! format, the files resolved (LDBC) and checked up front, each format's
//! parser chosen (csv/tsv columns and header rows resolved, Matrix Market
//! headers read), and `--ids auto`'s choice between integer and string ids
//! from the first data line.

use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use super::input::{self, InputFile};
use super::shape::{self, Layout};
use super::{binary, ldbc, mtx, named, sniff, text};
use super::{FileSource, IdKind, InputFormat, Kind, Named, ParseOptions};
use crate::error::{escape_text, Error, Result};

/// Bytes of text per block when ids are strings.
const NAMED_BLOCK_SIZE: usize = 1 << 20;

/// `--ids auto` chose strings: says so.
fn note_strings(file: &InputFile, line: u64, text: &[u8], announced: bool) {
    if !crate::progress::quiet() {
        eprintln!(
            "note: {}:{line}: the vertex ids of `{}` are not integers; reading every id as a string (--ids string){}",
            file.path.display(),
            escape_text(text, 80),
            match announced {
                true => "",
                false => "; this line is read as data (pass --header if it names the columns)",
            }
        );
    }
}

/// The error for a data line whose ids are not integers where integers are
/// read, with the ways out.
fn not_integers(
    file: &InputFile,
    line: &(u64, Vec<u8>),
    layout: &Layout,
    opts: &ParseOptions,
    announced: bool,
) -> Error {
    let mut hints = Vec::new();
    if !announced {
        hints.push("a header row? pass --header");
    }
    let what = match layout.delim {
        None => {
            "expected two non-negative integer vertex ids (`src dst`, separated by spaces or tabs)"
                .to_string()
        }
        Some(d) => {
            hints.push("other columns? pass --columns SRC,DST");
            hints.push("another separator? pass --delimiter");
            format!(
                "expected {} rows with non-negative integer vertex ids in columns {} and {} (0-based)",
                text::separated(d),
                layout.cols.0,
                layout.cols.1
            )
        }
    };
    hints.push(opts.not_integers_hint());
    Error::parse(
        &file.path,
        line.0,
        &line.1,
        format!("{what} ({})", hints.join("; ")),
    )
}

/// Refuses inputs that are not text by their first bytes, naming the format
/// they look like ([`sniff`]), and marks gzip ones for decompression by
/// their bytes, not their name.
fn recognise(file: &mut InputFile, format: InputFormat) -> Result<()> {
    let raw = input::head(file, false, sniff::HEAD)?;
    file.gz = sniff::sniff(&raw) == sniff::Kind::Gzip;
    let (head, inside) = match file.gz {
        true => (input::head(file, true, sniff::HEAD)?, " inside gzip"),
        false => (raw, ""),
    };
    match sniff::sniff(&head) {
        sniff::Kind::Text => Ok(()),
        sniff::Kind::Binary => {
            let nul = head.iter().position(|&b| b == 0).unwrap_or(0);
            let start = head[..nul]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            let end = head[nul..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(head.len(), |i| nul + i);
            let line = 1 + head[..nul].iter().filter(|&&b| b == b'\n').count() as u64;
            Err(Error::parse(
                &file.path,
                line,
                &head[start..end],
                format!(
                    "expected lines of text ({format}); this line holds a NUL byte{inside}: is the file binary? (binary edge lists need --format bin32 or bin64)"
                ),
            ))
        }
        kind => Err(Error::Invalid(format!(
            "{}: this looks like {}{inside} (by its first bytes), not a {format} edge list; {}",
            file.path.display(),
            kind.name(),
            kind.hint()
        ))),
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
        check_options(format, opts)?;
        let (mut vertex_files, mut edge_files) = if format == InputFormat::Ldbc {
            let files = ldbc::resolve(inputs)?;
            (files.vertices, files.edges)
        } else {
            let files = inputs
                .iter()
                .map(|p| input::check(p))
                .collect::<Result<Vec<_>>>()?;
            (Vec::new(), files)
        };
        if format.is_text() {
            for f in vertex_files.iter_mut().chain(edge_files.iter_mut()) {
                recognise(f, format)?;
            }
        }
        if format != InputFormat::Mtx && format.is_text() {
            for f in &edge_files {
                if shape::is_matrix_market(f)? {
                    return Err(Error::Invalid(format!(
                        "{}: this is a Matrix Market file (it starts with %%MatrixMarket), not {format}; read it with --format mtx",
                        f.path.display()
                    )));
                }
            }
        }
        let mut skip = vec![0u64; edge_files.len()];
        let mut strings = opts.ids == IdKind::String;
        // Why each edge file has no edge (`None`: it has one).
        let mut empty: Vec<Option<String>> = vec![None; edge_files.len()];
        let kind = match format {
            InputFormat::Snap | InputFormat::Ldbc | InputFormat::Csv | InputFormat::Tsv => {
                let (kind, layouts) = if format.is_delimited() {
                    let p = delimited(&edge_files, format, opts)?;
                    let layouts = p
                        .columns
                        .iter()
                        .map(|c| Layout {
                            delim: Some(p.delim),
                            cols: (c.src, c.dst),
                        })
                        .collect();
                    (Kind::Delimited(Arc::new(p)), layouts)
                } else {
                    let p = text::SnapParser {
                        weighted: opts.weighted,
                        ids_hint: opts.not_integers_hint(),
                    };
                    (
                        Kind::Snap(Arc::new(p)),
                        vec![Layout::BLANKS; edge_files.len()],
                    )
                };
                strings = text_starts(&edge_files, &layouts, opts, &mut skip, &mut empty)?;
                kind
            }
            InputFormat::Mtx => {
                let headers = edge_files
                    .iter()
                    .map(mtx::read_header)
                    .collect::<Result<Vec<_>>>()?;
                for (i, (f, h)) in edge_files.iter().zip(&headers).enumerate() {
                    if opts.weighted && h.field == mtx::Field::Pattern {
                        return Err(Error::Invalid(format!(
                            "{}: a `pattern` matrix has no values; it cannot be read weighted",
                            f.path.display()
                        )));
                    }
                    if h.nnz == 0 {
                        empty[i] = Some(format!(
                            "declares no entries (its size line is `{} {} 0`)",
                            h.rows, h.cols
                        ));
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
                for (i, f) in edge_files.iter().enumerate() {
                    binary::check_size(f, parser.record_size())?;
                    if input::head(f, f.gz, 1)?.is_empty() {
                        empty[i] = Some("is empty".into());
                    }
                }
                Kind::Bin(Arc::new(parser))
            }
            InputFormat::Parquet | InputFormat::Arrow => {
                return Err(Error::Invalid(format!(
                    "{format} inputs are read by the columnar reader (parse::open)"
                )))
            }
        };
        if !opts.allow_empty && empty.iter().all(Option::is_some) {
            let why: Vec<String> = edge_files
                .iter()
                .zip(&empty)
                .map(|(f, w)| format!("{} {}", f.path.display(), w.as_deref().unwrap_or("")))
                .collect();
            return Err(Error::Invalid(format!(
                "the input has no edges: {} (the wrong file? pass --allow-empty to build a store without edges)",
                why.join("; ")
            )));
        }
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

/// Refuses options that do not apply to `format`.
fn check_options(format: InputFormat, opts: &ParseOptions) -> Result<()> {
    if opts.columns.is_some() && !format.is_delimited() {
        return Err(Error::Invalid(format!(
            "column selection applies only to csv and tsv inputs, not {format}"
        )));
    }
    if opts.header && !(format.is_delimited() || format == InputFormat::Snap) {
        return Err(Error::Invalid(format!(
            "header lines apply only to snap, csv and tsv inputs, not {format}"
        )));
    }
    if opts.delimiter.is_some() && !format.is_delimited() {
        return Err(Error::Invalid(format!(
            "--delimiter applies only to csv and tsv inputs, not {format}"
        )));
    }
    if opts.weighted && !format.is_text() {
        return Err(Error::Invalid(format!(
            "{format} inputs carry no weights; they cannot be read weighted"
        )));
    }
    if opts.ids == IdKind::String && !(format.is_text() && format != InputFormat::Mtx) {
        return Err(Error::Invalid(format!(
            "--ids string applies to text formats (snap, csv, tsv, ldbc), not {format}"
        )));
    }
    Ok(())
}

/// The csv/tsv parser: the separator, and the columns of each file (names
/// resolved in each file's header).
fn delimited(
    files: &[InputFile],
    format: InputFormat,
    opts: &ParseOptions,
) -> Result<text::DelimitedParser> {
    let delim = opts.delimiter.unwrap_or(match format {
        InputFormat::Csv => b',',
        _ => b'\t',
    });
    let columns = files
        .iter()
        .map(|f| {
            let header = announced(opts);
            shape::resolve_columns(f, delim, header, opts.columns.as_deref(), opts.weighted)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(text::DelimitedParser {
        delim,
        columns,
        ids_hint: opts.not_integers_hint(),
    })
}

/// Whether each file's first line is a header: `--header`, or column names
/// (which need one).
fn announced(opts: &ParseOptions) -> bool {
    let named_columns = opts.columns.as_deref().is_some_and(|c| {
        c.split(',')
            .take(2)
            .any(|p| p.trim().parse::<usize>().is_err())
    });
    opts.header || named_columns
}

/// Reads how each text edge file starts ([`shape::start`]): the header
/// lines to skip, whether it has data (`empty` says why not), and with
/// `--ids auto` whether the ids are strings, decided by the first data
/// line of the input. Returns whether the ids are strings.
fn text_starts(
    files: &[InputFile],
    layouts: &[Layout],
    opts: &ParseOptions,
    skip: &mut [u64],
    empty: &mut [Option<String>],
) -> Result<bool> {
    let announced = announced(opts);
    let mut strings = opts.ids == IdKind::String;
    let mut decided = opts.ids != IdKind::Auto;
    for (i, f) in files.iter().enumerate() {
        let start = shape::start(f, &layouts[i], announced, strings)?;
        if let Some(line) = &start.names {
            if decided {
                return Err(not_integers(f, line, &layouts[i], opts, announced));
            }
            strings = true;
            note_strings(f, line.0, &line.1, announced);
        }
        decided |= start.data;
        skip[i] = start.skip;
        if !start.data {
            empty[i] = Some(shape::why_no_data(f, start.skip)?.to_string());
        }
    }
    Ok(strings)
}
