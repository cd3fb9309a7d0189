//! The partition's one id map, `ids/`: the store's original ids by rank
//! (its `ids.bin`, or `ids.str` + `ids.off`, taken as they are) and the
//! order maps between global ids and ranks, written when they are not the
//! identity.

use crate::error::Result;
use crate::mem::Budget;
use crate::store::file::{read_chunks, StoreDir, WriteLe};
use crate::store::partition::IDS_DIR;
use crate::store::{Store, IDS_FILE, IDS_OFF_FILE, IDS_STR_FILE, ORDER_FILE, ORDER_INV_FILE};

/// u32s written at once.
const CHUNK: usize = 1 << 16;

/// Writes `ids/` into `dir` for the global ids `global[dense id]` of
/// `store`; returns whether it has order maps. The order map built in
/// memory (4 bytes a vertex) is charged to `budget`.
pub(super) fn write_ids(
    store: &Store,
    global: &[u32],
    dir: &mut StoreDir,
    budget: &Budget,
) -> Result<bool> {
    let m = store.manifest();
    let files = [IDS_FILE, IDS_STR_FILE, IDS_OFF_FILE]
        .into_iter()
        .flat_map(|f| [f.to_string(), crate::store::pagesums::sums_file(f)]);
    for rel in files {
        if let Some(e) = m.files.get(&rel) {
            dir.adopt(&format!("{IDS_DIR}/{rel}"), &store.file(&rel), e.clone())?;
        }
    }
    // global id -> rank, scattered from the store's dense id -> rank.
    let n = global.len();
    let _held = budget.charge(4 * n as u64, "the partition's order map (4 B a vertex)")?;
    let mut order = vec![0u32; n];
    let mut identity = true;
    let mut put = |v: u64, r: u32| {
        let g = global[v as usize];
        identity &= g == r;
        order[g as usize] = r;
    };
    let ranked = store.for_each_rank(|first, ranks| {
        for (i, &r) in ranks.iter().enumerate() {
            put(first + i as u64, r);
        }
    })?;
    if !ranked {
        (0..n as u64).for_each(|v| put(v, v as u32));
    }
    if identity {
        return Ok(false);
    }
    let mut w = dir.file(&format!("{IDS_DIR}/{ORDER_FILE}"))?;
    w.put_u32s(&order)?;
    dir.close(w)?;
    drop(order);
    // rank -> global id, from the store's rank -> dense id.
    let mut w = dir.file(&format!("{IDS_DIR}/{ORDER_INV_FILE}"))?;
    let mut buf = Vec::with_capacity(CHUNK);
    if m.has_order_map {
        read_chunks(&store.file(ORDER_INV_FILE), 4, |b| {
            buf.clear();
            for c in b.chunks_exact(4) {
                let v = u32::from_le_bytes(c.try_into().expect("4 bytes"));
                buf.push(*global.get(v as usize).ok_or_else(|| {
                    crate::error::Error::damaged(
                        store.path(),
                        ORDER_INV_FILE,
                        format!("dense id {v} past the {n} vertices"),
                    )
                })?);
            }
            w.put_u32s(&buf)
        })?;
    } else {
        for c in global.chunks(CHUNK) {
            w.put_u32s(c)?;
        }
    }
    dir.close(w)?;
    Ok(true)
}
