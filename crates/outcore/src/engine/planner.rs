//! The planner: which engine runs a run, and each superstep of it (RASP's
//! cost-based choice between sequential streaming and selective page reads,
//! extended with GraFBoost's external engine).
//!
//! Prices, in seconds, from the device's figures ([`CostModel`]):
//! - **stream**: the tile bytes of active rows not in the cache, at the
//!   sequential rate (G-Store);
//! - **select**: the pages of the active lists plus their offsets pages, at
//!   the calibrated random rate (TurboGraph);
//! - **external**: the active vertices' adjacency read, the update log
//!   written and read back once, and the states of the intervals touched
//!   read and written (GraFBoost's sort-reduce); for programs with an
//!   identity also the grid alternative (tiles per direction, outgoing
//!   words written once and read per window, states; `external/grid/`),
//!   which the external engine takes when it is cheaper.
//!
//! A run goes external when its in-memory state does not fit the budget
//! ([`needs_external`]); in memory, each superstep runs on the cheaper of
//! stream and select. Every estimate lands in `--stats` per iteration
//! ([`PlanEstimate`]).

use crate::engine::stats::PlanEstimate;
use crate::error::{Error, Result};
use crate::mem::Budget;
use crate::store::Store;

mod grid;
mod memory;

pub use grid::{choose_external, grid_work};
pub use memory::{engines_ok, holds_degrees, select_pool_bytes, stream_cache_bytes};

/// Which engine runs an algorithm (`--engine`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineChoice {
    /// The planner picks per run and per superstep.
    Auto,
    Stream,
    Select,
    /// Vertex state on disk (the external engine).
    External,
}

impl std::str::FromStr for EngineChoice {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(EngineChoice::Auto),
            "stream" => Ok(EngineChoice::Stream),
            "select" => Ok(EngineChoice::Select),
            "external" => Ok(EngineChoice::External),
            _ => Err(Error::Invalid(format!(
                "unknown engine `{s}`: expected auto, stream, select or external"
            ))),
        }
    }
}

/// The algorithms whose every reader merges a store's delta on the
/// external engine (issue 53: the log engine's lists, S6; ids and ranks,
/// S3; degrees; the triangle listing's orientation, the walks' gathered
/// lists and weighted PageRank's out-weights, S6).
const ON_DELTA: &[&str] = &[
    "pagerank",
    "wcc",
    "bfs",
    "sssp",
    "kcore",
    "cdlp",
    "coloring",
    "mis",
    "betweenness",
    "lcc",
    "triangles",
    "randomwalk",
];

/// The algorithms whose every reader merges a store's delta on the select
/// engine too (its lists, S5; the view's degrees and ranks in their
/// states; the walks' held lists, the view's CSR scan).
const ON_DELTA_SELECT: &[&str] = &["pagerank", "wcc", "bfs", "sssp", "kcore", "randomwalk"];

/// The algorithms the stream engine runs on a store's delta: its tiles
/// merge the delta's (S4, `engine/stream/delta.rs`).
const ON_DELTA_STREAM: &[&str] = &["pagerank", "wcc", "bfs", "sssp", "kcore"];

/// The engine a run of `algorithm` takes on `store`: `choice` itself
/// without a delta; with one (PartitionedVC's buffered updates, read
/// LSM-style by merging on read), only an engine that merges it: the
/// external engine's log path, and the select engine's lists (S5) for
/// [`ON_DELTA_SELECT`], for which `auto` stays `auto` (in memory when the
/// state fits, on the stream engine's tiles, which merge it too (S4), or
/// select) and `stream` stays `stream` for [`ON_DELTA_STREAM`]; the others
/// go external. The grid does not merge a delta yet; `outcore compact`
/// folds the delta into the base.
pub fn for_delta(store: &Store, choice: EngineChoice, algorithm: &str) -> Result<EngineChoice> {
    let Some(d) = store.delta() else {
        return Ok(choice);
    };
    let refuse = |what: String| {
        Err(Error::Invalid(format!(
            "{what} the pending updates of {} (delta generation {}) yet; run `outcore compact` on \
             it first",
            store.path().display(),
            d.generation
        )))
    };
    match choice {
        // The tiles merge the delta (S4): the programs that merge it in
        // memory stream it too.
        EngineChoice::Stream if ON_DELTA_STREAM.contains(&algorithm) => Ok(EngineChoice::Stream),
        EngineChoice::Stream => refuse(format!("{algorithm} on the stream engine does not read")),
        EngineChoice::Select if !ON_DELTA_SELECT.contains(&algorithm) => {
            refuse(format!("{algorithm} on the select engine does not read"))
        }
        EngineChoice::Select => Ok(EngineChoice::Select),
        _ if !ON_DELTA.contains(&algorithm) => refuse(format!("{algorithm} does not read")),
        EngineChoice::Auto if ON_DELTA_SELECT.contains(&algorithm) => Ok(EngineChoice::Auto),
        _ => Ok(EngineChoice::External),
    }
}

/// Device figures the planner prices bytes with.
#[derive(Clone, Copy, Debug)]
pub struct CostModel {
    /// Sequential read bytes per second (stream, external scans and logs).
    pub seq_bytes_per_sec: f64,
    /// Sequential write bytes per second (external logs and states).
    pub write_bytes_per_sec: f64,
    /// Random page reads per second at the select engine's depth.
    pub random_pages_per_sec: f64,
}

impl CostModel {
    /// From the store's calibration when present, else this machine class's
    /// defaults (1.0 GB/s sequential read, 0.9 GB/s write, 90k random 4 KiB
    /// reads/s at depth 64).
    pub fn for_store(store: &Store) -> CostModel {
        let cal = crate::io::calibrate::load(store.root());
        CostModel {
            seq_bytes_per_sec: 1.0e9,
            write_bytes_per_sec: 0.9e9,
            random_pages_per_sec: cal.map_or(90e3, |c| c.best_iops.max(1.0)),
        }
    }

    /// Seconds to stream `bytes`.
    pub fn stream_seconds(&self, bytes: u64) -> f64 {
        bytes as f64 / self.seq_bytes_per_sec
    }

    /// Seconds to read `pages` at random.
    pub fn select_seconds(&self, pages: u64) -> f64 {
        pages as f64 / self.random_pages_per_sec
    }

    /// Bytes and seconds of an external superstep.
    pub fn external(&self, w: &ExternalWork) -> (u64, f64) {
        let read = w.adjacency_bytes + w.log_bytes + w.state_bytes;
        let written = w.log_bytes + w.state_bytes;
        (
            read + written,
            read as f64 / self.seq_bytes_per_sec + written as f64 / self.write_bytes_per_sec,
        )
    }
}

/// What an external superstep moves.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExternalWork {
    /// Adjacency bytes of the active vertices.
    pub adjacency_bytes: u64,
    /// Update log bytes (written once, read once).
    pub log_bytes: u64,
    /// State bytes of the intervals touched (read once, written once).
    pub state_bytes: u64,
    /// Messages logged (each sorted, reduced and merged: compute the bytes
    /// do not show).
    pub messages: u64,
    /// Bytes the grid alternative reads and writes (tiles, outgoing words,
    /// states) and the edge directions it folds, when the program and
    /// budget allow it.
    pub grid: Option<(u64, u64, u64)>,
}

/// Seconds of compute per logged message (scatter, in-buffer sort and
/// reduction, merge, apply): measured on the 2-core reference machine,
/// kron-24 PageRank at 64 MiB on the log path, 416 s for 10 x 520 M
/// messages of which ~10 s per iteration was disk time.
pub const LOG_SECONDS_PER_MESSAGE: f64 = 50e-9;
/// Seconds of compute per edge direction a grid superstep folds (values
/// and apply passes included): the same run on the grid, ~3.7 s of
/// compute per 1.04 G edge directions.
pub const GRID_SECONDS_PER_EDGE: f64 = 3e-9;

impl ExternalWork {
    /// The work of a superstep where `active` of `n` vertices send along
    /// `entries` stored adjacency entries (`adjacency_bytes` in all), with
    /// `record` bytes per message and `state` bytes of state per vertex.
    pub fn estimate(
        active: u64,
        n: u64,
        entries: u64,
        adjacency_bytes: u64,
        record: u64,
        state: u64,
    ) -> ExternalWork {
        let f = if n == 0 {
            0.0
        } else {
            active as f64 / n as f64
        };
        ExternalWork {
            adjacency_bytes: (adjacency_bytes as f64 * f) as u64,
            log_bytes: (entries as f64 * f) as u64 * record,
            state_bytes: n * (state + 1),
            messages: (entries as f64 * f) as u64,
            grid: None,
        }
    }
}

/// The estimates of one superstep; `choose` fills in the cheaper engine.
pub fn choose(
    model: &CostModel,
    stream_bytes: Option<u64>,
    select_pages: Option<(u64, u64)>,
    external: Option<&ExternalWork>,
) -> PlanEstimate {
    let mut est = PlanEstimate::default();
    let mut best = (f64::INFINITY, "none");
    if let Some(b) = stream_bytes {
        est.stream_bytes = b;
        est.stream_seconds = model.stream_seconds(b);
        best = (est.stream_seconds, "stream");
    }
    if let Some((pages, page_bytes)) = select_pages {
        price_select(&mut est, model, pages, page_bytes);
        if est.select_seconds <= best.0 {
            best = (est.select_seconds, "select");
        }
    }
    if let Some(w) = external {
        let (b, s) = model.external(w);
        est.external_bytes = b;
        est.external_seconds = s;
        est.external_seconds += w.messages as f64 * LOG_SECONDS_PER_MESSAGE;
        if let Some((r, wr, edges)) = w.grid {
            est.grid_bytes = r + wr;
            est.grid_seconds = r as f64 / model.seq_bytes_per_sec
                + wr as f64 / model.write_bytes_per_sec
                + edges as f64 * GRID_SECONDS_PER_EDGE;
        }
        // In-memory engines win when they can run: external only alone.
        if best.1 == "none" {
            best = (s, "external");
        }
    }
    est.chosen = best.1;
    est
}

/// Records select's price in `est` (`pages` of `page_bytes`); `choose`
/// calls it, and a run that leaves select out calls it so `--stats` still
/// shows the price it did not pay.
pub fn price_select(est: &mut PlanEstimate, model: &CostModel, pages: u64, page_bytes: u64) {
    est.select_bytes = pages * page_bytes;
    est.select_seconds = model.select_seconds(pages);
}

/// Whether a run with `state` bytes of in-memory state goes to the external
/// engine: when forced, or with `auto` when the state does not fit the
/// budget (a note on stderr says so, unless quiet).
pub fn needs_external(choice: EngineChoice, what: &str, state: u64, budget: &Budget) -> bool {
    match choice {
        EngineChoice::External => true,
        EngineChoice::Auto if state > budget.limit() => {
            if !crate::progress::quiet() {
                eprintln!(
                    "note: {what} needs {} of vertex state in memory but --memory is {}; running on the external engine (state on disk)",
                    crate::size::format_size(state),
                    crate::size::format_size(budget.limit())
                );
            }
            true
        }
        _ => false,
    }
}

/// Whether random walks run over lists held in memory (`bytes`: the lists,
/// the visit counts and the start table) rather than through the walker
/// logs: with `auto` when they fit what the budget leaves with 16 MiB to
/// spare, always with `select` or `stream` (refused when they do not
/// fit), never with `external`.
pub fn walks_held(choice: EngineChoice, bytes: u64, budget: &Budget) -> Result<bool> {
    let fits = bytes + (16 << 20) <= budget.available();
    match choice {
        EngineChoice::External => Ok(false),
        EngineChoice::Auto => Ok(fits),
        _ if fits => Ok(true),
        _ => Err(Error::Budget(format!(
            "random walks over lists held in memory need {} of --memory, {} is left; raise --memory or drop --engine (the external engine walks in any budget)",
            crate::size::format_size(bytes + (16 << 20)),
            crate::size::format_size(budget.available())
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> CostModel {
        CostModel {
            seq_bytes_per_sec: 1e9,
            write_bytes_per_sec: 1e9,
            random_pages_per_sec: 1e5,
        }
    }

    #[test]
    fn sparse_supersteps_go_select_dense_ones_stream() {
        let m = model();
        // 10 pages vs a full 1 GB pass.
        assert_eq!(
            choose(&m, Some(1 << 30), Some((10, 4096)), None).chosen,
            "select"
        );
        // 1M pages (10 s) vs 1 GB (1 s).
        assert_eq!(
            choose(&m, Some(1 << 30), Some((1 << 20, 4096)), None).chosen,
            "stream"
        );
        // Only external can run: it is chosen, with its estimate.
        let w = ExternalWork::estimate(50, 100, 1000, 4000, 8, 8);
        let e = choose(&m, None, None, Some(&w));
        assert_eq!(e.chosen, "external");
        assert_eq!(e.external_bytes, 2000 + 2 * 500 * 8 + 2 * 900);
        // In-memory engines win when they can run.
        assert_eq!(choose(&m, Some(1), None, Some(&w)).chosen, "stream");
    }

    #[test]
    fn external_when_the_state_does_not_fit() {
        crate::progress::set_quiet(true);
        let b = Budget::new(1000);
        assert!(needs_external(EngineChoice::Auto, "x", 1001, &b));
        assert!(!needs_external(EngineChoice::Auto, "x", 1000, &b));
        assert!(needs_external(EngineChoice::External, "x", 1, &b));
        assert!(!needs_external(EngineChoice::Stream, "x", 1 << 40, &b));
    }
}
