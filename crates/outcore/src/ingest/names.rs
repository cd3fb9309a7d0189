//! String vertex ids (`--ids string`): names, their fingerprints, and the
//! external sort that turns the distinct names into ranks.
//!
//! A name is an arbitrary byte string. Edges carry its 128-bit fingerprint
//! (xxh3-128) through the build's sorters instead of the bytes. The distinct
//! names are sorted by their bytes — in memory while they fit the sorter's
//! share, else as sorted, deduplicated runs merged with a heap (over several
//! levels when there are more runs than read buffers) — and a name's rank is
//! its position in byte order. Ranks therefore order vertices as their names
//! do, as they follow numeric order for integer ids: outputs list names in
//! byte order, and a WCC label is the smallest name of its component.
//!
//! Two different names with one fingerprint would merge two vertices; the
//! build checks that the fingerprints of the distinct names are unique and
//! refuses the input otherwise (for 2^32 names the chance is about 2^-65).

use crate::error::{Error, IoContext, Result};
use crate::ingest::scratch::ScratchFiles;
use crate::io::fault::Faulty;
use crate::mem::budget::Charge;
use crate::mem::Budget;
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// The fingerprint edges carry for a name.
#[inline]
pub fn fingerprint(name: &[u8]) -> u128 {
    xxhash_rust::xxh3::xxh3_128(name)
}

/// Read (and write) buffer per run file.
const RUN_BUF: usize = 256 << 10;
/// The smallest share a sorter accepts.
const MIN_SHARE: u64 = 64 << 10;

/// Sorts and deduplicates names inside a budget share; see the module docs.
pub struct NameSorter {
    /// Where its runs are named and released.
    files: ScratchFiles,
    /// Runs merged at once (each holds a read buffer of the share).
    fan_in: usize,
    _charge: Charge,
    arena: Vec<u8>,
    /// (start, length) of each name in `arena`.
    spans: Vec<(u32, u32)>,
    arena_cap: usize,
    spans_cap: usize,
    runs: Vec<PathBuf>,
    spilled: u64,
}

impl NameSorter {
    /// A sorter holding `bytes` of `budget`, spilling runs into `scratch`.
    pub fn new(scratch: &ScratchFiles, budget: &Budget, bytes: u64) -> Result<NameSorter> {
        let share = bytes.max(MIN_SHARE);
        let charge = budget.charge(share, "vertex names")?;
        // Names and their spans; the rest is the sort's slack.
        let arena_cap = ((share / 2) as usize).min(u32::MAX as usize);
        let spans_cap = (share / 4 / 8) as usize;
        Ok(NameSorter {
            files: scratch.clone(),
            fan_in: ((share / (2 * RUN_BUF as u64)) as usize).max(2),
            _charge: charge,
            arena: Vec::new(),
            spans: Vec::new(),
            arena_cap,
            spans_cap,
            runs: Vec::new(),
            spilled: 0,
        })
    }

    /// Adds a name (duplicates are fine).
    pub fn push(&mut self, name: &[u8]) -> Result<()> {
        if name.len() > self.arena_cap {
            return Err(Error::Budget(format!(
                "a vertex id of {} bytes does not fit the memory budget's share for names ({} bytes); raise --memory",
                name.len(),
                self.arena_cap
            )));
        }
        if self.arena.len() + name.len() > self.arena_cap || self.spans.len() == self.spans_cap {
            self.spill()?;
        }
        // Grown as names come (doubling), up to the caps: a large budget
        // over a few names reserves what they take.
        if self.arena.len() + name.len() > self.arena.capacity() {
            let want = (2 * self.arena.capacity())
                .max(self.arena.len() + name.len())
                .max(64 << 10)
                .min(self.arena_cap);
            self.arena.reserve_exact(want - self.arena.len());
        }
        if self.spans.len() == self.spans.capacity() {
            let want = (2 * self.spans.capacity()).max(4096).min(self.spans_cap);
            self.spans.reserve_exact(want - self.spans.len());
        }
        self.spans
            .push((self.arena.len() as u32, name.len() as u32));
        self.arena.extend_from_slice(name);
        Ok(())
    }

    /// Bytes written to run files (each is read back once per merge level).
    pub fn spilled_bytes(&self) -> u64 {
        self.spilled
    }

    fn sort_dedup(&mut self) {
        use rayon::slice::ParallelSliceMut;
        let arena = &self.arena;
        let name = |s: &(u32, u32)| &arena[s.0 as usize..(s.0 + s.1) as usize];
        self.spans.par_sort_unstable_by(|a, b| name(a).cmp(name(b)));
        self.spans.dedup_by(|a, b| name(a) == name(b));
    }

    fn run_path(&mut self) -> PathBuf {
        self.files.path("names")
    }

    /// Sorts the buffer and writes it as a run.
    fn spill(&mut self) -> Result<()> {
        if self.spans.is_empty() {
            return Ok(());
        }
        self.sort_dedup();
        let path = self.run_path();
        let mut w = RunWriter::create(&path)?;
        for &(s, l) in &self.spans {
            w.put(&self.arena[s as usize..(s + l) as usize])?;
        }
        self.spilled += w.finish()?;
        self.runs.push(path);
        self.spans.clear();
        self.arena.clear();
        crate::cancel::check()
    }

    /// The distinct names in byte order.
    pub fn finish(mut self) -> Result<NameStream> {
        if self.runs.is_empty() {
            self.sort_dedup();
            let spans = std::mem::take(&mut self.spans);
            let arena = std::mem::take(&mut self.arena);
            return Ok(NameStream {
                inner: Inner::Memory {
                    arena,
                    spans,
                    next: 0,
                },
                _sorter: self,
            });
        }
        self.spill()?;
        self.arena = Vec::new();
        self.spans = Vec::new();
        // Every run being merged holds a read buffer; more runs than buffers
        // fit the share are merged into longer runs first.
        let fan_in = self.fan_in;
        while self.runs.len() > fan_in {
            let group: Vec<PathBuf> = self.runs.drain(..fan_in).collect();
            let path = self.run_path();
            let mut w = RunWriter::create(&path)?;
            let mut m = Merge::open(&group)?;
            while let Some(name) = m.next()? {
                w.put(name)?;
            }
            drop(m);
            self.spilled += w.finish()?;
            self.files.release(group);
            self.runs.push(path);
            crate::cancel::check()?;
        }
        let m = Merge::open(&self.runs)?;
        Ok(NameStream {
            inner: Inner::Merge(m),
            _sorter: self,
        })
    }
}

impl Drop for NameSorter {
    fn drop(&mut self) {
        self.files.release(std::mem::take(&mut self.runs));
    }
}

/// The distinct names in byte order, one at a time.
pub struct NameStream {
    inner: Inner,
    /// Holds the charge and removes the run files when dropped.
    _sorter: NameSorter,
}

enum Inner {
    Memory {
        arena: Vec<u8>,
        spans: Vec<(u32, u32)>,
        next: usize,
    },
    Merge(Merge),
}

impl NameStream {
    /// Bytes written to run files, merge levels included.
    pub fn spilled_bytes(&self) -> u64 {
        self._sorter.spilled
    }

    /// The next name, or `None` at the end.
    pub fn next_name(&mut self) -> Result<Option<&[u8]>> {
        match &mut self.inner {
            Inner::Memory { arena, spans, next } => {
                let Some(&(s, l)) = spans.get(*next) else {
                    return Ok(None);
                };
                *next += 1;
                Ok(Some(&arena[s as usize..(s + l) as usize]))
            }
            Inner::Merge(m) => m.next(),
        }
    }
}

/// A run file: `u32` length then the bytes, per name, ascending.
struct RunWriter {
    path: PathBuf,
    out: BufWriter<Faulty<File>>,
    bytes: u64,
}

impl RunWriter {
    fn create(path: &Path) -> Result<RunWriter> {
        let f = File::create(path).at(path)?;
        Ok(RunWriter {
            path: path.to_path_buf(),
            out: BufWriter::with_capacity(RUN_BUF, Faulty(f)),
            bytes: 0,
        })
    }

    fn put(&mut self, name: &[u8]) -> Result<()> {
        self.out
            .write_all(&(name.len() as u32).to_le_bytes())
            .at(&self.path)?;
        self.out.write_all(name).at(&self.path)?;
        self.bytes += 4 + name.len() as u64;
        Ok(())
    }

    fn finish(self) -> Result<u64> {
        self.out
            .into_inner()
            .map_err(|e| e.into_error())
            .at(&self.path)?;
        Ok(self.bytes)
    }
}

struct RunReader {
    path: PathBuf,
    input: BufReader<Faulty<File>>,
}

impl RunReader {
    /// Reads the next name into `buf`; false at the end of the run.
    fn read(&mut self, buf: &mut Vec<u8>) -> Result<bool> {
        let mut len = [0u8; 4];
        match self.input.read_exact(&mut len) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(false),
            Err(e) => return Err(e).at(&self.path),
        }
        buf.resize(u32::from_le_bytes(len) as usize, 0);
        self.input.read_exact(buf).at(&self.path)?;
        Ok(true)
    }
}

/// The head of one run in the merge heap (smallest name first, then the
/// lower run).
struct Head {
    name: Vec<u8>,
    run: usize,
}

impl Ord for Head {
    fn cmp(&self, o: &Self) -> Ordering {
        o.name.cmp(&self.name).then(o.run.cmp(&self.run))
    }
}
impl PartialOrd for Head {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl PartialEq for Head {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Head {}

/// A k-way merge of sorted runs, duplicates dropped.
struct Merge {
    readers: Vec<RunReader>,
    heap: BinaryHeap<Head>,
    last: Vec<u8>,
    started: bool,
}

impl Merge {
    fn open(paths: &[PathBuf]) -> Result<Merge> {
        let mut m = Merge {
            readers: Vec::with_capacity(paths.len()),
            heap: BinaryHeap::with_capacity(paths.len()),
            last: Vec::new(),
            started: false,
        };
        for (run, p) in paths.iter().enumerate() {
            let f = File::open(p).at(p)?;
            let mut r = RunReader {
                path: p.clone(),
                input: BufReader::with_capacity(RUN_BUF, Faulty(f)),
            };
            let mut name = Vec::new();
            if r.read(&mut name)? {
                m.heap.push(Head { name, run });
            }
            m.readers.push(r);
        }
        Ok(m)
    }

    fn next(&mut self) -> Result<Option<&[u8]>> {
        while let Some(mut h) = self.heap.pop() {
            let fresh = !self.started || h.name != self.last;
            if fresh {
                std::mem::swap(&mut self.last, &mut h.name);
                self.started = true;
            }
            let run = h.run;
            if self.readers[run].read(&mut h.name)? {
                self.heap.push(h);
            }
            if fresh {
                return Ok(Some(&self.last));
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(seed: u64, count: usize, distinct: u64) -> Vec<Vec<u8>> {
        let mut s = seed | 1;
        (0..count)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                let k = s % distinct;
                // Lengths from 0 to ~40 bytes, some sharing long prefixes.
                let mut v = format!("user-{k:x}").into_bytes();
                v.resize((k % 41) as usize, b'x');
                v.extend_from_slice(&k.to_le_bytes()[..(k % 3) as usize]);
                v
            })
            .collect()
    }

    /// Names sorted with a buffer of `arena` bytes merging `fan_in` runs at once.
    fn sorted(arena: usize, fan_in: usize, input: &[Vec<u8>]) -> (Vec<Vec<u8>>, u64) {
        let dir = tempfile::tempdir().unwrap();
        let scratch = crate::ingest::scratch::Scratch::within(dir.path(), "t").unwrap();
        let budget = Budget::new(64 << 20);
        let mut s = NameSorter::new(&scratch, &budget, 8 << 20).unwrap();
        // Small buffers force many runs, a small fan-in merge levels.
        s.arena_cap = s.arena_cap.min(arena);
        s.spans_cap = s.spans_cap.min(arena / 8);
        s.fan_in = fan_in;
        for n in input {
            s.push(n).unwrap();
        }
        let mut st = s.finish().unwrap();
        let spilled = st.spilled_bytes();
        let mut out = Vec::new();
        while let Some(n) = st.next_name().unwrap() {
            out.push(n.to_vec());
        }
        drop(st);
        scratch.drain();
        assert_eq!(
            std::fs::read_dir(scratch.dir()).unwrap().count(),
            0,
            "runs left"
        );
        assert_eq!(budget.used(), 0);
        (out, spilled)
    }

    #[test]
    fn names_come_back_sorted_and_distinct() {
        for (seed, count, distinct, arena, fan_in) in [
            (1, 0, 1, 1 << 20, 8),
            (2, 5000, 300, 1 << 20, 8),
            (3, 20000, 100_000, 1 << 20, 8),
            (4, 20000, 5000, 4096, 64),
            (5, 30000, 30000, 600, 2),
        ] {
            let input = names(seed, count, distinct);
            let mut want = input.clone();
            want.sort();
            want.dedup();
            let (got, spilled) = sorted(arena, fan_in, &input);
            assert_eq!(got, want, "seed {seed}");
            let runs = (arena < 1 << 20 && count > 0) as u64;
            // Merge levels write names again: more than one pass spilled.
            let once: u64 = want.iter().map(|n| 4 + n.len() as u64).sum();
            assert_eq!(spilled > 0, runs == 1, "seed {seed}");
            if fan_in == 2 {
                assert!(spilled > 2 * once, "seed {seed}: {spilled} vs {once}");
            }
        }
    }

    #[test]
    fn fingerprints_differ() {
        assert_ne!(fingerprint(b"a"), fingerprint(b"b"));
        assert_ne!(fingerprint(b""), fingerprint(b"\0"));
        assert_eq!(fingerprint(b"alice"), fingerprint(b"alice"));
    }
}
