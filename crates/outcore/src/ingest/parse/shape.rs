//! Recognising inputs by their first lines: Matrix Market files whatever
//! their name, and csv/tsv header rows that were not announced.

use super::input::{InputFile, LineReader};
use super::lex::{clean_field, parse_id_field};
use super::text::split_fields;
use crate::error::{Error, Result};

/// True when `file` starts with the Matrix Market banner.
pub(crate) fn is_matrix_market(file: &InputFile) -> Result<bool> {
    let mut r = LineReader::open(file)?;
    Ok(r.next_line()?
        .is_some_and(|l| l.len() >= 14 && l[..14].eq_ignore_ascii_case(b"%%MatrixMarket")))
}

/// The first line that is neither blank nor a comment, BOM removed.
fn data_line(r: &mut LineReader) -> Result<Option<Vec<u8>>> {
    while let Some(mut l) = r.next_line()? {
        if l.starts_with(b"\xEF\xBB\xBF") {
            l.drain(..3);
        }
        let first = l.iter().position(|b| !b.is_ascii_whitespace());
        match first {
            None => continue,
            Some(i) if l[i] == b'#' || l[i] == b'%' => continue,
            Some(_) => return Ok(Some(l)),
        }
    }
    Ok(None)
}

/// Whether the source and target fields of `line` are vertex ids.
fn numeric(line: &[u8], delim: u8, cols: (usize, usize)) -> bool {
    let (mut src, mut dst) = (None, None);
    split_fields(line, delim, |i, f| {
        if i == cols.0 {
            src = Some(parse_id_field(clean_field(f)).is_ok());
        }
        if i == cols.1 {
            dst = Some(parse_id_field(clean_field(f)).is_ok());
        }
        true
    });
    src == Some(true) && dst == Some(true)
}

/// Whether a delimited file's first data line is a header although
/// `--header` was not given: its id columns are not numbers while the next
/// line's are (a note on stderr says so). Column names in `columns` need a
/// header too. A first line that is not numeric with no numeric line after
/// it is refused with a hint.
pub(crate) fn has_header(file: &InputFile, delim: u8, columns: Option<&str>) -> Result<bool> {
    let mut cols = (0usize, 1usize);
    if let Some(spec) = columns {
        let parts: Vec<&str> = spec.split(',').map(str::trim).collect();
        match (
            parts.first().map(|p| p.parse()),
            parts.get(1).map(|p| p.parse()),
        ) {
            (Some(Ok(a)), Some(Ok(b))) => cols = (a, b),
            _ => return Ok(true),
        }
    }
    let mut r = LineReader::open(file)?;
    let Some(first) = data_line(&mut r)? else {
        return Ok(false);
    };
    let first_line = r.lines;
    if numeric(&first, delim, cols) {
        return Ok(false);
    }
    let shown = String::from_utf8_lossy(&first[..first.len().min(80)]).into_owned();
    match data_line(&mut r)? {
        Some(second) if numeric(&second, delim, cols) => {
            if !crate::progress::quiet() {
                eprintln!(
                    "note: {}: the first line `{shown}` is not numeric; reading it as a header (pass --header to say so)",
                    file.path.display()
                );
            }
            Ok(true)
        }
        _ => Err(Error::parse(
            &file.path,
            first_line,
            &first,
            format!(
                "{} numeric vertex ids in columns {} and {} (a header row? pass --header; other columns? pass --columns SRC,DST; another separator? pass --delimiter)",
                match delim {
                    b',' => "comma-separated".to_string(),
                    b'\t' => "tab-separated".to_string(),
                    d => format!("`{}`-separated", (d as char).escape_default()),
                },
                cols.0,
                cols.1
            ),
        )),
    }
}

/// Whether the vertex ids of `file` are strings (`--ids auto`): the id
/// fields of its first data line are not both non-negative integers. `delim`
/// is the csv/tsv separator (`None`: fields split at blanks) and `cols` the
/// id columns. A csv/tsv first line may be a header (skipped when `header`
/// says it is one): when it is not numeric, the second line decides.
/// Deciding by the first line keeps a typo further down an integer file an
/// error (which suggests `--ids string`) rather than a silent switch.
pub(crate) fn has_string_ids(
    file: &InputFile,
    delim: Option<u8>,
    cols: (usize, usize),
    header: bool,
) -> Result<bool> {
    let mut r = LineReader::open(file)?;
    if header {
        r.next_line()?;
    }
    let ids = |line: &[u8]| match delim {
        Some(d) => numeric(line, d, cols),
        None => {
            let mut t = line
                .split(|&b| b == b' ' || b == b'\t' || b == b'\r')
                .filter(|t| !t.is_empty());
            let mut int = || t.next().is_some_and(|f| parse_id_field(f).is_ok());
            int() && int()
        }
    };
    let Some(first) = data_line(&mut r)? else {
        return Ok(false);
    };
    if ids(&first) {
        return Ok(false);
    }
    if delim.is_none() || header {
        return Ok(true);
    }
    Ok(!data_line(&mut r)?.is_some_and(|second| ids(&second)))
}
