//! Random walks over lists held in memory, when the out-lists, the visit
//! counts, the table of start vertices and a batch of walkers fit the
//! budget (the planner's choice: [`crate::engine::planner::walks_held`]):
//! the lists are read by one sequential scan ([`HeldLists`]), then the
//! walkers of a batch move a step at a time as the walker logs do
//! (DrunkardMob's walkers sorted by vertex), but the sort is an in-memory
//! radix sort and the moves read the held lists: in vertex order, so the
//! offsets, the counts and the lists are read nearly sequentially (walks
//! run whole one by one took three cache misses a step, 2x the logs'
//! time). The moves are [`next_move`]'s, so the walks and the visits are
//! the walker logs' ones (and the reference's) on any budget or thread
//! count.

use super::{next_move, Move, PathSink, WalkConfig, Walks};
use crate::base::radix::{sort_records_with, KeyValue as Walker};
use crate::engine::results::Values;
use crate::engine::stats::{IterStats, RunStats};
use crate::error::Result;
use crate::mem::budget::Charge;
use crate::mem::Budget;
use crate::progress::{Progress, Unit};
use crate::store::csr::Slot;
use crate::store::held::HeldLists;
use crate::store::Store;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

/// Walkers moved at once, at most (a batch).
const BATCH: u64 = 1 << 22;

/// Bytes of a walker in a batch: itself, the sort's scratch, the next step.
const WALKER_BYTES: u64 = 3 * 16;

/// Walkers of a batch: all of them, or [`BATCH`]; fewer when the paths of
/// a batch are kept (8 bytes a position).
fn batch_of(total: u64, cfg: &WalkConfig, paths: bool) -> u64 {
    let per = match paths {
        true => BATCH / (cfg.length as u64 + 1),
        false => BATCH,
    };
    total.clamp(1, per.max(1))
}

/// Bytes the held walk takes: the out-lists, a visit count per vertex,
/// without a source the start of each rank, and a batch of walkers (with
/// its paths when they are kept).
pub fn held_bytes<T: Slot>(store: &Store, cfg: &WalkConfig, paths: bool) -> u64 {
    let n = store.manifest().num_vertices;
    let (starts, total) = match cfg.source {
        None => (n, n.saturating_mul(cfg.walks_per_vertex)),
        Some(_) => (0, cfg.walks_per_vertex),
    };
    let batch = batch_of(total, cfg, paths);
    let path = if paths {
        8 * (cfg.length as u64 + 1)
    } else {
        0
    };
    HeldLists::<T>::bytes(store, "out")
        + 8 * n
        + T::WIDTH.bytes() * starts
        + batch * (WALKER_BYTES + path)
}

/// Visit counts held in memory.
struct HeldVisits {
    counts: Vec<AtomicU64>,
    _charge: Charge,
}

impl Values for HeldVisits {
    fn for_each(&mut self, _budget: &Budget, f: &mut dyn FnMut(u64, u64)) -> Result<()> {
        for (v, c) in self.counts.iter().enumerate() {
            f(v as u64, c.load(Relaxed));
        }
        Ok(())
    }

    fn buffer_bytes(&self) -> u64 {
        0
    }
}

/// Runs the walks of `cfg` over held lists (see [`super::random_walks`]).
pub(super) fn walks_held<T: Slot>(
    store: &Store,
    cfg: &WalkConfig,
    budget: &Budget,
    mut paths: Option<&mut PathSink<'_>>,
) -> Result<Walks> {
    let t0 = Instant::now();
    let n = store.manifest().num_vertices;
    let r = cfg.walks_per_vertex;
    let total = match cfg.source {
        Some(_) => r,
        None => n.checked_mul(r).ok_or_else(|| {
            crate::error::Error::Invalid("too many walks (more than 2^64)".into())
        })?,
    };
    let visits_charge = budget.charge(8 * n, "random walk visits")?;
    let lists = HeldLists::<T>::load(store, "out", budget)?;
    // The dense id of each rank: walk `rank * R + j` starts there.
    let _starts_charge = budget.charge(
        if cfg.source.is_none() { n } else { 0 } * T::WIDTH.bytes(),
        "random walk starts",
    )?;
    let mut starts: Vec<T> = Vec::new();
    if cfg.source.is_none() {
        starts.resize(n as usize, T::PAD);
        let mut ranks = store.rank_reader()?;
        for v in 0..n {
            starts[ranks.next_rank()? as usize] = T::of(v);
        }
    }
    let visits: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    let load_seconds = t0.elapsed().as_secs_f64();
    let steps = cfg.length as u64 + 1;
    let batch = batch_of(total, cfg, paths.is_some());
    let _walkers = budget.charge(batch * WALKER_BYTES, "random walkers")?;
    let _paths = match paths.is_some() {
        true => Some(budget.charge(batch * steps * 8, "random walk paths")?),
        false => None,
    };
    let mut progress = Progress::bar("randomwalk", total.div_ceil(batch) * steps, Unit::Steps);
    let it0 = Instant::now();
    let (mut stopped, mut moved) = (0u64, 0u64);
    let (mut cur, mut scratch, mut next) = (Vec::new(), Vec::new(), Vec::new());
    let mut path: Vec<u64> = Vec::new();
    let (mut w0, mut done) = (0u64, 0u64);
    while w0 < total {
        let w1 = (w0 + batch).min(total);
        cur.clear();
        // A walker: its vertex (the sort key) and its walk.
        cur.extend((w0..w1).map(|w| Walker {
            key: match cfg.source {
                Some(s) => s,
                None => starts[(w / r) as usize].get(),
            },
            value: w,
        }));
        if paths.is_some() {
            path.clear();
            path.resize(((w1 - w0) * steps) as usize, u64::MAX);
        }
        for t in 0..cfg.length + 1 {
            crate::cancel::check()?;
            sort_records_with(&mut cur, &mut scratch);
            cur.par_chunks(1 << 14).for_each(|c| {
                for x in c {
                    visits[x.key as usize].fetch_add(1, Relaxed);
                }
            });
            if paths.is_some() {
                for x in &cur {
                    path[((x.value - w0) * steps + t as u64) as usize] = x.key;
                }
            }
            if t < cfg.length {
                let moves = cur.par_iter().with_min_len(1 << 14).filter_map(|x| {
                    let (v, w) = (x.key, x.value);
                    let key = match next_move(cfg, n, w, t, lists.degree(v)) {
                        Move::Stop => return None,
                        Move::Jump(u) => u,
                        Move::Edge(j) => lists.list(v)[j as usize].get(),
                    };
                    Some(Walker { key, value: w })
                });
                next.clear();
                next.par_extend(moves);
                stopped += (cur.len() - next.len()) as u64;
                moved += next.len() as u64;
                std::mem::swap(&mut cur, &mut next);
            }
            progress.tick(|| format!("step {t}: {} walkers", cur.len()));
            done += 1;
            progress.set(done);
        }
        if let Some(f) = paths.as_deref_mut() {
            let mut one = Vec::with_capacity(steps as usize);
            for (i, p) in path.chunks(steps as usize).enumerate() {
                one.clear();
                one.extend(p.iter().take_while(|&&v| v != u64::MAX));
                f(w0 + i as u64, &one)?;
            }
        }
        w0 = w1;
    }
    let mut stats = RunStats {
        algorithm: "randomwalk".into(),
        engine: "held".into(),
        memory_budget: budget.limit(),
        threads: rayon::current_num_threads(),
        ..Default::default()
    };
    stats.iterations.push(IterStats {
        iteration: 0,
        seconds: it0.elapsed().as_secs_f64(),
        edges_processed: moved,
        active_vertices: total,
        compute_seconds: it0.elapsed().as_secs_f64(),
        engine: "held",
        ..Default::default()
    });
    // The lists' one sequential read: the direction's files, whole.
    let files = ["csr/out.off", "csr/out.adj", "csr/out.adz", "csr/out.pgi"];
    let read = files
        .iter()
        .filter_map(|f| std::fs::metadata(store.file(f)).ok());
    let io = crate::io::IoStats {
        bytes_read: read.map(|m| m.len()).sum(),
        ..Default::default()
    };
    stats.finish_io(&io, t0);
    progress.done(|| {
        format!("{total} walks, {stopped} stopped early; lists read in {load_seconds:.1}s")
    });
    Ok(Walks {
        visits: Box::new(HeldVisits {
            counts: visits,
            _charge: visits_charge,
        }),
        stats,
        walks: total,
        stopped,
    })
}
