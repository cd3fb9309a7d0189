//! `outcore verify` of a delta generation: every file's checksum, then the
//! lists' invariants (bits and their ranks agree with the offsets, records
//! sorted per vertex and in range, tombstones only between base vertices)
//! and the new vertices' ids, the tiles (the `out` records grouped again),
//! and the generation's own record of itself
//! (`generation.json`, which must say what the manifest says). Holds each
//! file in memory: a delta is small beside its base until compaction.

use super::format::{
    self, lists_files, DeltaInfo, GENERATION_FILE, INS_FILE, NEW_OFF_FILE, RANK_BLOCK_BITS,
};
use crate::error::{Error, Result};
use crate::store::file::{checksum, read_u64s};
use crate::store::verify::VerifyReport;
use crate::store::Store;

/// Verifies the delta of `store` (nothing when it has none).
pub(crate) fn verify_delta(store: &Store, report: &mut VerifyReport) -> Result<()> {
    let Some(d) = store.delta() else {
        return Ok(());
    };
    let path = store.path();
    let bad = |rel: &str, why: String| Error::damage_verified(path, &store.delta_name(rel), why);
    for (rel, entry) in &d.files {
        let got = checksum(&store.delta_file(rel))?;
        if got != *entry {
            let why = format!(
                "checksum mismatch (manifest: {} bytes, xxh3 {}; file: {} bytes, xxh3 {})",
                entry.bytes, entry.xxh3, got.bytes, got.xxh3
            );
            return Err(bad(rel, why));
        }
        report.files += 1;
        report.bytes += got.bytes;
    }
    // The generation's record: written before the manifest names it, so a
    // generation the manifest names has one, and it is the manifest's.
    let own = std::fs::read(store.delta_file(GENERATION_FILE))
        .map_err(|e| bad(GENERATION_FILE, format!("cannot be read: {e}")))?;
    match serde_json::from_slice::<DeltaInfo>(&own) {
        Ok(info) if info == *d => report.files += 1,
        Ok(_) => {
            let why = "does not match the manifest's delta (generation, counts or files)";
            return Err(bad(GENERATION_FILE, why.into()));
        }
        Err(e) => return Err(bad(GENERATION_FILE, format!("is not a delta record: {e}"))),
    }
    let (n, n_base) = (d.num_vertices, store.base().num_vertices);
    let load = |rel: &str| read_u64s(&store.delta_file(rel));
    for which in format::directions(store.base()) {
        let [bits_f, rnk_f, off_f, _, rec_f, _] = lists_files(which);
        let (bits, rnk, off, rec) = (load(&bits_f)?, load(&rnk_f)?, load(&off_f)?, load(&rec_f)?);
        if n % 64 != 0 && bits.last().is_some_and(|w| w >> (n % 64) != 0) {
            return Err(bad(&bits_f, format!("bits set past the {n} vertices")));
        }
        let per = (RANK_BLOCK_BITS / 64) as usize;
        let mut total = 0u64;
        for (k, block) in bits.chunks(per).enumerate() {
            if rnk[k] != total {
                return Err(bad(
                    &rnk_f,
                    format!("block {k} counts {}, the bits {total}", rnk[k]),
                ));
            }
            total += block.iter().map(|w| w.count_ones() as u64).sum::<u64>();
        }
        if rnk.last() != Some(&total) || total + 1 != off.len() as u64 {
            return Err(bad(
                &rnk_f,
                format!(
                    "{total} vertices with records, the offsets {}",
                    off.len() as u64 - 1
                ),
            ));
        }
        if off[0] != 0 || off.last() != Some(&(rec.len() as u64)) {
            return Err(bad(&off_f, "the offsets do not span the records".into()));
        }
        let touched = (0..n).filter(|&v| bits[(v / 64) as usize] >> (v % 64) & 1 == 1);
        for (i, v) in touched.enumerate() {
            let (a, b) = (off[i] as usize, off[i + 1] as usize);
            if a >= b {
                return Err(bad(&off_f, format!("vertex {v} has no records")));
            }
            let list = &rec[a..b];
            if list.windows(2).any(|p| p[0] >= p[1]) {
                return Err(bad(
                    &rec_f,
                    format!("the records of vertex {v} are not sorted and distinct"),
                ));
            }
            for &r in list {
                let u = format::nbr(r);
                if u >= n || (format::is_tombstone(r) && (u >= n_base || v >= n_base)) {
                    return Err(bad(
                        &rec_f,
                        format!("vertex {v}: record of neighbour {u} out of range"),
                    ));
                }
            }
        }
    }
    if !super::tiles::tiles_match_lists(store)? {
        let why = "its tiles do not hold the lists' records".to_string();
        return Err(bad(format::TILES_FILES[0], why));
    }
    let new = d.new_vertices(n_base);
    if new > 0 {
        if store.base().string_ids {
            let off = load(NEW_OFF_FILE)?;
            let len = d.files[format::NEW_STR_FILE].bytes;
            if off[0] != 0 || off.windows(2).any(|p| p[0] > p[1]) || off.last() != Some(&len) {
                return Err(bad(
                    NEW_OFF_FILE,
                    "the offsets do not index the names".into(),
                ));
            }
        }
        let ins = load(INS_FILE)?;
        let mut seen = vec![false; new as usize];
        for (i, p) in ins.chunks_exact(2).enumerate() {
            let (before, v) = (p[0], p[1]);
            let prev = if i > 0 { ins[2 * i - 2] } else { 0 };
            if before > n_base || before < prev || v < n_base || v >= n {
                return Err(bad(
                    INS_FILE,
                    format!("entry {i} ({before}, {v}) out of order or range"),
                ));
            }
            if std::mem::replace(&mut seen[(v - n_base) as usize], true) {
                return Err(bad(INS_FILE, format!("new vertex {v} appears twice")));
            }
        }
    }
    Ok(())
}
