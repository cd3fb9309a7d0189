//! A built store written again with its vertices renumbered (the locality
//! orders `crate::api::build` computes from a store: `--order bfs`, and
//! `--order auto --compress` when it switches).
//!
//! The old store's out-CSR is scanned once, every page checked against its
//! checksum (`store::csrscan`), on a thread of its own; its entries, in old
//! dense ids (undirected: the `v <= u` half), are the distinct edges the
//! remap ([`super::remap`]) renumbers with the permutation and sorts into
//! the layouts, as a build given that order does from its input: the same
//! edges and weights through the same remap and write phase give the same
//! bytes. `order.bin`/`order.inv` are the old order composed with the new
//! one (none when that is the identity); the id files are the old store's,
//! linked (or copied); the manifest's input counts are the old store's.
//! One sequential read of the store and one distribution sort, where a
//! build from the input again reads, parses and sorts it twice.

use super::distinct::{Distinct, RankEdge};
use super::order::OrderMaps;
use super::records::{DenseId, Keyed, Weight};
use super::remap::{remap, Sample};
use super::WRITERS_RESERVED;
use super::{manifest, write, BuildOptions, BuildReport, Counts, VertexOrder, BATCH};
use crate::error::{Error, Result};
use crate::ingest::idmap::IdMap;
use crate::ingest::scratch::Scratch;
use crate::mem::budget::Charge;
use crate::mem::{peak_rss_bytes, Budget};
use crate::store::csrscan::scan_csr;
use crate::store::file::{StoreDir, WriteLe};
use crate::store::pagesums::sums_file;
use crate::store::{Store, IDS_FILE, IDS_OFF_FILE, IDS_STR_FILE, ORDER_FILE, ORDER_INV_FILE};
use std::path::Path;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::time::Instant;

/// Batches of edges in flight between the scan and the remap.
const IN_FLIGHT: usize = 4;
/// What the scan holds: its checked readers' pages (three files, 256 KiB
/// each) and the batches in flight, with room to spare.
const SCAN: u64 = 4 << 20;

/// A batch of the old store's edges, or why the scan stopped.
pub(super) type Scanned<I, W> = Result<Vec<RankEdge<I, W>>>;

/// Writes `old` again at `dest` with vertex `v` renumbered `new_of_old[v]`
/// (a permutation of its dense ids), in the layouts `opts` asks for (its
/// direction and weights are the old store's); the manifest says `order`.
/// Every buffer is charged to `budget`; `dest` appears only when complete
/// (`opts.force` replaces a store there, `old` itself too).
pub fn relabel(
    old: &Store,
    dest: &Path,
    new_of_old: Vec<u32>,
    order: VertexOrder,
    opts: &BuildOptions,
    budget: &Budget,
) -> Result<BuildReport> {
    let start = Instant::now();
    let m = old.manifest();
    let n = m.num_vertices;
    if new_of_old.len() as u64 != n {
        return Err(Error::Invalid(format!(
            "relabel: {} new ids for the {n} vertices of {}",
            new_of_old.len(),
            old.path().display()
        )));
    }
    let mut opts = opts.clone();
    (opts.directed, opts.weighted) = (m.directed, m.weighted);
    let perm = (new_of_old, budget.charge(4 * n, "relabel: new ids")?);
    let maps = compose(old, &perm.0, budget)?;
    let mut dir = StoreDir::create(dest, opts.force)?;
    let scratch = match opts.scratch_dir.as_deref() {
        Some(base) => Scratch::within(base, "scratch")?,
        None => Scratch::create(dir.tmp_path().with_extension("scratch"))?,
    };
    let has_order_map = !maps.rank_of_dense.0.is_empty();
    if has_order_map {
        let mut w = dir.file(ORDER_FILE)?;
        w.put_u32s(&maps.rank_of_dense.0)?;
        dir.close(w)?;
        let mut w = dir.file(ORDER_INV_FILE)?;
        w.put_u32s(&maps.dense_of_rank.0)?;
        dir.close(w)?;
    }
    drop(maps);
    // The id files are the old store's: ranks do not change.
    for rel in [IDS_FILE, IDS_STR_FILE, IDS_OFF_FILE] {
        for rel in [rel.to_string(), sums_file(rel)] {
            if let Some(entry) = m.files.get(&rel) {
                dir.adopt(&rel, &old.file(&rel), entry.clone())?;
            }
        }
    }
    let run = match (opts.wide(n), m.weighted) {
        (false, false) => relabelled::<(), u32>,
        (false, true) => relabelled::<f64, u32>,
        (true, false) => relabelled::<(), u64>,
        (true, true) => relabelled::<f64, u64>,
    };
    let r = run(
        old,
        dir,
        &scratch,
        perm,
        &opts,
        budget,
        order,
        has_order_map,
    );
    let (path, phases, spilled) = r?;
    let manifest = crate::store::Manifest::read(&path)?;
    Ok(BuildReport {
        path,
        manifest,
        seconds: start.elapsed().as_secs_f64(),
        phases,
        input_bytes: None,
        spilled_bytes: spilled,
        peak_rss_bytes: peak_rss_bytes(),
    })
}

/// The remap and write phases of [`relabel`] on weights `W` and dense ids
/// `I`; the committed store's path, its phases and the bytes spilled.
#[allow(clippy::too_many_arguments)]
#[allow(clippy::type_complexity)]
fn relabelled<W: Weight, I: DenseId>(
    old: &Store,
    mut dir: StoreDir,
    scratch: &Scratch,
    perm: (Vec<u32>, Charge),
    opts: &BuildOptions,
    budget: &Budget,
    order: VertexOrder,
    has_order_map: bool,
) -> Result<(std::path::PathBuf, Vec<(&'static str, f64)>, u64)> {
    let start = Instant::now();
    let m = old.manifest();
    let n = m.num_vertices;
    let _writers = budget.charge(WRITERS_RESERVED, "writers")?;
    let mut counts = Counts {
        input_edges: m.build.input_edges,
        self_loops_dropped: m.build.self_loops_dropped,
        duplicates: m.build.duplicates_merged,
        ..Counts::default()
    };
    let sample = Sample {
        ranks: Vec::new(),
        ordered: false,
    };
    let t = Instant::now();
    let r = std::thread::scope(|scope| {
        let pipeline = budget.charge(SCAN, "relabel: store scan")?;
        let (tx, rx) = sync_channel::<Scanned<I, W>>(IN_FLIGHT);
        let scan = scope.spawn(move || scan::<W, I>(old, tx));
        let distinct = Distinct::<Keyed<W>, I>::Store(rx);
        let r = remap::<W, Keyed<W>, I>(
            distinct,
            (Some(perm), sample),
            n,
            &mut dir,
            scratch,
            opts,
            budget,
            &mut counts,
        );
        // A scan's error reached the remap as its last batch.
        scan.join().expect("the store scan panicked");
        drop(pipeline);
        r
    })?;
    let mut spilled = r.spilled;
    let geom = r.geom;
    let mut phases = vec![("relabel", t.elapsed().as_secs_f64())];
    let t = Instant::now();
    let w = write::phase(&mut dir, r, n, opts, &IdMap::identity(n), scratch)?;
    spilled += w.respilled;
    phases.push(("write", t.elapsed().as_secs_f64()));
    if counts.edges != m.num_edges {
        return Err(Error::damaged(
            old.path(),
            "csr/out",
            format!(
                "it holds {} edges, its manifest {}",
                counts.edges, m.num_edges
            ),
        ));
    }
    let manifest = manifest::assemble(manifest::Facts {
        n,
        counts: &counts,
        opts,
        has_id_map: m.has_id_map,
        string_ids: m.string_ids,
        vertex_order: order,
        has_order_map,
        geom,
        id_bytes: I::WIDTH.bytes(),
        tiles: &w.tiles,
        out: &w.out,
        r#in: w.r#in.as_ref(),
        source: m.build.source.clone(),
        seconds: start.elapsed().as_secs_f64(),
    });
    let mut manifest = manifest;
    manifest.build.format = m.build.format.clone();
    manifest.name_page_sums = m.name_page_sums;
    let path = dir.commit(manifest)?;
    Ok((path, phases, spilled))
}

/// Sends the out-CSR of `old` (undirected: the entries `v <= u`) in
/// batches of at most [`BATCH`] edges, then, if the scan failed, why.
fn scan<W: Weight, I: DenseId>(old: &Store, tx: SyncSender<Scanned<I, W>>) {
    let m = old.manifest();
    let (n, undirected) = (m.num_vertices, !m.directed);
    let mut batch = Vec::with_capacity(BATCH);
    // The receiver gone (the remap failed) stops the scan; nothing to say.
    let gone = || Error::Invalid("the remap stopped".into());
    let r = scan_csr(old, "out", m.weighted, |v, _, u, w| {
        if u >= n {
            let why = format!("vertex {v} has neighbour {u}, past the {n} vertices");
            return Err(Error::damaged(old.path(), "csr/out", why));
        }
        if undirected && u < v {
            return Ok(());
        }
        batch.push(RankEdge {
            s: I::of(v),
            d: I::of(u),
            w: W::from_f64(w),
        });
        if batch.len() == BATCH {
            let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
            tx.send(Ok(full)).map_err(|_| gone())?;
        }
        Ok(())
    });
    let last = match r {
        Ok(()) if batch.is_empty() => return,
        Ok(()) => Ok(batch),
        Err(e) => Err(e),
    };
    let _ = tx.send(last);
}

/// The maps of the composed order: `order.bin` gives a new dense id's rank
/// (the rank the old store gives the old id it replaces), `order.inv` the
/// inverse; both empty when that is the identity. Refuses a `new_of_old`
/// that is not a permutation.
fn compose(old: &Store, new_of_old: &[u32], budget: &Budget) -> Result<OrderMaps> {
    let n = new_of_old.len();
    const NONE: u32 = u32::MAX;
    let not_perm = || Error::Invalid("relabel: the new ids are not a permutation".into());
    if new_of_old.iter().any(|&x| x as usize >= n) {
        return Err(not_perm());
    }
    let c1 = budget.charge(4 * n as u64, "relabel: order.bin")?;
    let mut rank_of_dense = vec![NONE; n];
    let mapped = old.for_each_rank(|first, ranks| {
        for (i, &r) in ranks.iter().enumerate() {
            rank_of_dense[new_of_old[first as usize + i] as usize] = r;
        }
    })?;
    if !mapped {
        for (v, &x) in new_of_old.iter().enumerate() {
            rank_of_dense[x as usize] = v as u32;
        }
    }
    // n ids in range that leave a slot unset hit another twice.
    if rank_of_dense.contains(&NONE) {
        return Err(not_perm());
    }
    let c2 = budget.charge(4 * n as u64, "relabel: order.inv")?;
    Ok(OrderMaps::inverted((rank_of_dense, c1), (Vec::new(), c2)))
}
