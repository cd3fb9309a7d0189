//! The build proper (phases 1-4 of [`super`]) on dense ids of type `I`
//! ([`DenseId`]: u32, or u64 in a wide store).

use super::distinct::{Dedup, Distinct, RankSpill};
use super::named::{self, Ids};
use super::order::{self, degree_order, note_original_order};
use super::records::{DenseId, InputEdge, Weight};
use super::remap::{self, remap};
use super::{manifest, ondisk, read, write, BuildOptions, BuildReport, Counts, VertexOrder};
use super::{RESERVED, WRITERS_RESERVED};
use crate::error::{Error, Result};
use crate::ingest::bucket::BucketSorter;
use crate::ingest::idmap::{Collected, IdMap};
use crate::ingest::scratch::Scratch;
use crate::ingest::EdgeSource;
use crate::mem::budget::Charge;
use crate::mem::{peak_rss_bytes, Budget};
use crate::store::file::{StoreDir, WriteLe};
use crate::store::manifest::MAX_VERTICES;
use crate::store::{ORDER_FILE, ORDER_INV_FILE};
use std::time::Instant;

/// Refuses a store of more than [`MAX_VERTICES`] (2^48 - 2^16) vertices: a
/// dense source's, the id map's, or the ranking's on disk.
pub(crate) fn check_count(n: u64) -> Result<()> {
    match n > MAX_VERTICES {
        true => Err(Error::Invalid(format!(
            "{n} vertices: a store holds at most {MAX_VERTICES} (2^48 - 2^16)"
        ))),
        false => Ok(()),
    }
}

/// The build proper; `front` is set when ids were ranked on disk first (the
/// source then holds ranks, and the store the ids): string ids before it
/// ([`named`]), integer ids after its read outgrew the id map
/// ([`ondisk`], which comes back here with the ranks). The input
/// edges are 8 or 16 bytes as the read found them ([`read::Input`]); the
/// dense ids as wide as the store is, chosen once the input is read and
/// its vertices counted ([`BuildOptions::wide`]): u64 in a wide store, else
/// u32.
pub(super) fn build<W: Weight>(
    source: &mut dyn EdgeSource,
    dir: StoreDir,
    scratch: &Scratch,
    opts: &BuildOptions,
    budget: &Budget,
    front: Option<named::Front>,
) -> Result<BuildReport> {
    let start = front
        .as_ref()
        .and_then(|f| f.start)
        .unwrap_or_else(Instant::now);
    let budget = budget.clone();
    let pipeline = budget.charge(RESERVED - WRITERS_RESERVED, "input pipeline")?;
    let writers = budget.charge(WRITERS_RESERVED, "writers")?;
    let mut by_degree = opts.order == VertexOrder::Degree;
    let dense_n = source.dense_vertex_count();
    let mut counts = Counts::default();

    // Phase 1: read, canonicalise, sort by (src, dst); collect ids.
    let t1 = Instant::now();
    let free = budget.available();
    // A source that says its vertex count is refused before it is read.
    if let Some(n) = dense_n {
        check_count(n)?;
    }
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
    // The plan's line says where the ids go (integer ids ranked on disk
    // after the read: said by that read's line).
    let ids = match (&front, dense_n) {
        (Some(f), _) if f.ids == Ids::Strings => Some("string ids ranked on disk"),
        (Some(_), _) => None,
        (None, Some(_)) => Some("dense ids"),
        (None, None) if opts.external_ids => Some("ids ranked on disk"),
        (None, None) => Some("ids in memory"),
    };
    let label = match &front {
        Some(f) if f.ids == Ids::Strings => "join target names".to_string(),
        Some(_) => "join target ids".to_string(),
        None => format!("read {}", source.describe()),
    };
    let (input, ids, shape) = read::edges::<W>(
        source,
        scratch,
        opts,
        &budget,
        &read::Shares { free, held, ids },
        &label,
        &mut counts,
    )?;
    drop(pipeline);
    if let Some((input_edges, dropped)) = front.as_ref().and_then(|f| f.counts) {
        // The source is what remained of the input after its read.
        counts.input_edges = input_edges;
        counts.self_loops_dropped = dropped;
    }
    let idmap = match ids {
        Collected::Map(m) => m,
        // The ids outgrew the map: ranked on disk, and the build proper
        // reads the edges in ranks.
        Collected::Disk(ids) => {
            let first = ondisk::FirstRead {
                start,
                read: t1.elapsed().as_secs_f64(),
                counts,
                ordered: shape.ordered,
                input_bytes: total_bytes,
                describe: source.describe(),
                writers,
            };
            return match input {
                read::Input::Narrow(s) => ondisk::build(s, ids, dir, scratch, opts, &budget, first),
                read::Input::Wide(s) => ondisk::build(s, ids, dir, scratch, opts, &budget, first),
            };
        }
    };
    let n = idmap.len();
    check_count(n)?;
    let read = ReadPhase {
        dir,
        start,
        t1,
        idmap,
        shape,
        counts,
        by_degree,
        total_bytes,
        _writers: writers,
    };
    let b = &budget;
    match input {
        read::Input::Narrow(s) => wide_or_not(s, read, source, scratch, opts, b, front),
        read::Input::Wide(s) => wide_or_not(s, read, source, scratch, opts, b, front),
    }
}

/// [`rest`] on dense ids as wide as the `n` vertices counted need: no pass
/// again.
#[allow(clippy::too_many_arguments)]
fn wide_or_not<W: Weight, E: InputEdge<W = W>>(
    sorter: BucketSorter<E>,
    read: ReadPhase,
    source: &mut dyn EdgeSource,
    scratch: &Scratch,
    opts: &BuildOptions,
    budget: &Budget,
    front: Option<named::Front>,
) -> Result<BuildReport> {
    let rest = match opts.wide(read.idmap.len()) {
        true => rest::<W, E, u64>,
        false => rest::<W, E, u32>,
    };
    rest(sorter, read, source, scratch, opts, budget, front)
}

/// What the read phase hands the phases after it.
struct ReadPhase {
    dir: StoreDir,
    start: Instant,
    t1: Instant,
    idmap: IdMap,
    shape: read::Shape,
    counts: Counts,
    by_degree: bool,
    total_bytes: Option<u64>,
    _writers: Charge,
}

/// Phases 2-4 on dense ids of `I`, after [`build`]'s read.
#[allow(clippy::too_many_arguments)]
fn rest<W: Weight, E: InputEdge<W = W>, I: DenseId>(
    mut sorter: BucketSorter<E>,
    read: ReadPhase,
    source: &mut dyn EdgeSource,
    scratch: &Scratch,
    opts: &BuildOptions,
    budget: &Budget,
    front: Option<named::Front>,
) -> Result<BuildReport> {
    let ReadPhase {
        mut dir,
        start,
        t1,
        idmap,
        shape,
        mut counts,
        by_degree,
        total_bytes,
        _writers,
    } = read;
    let (budget, undirected, n) = (budget.clone(), !opts.directed, idmap.len());
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
    let mut dedup = Dedup::<E, I>::new(sorter.finish()?, &idmap);
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
    if by_degree {
        let t = Instant::now();
        // A spilled input is not sorted a second time: the degree pass
        // writes the distinct edges out for the remap.
        let mut spill = match dedup.is_spilled() {
            true => Some(RankSpill::<I>::create(scratch)?),
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
    let r = remap::<W, E, I>(
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
    let w = write::phase(&mut dir, r, n, opts, &idmap, scratch)?;
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
        id_bytes: I::WIDTH.bytes(),
        tiles: &tile_stats,
        out: &out_stats,
        r#in: in_stats.as_ref(),
        source: source.describe(),
        seconds,
    });
    let path = dir.commit(manifest.clone())?;
    let manifest = crate::store::Manifest::read(&path)?;
    Ok(BuildReport {
        path,
        manifest,
        seconds,
        phases,
        input_bytes: total_bytes,
        spilled_bytes: spilled,
        peak_rss_bytes: peak_rss_bytes(),
    })
}
