//! [`run_parts`]: every shard of a partition run in this process, the
//! outboxes exchanged in shard order (so sums add up in the same order
//! every run): the tests' driver, and the one a distributed run is
//! checked against.

use super::{Ids, Outbox, ShardIds, ShardRun};
use crate::engine::planner::EngineChoice;
use crate::engine::select::SelectConfig;
use crate::engine::stats::RunStats;
use crate::engine::stream::StreamConfig;
use crate::engine::vertex::{Aggregate, VertexProgram};
use crate::engine::words::{word_bytes, Word};
use crate::error::Result;
use crate::store::partition::Partition;
use std::path::Path;
use std::time::Instant;

/// What crossed between shards in one superstep.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct StepExchange {
    pub step: usize,
    /// Wall time of the superstep over all shards.
    pub seconds: f64,
    /// Messages sent to other shards (after combining on the sender).
    pub messages: u64,
    /// Their bytes: a target id (4 bytes, or 8 for a shard past 2^32
    /// vertices) and the message each.
    pub bytes: u64,
}

/// A run over every shard of a partition.
pub struct PartsRun<P: VertexProgram> {
    /// Every vertex's final state, by global id.
    pub values: Vec<P::State>,
    /// Shard 0's program at the end (PageRank's iterations, ...).
    pub program: P,
    pub steps: Vec<StepExchange>,
    /// Per shard, its run's statistics.
    pub stats: Vec<RunStats>,
    pub seconds: f64,
}

/// Runs `make`'s program on every shard of the partition at `dir` (each in
/// a budget of `memory` bytes, on the engines `choice` allows) for at
/// most `max_steps` supersteps, exchanging their messages in this process.
#[allow(clippy::too_many_arguments)]
pub fn run_parts<P: VertexProgram>(
    dir: &Path,
    make: impl Fn(&ShardIds) -> Result<P>,
    max_steps: usize,
    choice: EngineChoice,
    stream: StreamConfig,
    select: &SelectConfig,
    memory: u64,
) -> Result<PartsRun<P>> {
    let (s, c) = (stream, select);
    match word_bytes::<P>() {
        4 => run_in::<P, u32>(dir, make, max_steps, choice, s, c, memory),
        _ => run_in::<P, u64>(dir, make, max_steps, choice, s, c, memory),
    }
}

#[allow(clippy::too_many_arguments)]
fn run_in<P: VertexProgram, W: Word>(
    dir: &Path,
    make: impl Fn(&ShardIds) -> Result<P>,
    max_steps: usize,
    choice: EngineChoice,
    stream: StreamConfig,
    select: &SelectConfig,
    memory: u64,
) -> Result<PartsRun<P>> {
    let t0 = Instant::now();
    let part = Partition::open(dir)?;
    let parts = part.manifest().parts as usize;
    let mut runs: Vec<ShardRun<P, W>> = Vec::with_capacity(parts);
    let mut agg = Aggregate::default();
    for k in 0..parts {
        let (r, a, _) = ShardRun::open(&part, k, &make, choice, stream.clone(), select, memory)?;
        agg.merge(&a);
        runs.push(r);
    }
    let steps = exchange(&mut runs, agg, max_steps)?;
    let mut values = Vec::with_capacity(part.manifest().num_vertices as usize);
    let mut stats = Vec::with_capacity(parts);
    for r in &mut runs {
        values.extend(r.values());
        stats.push(r.stats());
    }
    let program = runs.swap_remove(0).into_program();
    Ok(PartsRun {
        values,
        program,
        steps,
        stats,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// The steps of a run on one shard, as a driver calls them (object safe:
/// a distributed driver holds one per worker, whatever the program).
pub trait ShardSteps {
    /// [`ShardRun::set_aggregate`].
    fn set_aggregate(&mut self, agg: Aggregate);
    /// [`ShardRun::scatter`].
    fn scatter(&mut self, step: usize) -> Result<Option<Vec<Outbox>>>;
    /// [`ShardRun::receive`].
    fn receive(&mut self, from: usize, targets: Ids<'_>, bytes: &[u8]) -> Result<()>;
    /// [`ShardRun::apply`].
    fn apply(&mut self) -> Result<(Aggregate, u64)>;
    /// [`ShardRun::finish`].
    fn finish(&mut self, step: usize, agg: Aggregate, active: u64) -> bool;
}

impl<P: VertexProgram, W: Word> ShardSteps for ShardRun<P, W> {
    fn set_aggregate(&mut self, agg: Aggregate) {
        ShardRun::set_aggregate(self, agg)
    }
    fn scatter(&mut self, step: usize) -> Result<Option<Vec<Outbox>>> {
        ShardRun::scatter(self, step)
    }
    fn receive(&mut self, from: usize, targets: Ids<'_>, bytes: &[u8]) -> Result<()> {
        ShardRun::receive(self, from, targets, bytes)
    }
    fn apply(&mut self) -> Result<(Aggregate, u64)> {
        ShardRun::apply(self)
    }
    fn finish(&mut self, step: usize, agg: Aggregate, active: u64) -> bool {
        ShardRun::finish(self, step, agg, active)
    }
}

impl<T: ShardSteps + ?Sized> ShardSteps for Box<T> {
    fn set_aggregate(&mut self, agg: Aggregate) {
        (**self).set_aggregate(agg)
    }
    fn scatter(&mut self, step: usize) -> Result<Option<Vec<Outbox>>> {
        (**self).scatter(step)
    }
    fn receive(&mut self, from: usize, targets: Ids<'_>, bytes: &[u8]) -> Result<()> {
        (**self).receive(from, targets, bytes)
    }
    fn apply(&mut self) -> Result<(Aggregate, u64)> {
        (**self).apply()
    }
    fn finish(&mut self, step: usize, agg: Aggregate, active: u64) -> bool {
        (**self).finish(step, agg, active)
    }
}

/// Runs the supersteps of `runs` (shard k at index k, opened, with `agg`
/// the sum of their `init` aggregates) in this process for at most
/// `max_steps`: the outboxes delivered in shard order (receiver j takes
/// shard 0's, then 1's, ...), so sums add up in the same order every run.
pub fn exchange<R: ShardSteps>(
    runs: &mut [R],
    agg: Aggregate,
    max_steps: usize,
) -> Result<Vec<StepExchange>> {
    for r in runs.iter_mut() {
        r.set_aggregate(agg);
    }
    Ok(steps(runs, 0..max_steps)?.0)
}

/// Runs supersteps `range` of `runs`, which are at the beginning of
/// `range.start` (opened and given their aggregate, or restored from a
/// checkpoint of that superstep), as [`exchange`] does: what crossed, and
/// true when the run completed (the program stopped before or after a
/// superstep of the range).
pub fn steps<R: ShardSteps>(
    runs: &mut [R],
    range: std::ops::Range<usize>,
) -> Result<(Vec<StepExchange>, bool)> {
    let mut steps = Vec::new();
    for step in range {
        let t = Instant::now();
        let mut ex = StepExchange {
            step,
            ..Default::default()
        };
        let mut boxes = Vec::with_capacity(runs.len());
        for r in runs.iter_mut() {
            boxes.push(r.scatter(step)?);
        }
        // The program's begin is the same on every shard.
        if boxes.iter().any(Option::is_none) {
            return Ok((steps, true));
        }
        for (from, b) in boxes.into_iter().enumerate() {
            for bx in b.into_iter().flatten() {
                ex.messages += bx.targets.len() as u64;
                ex.bytes += bx.wire_bytes();
                runs[bx.to].receive(from, bx.targets.ids(), &bx.bytes)?;
            }
        }
        let (mut agg, mut active) = (Aggregate::default(), 0u64);
        for r in runs.iter_mut() {
            let (a, c) = r.apply()?;
            agg.merge(&a);
            active += c;
        }
        let mut done = false;
        for r in runs.iter_mut() {
            done |= r.finish(step, agg, active);
        }
        ex.seconds = t.elapsed().as_secs_f64();
        steps.push(ex);
        if done {
            return Ok((steps, true));
        }
    }
    Ok((steps, false))
}
