//! The planner's in-memory placement: which engines a program may take
//! under `--engine`, what the run holds for the planner (the degrees select
//! is priced with) and how the budget left after the state is split
//! between the stream engine's tile cache and the select engine's pools.

use super::EngineChoice;
use crate::engine::vertex::VertexProgram;
use crate::error::{Error, Result};
use crate::store::Store;

/// Whether `prog` may stream and may select under `choice`: an error when
/// it can do neither in memory. The stream engine's tiles hold no weights.
pub fn engines_ok<P: VertexProgram>(
    _store: &Store,
    prog: &P,
    choice: EngineChoice,
) -> Result<(bool, bool)> {
    // Both merge a store's delta (issue 53: the tiles S4, the lists S5).
    let stream_ok = !prog.weighted() && choice != EngineChoice::Select;
    // Auto leaves select out for programs whose every vertex sends every
    // superstep (PageRank): it could not win, and the stream engine keeps
    // the whole cache.
    let select_ok = choice != EngineChoice::Stream
        && !(choice == EngineChoice::Auto && P::APPLY_ALL && stream_ok);
    if choice == EngineChoice::External || !stream_ok && !select_ok {
        return Err(Error::Invalid(format!(
            "{} cannot run in memory on the {} engine; use --engine external",
            prog.name(),
            format!("{choice:?}").to_lowercase()
        )));
    }
    Ok((stream_ok, select_ok))
}

/// Whether an in-memory run of `P` under `choice` holds the out-degrees
/// select is priced with: not when select is never priced (a forced
/// stream run), nor for a program whose every vertex sends every
/// superstep (priced from the store's totals; those bytes go to the tile
/// cache).
pub fn holds_degrees<P: VertexProgram>(choice: EngineChoice) -> bool {
    !P::APPLY_ALL && choice != EngineChoice::Stream
}

/// The stream engine's tile cache when `available` bytes are left after
/// the state: with select beside it, three quarters (dense supersteps,
/// which stream, move far more bytes than sparse ones, which select); alone,
/// the stream engine's own default (`None`).
pub fn stream_cache_bytes(select_ok: bool, available: u64) -> Option<u64> {
    select_ok.then_some(available / 4 * 3)
}

/// The select engine's buffer pool per list (`lists`: out, and in when
/// messages go both ways) from the `available` bytes left beside the
/// stream engine's cache, less 8 MiB of slack.
pub fn select_pool_bytes(available: u64, lists: u64) -> u64 {
    available.saturating_sub(8 << 20) / lists
}
