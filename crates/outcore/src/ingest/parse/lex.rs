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
    /// The line ends before its target field.
    TooFewColumns,
    /// A string vertex id holding a NUL byte or bytes that are not UTF-8.
    NotText,
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
            Fault::TooFewColumns => "",
            Fault::NotText => {
                "a vertex id is not text (a NUL byte or bytes that are not UTF-8: is the file binary, or in another encoding?); "
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
    // Digits 8 at a time while 8 bytes are readable.
    let (mut i, mut v) = (*p, 0u64);
    while let Some(b) = data.get(i..i + 8) {
        let (x, len) = digits8(b.try_into().expect("8 bytes"));
        if len == 0 {
            break;
        }
        v = v
            .checked_mul(POW10[len])
            .and_then(|v| v.checked_add(x))
            .ok_or(Fault::Overflow)?;
        i += len;
        if len < 8 {
            *p = i;
            return Ok(v);
        }
    }
    if i == *p {
        // A sign, no digit, or fewer than 8 bytes left.
        return parse_id_bytes(data, p);
    }
    // The digits left near the end of the data.
    let (v, i) = more_digits(data, i, v)?;
    *p = i;
    Ok(v)
}

/// Reads on from `data[i..]` while it holds digits, appending them to `v`
/// (overflow checked); returns the value and where the digits end.
#[inline]
fn more_digits(data: &[u8], mut i: usize, mut v: u64) -> Result<(u64, usize), Fault> {
    while let Some(d) = data
        .get(i)
        .map(|c| c.wrapping_sub(b'0'))
        .filter(|&d| d <= 9)
    {
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add(d as u64))
            .ok_or(Fault::Overflow)?;
        i += 1;
    }
    Ok((v, i))
}

/// Powers of ten up to 10^8.
const POW10: [u64; 9] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
];

/// The value and length (0-8) of the run of ASCII digits that `b` starts
/// with, found and combined in one register (SWAR) instead of a branch and
/// a checked multiply per byte: at Kronecker scale 24 the byte loop was
/// half of the text parse.
#[inline(always)]
fn digits8(b: [u8; 8]) -> (u64, usize) {
    let x = u64::from_le_bytes(b);
    let d = x.wrapping_sub(0x3030_3030_3030_3030);
    // A byte outside '0'..='9' gets its top bit set here: below '0' it
    // wrapped, above '9' adding 0x76 carries it past 0x7F. Bytes past the
    // first such one may be disturbed by the wrap's borrow; they are not
    // looked at.
    let outside = (d | d.wrapping_add(0x7676_7676_7676_7676)) & 0x8080_8080_8080_8080;
    let len = (outside.trailing_zeros() / 8) as usize;
    if len == 0 {
        return (0, 0);
    }
    // The digits moved to the top bytes, zeros (leading zeros) below;
    // the first digit is the lowest byte of those.
    let v = d << (8 * (8 - len));
    let v = (v.wrapping_mul(10) + (v >> 8)) & 0x00FF_00FF_00FF_00FF;
    let v = (v.wrapping_mul(100) + (v >> 16)) & 0x0000_FFFF_0000_FFFF;
    let v = (v.wrapping_mul(10000) + (v >> 32)) & 0xFFFF_FFFF;
    (v, len)
}

/// [`parse_id`] a byte at a time.
fn parse_id_bytes(data: &[u8], p: &mut usize) -> Result<u64, Fault> {
    let start = match data.get(*p) {
        Some(b'+') => *p + 1,
        _ => *p,
    };
    let (v, i) = more_digits(data, start, 0)?;
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

    proptest::proptest! {
        /// The 8-byte path reads what the byte loop reads: ids of every
        /// length (overflowing ones too), with anything after them
        /// (blanks, newlines, letters, bytes above 0x7F), at the end of
        /// the data or not.
        #[test]
        fn ids_parse_as_the_byte_loop_does(
            digits in "[+]?[0-9]{0,21}",
            after in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..10),
        ) {
            let mut data = digits.into_bytes();
            data.extend_from_slice(&after);
            let (mut p, mut q) = (0, 0);
            let got = parse_id(&data, &mut p);
            let want = parse_id_bytes(&data, &mut q);
            proptest::prop_assert_eq!(got, want);
            proptest::prop_assert_eq!(p, q);
        }
    }

    #[test]
    fn digits8_stops_at_the_first_non_digit() {
        let at = |s: &[u8]| digits8(s.try_into().unwrap());
        assert_eq!(at(b"1234567 "), (1234567, 7));
        assert_eq!(at(b"0\n345678"), (0, 1));
        assert_eq!(at(b"09/12345"), (9, 2));
        assert_eq!(at(b"42:99999"), (42, 2));
        assert_eq!(at(b"7\xff\x00\x00\x00\x00\x00\x00"), (7, 1));
        assert_eq!(at(b"12345678"), (12345678, 8));
        assert_eq!(at(b"99999999"), (99999999, 8));
        assert_eq!(at(b" 1234567"), (0, 0));
        assert_eq!(at(b"+1234567"), (0, 0));
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
