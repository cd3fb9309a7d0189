//! `id value` lines formatted on every core. A batch of vertices (ids and
//! values, in rank order) is gathered by the one thread that walks the id
//! maps, formatted in as many pieces as there are threads, and written in
//! order. Ours rather than `writeln!` per line: `core::fmt` with a `String`
//! per float made writing kron-24's 8.9M PageRank values take 2 s, longer
//! than a third of the run.

use super::push_float;
use crate::error::{IoContext, Result};
use crate::store::Id;
use rayon::prelude::*;
use std::borrow::Cow;
use std::io::Write;
use std::path::Path;

/// Lines gathered before they are formatted (about 3 MB of text).
const BATCH: usize = 1 << 16;

/// An original id: an integer, or a span of the batch's name bytes.
#[derive(Clone, Copy)]
enum Key {
    Int(u64),
    Name(u32, u32),
}

/// A line's value.
#[derive(Clone, Copy, Debug)]
pub enum Cell<'a> {
    /// As C's `%.15e` ([`super::format_float`]).
    Float(f64),
    Int(i64),
    /// A vertex, by its original id (WCC's and CDLP's labels).
    Id(&'a Id<'a>),
}

#[derive(Clone, Copy)]
enum Stored {
    Float(f64),
    Int(i64),
    Key(Key),
}

/// A batch of lines; see the module docs.
#[derive(Default)]
pub struct Lines {
    lines: Vec<(Key, Stored)>,
    names: Vec<u8>,
    pieces: Vec<Vec<u8>>,
}

impl Lines {
    pub fn new() -> Lines {
        Lines::default()
    }

    /// Adds the line `id value`; writes the batch to `w` when it is full.
    pub fn push(
        &mut self,
        id: &Id<'_>,
        value: Cell<'_>,
        w: &mut dyn Write,
        at: &Path,
    ) -> Result<()> {
        let key = self.key(id);
        let value = match value {
            Cell::Float(x) => Stored::Float(x),
            Cell::Int(x) => Stored::Int(x),
            Cell::Id(v) => Stored::Key(self.key(v)),
        };
        self.lines.push((key, value));
        if self.lines.len() >= BATCH {
            self.flush(w, at)?;
        }
        Ok(())
    }

    fn key(&mut self, id: &Id<'_>) -> Key {
        match id {
            Id::Int(x) => Key::Int(*x),
            Id::Name(b) => {
                let start = self.names.len() as u32;
                self.names.extend_from_slice(b);
                Key::Name(start, self.names.len() as u32)
            }
        }
    }

    /// Formats and writes the lines gathered so far.
    pub fn flush(&mut self, w: &mut dyn Write, at: &Path) -> Result<()> {
        if self.lines.is_empty() {
            return Ok(());
        }
        let threads = rayon::current_num_threads().max(1);
        let per = self.lines.len().div_ceil(threads);
        self.pieces.resize_with(threads, Vec::new);
        let names = &self.names;
        self.pieces
            .par_iter_mut()
            .zip(self.lines.par_chunks(per))
            .for_each(|(out, lines)| {
                out.clear();
                let mut ints = itoa::Buffer::new();
                for &(key, value) in lines {
                    push_key(out, key, names, &mut ints);
                    out.push(b' ');
                    match value {
                        Stored::Float(x) => push_float(out, x),
                        Stored::Int(x) => out.extend_from_slice(ints.format(x).as_bytes()),
                        Stored::Key(k) => push_key(out, k, names, &mut ints),
                    }
                    out.push(b'\n');
                }
            });
        // A batch shorter than the threads leaves pieces unused: cleared.
        for piece in self.pieces.iter_mut().skip(self.lines.len().div_ceil(per)) {
            piece.clear();
        }
        for piece in &self.pieces {
            w.write_all(piece).at(at)?;
        }
        self.lines.clear();
        self.names.clear();
        Ok(())
    }
}

/// An original id as [`Id`]'s `Display` writes it (names quoted when
/// they must be).
fn push_key(out: &mut Vec<u8>, key: Key, names: &[u8], ints: &mut itoa::Buffer) {
    match key {
        Key::Int(x) => out.extend_from_slice(ints.format(x).as_bytes()),
        Key::Name(s, e) => {
            let id = Id::Name(Cow::Borrowed(&names[s as usize..e as usize]));
            write!(out, "{id}").expect("a Vec takes every write");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines equal `writeln!("{id} {value}")` with the LDBC float format,
    /// across batches and for every kind of id and value.
    #[test]
    fn lines_equal_display() {
        let mut want = Vec::new();
        let mut got = Vec::new();
        let mut lines = Lines::new();
        let at = Path::new("test");
        for i in 0..(BATCH as u64 * 2 + 77) {
            let id = match i % 3 {
                0 => Id::Int(i * 7919),
                1 => Id::Name(Cow::Owned(format!("v {i}").into_bytes())),
                _ => Id::Name(Cow::Owned(format!("n{i}").into_bytes())),
            };
            let label = Id::Int(i / 5);
            let x = (i as f64 - 1000.0) / 7.0;
            let (cell, shown) = match i % 4 {
                0 => (Cell::Float(x), super::super::format_float(x)),
                1 => (Cell::Int(-(i as i64)), format!("{}", -(i as i64))),
                2 => (Cell::Id(&label), format!("{label}")),
                _ => (Cell::Id(&id), format!("{id}")),
            };
            writeln!(want, "{id} {shown}").unwrap();
            lines.push(&id, cell, &mut got, at).unwrap();
        }
        lines.flush(&mut got, at).unwrap();
        assert_eq!(
            String::from_utf8(got).unwrap(),
            String::from_utf8(want).unwrap()
        );
    }
}
