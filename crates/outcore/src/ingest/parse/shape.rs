//! Recognising text inputs by their first lines: Matrix Market files
//! whatever their name, header rows that were not announced, string ids
//! (`--ids auto`), files with no data line, and the columns a csv/tsv
//! header names. SNAP, LDBC `.e`, csv and
//! tsv share it; only where the fields of a line are differs ([`Layout`]).

use super::input::{InputFile, LineReader};
use super::lex::{clean_field, is_blank, skip_blanks};
use super::text::{split_fields, Columns};
use crate::error::{escape_text, Error, Result};

/// True when `file` starts with the Matrix Market banner.
pub(crate) fn is_matrix_market(file: &InputFile) -> Result<bool> {
    let mut r = LineReader::open(file)?;
    Ok(r.next_line()?
        .is_some_and(|l| l.len() >= 14 && l[..14].eq_ignore_ascii_case(b"%%MatrixMarket")))
}

/// Where the vertex ids of a text line are.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    /// csv/tsv: the field separator; `None`: fields end at blanks (snap, ldbc).
    pub delim: Option<u8>,
    /// The 0-based source and target columns.
    pub cols: (usize, usize),
}

impl Layout {
    /// Blank-separated `src dst` (snap, ldbc).
    pub(crate) const BLANKS: Layout = Layout {
        delim: None,
        cols: (0, 1),
    };

    /// Whether the parser skips `line`: blank, or a comment (`#`, and `%`
    /// when fields end at blanks), as `for_each_line` and `for_each_row` do.
    fn skipped(&self, line: &[u8]) -> bool {
        let p = skip_blanks(line, 0);
        match line.get(p) {
            None => true,
            Some(b'#') => true,
            Some(b'%') => self.delim.is_none(),
            Some(_) => false,
        }
    }

    /// Whether both id fields of `line` are integers as written (digits
    /// after an optional sign, whatever their size: a negative or too
    /// large id is an integer the parser refuses, naming its line); `None`
    /// when the line has no target field.
    fn integer_ids(&self, line: &[u8]) -> Option<bool> {
        let (mut src, mut dst) = (None, None);
        let mut look = |i: usize, f: &[u8]| {
            if i == self.cols.0 {
                src = Some(integer(f));
            }
            if i == self.cols.1 {
                dst = Some(integer(f));
            }
        };
        match self.delim {
            Some(d) => split_fields(line, d, |i, f| {
                look(i, clean_field(f));
                i < self.cols.0.max(self.cols.1)
            }),
            None => line
                .split(|&b| is_blank(b))
                .filter(|t| !t.is_empty())
                .take(2)
                .enumerate()
                .for_each(|(i, t)| look(i, t)),
        }
        Some(src? && dst?)
    }
}

/// Digits after an optional sign.
fn integer(f: &[u8]) -> bool {
    let digits = match f.first() {
        Some(b'+' | b'-') => &f[1..],
        _ => f,
    };
    !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
}

/// A line of a file with its 1-based number.
type Line = (u64, Vec<u8>);

/// The next line the parser reads (neither blank nor a comment).
fn data_line(r: &mut LineReader, layout: &Layout) -> Result<Option<Line>> {
    while let Some(l) = r.next_line()? {
        if !layout.skipped(&l) {
            return Ok(Some((r.lines, l)));
        }
    }
    Ok(None)
}

/// How a text file starts.
#[derive(Debug)]
pub(crate) struct Start {
    /// Lines not read as data at the start: the announced header (line 1)
    /// and a header row found below it.
    pub skip: u64,
    /// Whether a data line follows them.
    pub data: bool,
    /// The first data line, when its ids are not integers and no line of
    /// integer ids follows it (so it is no header): names, or a mistake.
    pub names: Option<Line>,
}

/// How `file` starts. `announced`: its first line is a header (`--header`).
/// Unless `strings` (ids known to be strings), a first data line whose ids
/// are not integers followed by one whose ids are is a header row: it is
/// skipped, and a note on stderr says so.
pub(crate) fn start(
    file: &InputFile,
    layout: &Layout,
    announced: bool,
    strings: bool,
) -> Result<Start> {
    let mut r = LineReader::open(file)?;
    if announced {
        r.next_line()?;
    }
    let skip = r.lines;
    let Some(first) = data_line(&mut r, layout)? else {
        return Ok(Start {
            skip,
            data: false,
            names: None,
        });
    };
    if strings || layout.integer_ids(&first.1) != Some(false) {
        return Ok(Start {
            skip,
            data: true,
            names: None,
        });
    }
    let next = data_line(&mut r, layout)?;
    if next.is_some_and(|(_, l)| layout.integer_ids(&l) == Some(true)) {
        if !crate::progress::quiet() {
            eprintln!(
                "note: {}:{}: `{}` is not numeric while the next line is; reading it as a header (pass --header to say so)",
                file.path.display(),
                first.0,
                escape_text(&first.1, 80),
            );
        }
        return Ok(Start {
            skip: first.0,
            data: true,
            names: None,
        });
    }
    Ok(Start {
        skip,
        data: true,
        names: Some(first),
    })
}

/// Why `file` (with `skip` lines not read) has no data line, for the
/// message refusing an input without edges.
pub(crate) fn why_no_data(file: &InputFile, skip: u64) -> Result<&'static str> {
    let mut r = LineReader::open(file)?;
    let mut lines = 0u64;
    while r.next_line()?.is_some() {
        lines += 1;
    }
    Ok(match lines {
        0 => "is empty",
        n if n <= skip => "holds only a header",
        _ if skip > 0 => "holds only a header, comments and blank lines",
        _ => "holds only comments and blank lines",
    })
}

/// Resolves the `columns` option for one CSV/TSV file (reading its header
/// line when `header` is set).
pub(crate) fn resolve_columns(
    file: &InputFile,
    delim: u8,
    header: bool,
    columns: Option<&str>,
    weighted: bool,
) -> Result<Columns> {
    let names: Option<Vec<String>> = if header {
        let mut r = LineReader::open(file)?;
        let line = r.next_line()?.unwrap_or_default();
        let mut names = Vec::new();
        split_fields(&line, delim, |_, f| {
            names.push(String::from_utf8_lossy(clean_field(f)).into_owned());
            true
        });
        Some(names)
    } else {
        None
    };
    let Some(spec) = columns else {
        return Ok(Columns {
            src: 0,
            dst: 1,
            weight: weighted.then_some(2),
        });
    };
    let what = if header {
        "0-based indices or header names"
    } else {
        "0-based indices"
    };
    let parts = column_parts(spec, weighted, what)?;
    let mut idx = [0usize; 3];
    for (k, part) in parts.iter().enumerate() {
        idx[k] = resolve_one(part, names.as_deref(), file, spec)?;
    }
    Ok(Columns {
        src: idx[0],
        dst: idx[1],
        weight: weighted.then_some(idx[2]),
    })
}

/// The parts of a `--columns` spec (SRC,DST or SRC,DST,W, trimmed),
/// checked against whether the input is read weighted; `what` says what
/// a part may be, for the error. Shared by the text and columnar readers.
pub(crate) fn column_parts<'a>(spec: &'a str, weighted: bool, what: &str) -> Result<Vec<&'a str>> {
    let parts: Vec<&str> = spec.split(',').map(str::trim).collect();
    let why = match (parts.len(), weighted) {
        (2, false) | (3, true) => return Ok(parts),
        (3, false) => "names a weight column but the input is not read weighted \
             (ask for weights, or give only SRC,DST)"
            .to_string(),
        (2, true) => "has no weight column but the input is read weighted (give SRC,DST,W)".into(),
        _ => format!("expected SRC,DST or SRC,DST,W ({what})"),
    };
    let sep = if why.starts_with("expected") { ":" } else { "" };
    Err(Error::Invalid(format!("columns `{spec}`{sep} {why}")))
}

fn resolve_one(
    part: &str,
    names: Option<&[String]>,
    file: &InputFile,
    spec: &str,
) -> Result<usize> {
    if let Some(names) = names {
        if let Some(i) = names.iter().position(|n| n == part) {
            return Ok(i);
        }
        let folded: Vec<usize> = (0..names.len())
            .filter(|&i| names[i].eq_ignore_ascii_case(part))
            .collect();
        if folded.len() == 1 {
            return Ok(folded[0]);
        }
        if let Ok(i) = part.parse::<usize>() {
            if i < names.len() {
                return Ok(i);
            }
        }
        return Err(Error::Invalid(format!(
            "columns `{spec}`: `{part}` is not a column of the header of {} (its columns are: {})",
            file.path.display(),
            names.join(", ")
        )));
    }
    part.parse::<usize>().map_err(|_| {
        Error::Invalid(format!(
            "columns `{spec}`: `{part}` is not a 0-based column index (column names need a header line)"
        ))
    })
}
