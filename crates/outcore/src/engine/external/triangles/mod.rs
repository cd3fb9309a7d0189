//! Out-of-core triangle listing (degree-ordered orientation + block nested
//! loop, as in Chu & Cheng's and MGT's external triangle listing) with
//! per-vertex credits, for LCC and triangle counts.
//!
//! 1. **Orient**: one sequential pass over the CSR (out and in lists merged
//!    for a directed store) gives every vertex its neighbourhood as a set
//!    ignoring direction, N(v) (self excluded), writes `(|N(v)|, |N+(v)|)` to
//!    a meta file and the oriented list N+(v) = {u in N(v) : u < v} to an
//!    adjacency file, each entry `u << 1 | both` (`both`: arcs run both ways
//!    between u and v; a u32 on a narrow store of fewer than 2^31
//!    vertices, else a u64: `entry.rs`). Dense ids go by descending degree, so a vertex keeps
//!    only its neighbours of higher degree: |N+(v)| <= sqrt(2m), and a hub
//!    with hundreds of thousands of neighbours keeps few.
//! 2. **Blocks**: consecutive vertices whose oriented lists fit the budget
//!    form a block. A block's lists are loaded with an index by neighbour;
//!    then the oriented file is scanned sequentially up to the block's end,
//!    and every scanned u that a block vertex v points to has N+(v) and N+(u)
//!    intersected: each common w closes the triangle v > u > w, found
//!    exactly once. The adjacency never has to fit in memory; a graph
//!    costs (blocks / 2) scans of its oriented half.
//! 3. **Credits**: each corner of a triangle is credited either 1 (triangle
//!    counts) or the number of arcs between the two other corners (LCC's
//!    "edges between neighbours", direction respected). v's credits sum in
//!    the block, u's per scanned list, w's per list entry, so at most one
//!    update per oriented edge and block leaves the scan; updates go to an
//!    in-memory array when it fits, else to sort-reduced logs (`log.rs`,
//!    `merge.rs`), read back in vertex order at the end.

use super::disk::Appender;
use super::log::MultiLog;
use super::merge::{sort_reduce, MergeConfig, MergeCounts};
use super::words::WordStream;
use super::{ExternalConfig, SpillDir, SLACK};
use crate::engine::stats::{ExternalIter, IterStats, RunStats};
use crate::error::{Error, Result};
use crate::io::{IoStats, Reader, ALIGN};
use crate::mem::Budget;
use crate::progress::Progress;
use crate::store::csr::SlotWidth;
use crate::store::Store;
use std::time::Instant;

/// What a triangle credits each of its corners.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Credit {
    /// The arcs between the two other corners (1 or 2; an undirected edge
    /// counts both ways): summed, the arcs among a vertex's neighbours.
    Arcs,
    /// One per triangle.
    Triangles,
}

impl Credit {
    /// The credit of a corner whose opposite pair has `both` set or not.
    #[inline]
    fn of(self, both: u32) -> u64 {
        match self {
            Credit::Arcs => 1 + both as u64,
            Credit::Triangles => 1,
        }
    }
}

mod block;
mod entry;
mod orient;
mod probe;

use entry::Entry;

/// Bytes a block spends per vertex (list offset, credit).
const PER_VERTEX: u64 = 12;

/// Bytes a block spends per oriented entry of type `E`: the entry, and in
/// the index its neighbour, local vertex and position (16 bytes for u32
/// entries, 24 for u64).
fn per_entry<E: Entry>() -> u64 {
    (std::mem::size_of::<E>() + std::mem::size_of::<(E, u32, u32)>()) as u64
}

/// Memory plan.
struct Plan {
    chunk: usize,
    /// Longest oriented list a scan can hold.
    max_list: u64,
    /// Bytes per oriented entry in a block ([`per_entry`]).
    per_entry: u64,
    /// Bytes of one block.
    block: u64,
    /// Credits in memory (`n` u64) or through logs with this message buffer.
    log_messages: Option<usize>,
    /// Vertices below which a thread indexes a list in a dense array.
    dense_limit: usize,
}

/// Streams and appenders kept for the whole run: four streams (a directed
/// store's out and in offsets and lists), two appenders.
struct Bufs {
    s: [WordStream; 4],
    out: [Appender; 2],
}

fn plan<E: Entry>(n: u64, budget: &Budget, cfg: &ExternalConfig) -> Result<Plan> {
    let avail = budget.available().saturating_sub(SLACK);
    let chunk = ((avail / 64) as usize).clamp(16 * ALIGN, 4 << 20) / ALIGN * ALIGN;
    let list_share = avail / 8;
    let in_memory = n * 8 <= avail / 4 && !cfg.force_spill;
    let credits = if in_memory { n * 8 } else { avail / 8 };
    let dense_share = avail / 32;
    let fixed = 12 * chunk as u64 + dense_share;
    let block = cfg
        .triangle_block
        .unwrap_or(avail.saturating_sub(fixed + list_share + credits));
    if block < 4 * ALIGN as u64 || avail < 2 * fixed {
        return Err(Error::Budget(format!(
            "triangle listing needs at least {} of memory; raise --memory",
            crate::size::format_size(SLACK + 2 * fixed.max(12 * 16 * ALIGN as u64))
        )));
    }
    Ok(Plan {
        chunk,
        max_list: list_share / per_entry::<E>(),
        per_entry: per_entry::<E>(),
        block,
        dense_limit: (dense_share / 4 / rayon::current_num_threads() as u64) as usize,
        log_messages: (!in_memory)
            .then_some((cfg.message_buffer.unwrap_or(avail / 8) / 16).max(16) as usize),
    })
}

/// Where credits accumulate (vertices as entries' ids, `E`).
enum Sink<E: Entry> {
    Memory {
        credits: Vec<u64>,
        _charge: crate::mem::budget::Charge,
    },
    Log(MultiLog<u64, E>),
}

impl<E: Entry> Sink<E> {
    #[inline]
    fn add(&mut self, reader: &mut Reader, stage: &mut Appender, v: E, c: u64) -> Result<()> {
        match self {
            Sink::Memory { credits, .. } => {
                credits[v.get() as usize] += c;
                Ok(())
            }
            Sink::Log(log) => log.push(reader, stage, v, c),
        }
    }
}

fn sum(a: u64, b: u64) -> u64 {
    a + b
}

fn iter_stats(i: usize, t: Instant, io: IoStats, work: u64, active: u64) -> IterStats {
    let secs = t.elapsed().as_secs_f64();
    IterStats {
        iteration: i,
        seconds: secs,
        bytes_read: io.bytes_read,
        bytes_written: io.bytes_written,
        read_requests: io.requests,
        edges_processed: work,
        active_vertices: active,
        io_wait_seconds: io.wait_seconds,
        compute_seconds: (secs - io.wait_seconds).max(0.0),
        engine: "external",
        ..Default::default()
    }
}

/// Lists the triangles of `store` and calls `f(v, |N(v)|, credit of v)` for
/// every vertex in dense order. The oriented entries are u32s on a narrow
/// store of fewer than 2^31 vertices, else u64s.
pub fn triangle_credits(
    store: &Store,
    credit: Credit,
    cfg: &ExternalConfig,
    budget: &Budget,
    f: impl FnMut(u64, u32, u64),
) -> Result<RunStats> {
    // u32 entries name fewer than 2^31 vertices: a narrow store with more
    // takes u64 entries too.
    let m = store.manifest();
    if m.slot_width() == SlotWidth::Wide || m.num_vertices >= <u32 as Entry>::MAX_VERTICES {
        credits_as::<u64>(store, credit, cfg, budget, f)
    } else {
        credits_as::<u32>(store, credit, cfg, budget, f)
    }
}

/// [`triangle_credits`] on entries of type `E`.
fn credits_as<E: Entry>(
    store: &Store,
    credit: Credit,
    cfg: &ExternalConfig,
    budget: &Budget,
    mut f: impl FnMut(u64, u32, u64),
) -> Result<RunStats> {
    let t0 = Instant::now();
    let m = store.manifest();
    let n = m.num_vertices;
    if n >= E::MAX_VERTICES {
        return Err(Error::Invalid(format!(
            "triangle listing handles fewer than {} vertices on a store of {}-byte ids",
            E::MAX_VERTICES,
            E::WORDS * 4
        )));
    }
    let p = plan::<E>(n, budget, cfg)?;
    // Buffers before the reader: the reader drops first, waiting for its
    // I/O into them (also on errors).
    let stream = |k: u64| WordStream::new(0, p.chunk, k << 41, budget);
    let mut bufs = Bufs {
        s: [stream(1)?, stream(2)?, stream(3)?, stream(4)?],
        out: [
            Appender::new(0, 0, p.chunk, budget)?.tagged(1 << 40),
            Appender::new(0, 0, p.chunk, budget)?.tagged(3 << 40),
        ],
    };
    let dir = SpillDir::new(store, cfg.tmp_dir.as_deref())?;
    let mut reader = Reader::new(cfg.io, 8)?;
    let meta = reader.create(&dir.0.join("tri-meta.bin"), "oriented list lengths")?;
    let adj = reader.create(&dir.0.join("tri-adj.bin"), "oriented lists")?;
    let mut stats = RunStats {
        algorithm: "triangles".into(),
        engine: "external".into(),
        io_backend: reader.backend().to_string(),
        memory_budget: budget.limit(),
        threads: 1,
        ..Default::default()
    };
    let mut progress = Progress::new("triangles (external)");

    // 1. Orient.
    let it0 = Instant::now();
    let blocks = orient::orient::<E>(
        store,
        &mut reader,
        &p,
        &mut bufs,
        [meta, adj],
        budget,
        &mut progress,
    )?;
    stats.direct_io = reader.direct(adj);
    stats
        .iterations
        .push(iter_stats(0, it0, reader.stats(), 0, n));

    // 2. Blocks.
    let mut sink: Sink<E> = match p.log_messages {
        None => {
            let c = budget.charge(n * 8, "triangle credits")?;
            Sink::Memory {
                credits: vec![0; n as usize],
                _charge: c,
            }
        }
        Some(cap) => {
            let iv = cfg
                .interval_vertices
                .unwrap_or(p.block / 32)
                .clamp(1, n.clamp(1, super::log::MAX_INTERVAL));
            let k = n.div_ceil(iv).max(1);
            let bounds: Vec<u64> = (0..=k).map(|i| (i * iv).min(n)).collect();
            let files = (0..k)
                .map(|i| reader.create(&dir.0.join(format!("tri-log-{i}.bin")), "triangle log"))
                .collect::<Result<Vec<_>>>()?;
            Sink::Log(MultiLog::with_combine(
                cap,
                bounds,
                files,
                Some(sum),
                budget,
            )?)
        }
    };
    let nb = blocks.len() - 1;
    progress.set_total(nb as u64);
    for b in 0..nb {
        crate::cancel::check()?;
        let it0 = Instant::now();
        let io0 = reader.stats();
        let (v0, w0) = blocks[b];
        let (v1, w1) = blocks[b + 1];
        let work = block::block(
            &mut reader,
            &mut bufs,
            [meta, adj],
            (v0, v1),
            (w0, w1),
            credit,
            &p,
            &mut sink,
            budget,
        )?;
        stats
            .iterations
            .push(iter_stats(b + 1, it0, reader.stats() - io0, work, v1 - v0));
        progress.set(b as u64 + 1);
    }

    // 3. Credits back in vertex order, beside the degrees.
    let it0 = Instant::now();
    let io0 = reader.stats();
    let Bufs { s, out } = &mut bufs;
    let [ms, ..] = s;
    let [stage, _] = out;
    ms.seek(&mut reader, meta, 0, 2 * n)?;
    let mut next = 0u64;
    let mut emit = |reader: &mut Reader, upto: u64, c: Option<(u64, u64)>| -> Result<()> {
        while next < upto {
            let d = ms.next(reader)?;
            ms.next(reader)?;
            let credit = match c {
                Some((t, c)) if t == next => c,
                _ => 0,
            };
            f(next, d, credit);
            next += 1;
        }
        Ok(())
    };
    let mut spill = None;
    match sink {
        Sink::Memory { credits, .. } => {
            for (v, &c) in credits.iter().enumerate() {
                emit(&mut reader, v as u64 + 1, Some((v as u64, c)))?;
            }
        }
        Sink::Log(mut log) => {
            log.flush(&mut reader, stage)?;
            // The message buffer goes before the merges take memory.
            let all_runs = std::mem::take(&mut log.runs);
            let bounds = log.bounds().to_vec();
            let log_counts = log.counts;
            drop(log);
            let scratch = [
                reader.create(&dir.0.join("tri-merge-a.bin"), "merge run")?,
                reader.create(&dir.0.join("tri-merge-b.bin"), "merge run")?,
            ];
            let run_buffer = ((p.block / 64) as usize).clamp(ALIGN, 1 << 20) / ALIGN * ALIGN;
            let memory = cfg.merge_memory.unwrap_or(p.block / 2).min(p.block / 2);
            let mcfg = MergeConfig::new(memory, run_buffer, cfg.fan_in);
            let mut counts = MergeCounts::default();
            let iv = bounds.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
            let _c = budget.charge(iv * 16, "triangle credits of an interval")?;
            let mut got: Vec<(u64, u64)> = Vec::with_capacity(iv as usize);
            for (k, runs) in all_runs.into_iter().enumerate() {
                got.clear();
                sort_reduce(
                    &mut reader,
                    &runs,
                    Some(sum),
                    &mcfg,
                    scratch,
                    stage,
                    budget,
                    &mut counts,
                    |x, c| {
                        // Targets are local to the interval.
                        let t = bounds[k] + x as u64;
                        if t >= bounds[k + 1] || got.len() as u64 >= iv {
                            return Err(Error::Invalid(format!(
                                "triangle credits for vertex {t} in the log of vertices {}..{}; the spill file was damaged",
                                bounds[k], bounds[k + 1]
                            )));
                        }
                        got.push((t, c));
                        Ok(())
                    },
                )?;
                for &(t, c) in &got {
                    emit(&mut reader, t + 1, Some((t, c)))?;
                }
            }
            stage.drain(&mut reader)?;
            let rec = 12;
            spill = Some(ExternalIter {
                intervals: bounds.len() as u64 - 1,
                log_bytes_raw: log_counts.messages * rec,
                log_bytes_reduced: log_counts.records_written * rec,
                log_bytes_written: log_counts.bytes_written,
                flushes: log_counts.flushes,
                merge_levels: counts.levels,
                merge_bytes_written: counts.bytes_written,
                logs_sorted_in_memory: counts.in_memory,
                logs_merged_external: counts.external,
                ..Default::default()
            });
        }
    }
    emit(&mut reader, n, None)?;
    ms.drain(&mut reader)?;
    let mut last = iter_stats(nb + 1, it0, reader.stats() - io0, 0, n);
    last.external = spill;
    stats.iterations.push(last);
    stats.finish_io(&reader.stats(), t0);
    stats.segment_bytes = p.chunk as u64;
    progress.done(|| format!("{nb} blocks"));
    Ok(stats)
}
