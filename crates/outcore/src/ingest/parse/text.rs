//! Text edge lists: SNAP-style whitespace lists (also LDBC `.e`/`.v` files)
//! and CSV/TSV rows with their columns picked ([`Columns`]).

use super::lex::{
    at_field_end, clean_field, is_blank, line_end, parse_id, parse_id_field, parse_weight,
    skip_blanks, token_end, Fault, LocalError,
};
use super::pipeline::{BlockParser, Stats};
use crate::error::Result;
use crate::ingest::RawEdge;

/// Whitespace-separated `src dst [weight]` lines; `#`/`%` comments.
pub(crate) struct SnapParser {
    pub weighted: bool,
    /// The way out of ids that are not integers
    /// ([`super::ParseOptions::not_integers_hint`]).
    pub ids_hint: &'static str,
}

impl SnapParser {
    fn expected(&self, fault: Fault) -> String {
        if fault == Fault::TooFewColumns {
            return too_few_blank_columns(self.weighted).to_string();
        }
        let what = if self.weighted {
            "expected two non-negative integer vertex ids, then a weight (`src dst weight`, separated by spaces or tabs)"
        } else {
            "expected two non-negative integer vertex ids (`src dst`, separated by spaces or tabs)"
        };
        format!("{}{what}{}", fault.prefix(), ids_hint(fault, self.ids_hint))
    }

    /// Parses the fields of one data line starting at `p` (not blank, not a comment).
    #[inline(always)]
    fn edge(&self, data: &[u8], p: &mut usize) -> Result<RawEdge, Fault> {
        let src = parse_id(data, p)?;
        if *p >= data.len() || !is_blank(data[*p]) {
            return Err(Fault::Syntax);
        }
        *p = skip_blanks(data, *p);
        let dst = parse_id(data, p)?;
        if !at_field_end(data, *p) {
            return Err(Fault::Syntax);
        }
        let weight = if self.weighted {
            *p = skip_blanks(data, *p);
            let end = token_end(data, *p);
            let w = parse_weight(&data[*p..end])?;
            *p = end;
            w
        } else {
            1.0
        };
        Ok(RawEdge { src, dst, weight })
    }
}

/// The message for a blank-separated line with one field.
pub(crate) fn too_few_blank_columns(weighted: bool) -> &'static str {
    if weighted {
        "a line needs three columns, source, target and weight, separated by spaces or tabs (this one has one)"
    } else {
        "a line needs at least two columns, source and target, separated by spaces or tabs (this one has one)"
    }
}

/// The fault of a blank-separated line that did not parse, `p` at its
/// first field: [`Fault::TooFewColumns`] when it has only one field (the
/// line says what is missing better than its first field's fault).
pub(crate) fn refine(data: &[u8], p: usize, fault: Fault) -> Fault {
    let second = skip_blanks(data, token_end(data, p));
    if second >= data.len() || data[second] == b'\n' {
        Fault::TooFewColumns
    } else {
        fault
    }
}

/// `delim` for messages: "comma-separated", "`|`-separated".
pub(crate) fn separated(delim: u8) -> String {
    match delim {
        b',' => "comma-separated".into(),
        b'\t' => "tab-separated".into(),
        b' ' => "space-separated".into(),
        b';' => "semicolon-separated".into(),
        d => format!("`{}`-separated", (d as char).escape_default()),
    }
}

/// The message for a csv/tsv row without its source or target field.
pub(crate) fn too_few_fields(delim: u8, cols: &Columns) -> String {
    let sep = separated(delim);
    match (cols.src, cols.dst) {
        (0, 1) | (1, 0) => format!(
            "a row needs at least two {sep} columns, source and target{}",
            match cols.weight {
                Some(w) => format!(" (and the weight in column {w}, 0-based)"),
                None => String::new(),
            }
        ),
        (s, d) => format!(
            "a row needs {} {sep} columns or more: the source in column {s} and the target in column {d} (0-based)",
            s.max(d) + 1
        ),
    }
}

/// The way out of a line that is not integer ids (`hint`), for the
/// faults such a line makes.
fn ids_hint(fault: Fault, hint: &str) -> String {
    match fault {
        Fault::Syntax | Fault::Negative | Fault::Overflow => format!(" ({hint})"),
        _ => String::new(),
    }
}

/// Calls `line(p, n)` for each data line of `data` (skipping blank lines and
/// `#`/`%` comments), with `p` at its first non-blank byte and `n` its 1-based
/// number; `line` returns where it stopped, and the rest of the line is ignored.
/// Returns the number of newlines.
#[inline(always)]
pub(crate) fn for_each_line<E>(
    data: &[u8],
    mut line: impl FnMut(usize, u64) -> Result<usize, E>,
) -> Result<u64, E> {
    let n = data.len();
    let mut p = 0;
    let mut lines = 0u64;
    while p < n {
        p = skip_blanks(data, p);
        if p >= n {
            break;
        }
        let c = data[p];
        if c == b'\n' {
            p += 1;
            lines += 1;
            continue;
        }
        if c != b'#' && c != b'%' {
            p = line(p, lines + 1)?;
            // Fast path: the line ends right here.
            if p < n && data[p] == b'\n' {
                p += 1;
                lines += 1;
                continue;
            }
        }
        p = line_end(data, p);
        if p < n {
            p += 1;
            lines += 1;
        }
    }
    Ok(lines)
}

/// The start of the line containing `p`.
pub(crate) fn line_start(data: &[u8], p: usize) -> usize {
    match data[..p].iter().rposition(|&b| b == b'\n') {
        Some(i) => i + 1,
        None => 0,
    }
}

impl BlockParser for SnapParser {
    type Item = RawEdge;

    fn parse(
        &self,
        _file: usize,
        data: &[u8],
        out: &mut Vec<RawEdge>,
    ) -> Result<Stats, LocalError> {
        let lines = for_each_line(data, |p, line| {
            let mut q = p;
            match self.edge(data, &mut q) {
                Ok(e) => {
                    out.push(e);
                    Ok(q)
                }
                Err(f) => Err(LocalError::at(
                    data,
                    line_start(data, p),
                    line,
                    self.expected(refine(data, p, f)),
                )),
            }
        })?;
        Ok(Stats { lines, records: 0 })
    }
}

/// LDBC `.v` files: one vertex id per line (further fields are ignored).
pub(crate) struct VertexParser;

impl BlockParser for VertexParser {
    type Item = u64;

    fn parse(&self, _file: usize, data: &[u8], out: &mut Vec<u64>) -> Result<Stats, LocalError> {
        let lines = for_each_line(data, |p, line| {
            let mut q = p;
            match parse_id(data, &mut q) {
                Ok(v) if at_field_end(data, q) => {
                    out.push(v);
                    Ok(q)
                }
                r => {
                    let f = r.err().unwrap_or(Fault::Syntax);
                    let msg = format!(
                        "{}expected one non-negative integer vertex id per line",
                        f.prefix()
                    );
                    Err(LocalError::at(data, line_start(data, p), line, msg))
                }
            }
        })?;
        Ok(Stats { lines, records: 0 })
    }
}

/// Column selection of a CSV/TSV file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Columns {
    pub src: usize,
    pub dst: usize,
    /// The weight column, when reading weighted.
    pub weight: Option<usize>,
}

impl Columns {
    fn max(&self) -> usize {
        self.src.max(self.dst).max(self.weight.unwrap_or(0))
    }

    /// The source and target fields of a row (as written: the caller cleans
    /// them) and its weight (1.0 when not read weighted).
    #[inline]
    pub(crate) fn pick<'a>(
        &self,
        line: &'a [u8],
        delim: u8,
    ) -> Result<(&'a [u8], &'a [u8], f64), Fault> {
        let mut got: [Option<&[u8]>; 3] = [None; 3];
        let max = self.max();
        split_fields(line, delim, |i, field| {
            if i == self.src {
                got[0] = Some(field);
            }
            if i == self.dst {
                got[1] = Some(field);
            }
            if Some(i) == self.weight {
                got[2] = Some(field);
            }
            i < max
        });
        let (Some(s), Some(d)) = (got[0], got[1]) else {
            return Err(Fault::TooFewColumns);
        };
        let weight = match (self.weight, got[2]) {
            (None, _) => 1.0,
            (Some(_), None) => return Err(Fault::MissingWeight),
            (Some(_), Some(w)) => parse_weight(clean_field(w))?,
        };
        Ok((s, d, weight))
    }
}

/// CSV (`,`) or TSV (`\t`) rows; blank lines and `#` lines are skipped.
pub(crate) struct DelimitedParser {
    pub delim: u8,
    /// Columns per input file (names may resolve differently in each header).
    pub columns: Vec<Columns>,
    /// As [`SnapParser::ids_hint`].
    pub ids_hint: &'static str,
}

/// Splits a line (without `\n`) into fields at `delim`; a field that starts
/// (after blanks) with `"` extends to its closing quote (`""` escapes a quote).
/// Calls `f(index, field)` until it returns false.
pub(crate) fn split_fields<'a>(
    line: &'a [u8],
    delim: u8,
    mut f: impl FnMut(usize, &'a [u8]) -> bool,
) {
    let mut i = 0;
    let mut col = 0;
    loop {
        let start = i;
        let mut j = i;
        while j < line.len() && line[j] != delim && is_blank(line[j]) {
            j += 1;
        }
        if j < line.len() && line[j] == b'"' {
            j += 1;
            while j < line.len() {
                if line[j] == b'"' {
                    if line.get(j + 1) == Some(&b'"') {
                        j += 2;
                        continue;
                    }
                    j += 1;
                    break;
                }
                j += 1;
            }
        }
        while j < line.len() && line[j] != delim {
            j += 1;
        }
        if !f(col, &line[start..j]) || j >= line.len() {
            return;
        }
        col += 1;
        i = j + 1;
    }
}

impl DelimitedParser {
    fn expected(&self, cols: &Columns, fault: Fault) -> String {
        if fault == Fault::TooFewColumns {
            return too_few_fields(self.delim, cols);
        }
        let mut s = format!(
            "{}expected {} rows with non-negative integer vertex ids in columns {} and {}",
            fault.prefix(),
            separated(self.delim),
            cols.src,
            cols.dst
        );
        if let Some(w) = cols.weight {
            s += &format!(" and a weight in column {w}");
        }
        s + " (0-based)" + &ids_hint(fault, self.ids_hint)
    }

    #[inline]
    fn row(&self, cols: &Columns, line: &[u8]) -> Result<RawEdge, Fault> {
        let (s, d, weight) = cols.pick(line, self.delim)?;
        let src = parse_id_field(clean_field(s))?;
        let dst = parse_id_field(clean_field(d))?;
        Ok(RawEdge { src, dst, weight })
    }
}

impl DelimitedParser {
    /// Calls `row(start, line number, line)` for each row of `data` that is
    /// neither blank nor a `#` comment; `lines` gets the number of lines.
    pub(crate) fn for_each_row<E>(
        &self,
        data: &[u8],
        lines: &mut u64,
        mut row: impl FnMut(usize, u64, &[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        let n = data.len();
        let mut p = 0;
        *lines = 0;
        while p < n {
            let start = p;
            let end = line_end(data, p);
            p = end + 1;
            *lines += 1;
            let line = &data[start..end];
            let first = skip_blanks(line, 0);
            if first == line.len() || line[first] == b'#' {
                continue;
            }
            row(start, *lines, line)?;
        }
        if n > 0 && data[n - 1] != b'\n' {
            *lines -= 1;
        }
        Ok(())
    }
}

impl BlockParser for DelimitedParser {
    type Item = RawEdge;

    fn parse(&self, file: usize, data: &[u8], out: &mut Vec<RawEdge>) -> Result<Stats, LocalError> {
        let cols = self.columns[file];
        let mut lines = 0;
        self.for_each_row(data, &mut lines, |start, n, line| {
            match self.row(&cols, line) {
                Ok(e) => {
                    out.push(e);
                    Ok(())
                }
                Err(f) => Err(LocalError::at(data, start, n, self.expected(&cols, f))),
            }
        })?;
        Ok(Stats { lines, records: 0 })
    }
}
