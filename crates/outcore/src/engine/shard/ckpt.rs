//! Checkpoints of a shard's run: BSP checkpointing as Pregel's ("at the
//! beginning of a superstep, the master instructs the workers to save the
//! state of their partitions to persistent storage"), so a lost worker's
//! run restarts from the last superstep every shard saved, not from
//! superstep 0. [`ShardRun::checkpoint`] writes the run at the boundary
//! before superstep `s` (after `finish(s - 1)`, or after `open` and
//! `set_aggregate` for `s = 0`) to one file; [`ShardRun::restore`] loads
//! it into a run opened afresh on the same shard, which then goes on
//! from `scatter(s)` bit for bit as the saved run would have.
//!
//! The file: a magic, a JSON header naming what it is of (the shard and
//! its store's manifest checksum, the job, the superstep, the active
//! count), the state ([`MemState::save`](crate::engine::superstep::MemState::save)),
//! and the xxh3 of all that (the hash the stores' manifests use). It is
//! written under a temporary name beside the destination, fsynced and
//! renamed into place, so a reader sees a whole checkpoint or none. A
//! restore checks the checksum before it reads a byte of state, then
//! refuses a checkpoint of another shard, store, job or superstep.
//!
//! The program's own fields (PageRank's iteration count and last change)
//! are what its `end` sets from the aggregate and active count: a
//! restore replays `end(s - 1, agg, active)` with the saved ones.

use super::ShardRun;
use crate::engine::vertex::{Aggregate, VertexProgram};
use crate::engine::words::Word;
use crate::error::{Error, IoContext, Result};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;
use xxhash_rust::xxh3::Xxh3;

const MAGIC: &[u8; 8] = b"OCCKPT\0\x01";

/// What a checkpoint is of.
#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Header {
    shard: usize,
    parts: usize,
    /// The shard store's manifest checksum (partition.json's).
    store: String,
    /// The job: algorithm, options, program and word types.
    job: String,
    /// The superstep it begins.
    step: usize,
    /// The active count `finish(step - 1)` was given.
    active: u64,
}

/// A checkpoint written.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Checkpoint {
    pub step: usize,
    pub bytes: u64,
    pub seconds: f64,
}

/// A writer that hashes and counts what goes through.
struct Hashing<W: Write> {
    w: W,
    h: Xxh3,
    bytes: u64,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.w.write(buf)?;
        self.h.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

/// The temporary name a checkpoint is written under, beside `path`.
fn partial(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let name = format!(
        ".{}.partial-{}",
        name.unwrap_or_default(),
        std::process::id()
    );
    path.with_file_name(name)
}

/// A damaged checkpoint's error.
fn damaged(path: &Path, why: impl std::fmt::Display) -> Error {
    Error::store(
        path,
        format!("checkpoint damaged ({why}); it cannot be restored: run from an earlier one, or from superstep 0"),
    )
}

impl<P: VertexProgram, W: Word> ShardRun<P, W> {
    fn header(&self, job: &str) -> Header {
        Header {
            shard: self.ids.k,
            parts: self.ids.parts,
            store: self.store_sum.clone(),
            job: job.to_string(),
            step: self.next,
            active: self.active,
        }
    }

    /// The superstep the run is at the beginning of: 0 after `open`,
    /// `s + 1` after `finish(s)`.
    pub fn next_step(&self) -> usize {
        self.next
    }

    /// Writes the run at the beginning of its next superstep to `path`
    /// (atomically: whole or not at all), `job` naming the job a restore
    /// must be of.
    pub fn checkpoint(&self, path: &Path, job: &str) -> Result<Checkpoint> {
        let t = Instant::now();
        let tmp = partial(path);
        let write = || -> Result<u64> {
            let f = File::create(&tmp).at(&tmp)?;
            let mut w = Hashing {
                w: BufWriter::with_capacity(1 << 20, f),
                h: Xxh3::new(),
                bytes: 0,
            };
            let head = serde_json::to_vec(&self.header(job))
                .map_err(|e| Error::Invalid(format!("checkpoint header: {e}")))?;
            w.write_all(MAGIC).at(&tmp)?;
            w.write_all(&(head.len() as u64).to_le_bytes()).at(&tmp)?;
            w.write_all(&head).at(&tmp)?;
            self.st.save(&mut w).at(&tmp)?;
            let sum = w.h.digest();
            let mut f =
                w.w.into_inner()
                    .map_err(|e| Error::io(&tmp, e.into_error()))?;
            f.write_all(&sum.to_le_bytes()).at(&tmp)?;
            f.sync_all().at(&tmp)?;
            Ok(w.bytes + 8)
        };
        let bytes = match write() {
            Ok(b) => b,
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                return Err(e);
            }
        };
        std::fs::rename(&tmp, path).at(path)?;
        if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            File::open(dir).and_then(|f| f.sync_all()).at(dir)?;
        }
        Ok(Checkpoint {
            step: self.next,
            bytes,
            seconds: t.elapsed().as_secs_f64(),
        })
    }

    /// Loads the checkpoint at `path`, which must be of this shard and
    /// store, of `job`, and at the beginning of superstep `step`, into
    /// this run (opened afresh); the next call is `scatter(step)`.
    pub fn restore(&mut self, path: &Path, job: &str, step: usize) -> Result<()> {
        let mut f = File::open(path).at(path)?;
        // The checksum first: nothing of a damaged file is read as state.
        let len = f.metadata().at(path)?.len();
        if len < 16 {
            return Err(damaged(path, format!("{len} bytes")));
        }
        let mut h = Xxh3::new();
        let mut r = BufReader::with_capacity(1 << 20, &mut f).take(len - 8);
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = r.read(&mut buf).at(path)?;
            if n == 0 {
                break;
            }
            h.update(&buf[..n]);
        }
        let mut sum = [0u8; 8];
        r.into_inner().read_exact(&mut sum).at(path)?;
        if u64::from_le_bytes(sum) != h.digest() {
            return Err(damaged(path, "its checksum does not match its bytes"));
        }
        f.rewind().at(path)?;
        let mut r = BufReader::with_capacity(1 << 20, f).take(len - 8);
        let mut magic = [0u8; 8];
        r.read_exact(&mut magic).at(path)?;
        if &magic != MAGIC {
            return Err(damaged(path, "not an outcore checkpoint"));
        }
        let mut hl = [0u8; 8];
        r.read_exact(&mut hl).at(path)?;
        let hl = u64::from_le_bytes(hl);
        if hl > len {
            return Err(damaged(path, "its header's length"));
        }
        let mut head = vec![0u8; hl as usize];
        r.read_exact(&mut head).at(path)?;
        let got: Header =
            serde_json::from_slice(&head).map_err(|e| damaged(path, format!("its header: {e}")))?;
        let want = Header {
            step,
            ..self.header(job)
        };
        let refuse = |what: String| {
            Err(Error::Invalid(format!(
                "checkpoint {} is {what}; it cannot be restored here",
                path.display()
            )))
        };
        if (got.shard, got.parts, &got.store) != (want.shard, want.parts, &want.store) {
            return refuse(format!(
                "of shard {} of {} (store {}), not shard {} of {} (store {})",
                got.shard, got.parts, got.store, want.shard, want.parts, want.store
            ));
        }
        if got.job != want.job {
            return refuse(format!("of the job `{}`, not `{}`", got.job, want.job));
        }
        if got.step != step {
            return refuse(format!(
                "at the beginning of superstep {}, not {step}",
                got.step
            ));
        }
        self.st.load(&mut r).map_err(|e| match e.kind() {
            io::ErrorKind::InvalidData => damaged(path, e),
            _ => Error::io(path, e),
        })?;
        if r.limit() != 0 {
            return Err(damaged(path, format!("{} bytes past its state", r.limit())));
        }
        // The program's own fields, as the saved run's last `finish` set them.
        if step > 0 {
            let agg: Aggregate = self.st.agg;
            self.prog.end(step - 1, &agg, got.active);
        }
        self.next = step;
        self.active = got.active;
        Ok(())
    }
}
