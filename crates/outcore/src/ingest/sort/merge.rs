//! The run merge of [`super::ExternalSorter`]: sorted runs read back
//! through buffered readers and merged by a min-heap of each run's head,
//! stable (equal keys come out in run order, runs are in push order).

use super::Record;
use crate::error::{Error, IoContext, Result};
use crate::io::fault::Faulty;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

pub(super) struct RunReader<R: Record> {
    path: PathBuf,
    input: BufReader<Faulty<File>>,
    scratch: Vec<u8>,
    _r: std::marker::PhantomData<R>,
}

impl<R: Record> RunReader<R> {
    fn open(path: &Path, buf: usize) -> Result<Self> {
        let f = File::open(path).at(path)?;
        Ok(RunReader {
            path: path.to_path_buf(),
            input: BufReader::with_capacity(buf.max(R::BYTES), Faulty(f)),
            scratch: vec![0; R::BYTES],
            _r: std::marker::PhantomData,
        })
    }

    fn next(&mut self) -> Result<Option<R>> {
        match self.input.read_exact(&mut self.scratch) {
            Ok(()) => Ok(Some(R::decode(&self.scratch))),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(None),
            Err(e) => Err(Error::io(&self.path, e)),
        }
    }
}

pub(super) struct Merger<R: Record> {
    pub bytes_read: u64,
    readers: Vec<RunReader<R>>,
    heads: Vec<Option<R>>,
    /// Min-heap of (key, run index): equal keys come out in run order, and runs
    /// are in push order, so the merge is stable.
    heap: BinaryHeap<Reverse<(R::Key, usize)>>,
}

impl<R: Record> Merger<R> {
    pub fn open(runs: &[PathBuf], buf: usize) -> Result<Self> {
        let mut m = Merger {
            bytes_read: 0,
            readers: Vec::with_capacity(runs.len()),
            heads: Vec::with_capacity(runs.len()),
            heap: BinaryHeap::with_capacity(runs.len()),
        };
        m.reopen(runs, buf)?;
        Ok(m)
    }

    /// (Re)starts the merge of `runs`; the previous readers and their
    /// buffers are released first.
    pub fn reopen(&mut self, runs: &[PathBuf], buf: usize) -> Result<()> {
        self.readers.clear();
        self.heads.clear();
        self.heap.clear();
        for (i, p) in runs.iter().enumerate() {
            let mut r = RunReader::<R>::open(p, buf)?;
            let head = r.next()?;
            if let Some(h) = &head {
                self.heap.push(Reverse((h.key(), i)));
            }
            self.readers.push(r);
            self.heads.push(head);
        }
        Ok(())
    }

    #[inline]
    pub fn next_record(&mut self) -> Result<Option<R>> {
        // The run's next record replaces the top in place (one sift-down
        // instead of a pop and a push); an exhausted run leaves the heap.
        let Some(mut top) = self.heap.peek_mut() else {
            return Ok(None);
        };
        let i = top.0 .1;
        let out = self.heads[i].take();
        self.bytes_read += R::BYTES as u64;
        let next = self.readers[i].next()?;
        match &next {
            Some(n) => *top = Reverse((n.key(), i)),
            None => {
                std::collections::binary_heap::PeekMut::pop(top);
            }
        }
        self.heads[i] = next;
        Ok(out)
    }
}
