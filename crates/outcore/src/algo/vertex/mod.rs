//! The algorithms as vertex programs ([`crate::engine::vertex`]), written
//! once and run by the external engine when their vertex state does not fit
//! the budget (or when `--engine external` asks). Each file holds one
//! program; its in-memory reference is in [`crate::algo::reference`] and the
//! tests compare the two.

pub mod bfs;
pub mod kcore;
pub mod pagerank;
pub mod pagerank_weighted;
pub mod sssp;
pub mod wcc;

use crate::engine::external::{self, ExternalConfig};
use crate::engine::results::{StateValues, Values};
use crate::engine::stats::RunStats;
use crate::engine::vertex::VertexProgram;
use crate::error::Result;
use crate::mem::Budget;
use crate::store::Store;

/// Runs `prog` on the external engine and leaves the final states on disk:
/// each is mapped to an 8-byte value as it is read back
/// ([`crate::engine::results`] writes them in rank order inside the budget).
pub fn run_on_disk<P: VertexProgram>(
    store: &Store,
    prog: &mut P,
    max_steps: usize,
    cfg: &ExternalConfig,
    budget: &Budget,
    map: fn(&P::State) -> u64,
) -> Result<(Box<dyn Values>, RunStats)>
where
    P::State: 'static,
{
    let (states, stats) = external::run(store, prog, max_steps, cfg, budget)?;
    Ok((Box::new(StateValues::new(states, map)), stats))
}

/// The values of [`run_on_disk`] mapped into memory, with the run's stats.
pub fn collected<T>(
    (mut values, stats): (Box<dyn Values>, RunStats),
    budget: &Budget,
    map: impl Fn(u64) -> T,
) -> Result<(Vec<T>, RunStats)> {
    Ok((
        crate::engine::results::collect(values.as_mut(), budget, map)?,
        stats,
    ))
}
