//! `id value` lines written by a pipeline (software pipelining of the three
//! stages of a write: walk, format, write). The caller's thread walks the
//! vertices in rank order and gathers batches of ids and values; a writer
//! thread formats each batch on every core (rayon, one piece per thread)
//! and writes the pieces in order while the caller gathers the next batch.
//! Ours rather than `writeln!` per line: `core::fmt` with a `String` per
//! float made writing kron-24's 8.9M PageRank values take 2 s, longer than
//! a third of the run; integers are written digit pairs at a time into a
//! fixed buffer (a copy of a constant length, not a `memcpy` call a line).

use super::columns::{Cols, Column};
use super::{push_float, push_i64, push_u64};
use crate::error::{Error, Result};
use crate::outfile::OutFile;
use crate::store::walk::IntIds;
use crate::store::Id;
use rayon::prelude::*;
use std::borrow::Cow;
use std::io::Write;
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::thread::JoinHandle;

/// Lines gathered before they are formatted (about 1-3 MB of text).
pub(super) const BATCH: usize = 1 << 16;

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
    /// A line of the id alone (a vertex set).
    Nothing,
}

/// Lines gathered, not yet formatted: one line at a time (`lines`,
/// `names`), or whole columns of integer ids and values (`cols`), which
/// the gathering thread copies in bulk instead of a call per line.
#[derive(Default)]
struct Batch {
    lines: Vec<(Key, Stored)>,
    names: Vec<u8>,
    cols: Cols,
}

impl Batch {
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

    /// Formats the lines into `pieces`, one per thread, in order (a piece
    /// past the last line is left empty).
    fn format(&self, pieces: &mut Vec<Vec<u8>>) {
        let threads = rayon::current_num_threads().max(1);
        pieces.resize_with(threads, Vec::new);
        for piece in pieces.iter_mut() {
            piece.clear();
        }
        if self.cols.kind.is_some() {
            let len = self.cols.values.len();
            let per = len.div_ceil(threads).max(1);
            let cols = &self.cols;
            pieces.par_iter_mut().enumerate().for_each(|(t, out)| {
                let start = (t * per).min(len);
                cols.format(start..(start + per).min(len), out)
            });
            return;
        }
        let per = self.lines.len().div_ceil(threads).max(1);
        let names = &self.names;
        pieces
            .par_iter_mut()
            .zip(self.lines.par_chunks(per))
            .for_each(|(out, lines)| {
                for &(key, value) in lines {
                    push_key(out, key, names);
                    match value {
                        Stored::Float(x) => {
                            out.push(b' ');
                            push_float(out, x)
                        }
                        Stored::Int(x) => {
                            out.push(b' ');
                            push_i64(out, x)
                        }
                        Stored::Key(k) => {
                            out.push(b' ');
                            push_key(out, k, names)
                        }
                        Stored::Nothing => {}
                    }
                    out.push(b'\n');
                }
            });
    }
}

/// Lines being written to a file; see the module docs. [`Lines::finish`]
/// commits the file; dropped before that (an error, Ctrl-C), it leaves no
/// file behind ([`OutFile`]'s temporary is removed).
pub struct Lines {
    batch: Batch,
    to: Option<SyncSender<Batch>>,
    /// Batches written, emptied, for reuse.
    back: Receiver<Batch>,
    writer: Option<JoinHandle<Result<OutFile>>>,
}

impl Lines {
    /// Starts the writer thread on `file`.
    pub fn new(file: OutFile) -> Result<Lines> {
        // One batch queued while one is written and one gathered.
        let (to, full) = mpsc::sync_channel::<Batch>(1);
        let (done, back) = mpsc::channel::<Batch>();
        let writer = std::thread::Builder::new()
            .name("outcore-lines".into())
            .spawn(move || {
                let mut file = file;
                let mut pieces = Vec::new();
                for mut batch in full {
                    batch.format(&mut pieces);
                    for piece in &pieces {
                        file.write_all(piece)?;
                    }
                    batch.lines.clear();
                    batch.names.clear();
                    batch.cols.ids.clear();
                    batch.cols.values.clear();
                    batch.cols.kind = None;
                    let _ = done.send(batch);
                }
                Ok(file)
            })
            .map_err(|e| Error::Invalid(format!("cannot start the writer thread: {e}")))?;
        Ok(Lines {
            batch: Batch::default(),
            to: Some(to),
            back,
            writer: Some(writer),
        })
    }

    /// Adds the line `id value`.
    pub fn push(&mut self, id: &Id<'_>, value: Cell<'_>) -> Result<()> {
        let key = self.batch.key(id);
        let value = match value {
            Cell::Float(x) => Stored::Float(x),
            Cell::Int(x) => Stored::Int(x),
            Cell::Id(v) => Stored::Key(self.batch.key(v)),
        };
        self.add(key, value)
    }

    /// Adds a line `ids[i] values[i]` for each `i`, the values shown as
    /// `kind`: whole batches copied in bulk (the lines before them are
    /// sent first, so the order holds).
    pub fn push_column(&mut self, ids: IntIds<'_>, values: &[u64], kind: Column) -> Result<()> {
        if !self.batch.lines.is_empty() {
            self.send()?;
        }
        let cols = &mut self.batch.cols;
        match ids {
            IntIds::From(first) => cols.first = first,
            IntIds::Of(ids) => cols.ids.extend_from_slice(&ids[..values.len()]),
        }
        cols.values.extend_from_slice(values);
        cols.kind = Some(kind);
        self.send()
    }

    /// Adds the line `id` (a member of a vertex set).
    pub fn push_id(&mut self, id: &Id<'_>) -> Result<()> {
        let key = self.batch.key(id);
        self.add(key, Stored::Nothing)
    }

    fn add(&mut self, key: Key, value: Stored) -> Result<()> {
        self.batch.lines.push((key, value));
        if self.batch.lines.len() >= BATCH {
            self.send()?;
        }
        Ok(())
    }

    /// Hands the batch to the writer thread.
    fn send(&mut self) -> Result<()> {
        let next = self.back.try_recv().unwrap_or_default();
        let full = std::mem::replace(&mut self.batch, next);
        let to = self.to.as_ref().expect("open until finished");
        if to.send(full).is_err() {
            // The writer stopped on an error: that error.
            return self.join().map(|_| ());
        }
        Ok(())
    }

    /// Waits for the writer thread: the file, or the error that stopped it.
    fn join(&mut self) -> Result<OutFile> {
        self.to = None;
        let writer = self.writer.take().expect("joined once");
        match writer.join() {
            Ok(r) => r,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }

    /// Writes the last lines and commits the file.
    pub fn finish(mut self) -> Result<()> {
        if !self.batch.lines.is_empty() || self.batch.cols.kind.is_some() {
            self.send()?;
        }
        self.join()?.commit()
    }
}

impl Drop for Lines {
    fn drop(&mut self) {
        // Unfinished: the writer ends, its file (a temporary) is removed.
        self.to = None;
        if let Some(w) = self.writer.take() {
            let _ = w.join();
        }
    }
}

/// An original id as [`Id`]'s `Display` writes it (names quoted when
/// they must be).
fn push_key(out: &mut Vec<u8>, key: Key, names: &[u8]) {
    match key {
        Key::Int(x) => push_u64(out, x),
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
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lines.txt");
        let mut want = Vec::new();
        let mut lines = Lines::new(OutFile::create(&path).unwrap()).unwrap();
        let edges = [0, 9, 10, 99, 100, 999, u64::MAX, i64::MAX as u64];
        for i in 0..(BATCH as u64 * 2 + 77) {
            let id = match i % 3 {
                0 => Id::Int(i * 7919),
                1 => Id::Name(Cow::Owned(format!("v {i}").into_bytes())),
                _ => Id::Name(Cow::Owned(format!("n{i}").into_bytes())),
            };
            let label = Id::Int(match i < 8 {
                true => edges[i as usize],
                false => i / 5,
            });
            let x = (i as f64 - 1000.0) / 7.0;
            let int = match i % 7 {
                0 => i64::MIN + i as i64,
                1 => i64::MAX - i as i64,
                _ => -(i as i64),
            };
            let (cell, shown) = match i % 5 {
                0 => (Some(Cell::Float(x)), super::super::format_float(x)),
                1 => (Some(Cell::Int(int)), format!("{int}")),
                2 => (Some(Cell::Id(&label)), format!("{label}")),
                3 => (Some(Cell::Id(&id)), format!("{id}")),
                _ => (None, String::new()),
            };
            match cell {
                Some(cell) => {
                    writeln!(want, "{id} {shown}").unwrap();
                    lines.push(&id, cell).unwrap();
                }
                None => {
                    writeln!(want, "{id}").unwrap();
                    lines.push_id(&id).unwrap();
                }
            }
        }
        lines.finish().unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            String::from_utf8(want).unwrap()
        );
    }

    /// Dropped unfinished, the lines leave no file behind.
    #[test]
    fn unfinished_lines_leave_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lines.txt");
        let mut lines = Lines::new(OutFile::create(&path).unwrap()).unwrap();
        for i in 0..(BATCH as u64 * 3) {
            lines.push(&Id::Int(i), Cell::Int(1)).unwrap();
        }
        drop(lines);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
