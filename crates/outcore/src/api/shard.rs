//! Runs over the shards of a partitioned store (issue 54): a
//! [`ShardJob`] per shard, built from the [`RunOptions`] of
//! [`crate::api::run`], whose steps a driver calls between its exchanges
//! of message bytes ([`crate::engine::shard`]); [`run_parts`] drives them
//! all in this process. PageRank, WCC, BFS, SSSP (Bellman-Ford
//! supersteps: the single run's distances exactly, as each is the least
//! path sum whatever the order), CDLP and k-core (h-index supersteps,
//! senders named by global id; grouped messages), in memory.

use super::values::Kind;
use super::{Algorithm, RunOptions};
use crate::algo::cdlp::{CdlpConfig, CdlpVp};
use crate::algo::pagerank::PageRankConfig;
use crate::algo::sssp::bad_weight_named;
use crate::algo::vertex::bfs::{self, BfsVp};
use crate::algo::vertex::kcore::KCoreVp;
use crate::algo::vertex::pagerank::PageRankVp;
use crate::algo::vertex::sssp::SsspVp;
use crate::algo::vertex::wcc::WccVp;
use crate::engine::planner::EngineChoice;
use crate::engine::select::SelectConfig;
use crate::engine::shard::{exchange, Ids, Outbox, ShardIds, ShardRun, ShardSteps, StepExchange};
use crate::engine::stats::RunStats;
use crate::engine::stream::StreamConfig;
use crate::engine::vertex::{Aggregate, Label, VertexProgram};
use crate::engine::words::{word_bytes, Word};
use crate::error::{Error, Result};
use crate::store::partition::Partition;
use std::path::{Path, PathBuf};

pub use crate::engine::shard::Checkpoint;

/// One shard's run of an algorithm, its values as [`crate::api::run`]'s
/// (a [`Kind`] encoded in a u64). `Send`: a worker (the Python actor of
/// `outcore.ray`) runs its steps on another thread.
pub trait ShardJob: ShardSteps + Send {
    /// Supersteps at most (PageRank's iterations).
    fn max_steps(&self) -> usize;
    /// How to read [`ShardJob::values`].
    fn kind(&self) -> Kind;
    /// The owned vertices' values, in global id order; once, at the end.
    fn values(&mut self) -> Vec<u64>;
    /// The shard's run statistics.
    fn stats(&self) -> RunStats;
    /// The superstep the job is at the beginning of (0 after `open`,
    /// `s + 1` after `finish(s)`).
    fn next_step(&self) -> usize;
    /// Writes the job at the beginning of its next superstep to `path`
    /// (BSP checkpointing, [`crate::engine::shard`]'s `ckpt`).
    fn checkpoint(&mut self, path: &Path) -> Result<Checkpoint>;
    /// Loads the checkpoint at `path` into this job (opened afresh with
    /// the same options), which must begin superstep `step`; the next
    /// call is `scatter(step)`. A damaged checkpoint, or one of another
    /// shard, store, job or superstep, is refused.
    fn restore(&mut self, path: &Path, step: usize) -> Result<()>;
    /// [`ShardRun::arena_slots`].
    fn arena_slots(&self) -> usize;
    /// [`ShardRun::state_bytes`].
    fn state_bytes(&self) -> u64;
    /// [`ShardRun::budget_peak`].
    fn budget_peak(&self) -> u64;
}

struct Job<P: VertexProgram, W: Word> {
    run: ShardRun<P, W>,
    max_steps: usize,
    kind: Kind,
    value: fn(&P::State) -> u64,
    /// After each superstep's deliveries: an error the program noted
    /// (SSSP's first bad weight), with the partition's directory to name
    /// vertices by their original ids.
    check: Check<P>,
    dir: PathBuf,
    /// What a checkpoint must be of: the algorithm, its options, the
    /// program and its word.
    key: String,
}

impl<P: VertexProgram, W: Word> Job<P, W> {
    /// A damaged store met during a superstep, as the partition's error
    /// naming the shard (as opening it does).
    fn in_shard(&self, e: Error) -> Error {
        match (&e, Partition::open(&self.dir)) {
            (Error::Store { .. }, Ok(part)) => part.in_shard(self.run.ids().k, e),
            _ => e,
        }
    }
}

/// [`Job::check`].
type Check<P> = fn(&P, &ShardIds, &Path) -> Result<()>;

impl<P: VertexProgram, W: Word> ShardSteps for Job<P, W> {
    fn set_aggregate(&mut self, agg: Aggregate) {
        self.run.set_aggregate(agg)
    }
    fn scatter(&mut self, step: usize) -> Result<Option<Vec<Outbox>>> {
        let out = self.run.scatter(step).map_err(|e| self.in_shard(e))?;
        (self.check)(self.run.program(), self.run.ids(), &self.dir)?;
        Ok(out)
    }
    fn receive(&mut self, from: usize, targets: Ids<'_>, bytes: &[u8]) -> Result<()> {
        self.run.receive(from, targets, bytes)
    }
    fn apply(&mut self) -> Result<(Aggregate, u64)> {
        self.run.apply().map_err(|e| self.in_shard(e))
    }
    fn finish(&mut self, step: usize, agg: Aggregate, active: u64) -> bool {
        self.run.finish(step, agg, active)
    }
}

impl<P: VertexProgram + Send, W: Word> ShardJob for Job<P, W> {
    fn max_steps(&self) -> usize {
        self.max_steps
    }
    fn kind(&self) -> Kind {
        self.kind
    }
    fn values(&mut self) -> Vec<u64> {
        self.run.values().iter().map(self.value).collect()
    }
    fn stats(&self) -> RunStats {
        self.run.stats()
    }
    fn next_step(&self) -> usize {
        self.run.next_step()
    }
    fn checkpoint(&mut self, path: &Path) -> Result<Checkpoint> {
        self.run.checkpoint(path, &self.key)
    }
    fn restore(&mut self, path: &Path, step: usize) -> Result<()> {
        self.run.restore(path, &self.key, step)
    }
    fn arena_slots(&self) -> usize {
        self.run.arena_slots()
    }
    fn state_bytes(&self) -> u64 {
        self.run.state_bytes()
    }
    fn budget_peak(&self) -> u64 {
        self.run.budget_peak()
    }
}

/// What a job is opened with.
type Opened = (Box<dyn ShardJob>, Aggregate, u64);

/// A job's supersteps at most, the kind of its values, how a state
/// encodes as one, and its check.
type JobKind<P> = (
    usize,
    Kind,
    fn(&<P as VertexProgram>::State) -> u64,
    Check<P>,
);

/// No check.
fn unchecked<P>(_: &P, _: &ShardIds, _: &Path) -> Result<()> {
    Ok(())
}

/// Opens `make`'s program on shard `k` (messages in words of its size).
fn job<P: VertexProgram + Send + 'static>(
    part: &Partition,
    k: usize,
    o: &RunOptions,
    make: impl FnOnce(&ShardIds) -> Result<P>,
    j: JobKind<P>,
) -> Result<Opened> {
    fn typed<P: VertexProgram + Send + 'static, W: Word>(
        part: &Partition,
        k: usize,
        o: &RunOptions,
        make: impl FnOnce(&ShardIds) -> Result<P>,
        job: JobKind<P>,
    ) -> Result<Opened> {
        let stream = StreamConfig {
            io: o.io,
            segment_bytes: o.segment,
            segments: o.segments,
            cache_bytes: o.cache,
            label: o.algorithm.name().into(),
            ..Default::default()
        };
        let select = SelectConfig {
            io: o.io,
            depth: o.depth,
            ..Default::default()
        };
        let (run, agg, active) =
            ShardRun::<P, W>::open(part, k, make, o.engine, stream, &select, o.memory)?;
        let (max_steps, kind, value, check) = job;
        let key = format!(
            "{} iterations={} damping={} tol={:?} source={:?} weighted={} program={} word={}",
            o.algorithm.name(),
            o.iterations,
            o.damping,
            o.tol,
            o.source,
            o.weighted,
            std::any::type_name::<P>(),
            W::BYTES
        );
        let job = Job {
            key,
            run,
            max_steps,
            kind,
            value,
            check,
            dir: part.path().to_path_buf(),
        };
        Ok((Box::new(job), agg, active))
    }
    match word_bytes::<P>() {
        4 => typed::<P, u32>(part, k, o, make, j),
        _ => typed::<P, u64>(part, k, o, make, j),
    }
}

/// The global id of the source `o.source` names (an original id).
fn source(part: &Partition, o: &RunOptions) -> Result<u64> {
    let alg = o.algorithm.name();
    let src = match o.source.as_deref() {
        None => {
            return Err(Error::Invalid(format!(
                "{alg} needs a source (an original vertex id)"
            )))
        }
        Some("max-degree") => {
            return Err(Error::Invalid(format!(
                "{alg} over shards takes a source by its original id (max-degree is not supported on a partitioned store yet)"
            )))
        }
        Some(s) => s,
    };
    let m = part.manifest();
    let ids = part.load_ids()?;
    let found = match (m.string_ids, src.parse::<u64>()) {
        (false, Ok(id)) => ids.dense_of_original(id, m.num_vertices),
        (false, Err(_)) => None,
        (true, _) => (0..m.num_vertices).find(|&g| ids.get(g).to_string() == src),
    };
    found.ok_or_else(|| Error::Invalid(format!("source vertex {src} is not in the graph")))
}

/// Opens shard `k` of the partition at `dir` for the run `o` describes (in
/// a budget of `o.memory` bytes): the job, and its `init`s' aggregate and
/// active count (the driver sums them over the shards and hands the sum
/// to every job's `set_aggregate` before superstep 0).
pub fn open(dir: &Path, k: usize, o: &RunOptions) -> Result<Opened> {
    let part = Partition::open(dir)?;
    let parts = part.manifest().parts as usize;
    if k >= parts {
        return Err(Error::Invalid(format!(
            "shard {k} of a partition of {parts} shards ({})",
            dir.display()
        )));
    }
    if o.engine == EngineChoice::External {
        return Err(Error::Invalid(
            "runs over shards are in memory only for now; drop --engine external".into(),
        ));
    }
    if o.weighted {
        return Err(Error::Invalid(
            "weighted pagerank does not run over shards yet".into(),
        ));
    }
    let n = part.manifest().num_vertices;
    match o.algorithm {
        Algorithm::Pagerank => {
            let cfg = PageRankConfig {
                damping: o.damping,
                iterations: o.iterations,
                tol: o.tol,
            };
            cfg.validate()?;
            let make = |_: &_| Ok(PageRankVp::new(n, &cfg));
            let j: JobKind<PageRankVp> = (cfg.iterations, Kind::Float, |r| r.to_bits(), unchecked);
            job(&part, k, o, make, j)
        }
        Algorithm::Wcc => {
            fn wcc<L: Label>(part: &Partition, k: usize, o: &RunOptions) -> Result<Opened> {
                let make = |_: &_| Ok(WccVp::<L>::new());
                let j: JobKind<WccVp<L>> = (usize::MAX, Kind::Label, |l| l.id(), unchecked);
                job(part, k, o, make, j)
            }
            // Labels are global ranks: u32 while they fit.
            match n < u32::MAX as u64 {
                true => wcc::<u32>(&part, k, o),
                false => wcc::<u64>(&part, k, o),
            }
        }
        Algorithm::Bfs => {
            let g = source(&part, o)?;
            let make = |ids: &ShardIds| Ok(BfsVp::new(ids.local_of(g).unwrap_or(u64::MAX)));
            let depth = |&d: &u32| bfs::depth(d) as u64;
            let j: JobKind<BfsVp> = (usize::MAX, Kind::Int, depth, unchecked);
            job(&part, k, o, make, j)
        }
        Algorithm::Sssp => {
            if !part.manifest().weighted {
                return Err(Error::Invalid(format!(
                    "{} is not weighted: SSSP needs edge weights; import the graph with --weighted",
                    dir.display()
                )));
            }
            let g = source(&part, o)?;
            // Supersteps (Bellman-Ford rounds): no buckets, so no delta.
            let make = |ids: &ShardIds| Ok(SsspVp::new(ids.local_of(g).unwrap_or(u64::MAX), None));
            let j: JobKind<SsspVp> = (usize::MAX, Kind::Float, |d| d.to_bits(), bad_weight);
            job(&part, k, o, make, j)
        }
        Algorithm::Cdlp => {
            let cfg = CdlpConfig {
                iterations: o.iterations,
            };
            cfg.validate()?;
            fn cdlp<L: Label>(part: &Partition, k: usize, o: &RunOptions) -> Result<Opened> {
                let make = |_: &_| Ok(CdlpVp::<L>::new(o.iterations));
                let j: JobKind<CdlpVp<L>> = (o.iterations, Kind::Label, |l| l.id(), unchecked);
                job(part, k, o, make, j)
            }
            match n < u32::MAX as u64 {
                true => cdlp::<u32>(&part, k, o),
                false => cdlp::<u64>(&part, k, o),
            }
        }
        Algorithm::Kcore => {
            fn kcore<L: Label>(part: &Partition, k: usize, o: &RunOptions) -> Result<Opened> {
                let make = |ids: &ShardIds| Ok(KCoreVp::<L>::on_shard(ids.global.clone()));
                let j: JobKind<KCoreVp<L>> = (usize::MAX, Kind::Int, |&c| c as u64, unchecked);
                job(part, k, o, make, j)
            }
            match n < u32::MAX as u64 {
                true => kcore::<u32>(&part, k, o),
                false => kcore::<u64>(&part, k, o),
            }
        }
        a => Err(Error::Invalid(format!(
            "{} does not run over shards yet (pagerank, wcc, bfs, sssp, cdlp and kcore do)",
            a.name()
        ))),
    }
}

/// A run over every shard in this process.
#[derive(Debug)]
pub struct PartsValues {
    /// Every vertex's value by global id, as [`Kind`] says.
    pub values: Vec<u64>,
    pub kind: Kind,
    /// What crossed between shards, per superstep.
    pub steps: Vec<StepExchange>,
    /// Per shard, its statistics.
    pub stats: Vec<RunStats>,
}

/// Runs `o` on every shard of the partition at `dir` in this process
/// (each shard in a budget of `o.memory` bytes), exchanging the messages in
/// shard order.
pub fn run_parts(dir: &Path, o: &RunOptions) -> Result<PartsValues> {
    let parts = Partition::open(dir)?.manifest().parts as usize;
    let mut jobs = Vec::with_capacity(parts);
    let mut agg = Aggregate::default();
    for k in 0..parts {
        let (j, a, _) = open(dir, k, o)?;
        agg.merge(&a);
        jobs.push(j);
    }
    let max_steps = jobs[0].max_steps();
    let steps = exchange(&mut jobs, agg, max_steps)?;
    let mut values = Vec::new();
    let mut stats = Vec::with_capacity(parts);
    for j in &mut jobs {
        values.extend(j.values());
        stats.push(j.stats());
    }
    Ok(PartsValues {
        values,
        kind: jobs[0].kind(),
        steps,
        stats,
    })
}

/// SSSP's error for the first negative or NaN weight a shard met, naming
/// the edge by original ids (the single run's message).
fn bad_weight(prog: &SsspVp, ids: &ShardIds, dir: &Path) -> Result<()> {
    let Some((v, u, w)) = prog.bad() else {
        return Ok(());
    };
    let part = Partition::open(dir)?;
    let names = part.load_ids()?;
    let name = |x: u64| names.get(ids.global[x as usize]).to_string();
    let directed = part.manifest().directed;
    Err(bad_weight_named("SSSP", &name(v), &name(u), directed, w))
}
