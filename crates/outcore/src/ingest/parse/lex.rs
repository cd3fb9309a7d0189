//! Byte-level scanning shared by the text parsers: ids, weights, line bounds.
//!
//! Everything works on `&[u8]` with an explicit position: no allocation, no
//! UTF-8 validation on the hot path.

/// What was wrong with a line; the format turns it into a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    /// The line does not have the expected shape (too few fields, junk).
    Syntax,
    /// A vertex id with a minus sign.
    Negative,
    /// A vertex id larger than `u64::MAX`.
    Overflow,
    /// The weight field is absent.
    MissingWeight,
    /// The weight field is not a number.
    BadWeight,
    /// The weight is infinite or NaN.
    NonFiniteWeight,
    /// A Matrix Market index outside the declared size.
    OutOfRange,
    /// A string vertex id with nothing in it.
    EmptyId,
    /// Two different string ids with one fingerprint.
    Collision,
}

impl Fault {
    /// A prefix naming the specific problem ("" for plain syntax errors).
    pub(crate) fn prefix(self) -> &'static str {
        match self {
            Fault::Syntax => "",
            Fault::Negative => "negative vertex id; ",
            Fault::Overflow => "vertex id too large (the maximum is 18446744073709551615); ",
            Fault::MissingWeight => "missing weight; ",
            Fault::BadWeight => "weight is not a number; ",
            Fault::NonFiniteWeight => "weight must be a finite number (not inf or NaN); ",
            Fault::OutOfRange => "index out of range; ",
            Fault::EmptyId => "empty vertex id; ",
            Fault::Collision => {
                "two different vertex ids share a 128-bit fingerprint (please report this input); "
            }
        }
    }
}

/// A malformed line inside one block, before the block's line offset is known.
#[derive(Debug)]
pub(crate) struct LocalError {
    /// 1-based line number within the block.
    pub line: u64,
    /// The offending line.
    pub text: Vec<u8>,
    /// What was expected (the full message).
    pub expected: String,
}

impl LocalError {
    /// The error for the line starting at `start` (the `line`-th of the block).
    pub(crate) fn at(data: &[u8], start: usize, line: u64, expected: String) -> LocalError {
        let end = line_end(data, start);
        let text_end = end.min(start + 200);
        LocalError {
            line,
            text: data[start..text_end].to_vec(),
            expected,
        }
    }
}

/// Space, tab or carriage return: field separators in whitespace formats.
#[inline(always)]
pub(crate) fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\r'
}

/// The index of the `\n` ending the line that contains `p`, or `data.len()`.
#[inline]
pub(crate) fn line_end(data: &[u8], p: usize) -> usize {
    match data[p..].iter().position(|&b| b == b'\n') {
        Some(i) => p + i,
        None => data.len(),
    }
}

/// Skips spaces, tabs and `\r` from `p`.
#[inline(always)]
pub(crate) fn skip_blanks(data: &[u8], mut p: usize) -> usize {
    while p < data.len() && is_blank(data[p]) {
        p += 1;
    }
    p
}

/// True when `p` is at the end of a whitespace-separated field.
#[inline(always)]
pub(crate) fn at_field_end(data: &[u8], p: usize) -> bool {
    p >= data.len() || is_blank(data[p]) || data[p] == b'\n'
}

/// Parses a non-negative decimal integer (`+` allowed) at `data[*p..]`,
/// advancing `*p` past the digits. What follows is not checked.
#[inline(always)]
pub(crate) fn parse_id(data: &[u8], p: &mut usize) -> Result<u64, Fault> {
    let mut i = *p;
    if i < data.len() && data[i] == b'+' {
        i += 1;
    }
    let start = i;
    let mut v: u64 = 0;
    while i < data.len() {
        let d = data[i].wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        v = match v.checked_mul(10).and_then(|v| v.checked_add(d as u64)) {
            Some(v) => v,
            None => return Err(Fault::Overflow),
        };
        i += 1;
    }
    if i == start {
        let neg =
            data.get(*p) == Some(&b'-') && data.get(*p + 1).is_some_and(|c| c.is_ascii_digit());
        return Err(if neg { Fault::Negative } else { Fault::Syntax });
    }
    *p = i;
    Ok(v)
}

/// Parses a whole field as a vertex id (nothing else may follow).
#[inline]
pub(crate) fn parse_id_field(field: &[u8]) -> Result<u64, Fault> {
    let mut p = 0;
    let v = parse_id(field, &mut p)?;
    if p != field.len() {
        return Err(Fault::Syntax);
    }
    Ok(v)
}

/// Parses a weight token: a finite f64 (`1`, `2.5`, `-3`, `1e-3`).
#[inline]
pub(crate) fn parse_weight(tok: &[u8]) -> Result<f64, Fault> {
    if tok.is_empty() {
        return Err(Fault::MissingWeight);
    }
    // Fast path: small plain integers, exact in f64.
    if tok.len() <= 15 && tok.iter().all(u8::is_ascii_digit) {
        let mut v: u64 = 0;
        for &b in tok {
            v = v * 10 + (b - b'0') as u64;
        }
        return Ok(v as f64);
    }
    let s = std::str::from_utf8(tok).map_err(|_| Fault::BadWeight)?;
    match s.parse::<f64>() {
        Ok(w) if w.is_finite() => Ok(w),
        Ok(_) => Err(Fault::NonFiniteWeight),
        Err(_) => Err(Fault::BadWeight),
    }
}

/// The whitespace-separated token at `p` (ends at a blank, `\n` or the end).
#[inline(always)]
pub(crate) fn token_end(data: &[u8], mut p: usize) -> usize {
    while !at_field_end(data, p) {
        p += 1;
    }
    p
}

/// Trims spaces, tabs and `\r` from both ends, then one pair of surrounding
/// double quotes (and the whitespace inside them).
pub(crate) fn clean_field(mut f: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = f {
        if is_blank(*first) {
            f = rest;
        } else {
            break;
        }
    }
    while let [rest @ .., last] = f {
        if is_blank(*last) {
            f = rest;
        } else {
            break;
        }
    }
    if f.len() >= 2 && f[0] == b'"' && f[f.len() - 1] == b'"' {
        return clean_field(&f[1..f.len() - 1]);
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> Result<u64, Fault> {
        parse_id_field(s.as_bytes())
    }

    #[test]
    fn ids() {
        assert_eq!(id("0"), Ok(0));
        assert_eq!(id("+17"), Ok(17));
        assert_eq!(id("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(id("18446744073709551616"), Err(Fault::Overflow));
        assert_eq!(id("99999999999999999999999"), Err(Fault::Overflow));
        assert_eq!(id("-3"), Err(Fault::Negative));
        assert_eq!(id("-"), Err(Fault::Syntax));
        assert_eq!(id("+"), Err(Fault::Syntax));
        assert_eq!(id(""), Err(Fault::Syntax));
        assert_eq!(id("1.5"), Err(Fault::Syntax));
        assert_eq!(id("0x10"), Err(Fault::Syntax));
        assert_eq!(id("abc"), Err(Fault::Syntax));
    }

    #[test]
    fn weights() {
        let w = |s: &str| parse_weight(s.as_bytes());
        assert_eq!(w("1"), Ok(1.0));
        assert_eq!(w("2.5"), Ok(2.5));
        assert_eq!(w("1e-3"), Ok(1e-3));
        assert_eq!(w("-4"), Ok(-4.0));
        assert_eq!(w("+0.5"), Ok(0.5));
        assert_eq!(w("12345678901234567890"), Ok(12345678901234567890.0));
        assert_eq!(w(""), Err(Fault::MissingWeight));
        assert_eq!(w("abc"), Err(Fault::BadWeight));
        assert_eq!(w("inf"), Err(Fault::NonFiniteWeight));
        assert_eq!(w("NaN"), Err(Fault::NonFiniteWeight));
        assert_eq!(w("1e999"), Err(Fault::NonFiniteWeight));
    }

    #[test]
    fn fields() {
        assert_eq!(clean_field(b"  \"12\" \r"), b"12");
        assert_eq!(clean_field(b"\" 7 \""), b"7");
        assert_eq!(clean_field(b"\""), b"\"");
        assert_eq!(clean_field(b""), b"");
    }
}
