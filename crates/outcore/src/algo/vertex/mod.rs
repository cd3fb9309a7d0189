//! The algorithms as vertex programs ([`crate::engine::vertex`]), written
//! once and run by the external engine when their vertex state does not fit
//! the budget (or when `--engine external` asks). Each file holds one
//! program; its in-memory reference is in [`crate::algo::reference`] and the
//! tests compare the two.

pub mod bfs;
pub mod kcore;
pub mod pagerank;
pub mod sssp;
pub mod wcc;

use crate::engine::external::{self, ExternalConfig};
use crate::engine::stats::RunStats;
use crate::engine::vertex::VertexProgram;
use crate::error::Result;
use crate::mem::Budget;
use crate::store::Store;

/// Runs `prog` on the external engine and maps every final state to a value
/// (in dense-id order).
pub fn run_collect<P: VertexProgram, T>(
    store: &Store,
    prog: &mut P,
    max_steps: usize,
    cfg: &ExternalConfig,
    budget: &Budget,
    map: impl Fn(&P::State) -> T,
) -> Result<(Vec<T>, RunStats)> {
    let (mut states, stats) = external::run(store, prog, max_steps, cfg, budget)?;
    let values = states.collect(budget, map)?;
    Ok((values, stats))
}
