//! Random walks as messages between intervals (PartitionedVC's random
//! walk; Kyrola's DrunkardMob): each walker is a record (vertex, walk id)
//! in the update log of its vertex's interval, so millions of walks run in
//! a budget that holds none of them whole.
//!
//! A step: for each interval, its walker log is sorted by vertex (in memory
//! when it fits, else merged from disk: `merge.rs`), read in chunks; every
//! walker is counted as a visit (a log of `(vertex, 1)` reduced by sum, as
//! GraFBoost's sort-reduce) and then moves: it restarts with probability
//! `restart` (to the source, or to a uniform random vertex), else takes
//! the out-edge of index `hash(seed, walk, step) mod degree`, whose target
//! is read from the chunk's CSR lists through the select engine; the moved
//! walker goes to the log of its new vertex's interval for the next step
//! (two log generations, read one, write the other). A walker at a vertex
//! without out-edges stops, or restarts when `restart > 0`.
//!
//! Every choice depends only on (seed, walk id, step, the vertex's list),
//! so the walks are the same on any budget, interval size or thread count.
//! When the walks themselves are wanted, they run in batches of walk ids
//! whose paths fit the budget.

mod held;
mod sizes;
mod step;
mod visits;

use super::disk::Appender;
use super::log::{MultiLog, Run};
use super::merge::{sort_reduce, MergeCounts};
use super::{ExternalConfig, SpillDir};
use crate::base::rng::{hash3, mix64, stream};
use crate::engine::planner::{self, EngineChoice};
use crate::engine::results::Values;
use crate::engine::select::{SelectConfig, SelectEngine};
use crate::engine::stats::{IterStats, RunStats};
use crate::error::{Error, Result};
use crate::io::Reader;
use crate::mem::Budget;
use crate::progress::{Progress, Unit};
use crate::store::csr::{Slot, SlotWidth};
use crate::store::Store;
use sizes::{sizes, Sizes, CHUNK_BYTES};
use std::time::Instant;
use step::Step;
use visits::VisitCounts;

/// Random walk parameters.
#[derive(Clone, Debug)]
pub struct WalkConfig {
    /// Walks from each vertex (from the source only, when there is one).
    pub walks_per_vertex: u64,
    /// Steps of each walk (a walk visits `length + 1` vertices).
    pub length: u32,
    pub seed: u64,
    /// Probability of a restart at each step (random walk with restart).
    pub restart: f64,
    /// Where every walk starts and restarts (dense id); `None`: each vertex
    /// starts its own walks, restarts go to a uniform random vertex.
    pub source: Option<u64>,
}

impl WalkConfig {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<()> {
        if self.walks_per_vertex == 0 {
            return Err(Error::Invalid(
                "--walks-per-vertex must be at least 1".into(),
            ));
        }
        if !(0.0..1.0).contains(&self.restart) {
            return Err(Error::Invalid(format!(
                "--restart must be in [0, 1), got {}",
                self.restart
            )));
        }
        Ok(())
    }
}

/// Where a walker at a vertex goes next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    /// The walk ends (a vertex without out-edges, no restarts).
    Stop,
    /// A restart, to this vertex.
    Jump(u64),
    /// Along the out-edge of this index in the vertex's sorted list.
    Edge(u64),
}

/// `x` mapped onto `0..n` (Lemire's multiply-shift).
#[inline]
fn below(x: u64, n: u64) -> u64 {
    ((x as u128 * n as u128) >> 64) as u64
}

/// The move of walk `w` at step `t` from a vertex of out-degree `deg`, in a
/// graph of `n` vertices: the one rule the engine and the reference share.
#[inline]
pub fn next_move(cfg: &WalkConfig, n: u64, w: u64, t: u32, deg: u64) -> Move {
    let h = hash3(cfg.seed, stream::WALK ^ ((t as u64 + 1) << 16), w);
    let coin = (h >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
    let r = mix64(h);
    if coin < cfg.restart || deg == 0 && cfg.restart > 0.0 {
        Move::Jump(cfg.source.unwrap_or_else(|| below(r, n)))
    } else if deg == 0 {
        Move::Stop
    } else {
        Move::Edge(below(r, deg))
    }
}

/// The walks of a run, their visits left on disk.
pub struct Walks {
    /// Visits per vertex (every position of every walk, starts included).
    pub visits: Box<dyn Values>,
    pub stats: RunStats,
    pub walks: u64,
    /// Walks that ended early at a vertex without out-edges.
    pub stopped: u64,
}

/// One generation of walker logs with its own reader.
struct Gen<T: Slot> {
    reader: Reader,
    stage: Appender,
    log: MultiLog<u64, T>,
    scratch: [usize; 2],
}

impl<T: Slot> Gen<T> {
    /// Log files `TAG-I.bin` per interval; `combine` folds equal vertices.
    fn new(
        dir: &SpillDir,
        tag: &str,
        combine: Option<fn(u64, u64) -> u64>,
        cfg: &ExternalConfig,
        sz: &Sizes,
        budget: &Budget,
    ) -> Result<Gen<T>> {
        let mut reader = Reader::new(cfg.io, 8)?;
        let files = (0..sz.bounds.len() - 1)
            .map(|i| reader.create(&dir.0.join(format!("{tag}-{i}.bin")), "walker log"))
            .collect::<Result<Vec<_>>>()?;
        let scratch = [
            reader.create(&dir.0.join(format!("{tag}-merge-a.bin")), "merge run")?,
            reader.create(&dir.0.join(format!("{tag}-merge-b.bin")), "merge run")?,
        ];
        Ok(Gen {
            stage: Appender::new(files[0], 0, sz.staging, budget)?,
            log: MultiLog::with_combine(sz.records, sz.bounds.clone(), files, combine, budget)?,
            reader,
            scratch,
        })
    }

    pub(super) fn push(&mut self, v: T, x: u64) -> Result<()> {
        self.log.push(&mut self.reader, &mut self.stage, v, x)
    }

    fn flush(&mut self) -> Result<()> {
        self.log.flush(&mut self.reader, &mut self.stage)
    }
}

pub(super) fn add(a: u64, b: u64) -> u64 {
    a + b
}

/// Receives each walk: its id and its vertices (dense ids).
pub type PathSink<'a> = dyn FnMut(u64, &[u64]) -> Result<()> + 'a;

/// Runs the walks of `cfg` on `store`; with `paths`, calls it with each
/// walk (its vertices, dense ids) in walk-id order: walk `rank * R + j` is
/// the `j`-th from the vertex of rank `rank` (with a source: walk `j`).
/// The walkers and paths hold ids of the store's slot type (u32 on a
/// narrow store, u64 on a wide one). Over lists held in memory
/// ([`held`]) or through the walker logs, as the planner decides for
/// `choice` ([`planner::walks_held`]).
pub fn random_walks(
    store: &Store,
    cfg: &WalkConfig,
    choice: EngineChoice,
    ext: &ExternalConfig,
    budget: &Budget,
    paths: Option<&mut PathSink<'_>>,
) -> Result<Walks> {
    cfg.validate()?;
    let n = store.manifest().num_vertices;
    if let Some(s) = cfg.source.filter(|&s| s >= n) {
        return Err(Error::Invalid(format!("source vertex {s} is out of range")));
    }
    match store.manifest().slot_width() {
        SlotWidth::Narrow => walks_on::<u32>(store, cfg, choice, ext, budget, paths),
        SlotWidth::Wide => walks_on::<u64>(store, cfg, choice, ext, budget, paths),
    }
}

fn walks_on<T: Slot>(
    store: &Store,
    cfg: &WalkConfig,
    choice: EngineChoice,
    ext: &ExternalConfig,
    budget: &Budget,
    paths: Option<&mut PathSink<'_>>,
) -> Result<Walks> {
    match planner::walks_held(
        choice,
        held::held_bytes::<T>(store, cfg, paths.is_some()),
        budget,
    )? {
        true => held::walks_held::<T>(store, cfg, budget, paths),
        false => walks_with::<T>(store, cfg, ext, budget, paths),
    }
}

fn walks_with<T: Slot>(
    store: &Store,
    cfg: &WalkConfig,
    ext: &ExternalConfig,
    budget: &Budget,
    mut paths: Option<&mut PathSink<'_>>,
) -> Result<Walks> {
    let t0 = Instant::now();
    let n = store.manifest().num_vertices;
    let starts = if cfg.source.is_some() { 1 } else { n };
    let total = starts
        .checked_mul(cfg.walks_per_vertex)
        .ok_or_else(|| Error::Invalid("too many walks (more than 2^64)".into()))?;
    let sz = sizes(n, total, cfg.length, T::WIDTH.bytes(), ext, budget)?;
    let dir = SpillDir::new(store, ext.tmp_dir.as_deref())?;
    let mut gens = [
        Gen::<T>::new(&dir, "walkers-a", None, ext, &sz, budget)?,
        Gen::<T>::new(&dir, "walkers-b", None, ext, &sz, budget)?,
    ];
    let mut visits = Gen::<T>::new(&dir, "visits", Some(add), ext, &sz, budget)?;
    let select_cfg = SelectConfig {
        io: ext.io,
        pool_bytes: Some(sz.pool),
        ..Default::default()
    };
    let mut select = SelectEngine::new(store, "out", false, budget, &select_cfg)?;
    // The delta's out-lists: which lists `step` gathers whole.
    let delta = crate::store::delta::DeltaLists::load(store, "out")?;
    let _delta = match &delta {
        Some(d) => Some(budget.charge(d.memory_bytes(), "delta lists of the walks")?),
        None => None,
    };
    let _chunk = budget.charge(sz.chunk as u64 * CHUNK_BYTES, "random walk chunk")?;
    let batch = if paths.is_some() {
        sz.batch
    } else {
        total.max(1)
    };
    let _paths = match paths.is_some() {
        true => Some(budget.charge(
            batch * T::WIDTH.bytes() * (cfg.length as u64 + 1),
            "random walk paths",
        )?),
        false => None,
    };
    let steps = cfg.length as u64 + 1;
    let mut progress = Progress::bar(
        "randomwalk",
        total.div_ceil(batch).max(1) * steps,
        Unit::Steps,
    );
    let mut stats = RunStats {
        algorithm: "randomwalk".into(),
        engine: "external".into(),
        io_backend: select.reader().backend().to_string(),
        direct_io: select.reader().direct(0),
        memory_budget: budget.limit(),
        threads: 1,
        ..Default::default()
    };
    let io_total = |g: &[Gen<T>; 2], v: &Gen<T>, s: &SelectEngine| {
        let mut x = s.reader().stats();
        for r in [&g[0].reader, &g[1].reader, &v.reader] {
            x.add(&r.stats());
        }
        x
    };
    let mut stopped = 0u64;
    let mut path = Vec::new();
    let mut w0 = 0u64;
    while w0 < total {
        let w1 = (w0 + batch).min(total);
        if paths.is_some() {
            path.clear();
            path.resize(((w1 - w0) * steps) as usize, T::PAD);
        }
        // Walkers at their starts.
        match cfg.source {
            Some(s) => (w0..w1).try_for_each(|w| gens[0].push(T::of(s), w))?,
            None => {
                let r = cfg.walks_per_vertex;
                let mut ranks = store.rank_reader()?;
                for v in 0..n {
                    let rank = ranks.next_rank()?;
                    for w in (rank * r).max(w0)..(rank * r + r).min(w1) {
                        gens[0].push(T::of(v), w)?;
                    }
                }
            }
        }
        gens[0].flush()?;
        for t in 0..cfg.length + 1 {
            crate::cancel::check()?;
            let it0 = Instant::now();
            let io0 = io_total(&gens, &visits, &select);
            let (a, b) = gens.split_at_mut(1);
            let (cur, next) = if t % 2 == 0 {
                (&mut a[0], &mut b[0])
            } else {
                (&mut b[0], &mut a[0])
            };
            let mut step = Step {
                cfg,
                n,
                t,
                w0,
                steps,
                last: t == cfg.length,
                degrees: crate::store::degrees::DegreeStream::of(store, "out")?,
                at: 0,
                deg: 0,
                // Grown toward `sz.chunk` as walkers come.
                chunk: Vec::new(),
                moves: Vec::new(),
                vs: Vec::new(),
                walkers: 0,
                moved: 0,
                stopped: 0,
                delta: delta.as_ref(),
                budget,
                gather: Vec::new(),
            };
            let mut mc = MergeCounts::default();
            for i in 0..sz.bounds.len() - 1 {
                let runs: Vec<Run> = std::mem::take(&mut cur.log.runs[i]);
                if runs.is_empty() {
                    continue;
                }
                crate::cancel::check()?;
                let (cap, lo) = (sz.chunk, sz.bounds[i]);
                // Targets are local to the interval.
                let mut sink = |x: u32, w: u64| -> Result<()> {
                    if step.chunk.len() == step.chunk.capacity() {
                        crate::mem::budget::grow_toward(&mut step.chunk, cap);
                    }
                    step.chunk.push((T::of(lo + x as u64), w));
                    if step.chunk.len() == cap {
                        step.process(&mut select, next, &mut visits, &mut path)?;
                    }
                    Ok(())
                };
                sort_reduce(
                    &mut cur.reader,
                    &runs,
                    None,
                    &sz.merge,
                    cur.scratch,
                    &mut cur.stage,
                    budget,
                    &mut mc,
                    &mut sink,
                )?;
                step.process(&mut select, next, &mut visits, &mut path)?;
                cur.log.reset(i);
            }
            next.flush()?;
            stopped += step.stopped;
            let io = io_total(&gens, &visits, &select) - io0;
            stats.iterations.push(IterStats {
                iteration: stats.iterations.len(),
                seconds: it0.elapsed().as_secs_f64(),
                bytes_read: io.bytes_read,
                bytes_written: io.bytes_written,
                read_requests: io.requests,
                edges_processed: step.moved,
                active_vertices: step.walkers,
                io_wait_seconds: io.wait_seconds,
                compute_seconds: (it0.elapsed().as_secs_f64() - io.wait_seconds).max(0.0),
                engine: "external",
                ..Default::default()
            });
            progress.tick(|| format!("step {t}: {} walkers", step.walkers));
            progress.set(stats.iterations.len() as u64);
        }
        // The last step moved nobody: both generations are empty again.
        if let Some(f) = paths.as_deref_mut() {
            let mut walk = Vec::with_capacity(steps as usize);
            for (i, p) in path.chunks(steps as usize).enumerate() {
                walk.clear();
                walk.extend(p.iter().take_while(|&&v| v != T::PAD).map(|v| v.get()));
                f(w0 + i as u64, &walk)?;
            }
        }
        w0 = w1;
    }
    visits.flush()?;
    stats.finish_io(&io_total(&gens, &visits, &select), t0);
    progress.done(|| format!("{total} walks, {stopped} stopped early"));
    drop(gens);
    drop(select);
    let Gen {
        reader,
        stage,
        log,
        scratch,
    } = visits;
    Ok(Walks {
        visits: Box::new(VisitCounts {
            merge: sz.merge,
            bounds: sz.bounds,
            runs: log.runs,
            reader,
            stage,
            scratch,
            _dir: dir,
        }),
        stats,
        walks: total,
        stopped,
    })
}
