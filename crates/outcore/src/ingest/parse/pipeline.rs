//! The parallel block pipeline shared by every file format.
//!
//! A reader thread streams the input files (decompressing `.gz`) into blocks
//! of about [`DEFAULT_BLOCK_SIZE`] bytes, cut at a line (or record) boundary;
//! the partial last line is carried into the next block, and blocks never span
//! two files. Each block is parsed by a rayon task into a batch of items; the
//! calling thread receives the batches strictly in input order. At most
//! `rayon threads + 1` blocks are being parsed, and the reader runs at most one
//! block ahead, so memory stays bounded whatever the input size.
//!
//! Parsers count lines within their block; the caller adds the lines of the
//! preceding blocks of the same file, so error line numbers are exact.

use std::collections::VecDeque;
use std::io::{self, Read};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::AtomicU64;
use std::sync::mpsc::{self, Receiver, Sender, SyncSender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use super::input::{open_stream, InputFile, BOM};
use super::lex::LocalError;
use crate::error::{Error, Result};

/// Bytes of input text per block.
pub(crate) const DEFAULT_BLOCK_SIZE: usize = 4 << 20;

/// The most blocks being parsed at once.
fn max_jobs() -> usize {
    rayon::current_num_threads().max(1) + 1
}

/// See [`super::pipeline_memory_bytes`]: per parse slot a block of text and
/// its edges (24 bytes per edge, at most one per 12 bytes of text), plus the
/// batch being delivered, two blocks at the reader and its direct-read
/// chunk.
pub(crate) fn memory_estimate() -> u64 {
    let block = DEFAULT_BLOCK_SIZE as u64;
    let per_slot = block + 2 * block;
    (max_jobs() as u64 + 1) * per_slot + 2 * block + super::input::DIRECT_CHUNK as u64
}

/// A line longer than this is refused (the file is probably not text).
const MAX_LINE: usize = 256 << 20;

/// What a parser found in one block.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Stats {
    /// Newlines in the block.
    pub lines: u64,
    /// Format-specific record count (Matrix Market entries).
    pub records: u64,
}

/// Parses one block of one file into items.
pub(crate) trait BlockParser: Send + Sync + 'static {
    type Item: Send + 'static;
    /// Appends the items of `data` (whole lines of file number `file`) to `out`.
    fn parse(
        &self,
        file: usize,
        data: &[u8],
        out: &mut Vec<Self::Item>,
    ) -> Result<Stats, LocalError>;
}

/// How the reader cuts blocks.
#[derive(Clone, Debug)]
pub(crate) enum Cut {
    /// At newlines; drop the first `skip[i]` lines of file `i` (headers).
    Lines { skip: Vec<u64> },
    /// At multiples of a fixed record size (binary formats).
    Records(usize),
}

/// One parsed block, as handed to the consumer.
pub(crate) struct BlockInfo<'a> {
    pub file: usize,
    /// The block's text (whole lines).
    pub data: &'a [u8],
    /// Lines of the same file before this block (including skipped header lines).
    pub line_base: u64,
    pub stats: Stats,
}

/// What the consumer receives, in input order.
pub(crate) enum Event<'a, T> {
    Block(BlockInfo<'a>, &'a [T]),
    /// File `file` is complete.
    FileEnd {
        file: usize,
    },
}

/// Streams `files` through `parser`, calling `sink` in input order.
pub(crate) fn run<P: BlockParser>(
    files: &[InputFile],
    cut: Cut,
    block_size: usize,
    consumed: Arc<AtomicU64>,
    parser: Arc<P>,
    sink: &mut dyn FnMut(Event<'_, P::Item>) -> Result<()>,
) -> Result<()> {
    if files.is_empty() {
        return Ok(());
    }
    let block_size = match cut {
        Cut::Records(rec) => (block_size / rec).max(1) * rec,
        Cut::Lines { .. } => block_size.max(1),
    };
    let (tx, rx) = mpsc::sync_channel::<Msg>(1);
    let (recycle_tx, recycle_rx) = mpsc::channel::<Vec<u8>>();
    let reader = Reader {
        files: files.to_vec(),
        cut,
        block_size,
        consumed,
        tx,
        recycle: recycle_rx,
    };
    let handle = thread::Builder::new()
        .name("outcore-read".into())
        .spawn(move || reader.run())
        .map_err(|e| Error::Invalid(format!("cannot start the input reader thread: {e}")))?;
    let result = consume(files, rx, recycle_tx, parser, sink);
    // `rx` is gone: a reader blocked in `send` wakes up and stops.
    if let Err(p) = handle.join() {
        panic::resume_unwind(p);
    }
    result
}

enum Msg {
    Block {
        file: usize,
        data: Vec<u8>,
        skipped: u64,
    },
    FileEnd {
        file: usize,
        skipped: u64,
    },
    Fail(Error),
}

struct JobOut<T> {
    data: Vec<u8>,
    items: Vec<T>,
    result: thread::Result<Result<Stats, LocalError>>,
}

enum Pending<T> {
    Job {
        file: usize,
        skipped: u64,
        rx: Receiver<JobOut<T>>,
    },
    FileEnd {
        file: usize,
        skipped: u64,
    },
    Fail(Error),
}

fn consume<P: BlockParser>(
    files: &[InputFile],
    rx: Receiver<Msg>,
    recycle: Sender<Vec<u8>>,
    parser: Arc<P>,
    sink: &mut dyn FnMut(Event<'_, P::Item>) -> Result<()>,
) -> Result<()> {
    let max_jobs = max_jobs();
    let pool: Arc<Mutex<Vec<Vec<P::Item>>>> = Arc::new(Mutex::new(Vec::new()));
    let mut queue: VecDeque<Pending<P::Item>> = VecDeque::new();
    let mut jobs = 0;
    let mut reader_done = false;
    let mut cur_file = usize::MAX;
    let mut line_base = 0u64;
    loop {
        while !reader_done && jobs < max_jobs {
            match rx.recv() {
                Ok(Msg::Block {
                    file,
                    data,
                    skipped,
                }) => {
                    let (jtx, jrx) = mpsc::sync_channel(1);
                    let parser = Arc::clone(&parser);
                    let pool = Arc::clone(&pool);
                    rayon::spawn(move || {
                        let mut items = pool
                            .lock()
                            .map(|mut p| p.pop())
                            .ok()
                            .flatten()
                            .unwrap_or_default();
                        items.clear();
                        let result = panic::catch_unwind(AssertUnwindSafe(|| {
                            parser.parse(file, &data, &mut items)
                        }));
                        let _ = jtx.send(JobOut {
                            data,
                            items,
                            result,
                        });
                    });
                    queue.push_back(Pending::Job {
                        file,
                        skipped,
                        rx: jrx,
                    });
                    jobs += 1;
                }
                Ok(Msg::FileEnd { file, skipped }) => {
                    queue.push_back(Pending::FileEnd { file, skipped })
                }
                Ok(Msg::Fail(e)) => {
                    queue.push_back(Pending::Fail(e));
                    reader_done = true;
                }
                Err(_) => reader_done = true,
            }
        }
        let Some(front) = queue.pop_front() else {
            return Ok(());
        };
        match front {
            Pending::Job {
                file,
                skipped,
                rx: jrx,
            } => {
                jobs -= 1;
                let out = wait(&jrx);
                if file != cur_file {
                    cur_file = file;
                    line_base = 0;
                }
                line_base += skipped;
                let stats = match out.result {
                    Err(p) => panic::resume_unwind(p),
                    Ok(Err(e)) => {
                        return Err(Error::parse(
                            &files[file].path,
                            line_base + e.line,
                            &e.text,
                            e.expected,
                        ));
                    }
                    Ok(Ok(stats)) => stats,
                };
                let info = BlockInfo {
                    file,
                    data: &out.data,
                    line_base,
                    stats,
                };
                sink(Event::Block(info, &out.items))?;
                line_base += stats.lines;
                let _ = recycle.send(out.data);
                if let Ok(mut p) = pool.lock() {
                    if p.len() < max_jobs {
                        p.push(out.items);
                    }
                }
            }
            Pending::FileEnd { file, skipped } => {
                if file != cur_file {
                    cur_file = file;
                    line_base = 0;
                }
                line_base += skipped;
                sink(Event::FileEnd { file })?;
            }
            Pending::Fail(e) => return Err(e),
        }
    }
}

/// Waits for a parse job. On a rayon worker (the caller runs inside rayon),
/// keeps executing other rayon work instead of blocking the worker.
fn wait<T>(rx: &Receiver<T>) -> T {
    if rayon::current_thread_index().is_none() {
        return rx.recv().expect("a parse job was dropped without running");
    }
    loop {
        match rx.try_recv() {
            Ok(v) => return v,
            Err(TryRecvError::Empty) => {
                if rayon::yield_now() != Some(rayon::Yield::Executed) {
                    thread::sleep(Duration::from_micros(50));
                }
            }
            Err(TryRecvError::Disconnected) => panic!("a parse job was dropped without running"),
        }
    }
}

/// The reader thread: files to blocks.
struct Reader {
    files: Vec<InputFile>,
    cut: Cut,
    block_size: usize,
    consumed: Arc<AtomicU64>,
    tx: SyncSender<Msg>,
    recycle: Receiver<Vec<u8>>,
}

/// The consumer hung up (an error or the sink stopped the stream).
struct Hangup;

impl Reader {
    fn run(self) {
        for i in 0..self.files.len() {
            match self.read_file(i) {
                Ok(Ok(skipped)) => {
                    if self.tx.send(Msg::FileEnd { file: i, skipped }).is_err() {
                        return;
                    }
                }
                Ok(Err(Hangup)) => return,
                Err(e) => {
                    let _ = self.tx.send(Msg::Fail(e));
                    return;
                }
            }
        }
    }

    /// Streams file `i`; returns skipped lines not yet reported with a block.
    fn read_file(&self, i: usize) -> Result<Result<u64, Hangup>> {
        let file = &self.files[i];
        let mut r = open_stream(file, Some(Arc::clone(&self.consumed)))?;
        let mut skip = match &self.cut {
            Cut::Lines { skip } => skip.get(i).copied().unwrap_or(0),
            Cut::Records(_) => 0,
        };
        let mut skipped = 0u64;
        let mut carry: Vec<u8> = Vec::new();
        let mut records_before = 0u64;
        let mut eof = false;
        let mut first = true;
        while !eof {
            let mut buf = self.recycle.try_recv().unwrap_or_default();
            buf.clear();
            buf.extend_from_slice(&carry);
            carry.clear();
            let mut target = self.block_size.max(buf.len() + 1);
            loop {
                eof = fill(&mut r, &mut buf, target).map_err(|e| Error::io(&file.path, e))?;
                if eof {
                    break;
                }
                match self.cut {
                    Cut::Lines { .. } => match buf.iter().rposition(|&b| b == b'\n') {
                        Some(pos) => {
                            carry.extend_from_slice(&buf[pos + 1..]);
                            buf.truncate(pos + 1);
                            break;
                        }
                        None if target >= MAX_LINE => {
                            return Err(Error::Invalid(format!(
                                "{}: a line is longer than {} MiB; is this a text edge list?",
                                file.path.display(),
                                MAX_LINE >> 20
                            )));
                        }
                        None => target *= 2,
                    },
                    Cut::Records(rec) => {
                        let keep = buf.len() / rec * rec;
                        carry.extend_from_slice(&buf[keep..]);
                        buf.truncate(keep);
                        break;
                    }
                }
            }
            // A text file's UTF-8 byte-order mark is no part of its first line.
            if first && matches!(self.cut, Cut::Lines { .. }) && buf.starts_with(BOM) {
                buf.drain(..BOM.len());
            }
            first = false;
            if let Cut::Records(rec) = self.cut {
                records_before += (buf.len() / rec) as u64;
                let trailing = buf.len() % rec;
                if eof && trailing > 0 {
                    let path = &file.path;
                    return Err(super::binary::trailing_error(
                        path,
                        rec,
                        records_before,
                        trailing,
                    ));
                }
            }
            if skip > 0 {
                let mut off = 0;
                while skip > 0 && off < buf.len() {
                    off = match buf[off..].iter().position(|&b| b == b'\n') {
                        Some(k) => off + k + 1,
                        None => buf.len(),
                    };
                    skip -= 1;
                    skipped += 1;
                }
                buf.drain(..off);
            }
            if !buf.is_empty() {
                let msg = Msg::Block {
                    file: i,
                    data: buf,
                    skipped: std::mem::take(&mut skipped),
                };
                if self.tx.send(msg).is_err() {
                    return Ok(Err(Hangup));
                }
            }
        }
        Ok(Ok(skipped))
    }
}

/// Reads until `buf` holds `target` bytes or the input ends; true at the end.
fn fill(r: &mut dyn Read, buf: &mut Vec<u8>, target: usize) -> io::Result<bool> {
    let mut len = buf.len();
    buf.resize(target, 0);
    while len < target {
        match r.read(&mut buf[len..]) {
            Ok(0) => {
                buf.truncate(len);
                return Ok(true);
            }
            Ok(n) => len += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                buf.truncate(len);
                return Err(e);
            }
        }
    }
    Ok(false)
}
