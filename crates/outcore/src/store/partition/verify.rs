//! `outcore verify DIR` on a partitioned store: `partition.json`, the id
//! map's checksums and invariants, then every shard as a store and against
//! the partition (its owned range, its ghosts' owners); the first problem
//! is an error naming the shard.

use super::{Partition, IDS_DIR};
use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::store::csrscan::scan_csr;
use crate::store::file::{checksum, read_chunks};
use crate::store::verify::{verify, VerifyReport};
use crate::store::IDS_FILE;
use std::path::Path;

/// Verifies the partition at `dir`; the report counts every file checked.
pub fn verify_partition(dir: &Path) -> Result<VerifyReport> {
    let part = Partition::open(dir)?;
    let m = part.manifest();
    let mut report = VerifyReport::default();
    let ids = dir.join(IDS_DIR);
    for (rel, entry) in &m.ids {
        let got = checksum(&ids.join(rel))?;
        if got != *entry {
            let why = format!(
                "checksum mismatch (partition.json: {} bytes, xxh3 {}; file: {} bytes, xxh3 {})",
                entry.bytes, entry.xxh3, got.bytes, got.xxh3
            );
            return Err(Error::damage_verified(
                dir,
                &format!("{IDS_DIR}/{rel}"),
                why,
            ));
        }
        report.files += 1;
        report.bytes += got.bytes;
    }
    check_ids(&part)?;
    check_counts(&part)?;
    let mut progress = Progress::new("verify shards");
    for k in 0..m.parts as usize {
        progress.tick(|| format!("shard {k} of {}", m.parts));
        let r = part
            .open_shard(k)
            .and_then(|_| verify(&part.shard_path(k)).map_err(|e| part.in_shard(k, e)))?;
        check_shard(&part, k).map_err(|e| part.in_shard(k, e))?;
        report.files += r.files + 1;
        report.bytes += r.bytes;
    }
    progress.done(|| format!("{} shards", m.parts));
    Ok(report)
}

/// The id map: order.inv the inverse of order.bin (both permutations).
fn check_ids(part: &Partition) -> Result<()> {
    let m = part.manifest();
    let ids = part.load_ids()?;
    if ids.order_is_identity() {
        return Ok(());
    }
    for r in 0..m.num_vertices {
        let g = ids.dense_of_rank(r);
        if ids.rank(g) != r {
            let why = format!(
                "rank {r} maps to global id {g}, whose rank is {}",
                ids.rank(g)
            );
            return Err(Error::damage_verified(
                part.path(),
                &format!("{IDS_DIR}/{}", crate::store::ORDER_INV_FILE),
                why,
            ));
        }
    }
    Ok(())
}

/// Shard `k`'s local ids, in order, are its ghosts owned by lower shards,
/// its owned range, then the ghosts of higher shards, with the counts
/// `partition.json` gives.
fn check_shard(part: &Partition, k: usize) -> Result<()> {
    let m = part.manifest();
    let s = &m.shards[k];
    let dir = part.shard_path(k);
    let store = crate::store::Store::open(&dir)?;
    let mut counts = vec![0u64; m.parts as usize];
    let (lo, hi) = (m.bounds[k], m.bounds[k + 1]);
    let mut local = 0u64;
    let mut visit = |g: u64| -> Result<()> {
        let owned_at = local.wrapping_sub(s.local_first);
        let want_owned = owned_at < s.owned;
        if g >= m.num_vertices {
            return Err(Error::damage_verified(
                &dir,
                IDS_FILE,
                format!(
                    "local id {local} maps to global id {g}, past the {} vertices",
                    m.num_vertices
                ),
            ));
        }
        if want_owned != (lo..hi).contains(&g) || (want_owned && g != lo + owned_at) {
            return Err(Error::damage_verified(
                &dir,
                IDS_FILE,
                format!(
                    "local id {local} maps to global id {g}; the shard owns {lo}..{hi} at local ids {}..{}",
                    s.local_first,
                    s.local_first + s.owned
                ),
            ));
        }
        counts[m.owner(g)] += 1;
        local += 1;
        Ok(())
    };
    if store.manifest().has_id_map {
        read_chunks(&dir.join(IDS_FILE), 8, |b| {
            b.chunks_exact(8)
                .try_for_each(|c| visit(u64::from_le_bytes(c.try_into().expect("8 bytes"))))
        })?;
    } else {
        (0..store.manifest().num_vertices).try_for_each(&mut visit)?;
    }
    counts[k] -= s.owned.min(counts[k]);
    if counts != s.ghosts {
        return Err(Error::store(
            &dir,
            format!(
                "its ghosts by owner are {counts:?}, partition.json says {:?}",
                s.ghosts
            ),
        ));
    }
    // Every edge has an owned endpoint; those with a ghost are counted.
    let owned = |v: u64| (s.local_first..s.local_first + s.owned).contains(&v);
    let (directed, mut cross) = (m.directed, 0u64);
    scan_csr(&store, "out", false, |v, _, u, _| {
        if !directed && u < v {
            return Ok(());
        }
        match (owned(v), owned(u)) {
            (true, true) => Ok(()),
            (false, false) => Err(Error::damage_verified(
                &dir,
                &store.adjacency_file("out"),
                format!("edge ({v}, {u}) in local ids has no endpoint the shard owns"),
            )),
            _ => {
                cross += 1;
                Ok(())
            }
        }
    })?;
    if cross != s.cross_edges {
        return Err(Error::store(
            &dir,
            format!(
                "it holds {cross} edges with a ghost, partition.json says {}",
                s.cross_edges
            ),
        ));
    }
    Ok(())
}

/// The shards' counts add up: every edge is stored once, or twice when
/// two shards own its endpoints.
fn check_counts(part: &Partition) -> Result<()> {
    let m = part.manifest();
    let stored: u64 = m.shards.iter().map(|s| s.edges).sum();
    let cross: u64 = m.shards.iter().map(|s| s.cross_edges).sum();
    let ghosts: u64 = m.shards.iter().map(|s| s.ghost_count()).sum();
    if stored != m.num_edges + m.balance.cross_edges
        || cross != 2 * m.balance.cross_edges
        || (ghosts > 0) != (m.balance.cross_edges > 0)
    {
        return Err(Error::damage_verified(
            part.path(),
            super::PARTITION_FILE,
            format!(
                "its shards store {stored} edges, {cross} of them cross, for {} edges of which {} cross",
                m.num_edges, m.balance.cross_edges
            ),
        ));
    }
    Ok(())
}
