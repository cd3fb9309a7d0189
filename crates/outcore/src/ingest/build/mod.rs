//! The external-memory store build (G-Store's conversion, done inside a budget).
//!
//! 1. **Read**: the source's edges are canonicalised (undirected: src <= dst),
//!    self-loops optionally dropped, and pushed into an external sorter keyed by
//!    (src, dst) in original ids; distinct ids are collected on the way.
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
//! Each pass runs as two stages on two threads (`stages.rs`).
//!
//! Memory: every buffer is charged to one [`Budget`]; inputs many times larger
//! than the budget spill sorted runs to a scratch directory. The store appears
//! only when complete ([`StoreDir`]).

use super::EdgeSource;
use crate::error::{Error, IoContext, Result};
use crate::mem::budget::Charge;
use crate::mem::{peak_rss_bytes, Budget};
use crate::progress::Progress;
use crate::store::file::{StoreDir, WriteLe};
use crate::store::manifest::Manifest;
pub use crate::store::VertexOrder;
use crate::store::{ORDER_FILE, ORDER_INV_FILE};
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

/// Builds a store at `dest` from `source`.
pub fn build_store(
    source: &mut dyn EdgeSource,
    dest: &Path,
    opts: &BuildOptions,
) -> Result<BuildReport> {
    opts.validate()?;
    if opts.order == VertexOrder::Bfs || (opts.order_auto && opts.compress) {
        return locality::build(source, dest, opts);
    }
    build_with(source, dest, opts, &Budget::new(opts.memory), &mut None)
}

/// [`build_store`] in the order `given` says, when set (its maps charged
/// to `budget`).
fn build_with(
    source: &mut dyn EdgeSource,
    dest: &Path,
    opts: &BuildOptions,
    budget: &Budget,
    given: &mut Option<OrderMaps>,
) -> Result<BuildReport> {
    let dir = StoreDir::create(dest, opts.force)?;
    let scratch = Scratch::create(opts.scratch_dir.as_deref(), dir.tmp_path())?;
    let budget = budget.clone();
    let s = &scratch.0;
    let narrow = source.ids_fit_u32();
    if source.string_ids() {
        return match opts.weighted {
            true => ranked::<f64>(source, dir, s, opts, &budget, Ids::Strings, given),
            false => ranked::<()>(source, dir, s, opts, &budget, Ids::Strings, given),
        };
    }
    // Ids not known to fit 32 bits are first read as if they did (8-byte
    // edges: half the bytes to sort and spill); the first wider id starts
    // the build over with 16-byte edges.
    let mut built = match (opts.external_ids, opts.weighted) {
        (true, _) => Built::Outgrown,
        (false, true) => {
            build::<f64, Keyed<f64>>(source, dir, s, opts, &budget, None, !narrow, given)?
        }
        (false, false) => {
            build::<(), Keyed<()>>(source, dir, s, opts, &budget, None, !narrow, given)?
        }
    };
    if let Built::Wide = built {
        let dir = StoreDir::create(dest, opts.force)?;
        built = match opts.weighted {
            true => build::<f64, Orig<f64>>(source, dir, s, opts, &budget, None, false, given)?,
            false => build::<(), Orig<()>>(source, dir, s, opts, &budget, None, false, given)?,
        };
    }
    if let Built::Done(report) = built {
        return Ok(report);
    }
    // The ids outgrew the in-memory map: start again, ranking them on disk.
    if !opts.external_ids {
        let note = "the vertex ids outgrow the id map's share of the budget; ranking them on disk instead (a second pass over the input)";
        Progress::new("vertex ids").done(|| note.to_string());
    }
    let dir = StoreDir::create(dest, opts.force)?;
    match opts.weighted {
        true => ranked::<f64>(source, dir, s, opts, &budget, Ids::Ints, given),
        false => ranked::<()>(source, dir, s, opts, &budget, Ids::Ints, given),
    }
}

/// A build whose ids are ranked on disk first ([`named`]).
fn ranked<W: Weight>(
    source: &mut dyn EdgeSource,
    mut dir: StoreDir,
    scratch: &Path,
    opts: &BuildOptions,
    budget: &Budget,
    ids: Ids,
    given: &mut Option<OrderMaps>,
) -> Result<BuildReport> {
    let start = Instant::now();
    let (mut ranked, mut front) =
        named::rank_names::<W>(source, ids, &mut dir, scratch, opts, budget)?;
    front.start = Some(start);
    let f = Some(front);
    match build::<W, Keyed<W>>(&mut ranked, dir, scratch, opts, budget, f, false, given)? {
        Built::Done(report) => Ok(report),
        _ => unreachable!("ranks fit the id map and 32 bits"),
    }
}

/// A scratch directory removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn create(base: Option<&Path>, store_tmp: &Path) -> Result<Scratch> {
        let path = match base {
            Some(b) => b.join(format!(".outcore-scratch-{}", std::process::id())),
            None => store_tmp.with_extension("scratch"),
        };
        std::fs::create_dir_all(&path).at(&path)?;
        Ok(Scratch(path))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // The sorters' files go on the reaper thread (`reap.rs`): gone
        // before their directory.
        super::reap::wait_removed();
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

mod cuthill_mckee;
mod distinct;
mod locality;
mod manifest;
mod named;
mod options;
mod order;
mod ranks;
mod read;
mod records;
mod remap;
mod stages;
mod tiles;
mod write;

pub use options::{BuildOptions, OrderChoice};

use distinct::{Dedup, Distinct, RankSpill};
use named::Ids;
pub use order::SKEWED;
use order::{degree_order, note_original_order, OrderMaps};
use records::{InputEdge, Keyed, Orig, Weight};
use remap::remap;

#[derive(Default)]
struct Counts {
    input_edges: u64,
    self_loops_dropped: u64,
    duplicates: u64,
    edges: u64,
    self_loops: u64,
}

/// How [`build`] ended.
#[allow(clippy::large_enum_variant)] // one per build
enum Built {
    Done(BuildReport),
    /// The ids outgrew the in-memory id map's share of the budget.
    Outgrown,
    /// `speculative` and an edge id is wider than 32 bits.
    Wide,
}

/// The build proper; `front` is set when ids were ranked on disk first (the
/// source then holds ranks, and the store the ids). `speculative`: `E` is
/// 8-byte edges though the source does not promise 32-bit ids. `given`: the
/// order to build in (taken when the order is due), else as `opts` says.
#[allow(clippy::too_many_arguments)]
fn build<W: Weight, E: InputEdge<W = W>>(
    source: &mut dyn EdgeSource,
    mut dir: StoreDir,
    scratch: &Path,
    opts: &BuildOptions,
    budget: &Budget,
    front: Option<named::Front>,
    speculative: bool,
    given: &mut Option<OrderMaps>,
) -> Result<Built> {
    let start = front
        .as_ref()
        .and_then(|f| f.start)
        .unwrap_or_else(Instant::now);
    let budget = budget.clone();
    let pipeline = budget.charge(RESERVED - WRITERS_RESERVED, "input pipeline")?;
    let _writers = budget.charge(WRITERS_RESERVED, "writers")?;
    let undirected = !opts.directed;
    let mut by_degree = opts.order == VertexOrder::Degree && given.is_none();
    let dense_n = source.dense_vertex_count();
    let mut counts = Counts::default();

    // Phase 1: read, canonicalise, sort by (src, dst); collect ids.
    let t1 = Instant::now();
    let free = budget.available();
    // A quarter of the budget is held back for the id map; a dense source
    // needs none, but the degree order needs 8 bytes a vertex after the sort.
    if let (Some(n), true) = (dense_n, by_degree) {
        by_degree = order::degree_fits(n, &budget, opts.order_auto)?;
    }
    let held = match dense_n {
        Some(n) if by_degree => (free / 4).max(8 * n),
        _ => free / 4,
    };
    let total_bytes = source.input_bytes();
    let label = match front {
        Some(_) => "join target names".to_string(),
        None => format!("read {}", source.describe()),
    };
    let (mut sorter, idmap, shape) = match read::edges::<E>(
        source,
        scratch,
        opts,
        &budget,
        &read::Shares { free, held },
        &label,
        speculative,
        &mut counts,
    )? {
        Ok(r) => r,
        Err(stop) => return Ok(stop),
    };
    drop(pipeline);
    let n = idmap.len();
    if n > u32::MAX as u64 {
        return Err(Error::Invalid(format!(
            "{n} vertices: this version supports at most {}",
            u32::MAX
        )));
    }
    // The input's sample in ranks, for the remap's sorters.
    let sample = remap::Sample {
        ranks: shape
            .sample
            .iter()
            .filter_map(|&(s, d)| Some((idmap.dense(s)?, idmap.dense(d)?)))
            .collect(),
        ordered: shape.ordered,
    };
    sorter.park()?;
    let mut spilled = sorter.spilled_bytes();
    let mut dedup = Dedup::new(sorter.finish()?, &idmap);
    let read_secs = t1.elapsed().as_secs_f64();
    let mut phases = vec![("read", read_secs)];
    let mut total_bytes = total_bytes;
    if let Some(f) = &front {
        // The ranked source is the second join of the names' front.
        phases = f.phases.clone();
        phases.push(("join targets", read_secs));
        spilled += f.spilled;
        total_bytes = f.input_bytes;
    }

    // Phase 2 (degree order): count degrees, sort ranks, write the maps.
    // `perm[rank]` is the dense id; `None` when that is the rank itself.
    let mut perm: Option<(Vec<u32>, Charge)> = None;
    let mut from_spill = None;
    let mut vertex_order = if by_degree {
        opts.order
    } else {
        VertexOrder::Original
    };
    let mut order = None;
    if let Some(g) = given.take() {
        if g.dense_of_rank.0.len() as u64 != n && !g.dense_of_rank.0.is_empty() {
            return Err(Error::Invalid(format!(
                "{}: the input changed between the build's two passes ({} vertices, then {n}); import it again",
                source.describe(),
                g.dense_of_rank.0.len()
            )));
        }
        vertex_order = opts.order;
        order = Some(g);
    }
    if by_degree {
        let t = Instant::now();
        // A spilled input is not sorted a second time: the degree pass
        // writes the distinct edges out for the remap.
        let mut spill = match dedup.is_spilled() {
            true => Some(RankSpill::create(scratch)?),
            false => None,
        };
        order = match degree_order(
            &mut dedup,
            spill.as_mut(),
            n,
            undirected,
            &budget,
            opts.order_auto,
        ) {
            Ok(o) => {
                if let Some(s) = spill {
                    spilled += s.bytes();
                    from_spill = Some(s.finish()?);
                }
                o
            }
            // Refused before reading anything.
            Err(Error::Budget(m)) if opts.order_auto => {
                note_original_order(&m);
                None
            }
            Err(e) => return Err(e),
        };
        if order.is_none() {
            vertex_order = VertexOrder::Original;
        }
        phases.push(("order", t.elapsed().as_secs_f64()));
    }
    if let Some(order) = order.filter(|o| !o.rank_of_dense.0.is_empty()) {
        let mut w = dir.file(ORDER_FILE)?;
        w.put_u32s(&order.rank_of_dense.0)?;
        dir.close(w)?;
        let mut w = dir.file(ORDER_INV_FILE)?;
        w.put_u32s(&order.dense_of_rank.0)?;
        dir.close(w)?;
        perm = Some(order.dense_of_rank);
    }
    let has_order_map = perm.is_some();
    let distinct = match from_spill {
        Some(r) => {
            counts.duplicates = dedup.duplicates;
            // The input's buckets are no longer needed: free the disk.
            spilled += dedup.respilled();
            drop(dedup);
            Distinct::Spill(r)
        }
        None => {
            dedup.rewind()?;
            Distinct::Dedup(dedup)
        }
    };

    // Phase 3: merge, dedup (last wins), remap, fan out.
    let t2 = Instant::now();
    let r = remap::<W, E>(
        distinct,
        (perm, sample),
        n,
        &mut dir,
        scratch,
        opts,
        &budget,
        &mut counts,
    )?;
    spilled += r.spilled;
    let geom = r.geom;
    phases.push(("remap", t2.elapsed().as_secs_f64()));

    // Phase 4: write tiles and the CSR directions still in sorters.
    let t3 = Instant::now();
    let w = write::phase(&mut dir, r, n, opts, &idmap)?;
    spilled += w.respilled;
    phases.push(("write", t3.elapsed().as_secs_f64()));
    let (tile_stats, out_stats, in_stats) = (w.tiles, w.out, w.r#in);

    let seconds = start.elapsed().as_secs_f64();
    let manifest = manifest::assemble(manifest::Facts {
        n,
        counts: &counts,
        opts,
        has_id_map: match &front {
            Some(f) => f.ids == Ids::Ints && f.has_id_map,
            None => !idmap.is_identity(),
        },
        string_ids: front.as_ref().is_some_and(|f| f.ids == Ids::Strings),
        vertex_order,
        has_order_map,
        geom,
        tiles: &tile_stats,
        out: &out_stats,
        r#in: in_stats.as_ref(),
        source: source.describe(),
        seconds,
    });
    let path = dir.commit(manifest.clone())?;
    let manifest = crate::store::Manifest::read(&path)?;
    Ok(Built::Done(BuildReport {
        path,
        manifest,
        seconds,
        phases,
        input_bytes: total_bytes,
        spilled_bytes: spilled,
        peak_rss_bytes: peak_rss_bytes(),
    }))
}
