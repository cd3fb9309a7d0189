//! The algorithms as vertex programs ([`crate::engine::vertex`]), written
//! once and run by the external engine when their vertex state does not fit
//! the budget (or when `--engine external` asks), else in memory
//! ([`run_planned`]). Each file holds one
//! program; its in-memory reference is in [`crate::algo::reference`] and the
//! tests compare the two.

pub mod bfs;
pub mod kcore;
pub mod pagerank;
pub mod pagerank_weighted;
pub mod sssp;
pub mod wcc;

use crate::engine::external::{self, ExternalConfig};
use crate::engine::planner::{self, EngineChoice};
use crate::engine::results::{StateValues, Values};
use crate::engine::select::SelectConfig;
use crate::engine::stats::RunStats;
use crate::engine::stream::StreamConfig;
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

/// The engines a run may take ([`run_planned`]): `--engine`, and the
/// configurations of each engine.
#[derive(Clone, Debug)]
pub struct Engines {
    pub choice: EngineChoice,
    pub stream: StreamConfig,
    pub select: SelectConfig,
    pub ext: ExternalConfig,
}

impl Engines {
    /// The external engine, forced, with `ext`.
    pub fn external(ext: &ExternalConfig) -> Engines {
        Engines::auto(EngineChoice::External, ext)
    }

    /// `choice`, with the default stream and select configurations.
    pub fn auto(choice: EngineChoice, ext: &ExternalConfig) -> Engines {
        Engines {
            choice,
            stream: StreamConfig::default(),
            select: SelectConfig::default(),
            ext: ext.clone(),
        }
    }
}

/// Runs `prog` where the planner puts it: in memory on the stream and
/// select engines, superstep by superstep
/// ([`crate::engine::run::run`]), when its state (and for a program
/// whose messages do not combine, its grouped messages' worst case) fits
/// the budget; else, or when `--engine external` asks, on the external
/// engine ([`run_on_disk`]). The states come back mapped by `map`.
pub fn run_planned<P: VertexProgram>(
    store: &Store,
    prog: &mut P,
    max_steps: usize,
    eng: &Engines,
    budget: &Budget,
    map: fn(&P::State) -> u64,
) -> Result<(Box<dyn Values>, RunStats)>
where
    P::State: 'static,
{
    let need = crate::engine::run::required_by(store, prog);
    if planner::needs_external(eng.choice, prog.name(), need, budget) {
        return run_on_disk(store, prog, max_steps, &eng.ext, budget, map);
    }
    let (s, c) = (eng.stream.clone(), &eng.select);
    let (states, stats) = crate::engine::run(store, prog, max_steps, eng.choice, s, c, budget)?;
    Ok((Box::new(MemValues { states, map }), stats))
}

/// The final states of an in-memory run, each mapped to its value.
struct MemValues<S> {
    states: Vec<S>,
    map: fn(&S) -> u64,
}

impl<S> Values for MemValues<S> {
    fn for_each(&mut self, _budget: &Budget, f: &mut dyn FnMut(u64, u64)) -> Result<()> {
        for (v, s) in self.states.iter().enumerate() {
            f(v as u64, (self.map)(s));
        }
        Ok(())
    }
    fn buffer_bytes(&self) -> u64 {
        0
    }
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
