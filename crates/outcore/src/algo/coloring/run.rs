//! Where colouring runs: in the select engine's pull mode
//! ([`crate::engine::pull`]) when its state fits the budget on an
//! undirected store, else where the planner puts the superstep form (the
//! grouped in-memory arena, or the external engine).

use super::{ColorState, ColoringVp, COLOR};
use crate::engine::external::ExternalConfig;
use crate::engine::planner::EngineChoice;
use crate::engine::pull::{self, PullStates};
use crate::engine::results::Values;
use crate::engine::stats::RunStats;
use crate::engine::vertex::VertexProgram;
use crate::error::Result;
use crate::mem::Budget;
use crate::store::Store;

/// Colours on the external engine, left on disk (by dense id).
pub fn coloring_on_disk(
    store: &Store,
    seed: u64,
    ext: &ExternalConfig,
    budget: &Budget,
) -> Result<(Box<dyn Values>, RunStats)> {
    coloring_run(
        store,
        seed,
        &crate::algo::vertex::Engines::external(ext),
        budget,
    )
}

/// Whether colouring runs in the pull mode: on an undirected store (on a
/// directed one a pair linked both ways counts twice, which the simple
/// lists do not tell), with `select` forced, or with `auto` when its
/// state fits the budget with 16 MiB to spare (k-core's test).
pub fn pulls(choice: EngineChoice, directed: bool, n: u64, budget: &Budget) -> bool {
    !directed
        && match choice {
            EngineChoice::Select => true,
            EngineChoice::Auto => pull::state_bytes::<ColoringVp>(n) + (16 << 20) <= budget.limit(),
            EngineChoice::Stream | EngineChoice::External => false,
        }
}

/// Colours on the engines `eng` allows, by dense id: in the pull mode
/// when [`pulls`] says so, else where the planner puts it (in memory
/// when its grouped messages fit).
pub fn coloring_run(
    store: &Store,
    seed: u64,
    eng: &crate::algo::vertex::Engines,
    budget: &Budget,
) -> Result<(Box<dyn Values>, RunStats)> {
    let m = store.manifest();
    let n = m.num_vertices;
    if pulls(eng.choice, m.directed, n, budget) {
        let mut p = ColoringVp::pulled(seed, n);
        let (states, stats) = pull::run(store, &mut p, &eng.select, budget)?;
        return Ok((Box::new(Pulled(states)), stats));
    }
    let mut p = ColoringVp::new(seed, n, m.directed);
    let _bits = budget.charge(p.held_bytes(), "colouring's final bits")?;
    crate::algo::vertex::run_planned(store, &mut p, usize::MAX, eng, budget, |s| {
        (s.word & COLOR) as u64
    })
}

/// Colours by dense id.
pub fn coloring(
    store: &Store,
    seed: u64,
    ext: &ExternalConfig,
    budget: &Budget,
) -> Result<(Vec<u32>, RunStats)> {
    crate::algo::vertex::collected(coloring_on_disk(store, seed, ext, budget)?, budget, |x| {
        x as u32
    })
}

/// The colours of a pull run: its states, charged until dropped.
struct Pulled(PullStates<ColorState>);

impl Values for Pulled {
    fn for_each(&mut self, _budget: &Budget, f: &mut dyn FnMut(u64, u64)) -> Result<()> {
        for (v, s) in self.0.states.iter().enumerate() {
            f(v as u64, (s.word & COLOR) as u64);
        }
        Ok(())
    }
    fn buffer_bytes(&self) -> u64 {
        0
    }
}
