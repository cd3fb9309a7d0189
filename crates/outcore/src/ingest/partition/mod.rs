//! `outcore partition`: splits a store into K shards by vertex
//! (`store::partition` describes the result; DESIGN.md, "Partitioned
//! stores").
//!
//! 1. **Assign** ([`assign`]): every vertex's degree, from the store's
//!    degree files, weighs it; hubs are placed largest first on the
//!    lightest shard, the rest in runs of rank order.
//! 2. **Number**: global ids are contiguous per shard, in the store's
//!    dense-id order within one, so K = 1 keeps the store's dense ids.
//! 3. **Count**: one scan of the out-CSR counts each shard's stored and
//!    cross edges (the balance, known before any shard is built).
//! 4. **Ids**: the store's id files are taken as they are, and the order
//!    maps between global ids and ranks are written (`ids.rs`).
//! 5. **Shards**: each is an ordinary build ([`build_store`], original
//!    order) of a [`source::ShardSource`]: the edges with an owned
//!    endpoint, in global ids, so its own id map is local -> global.
//!
//! Memory: the weights, owners and global ids (10 bytes a vertex at most)
//! are charged to the budget; each shard's build gets the rest. Everything
//! is written into a hidden directory beside DIR that replaces it only
//! when complete ([`StoreDir`]).

pub mod assign;
mod ids;
mod source;

use crate::error::{Error, Result};
use crate::ingest::build::{build_store, BuildOptions, MIN_MEMORY};
use crate::mem::Budget;
use crate::progress::Progress;
use crate::size::format_size;
use crate::store::file::{checksum, read_chunks, StoreDir};
use crate::store::manifest::MANIFEST_FILE;
use crate::store::partition::{
    shard_name, Balance, PartitionManifest, ShardInfo, FORMAT_NAME, FORMAT_VERSION, IDS_DIR,
    PARTITION_FILE,
};
use crate::store::{degrees, Store, VertexOrder, IDS_FILE, ORDER_INV_FILE};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Bytes a vertex takes while it is assigned and numbered: its weight
/// (4), owner (2) and global id (4).
pub const VERTEX_BYTES: u64 = 10;
/// Bytes a vertex takes while the shards are built: its global id.
pub const BUILD_VERTEX_BYTES: u64 = 4;

/// How to partition.
#[derive(Clone, Debug)]
pub struct PartitionOptions {
    /// K.
    pub parts: usize,
    /// The memory budget in bytes, for the whole partition.
    pub memory: u64,
    /// Replace an existing partition (or store) at the destination.
    pub force: bool,
    /// Where the shard builds' sorted runs go (default: beside them).
    pub scratch_dir: Option<PathBuf>,
}

/// What a partition did.
#[derive(Clone, Debug)]
pub struct PartitionReport {
    pub path: PathBuf,
    pub manifest: PartitionManifest,
    pub seconds: f64,
    /// Seconds per phase: assign, count, ids, shards.
    pub phases: Vec<(&'static str, f64)>,
    /// Bytes of everything written (the shards' files, the id map).
    pub bytes: u64,
}

impl PartitionReport {
    /// The balance summary for stderr.
    pub fn line(&self) -> String {
        let m = &self.manifest;
        let b = &m.balance;
        format!(
            "partitioned {} into {} shards at {} in {:.2} s: edges per shard max {}, mean {:.0} \
             (max/mean {:.3}), {} cross edges ({:.1}% of {}), {} hubs placed; {} written",
            m.source,
            m.parts,
            self.path.display(),
            self.seconds,
            b.max_edges,
            b.mean_edges,
            b.max_over_mean,
            b.cross_edges,
            100.0 * b.cross_edges as f64 / m.num_edges.max(1) as f64,
            m.num_edges,
            b.hubs,
            format_size(self.bytes),
        )
    }
}

/// Partitions the store at `source` into `opts.parts` shards at `out`.
pub fn partition(source: &Path, out: &Path, opts: &PartitionOptions) -> Result<PartitionReport> {
    let start = Instant::now();
    let store = Store::open(source)?;
    let m = store.manifest().clone();
    let (n, parts) = (m.num_vertices, opts.parts);
    if parts == 0 || parts >= u16::MAX as usize {
        return Err(Error::Invalid(format!(
            "--parts {parts}: give 1 to {}",
            u16::MAX - 1
        )));
    }
    if n > u32::MAX as u64 {
        return Err(Error::Invalid(format!(
            "{}: {n} vertices; partitions hold at most {} (global ids are 32-bit for now)",
            source.display(),
            u32::MAX
        )));
    }
    if (parts as u64) > n.max(1) {
        return Err(Error::Invalid(format!(
            "--parts {parts}: {} has only {n} vertices, and every shard owns one or more",
            source.display()
        )));
    }
    crate::store::check_store_dest(out, opts.force, &[source.to_path_buf()])?;
    let budget = Budget::new(opts.memory);
    let need = (VERTEX_BYTES * n).max(BUILD_VERTEX_BYTES * n + MIN_MEMORY);
    budget.require(
        &format!("partitioning {} ({n} vertices)", source.display()),
        &[
            (
                "per-vertex weights, owners and global ids",
                VERTEX_BYTES * n,
            ),
            ("a shard's build", need - VERTEX_BYTES * n),
        ],
    )?;
    let mut dir = StoreDir::create(out, opts.force)?;
    let mut phases = Vec::new();

    // 1-2. Assign and number.
    let t = Instant::now();
    let progress = Progress::new("partition: assign");
    let held = budget.charge(VERTEX_BYTES * n, "the partition's per-vertex arrays")?;
    let (a, heaviest) = assignment(&store, parts)?;
    let mut bounds = vec![0u64; parts + 1];
    for &o in &a.owner {
        bounds[o as usize + 1] += 1;
    }
    for k in 0..parts {
        bounds[k + 1] += bounds[k];
    }
    let mut next: Vec<u64> = bounds[..parts].to_vec();
    let global: Vec<u32> = (a.owner.iter())
        .map(|&o| {
            next[o as usize] += 1;
            (next[o as usize] - 1) as u32
        })
        .collect();
    let hubs = a.hubs;
    drop(a);
    drop(held);
    let held = budget.charge(BUILD_VERTEX_BYTES * n, "the partition's global ids")?;
    progress.done(|| format!("{n} vertices, {hubs} hubs"));
    phases.push(("assign", t.elapsed().as_secs_f64()));

    // 3. Count.
    let t = Instant::now();
    let progress = Progress::new("partition: count edges");
    let mut stored = vec![0u64; parts];
    let mut cross = vec![0u64; parts];
    let owner = |g: u64| bounds.partition_point(|&b| b <= g) - 1;
    source::for_each_global_edge(&store, &global, |s, d, _| {
        let (a, b) = (owner(s), owner(d));
        stored[a] += 1;
        if a != b {
            stored[b] += 1;
            cross[a] += 1;
            cross[b] += 1;
        }
        Ok(())
    })?;
    let max = stored.iter().copied().max().unwrap_or(0);
    let mean = stored.iter().sum::<u64>() as f64 / parts as f64;
    let balance = Balance {
        max_edges: max,
        mean_edges: mean,
        max_over_mean: if mean > 0.0 { max as f64 / mean } else { 1.0 },
        hubs,
        cross_edges: cross.iter().sum::<u64>() / 2,
    };
    progress.done(|| {
        let mut line = format!(
            "edges per shard max {max}, mean {mean:.0} (max/mean {:.3})",
            balance.max_over_mean
        );
        if balance.max_over_mean > 1.2 {
            line += &format!(
                "; above 1.2: the largest vertex alone has degree {heaviest} ({:.2} of a shard's mean)",
                heaviest as f64 / mean.max(1.0)
            );
        }
        line
    });
    phases.push(("count", t.elapsed().as_secs_f64()));

    // 4. The id map.
    let t = Instant::now();
    let has_order_map = ids::write_ids(&store, &global, &mut dir, &budget)?;
    let ids: std::collections::BTreeMap<_, _> = (dir.files().iter())
        .filter_map(|(rel, e)| {
            let r = rel.strip_prefix(&format!("{IDS_DIR}/"))?;
            Some((r.to_string(), e.clone()))
        })
        .collect();
    phases.push(("ids", t.elapsed().as_secs_f64()));

    // 5. The shards.
    let t = Instant::now();
    let bopts = shard_options(&store, opts.memory - held.bytes(), opts)?;
    let mut shards = Vec::with_capacity(parts);
    let mut bytes: u64 = ids.values().map(|e| e.bytes).sum();
    for k in 0..parts {
        crate::cancel::check()?;
        let dest = dir.tmp_path().join(shard_name(k));
        let mut src = source::ShardSource {
            store: &store,
            global: &global,
            k,
            parts,
            lo: bounds[k],
            hi: bounds[k + 1],
            edges: stored[k],
        };
        let r = build_store(&mut src, &dest, &bopts)?;
        if r.manifest.num_edges != stored[k] {
            return Err(Error::store(
                &dest,
                format!(
                    "shard {k} holds {} edges where {} were counted",
                    r.manifest.num_edges, stored[k]
                ),
            ));
        }
        let (local_first, ghosts) = ghosts(&dest, &r.manifest, &bounds, k)?;
        let manifest = checksum(&dest.join(MANIFEST_FILE))?;
        bytes += manifest.bytes + r.manifest.files.values().map(|e| e.bytes).sum::<u64>();
        Progress::new(format!("partition: shard {k}")).done(|| {
            format!(
                "{} owned, {} ghosts, {} edges ({} cross)",
                bounds[k + 1] - bounds[k],
                ghosts.iter().sum::<u64>(),
                stored[k],
                cross[k]
            )
        });
        shards.push(ShardInfo {
            dir: shard_name(k),
            owned: bounds[k + 1] - bounds[k],
            local_first,
            ghosts,
            edges: stored[k],
            cross_edges: cross[k],
            manifest,
        });
    }
    phases.push(("shards", t.elapsed().as_secs_f64()));
    drop(held);
    let pm = PartitionManifest {
        format: FORMAT_NAME.into(),
        format_version: FORMAT_VERSION,
        parts: parts as u64,
        num_vertices: n,
        num_edges: m.num_edges,
        num_self_loops: m.num_self_loops,
        directed: m.directed,
        weighted: m.weighted,
        string_ids: m.string_ids,
        has_id_map: m.has_id_map,
        has_order_map,
        bounds,
        shards,
        balance,
        source: source.display().to_string(),
        ids,
        checksum: None,
    };
    let text = pm.to_json();
    bytes += text.len() as u64 + 1;
    let path = dir.commit_as(PARTITION_FILE, &text)?;
    Ok(PartitionReport {
        path,
        manifest: pm,
        seconds: start.elapsed().as_secs_f64(),
        phases,
        bytes,
    })
}

/// The owners of the store's vertices: weights from its degree files,
/// runs in rank order.
fn assignment(store: &Store, parts: usize) -> Result<(assign::Assignment, u64)> {
    let m = store.manifest();
    let mut w = vec![0u32; m.num_vertices as usize];
    let dirs: &[&str] = if m.directed { &["out", "in"] } else { &["out"] };
    for which in dirs {
        degrees::for_each(store.path(), which, |v, d| {
            let x = w.get_mut(v as usize).ok_or_else(|| {
                let (f, _) = degrees::files(which);
                Error::damaged(store.path(), &f, format!("vertex {v} is past the vertices"))
            })?;
            *x = x.saturating_add(d.min(u32::MAX as u64) as u32);
            Ok(())
        })?;
    }
    let heaviest = w.iter().copied().max().unwrap_or(0) as u64;
    let a = assign::assign(&w, parts, |f| {
        if !m.has_order_map {
            return (0..m.num_vertices).try_for_each(f);
        }
        // Rank order: order.inv gives the dense id of each rank.
        read_chunks(&store.file(ORDER_INV_FILE), 4, |b| {
            (b.chunks_exact(4))
                .try_for_each(|c| f(u32::from_le_bytes(c.try_into().expect("4 bytes")) as u64))
        })
    })?;
    Ok((a, heaviest))
}

/// Shard `k`'s local id of its first owned vertex, and its ghosts by
/// owner, from its id map (local -> global).
fn ghosts(
    dest: &Path,
    m: &crate::store::Manifest,
    bounds: &[u64],
    k: usize,
) -> Result<(u64, Vec<u64>)> {
    let parts = bounds.len() - 1;
    let mut counts = vec![0u64; parts];
    let mut visit = |g: u64| {
        let o = bounds.partition_point(|&b| b <= g) - 1;
        counts[o.min(parts - 1)] += 1;
    };
    if m.has_id_map {
        read_chunks(&dest.join(IDS_FILE), 8, |b| {
            (b.chunks_exact(8))
                .for_each(|c| visit(u64::from_le_bytes(c.try_into().expect("8 bytes"))));
            Ok(())
        })?;
    } else {
        (0..m.num_vertices).for_each(&mut visit);
    }
    counts[k] = 0;
    Ok((counts[..k].iter().sum(), counts))
}

/// A shard's build: the store's layout, the original order (so local ids
/// follow global ones), every edge kept.
fn shard_options(store: &Store, memory: u64, opts: &PartitionOptions) -> Result<BuildOptions> {
    Ok(BuildOptions {
        drop_self_loops: false,
        memory,
        scratch_dir: opts.scratch_dir.clone(),
        force: false,
        format: "partition".into(),
        order: VertexOrder::Original,
        ..BuildOptions::shaped_like(store.manifest())
    })
}
