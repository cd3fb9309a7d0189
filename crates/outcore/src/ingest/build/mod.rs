//! The external-memory store build (G-Store's conversion, done inside a budget).
//!
//! 1. **Read**: the source's edges are canonicalised (undirected: src <= dst),
//!    self-loops optionally dropped, and pushed into an external sorter keyed by
//!    (src, dst) in original ids; distinct ids are collected on the way
//!    (past their share of the budget they go on to disk, and are ranked
//!    there by merge joins with no second read: `ondisk.rs`).
//! 2. **Order** (`--order degree`, the default): a first pass over the sorted
//!    stream counts every vertex's degree (distinct edges, in rank space:
//!    rank = position of the original id among the sorted distinct ids); the
//!    ranks sorted by (degree descending, rank ascending) give the dense ids
//!    (`order.bin`: dense id -> rank, `order.inv`: rank -> dense id). Then
//!    the stream is rewound. With `--order original` dense id = rank.
//! 3. **Remap** (`remap.rs`): the sorted stream is merged, duplicates collapse to their last
//!    occurrence, ids become dense ids and every edge is counted in its tile
//!    (`tiles.rs`), goes to a sorter in reverse order (directed in-CSR;
//!    undirected: both directions make the adjacency) and, directed, to the
//!    out-CSR: straight to its writer when dense ids are ranks (the stream
//!    is in that order), else through a second sorter.
//! 4. **Write** ([`write`]; the manifest, `manifest.rs`): the sorters feed the CSR writers; tiles are placed at their
//!    counted offsets from the out stream (or, when not counted, sorted).
//!
//! Each pass runs as two stages on two threads (`stages.rs`); the phases
//! are `phases.rs`, on dense ids as wide as the store's (`records.rs`).
//!
//! Memory: every buffer is charged to one [`Budget`]; inputs many times larger
//! than the budget spill sorted runs to a scratch directory. The store appears
//! only when complete ([`StoreDir`]).

use super::EdgeSource;
use crate::error::Result;
use crate::ingest::scratch::Scratch;
use crate::mem::Budget;
use crate::store::file::StoreDir;
use crate::store::manifest::Manifest;
pub use crate::store::VertexOrder;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The smallest budget a build accepts.
pub const MIN_MEMORY: u64 = 128 << 20;
/// Edges per batch of id lookups in the remap and the degree count.
const BATCH: usize = 4096;
/// Ids per batch handed to the id collector's stage.
const ID_BATCH: usize = 128 << 10;
/// Edges per batch handed between the two stages of a pass (`stages.rs`).
const STAGE_BATCH: usize = 64 << 10;
/// Budget held back for the input pipeline (parser blocks in flight), the
/// writers' buffers and the id map's slack; sorters share the rest.
const RESERVED: u64 = 64 << 20;
/// What of [`RESERVED`] stays held once the input is read (the store
/// writers' buffers, the id map's slack): the parser's blocks are gone, and
/// the later phases' sorters share the rest (at `--memory 128MiB` kron-24's
/// adjacency sorter had 5.4 MB while 40 MiB of the reserve sat unused).
const WRITERS_RESERVED: u64 = 30 << 20;

/// What a build did.
#[derive(Clone, Debug)]
pub struct BuildReport {
    pub path: PathBuf,
    pub manifest: Manifest,
    pub seconds: f64,
    /// Seconds per phase: read, order (degree order only), remap, write.
    pub phases: Vec<(&'static str, f64)>,
    pub input_bytes: Option<u64>,
    /// Bytes written to (and read back from) the sorters' bucket files.
    pub spilled_bytes: u64,
    pub peak_rss_bytes: u64,
}

/// Builds a store at `dest` from `source`. The locality orders are
/// computed from a built store (`crate::api::build`): `--order bfs` is
/// refused here, and `--order auto` chooses among the orders it computes
/// while reading (with `--compress` too).
pub fn build_store(
    source: &mut dyn EdgeSource,
    dest: &Path,
    opts: &BuildOptions,
) -> Result<BuildReport> {
    opts.validate()?;
    // Refused now, not after a first build.
    crate::store::check_store_dest(dest, opts.force, &[])?;
    if opts.order == VertexOrder::Bfs {
        return Err(crate::error::Error::Invalid(
            "--order bfs is computed from a built store by outcore::api::build, not by ingest::build::build_store".into(),
        ));
    }
    build_with(source, dest, opts, &Budget::new(opts.memory))
}

/// [`build_store`] with its maps charged to `budget`.
fn build_with(
    source: &mut dyn EdgeSource,
    dest: &Path,
    opts: &BuildOptions,
    budget: &Budget,
) -> Result<BuildReport> {
    let dir = StoreDir::create(dest, opts.force)?;
    let scratch = match opts.scratch_dir.as_deref() {
        Some(base) => Scratch::within(base, "scratch")?,
        None => Scratch::create(dir.tmp_path().with_extension("scratch"))?,
    };
    let budget = budget.clone();
    let s = &scratch;
    // One read of the input whatever the ids are: names are ranked on
    // disk from the start; integer ids go to the in-memory map, or, past
    // its share, on to disk from that same read (`ondisk.rs`).
    match (source.string_ids(), opts.weighted) {
        (true, true) => ranked::<f64>(source, dir, s, opts, &budget),
        (true, false) => ranked::<()>(source, dir, s, opts, &budget),
        (false, true) => build::<f64>(source, dir, s, opts, &budget, None),
        (false, false) => build::<()>(source, dir, s, opts, &budget, None),
    }
}

/// A build whose string ids are ranked on disk first ([`named`]).
fn ranked<W: Weight>(
    source: &mut dyn EdgeSource,
    mut dir: StoreDir,
    scratch: &Scratch,
    opts: &BuildOptions,
    budget: &Budget,
) -> Result<BuildReport> {
    let start = Instant::now();
    let numbered = named::number_names::<W>(source, &mut dir, scratch, opts, budget)?;
    // Ranks take 8 bytes past 2^32 - 1 ids, or when a wide store is asked
    // for (so the tests' wide builds run the u64 join); the build reads
    // them as 16-byte edges only past 2^32 ids (the ranked source says so).
    let (n, wide) = (numbered.n(), opts.wide(numbered.n()));
    // Refused before the join, not after it.
    phases::check_count(n)?;
    match wide {
        false => joined::<W, u32>(numbered, dir, scratch, opts, budget, start),
        true => joined::<W, u64>(numbered, dir, scratch, opts, budget, start),
    }
}

/// Step 3 of the ranking on disk ([`named`]) with ranks of `D`, then the
/// build proper.
fn joined<W: Weight, D: DenseId>(
    numbered: named::Numbered<W>,
    dir: StoreDir,
    scratch: &Scratch,
    opts: &BuildOptions,
    budget: &Budget,
    start: Instant,
) -> Result<BuildReport> {
    let (mut ranked, front) = numbered.join::<D>(scratch, opts, budget)?;
    let f = Some(named::Front {
        start: Some(start),
        ..front
    });
    build::<W>(&mut ranked, dir, scratch, opts, budget, f)
}

mod distinct;
mod manifest;
mod named;
mod ondisk;
mod options;
mod order;
mod phases;
mod ranks;
mod read;
mod records;
mod relabel;
mod remap;
mod spill_code;
mod stages;
mod tilecoder;
mod tiles;
mod write;

pub use options::{BuildOptions, OrderChoice};
pub use relabel::relabel;

pub use order::SKEWED;
use phases::build;
pub(crate) use phases::check_count;
use records::{DenseId, Weight};

#[derive(Default)]
struct Counts {
    input_edges: u64,
    self_loops_dropped: u64,
    duplicates: u64,
    edges: u64,
    self_loops: u64,
}
