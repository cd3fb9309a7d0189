//! Column batches of result lines ([`super::Lines::push_column`]): whole
//! batches of integer ids and values, copied by the gathering thread in
//! bulk and formatted by the writer's threads, the ids counted up in
//! decimal and repeated values copied as text (strength reduction of the
//! per-line conversions).

use super::{push_float, push_i64, push_u64};

/// What the values of a column batch ([`Lines::push_column`]) are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    /// `f64` bits, as C's `%.15e`.
    Float,
    /// `i64` bits.
    Int,
    /// Vertices' original ids (integers).
    Id,
}

#[derive(Default)]
pub(super) struct Cols {
    /// Ids, or none when they are `first + i`.
    pub ids: Vec<u64>,
    pub first: u64,
    pub values: Vec<u64>,
    pub kind: Option<Column>,
}

impl Cols {
    /// Formats lines `range` into `out`. Ranks as ids (`first + i`) are
    /// counted up in decimal rather than converted, and a value equal to
    /// the one before it (the giant component's label, a BFS depth, the
    /// rank of every dangling vertex) is copied as text.
    pub fn format(&self, range: std::ops::Range<usize>, out: &mut Vec<u8>) {
        let kind = self.kind.expect("a column batch has a kind");
        out.reserve(range.len() * 24);
        let mut counter = match self.ids.is_empty() {
            true => Some(Decimal::new(self.first + range.start as u64)),
            false => None,
        };
        let mut last = Repeat::default();
        for i in range {
            match &mut counter {
                Some(c) => {
                    c.push(out);
                    c.increment();
                }
                None => push_u64(out, self.ids[i]),
            }
            out.push(b' ');
            let x = self.values[i];
            if !last.copy(x, out) {
                let at = out.len();
                match kind {
                    Column::Float => push_float(out, f64::from_bits(x)),
                    Column::Int => push_i64(out, x as i64),
                    Column::Id => push_u64(out, x),
                }
                last.keep(x, &out[at..]);
            }
            out.push(b'\n');
        }
    }
}

/// A number in decimal, counted up in place (digits left-aligned, so a
/// line copies the whole buffer, a constant length, and cuts it).
struct Decimal {
    buf: [u8; 20],
    len: usize,
}

impl Decimal {
    fn new(x: u64) -> Decimal {
        let mut digits = Vec::with_capacity(20);
        push_u64(&mut digits, x);
        let mut buf = [b'0'; 20];
        buf[..digits.len()].copy_from_slice(&digits);
        Decimal {
            buf,
            len: digits.len(),
        }
    }

    #[inline]
    fn push(&self, out: &mut Vec<u8>) {
        push_cut(out, &self.buf, self.len);
    }

    /// Adds one (below `u64::MAX`: no 20-digit number of nines fits one).
    #[inline]
    fn increment(&mut self) {
        for i in (0..self.len).rev() {
            if self.buf[i] == b'9' {
                self.buf[i] = b'0';
            } else {
                self.buf[i] += 1;
                return;
            }
        }
        // 99...9 + 1 = 100...0: one more digit.
        self.buf[0] = b'1';
        self.buf[self.len] = b'0';
        self.len += 1;
    }
}

/// Appends `buf[..len]`: the whole buffer, then cut (no `memcpy` call).
#[inline]
fn push_cut<const N: usize>(out: &mut Vec<u8>, buf: &[u8; N], len: usize) {
    let at = out.len();
    out.extend_from_slice(buf);
    out.truncate(at + len);
}

/// The last value formatted and its text.
#[derive(Default)]
struct Repeat {
    x: Option<u64>,
    text: [u8; 32],
    len: usize,
}

impl Repeat {
    /// Appends the text of `x` if it is the last value's.
    #[inline]
    fn copy(&self, x: u64, out: &mut Vec<u8>) -> bool {
        match self.x == Some(x) {
            true => push_cut(out, &self.text, self.len),
            false => return false,
        }
        true
    }

    fn keep(&mut self, x: u64, text: &[u8]) {
        if text.len() <= self.text.len() {
            self.text[..text.len()].copy_from_slice(text);
            (self.x, self.len) = (Some(x), text.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::lines::{Lines, BATCH};
    use super::super::Cell;
    use super::*;
    use crate::outfile::OutFile;
    use crate::store::walk::IntIds;
    use crate::store::Id;

    /// Column batches equal the same lines pushed one at a time (counted
    /// ids, repeated values), in order
    /// among single lines, for each kind of ids and values.
    #[test]
    fn columns_equal_lines() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
        let mut cols = Lines::new(OutFile::create(&a).unwrap()).unwrap();
        let mut one = Lines::new(OutFile::create(&b).unwrap()).unwrap();
        let kinds = [Column::Float, Column::Int, Column::Id];
        for round in 0..7u64 {
            let k = [0, 1, 5, 1000, BATCH + 3, 77, 2][round as usize];
            // Counted-up ids cross digit counts (9, 99..., 999_999).
            let first = [0, 9, 95, 999_990, 99_999_000, 7, u64::MAX / 2][round as usize];
            let ids: Vec<u64> = (0..k as u64).map(|i| u64::MAX - i * 977).collect();
            let values: Vec<u64> = (0..k as u64)
                .map(|i| match kinds[round as usize % 3] {
                    // Runs of equal values (copied as text).
                    Column::Float => (((i / 2) as f64 - 3.0) / 7.0).to_bits(),
                    Column::Int => ((i / 3) as i64 - 500) as u64,
                    Column::Id => (i / 4) * 31,
                })
                .collect();
            let kind = kinds[round as usize % 3];
            let from = round % 2 == 0;
            let id_of = |i: usize| match from {
                true => first + i as u64,
                false => ids[i],
            };
            let col_ids = match from {
                true => IntIds::From(first),
                false => IntIds::Of(&ids),
            };
            if k > 0 {
                cols.push_column(col_ids, &values, kind).unwrap();
            }
            for (i, &x) in values.iter().enumerate() {
                let label = Id::Int(x);
                let cell = match kind {
                    Column::Float => Cell::Float(f64::from_bits(x)),
                    Column::Int => Cell::Int(x as i64),
                    Column::Id => Cell::Id(&label),
                };
                one.push(&Id::Int(id_of(i)), cell).unwrap();
            }
            // A single line between column batches.
            cols.push(&Id::Int(round), Cell::Int(-1)).unwrap();
            one.push(&Id::Int(round), Cell::Int(-1)).unwrap();
        }
        cols.finish().unwrap();
        one.finish().unwrap();
        let (a, b) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        assert!(a.len() > 1000);
        assert!(a == b, "column batches differ from single lines");
    }
}
