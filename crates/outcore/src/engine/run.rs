//! The runner: a vertex program run in memory (Pregel's supersteps), with
//! an engine per superstep. The runner owns the loop (begin, one
//! superstep's messages, end), the budget check, cancel, progress and the
//! per-superstep statistics; the planner (`planner.rs`) owns every engine
//! decision: before each superstep it prices the tile bytes the stream
//! engine would read (sending rows, cached tiles free) against the pages
//! the select engine would read for the frontier's lists (RASP's choice),
//! and the superstep runs on the cheaper one over the shared state
//! (`superstep::MemState`). `--engine stream|select` forces one (the
//! stream engine alone is G-Store's slide-cache-rewind over the tiles);
//! weighted programs run on select.

mod engines;

pub use crate::engine::planner::engines_ok;
pub use engines::Engines;

use crate::engine::planner::{self, EngineChoice};
use crate::engine::select::SelectConfig;
use crate::engine::stats::RunStats;
use crate::engine::stream::{required_bytes, StreamConfig};
use crate::engine::superstep::MemState;
use crate::engine::vertex::VertexProgram;
use crate::engine::words::{word_bytes, Word};
use crate::error::{Error, Result};
use crate::mem::Budget;
use crate::progress::Progress;
use crate::store::degrees::Degrees;
use crate::store::Store;
use std::time::Instant;

/// The in-memory state [`run`] charges for `P` on `n` vertices with the
/// planner's pick ([`EngineChoice::Auto`]; [`state_bytes_on`]).
pub fn state_bytes<P: VertexProgram>(n: u64) -> u64 {
    state_bytes_on::<P>(n, EngineChoice::Auto)
}

/// The in-memory state [`run`] charges for `P` on `n` vertices under
/// `choice`: the program's state and messages, and the degrees the planner
/// prices select with when it does ([`planner::holds_degrees`]; a program
/// whose every vertex sends every superstep is priced from the store's
/// totals instead, and a forced stream run never prices select).
pub fn state_bytes_on<P: VertexProgram>(n: u64, choice: EngineChoice) -> u64 {
    let deg = match planner::holds_degrees::<P>(choice) {
        true => Degrees::memory_bytes(n),
        false => 0,
    };
    crate::engine::superstep::state_bytes::<P>(n) + deg
}

/// The least budget [`run`] accepts for `P` on `store`.
pub fn required<P: VertexProgram>(store: &Store) -> u64 {
    required_on::<P>(store, EngineChoice::Auto)
}

/// The least budget [`run`] accepts for `P` on `store` under `choice`.
fn required_on<P: VertexProgram>(store: &Store, choice: EngineChoice) -> u64 {
    let n = store.manifest().num_vertices;
    required_bytes(store, state_bytes_on::<P>(n, choice)) + (4 << 20)
}

/// The least budget [`run`] accepts for `prog` on `store`: [`required`]
/// plus, for a program whose messages do not combine, the worst case of
/// its grouped messages (every list entry delivers one;
/// [`crate::engine::superstep::arena_bytes`]), and what the program holds
/// itself ([`VertexProgram::held_bytes`]).
pub fn required_by<P: VertexProgram>(store: &Store, prog: &P) -> u64 {
    required_by_on(store, prog, EngineChoice::Auto)
}

/// [`required_by`] under `choice`.
fn required_by_on<P: VertexProgram>(store: &Store, prog: &P, choice: EngineChoice) -> u64 {
    let msg = std::mem::size_of::<P::Msg>() as u64;
    required_on::<P>(store, choice)
        + prog.held_bytes()
        + match P::COMBINES {
            true => 0,
            false => crate::engine::superstep::arena_bytes(store, prog.edges(), msg),
        }
}

/// Runs `prog` in memory for at most `max_steps` supersteps, each on the
/// engine `choice` names (`Auto`: the planner's pick; `Stream`: the stream
/// engine alone); returns the states and the run's statistics.
pub fn run<P: VertexProgram>(
    store: &Store,
    prog: &mut P,
    max_steps: usize,
    choice: EngineChoice,
    stream_cfg: StreamConfig,
    select_cfg: &SelectConfig,
    budget: &Budget,
) -> Result<(Vec<P::State>, RunStats)> {
    let (s, c) = (stream_cfg, select_cfg);
    match word_bytes::<P>() {
        4 => run_in::<P, u32>(store, prog, max_steps, choice, s, c, budget),
        _ => run_in::<P, u64>(store, prog, max_steps, choice, s, c, budget),
    }
}

/// [`run`] with the messages in words of `W`.
fn run_in<P: VertexProgram, W: Word>(
    store: &Store,
    prog: &mut P,
    max_steps: usize,
    choice: EngineChoice,
    stream_cfg: StreamConfig,
    select_cfg: &SelectConfig,
    budget: &Budget,
) -> Result<(Vec<P::State>, RunStats)> {
    let t0 = Instant::now();
    let n = store.manifest().num_vertices;
    engines_ok(store, prog, choice)?;
    check_budget_on::<P>(store, prog, choice, budget)?;
    let mut st = MemState::<P, W>::new(store, prog, budget)?;
    let (mut engines, mut stats) =
        Engines::new(store, prog, choice, stream_cfg, select_cfg, budget)?;
    stats.vertex_state_bytes = state_bytes_on::<P>(n, choice);
    let mut progress = if max_steps < usize::MAX {
        Progress::bar(prog.name(), max_steps as u64, crate::progress::Unit::Steps)
    } else {
        Progress::new(prog.name())
    };
    let mut step = 0;
    while step < max_steps {
        crate::cancel::check()?;
        let passes = st.passes;
        if !st.begin(prog, step) {
            break;
        }
        let it0 = Instant::now();
        let sending = st.senders;
        let mut it = engines.step(
            store,
            budget,
            &mut st,
            prog,
            step,
            &mut stats,
            &mut progress,
        )?;
        let end = st.end(prog, step);
        it.state_passes = st.passes - passes;
        it.seconds = it0.elapsed().as_secs_f64();
        progress.tick(|| format!("superstep {step}: {} sending, on {}", sending, it.engine));
        stats.iterations.push(it);
        step += 1;
        progress.set(step as u64);
        if end.done {
            break;
        }
    }
    engines.finish(&mut stats, t0);
    progress.done(|| format!("{step} supersteps"));
    Ok((st.take_states(prog), stats))
}

/// An error unless `budget` holds [`required_by`] for `prog` on `store`.
pub fn check_budget<P: VertexProgram>(store: &Store, prog: &P, budget: &Budget) -> Result<()> {
    check_budget_on(store, prog, EngineChoice::Auto, budget)
}

/// The runner's one budget message: an error unless `budget` holds what
/// `prog` needs on `store` under `choice`.
fn check_budget_on<P: VertexProgram>(
    store: &Store,
    prog: &P,
    choice: EngineChoice,
    budget: &Budget,
) -> Result<()> {
    let need = required_by_on(store, prog, choice);
    if budget.limit() < need {
        return Err(Error::Budget(format!(
            "{} on {} vertices needs at least {} in memory; raise --memory or use --engine external",
            prog.name(),
            store.manifest().num_vertices,
            crate::size::format_size(need)
        )));
    }
    Ok(())
}
