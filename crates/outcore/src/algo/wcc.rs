//! Weakly connected components with LDBC Graphalytics semantics on the
//! stream engine: components ignoring direction, each vertex labelled with
//! the smallest original id in its component. Labels are *ranks* (positions
//! of the original ids among the sorted distinct ids, `order.bin`), which
//! keep the original ids' order whatever the store's vertex order: the
//! smallest rank of a component is its smallest original id; print a label
//! with `OriginalIds::original_of_rank`. Labels take the store's id width:
//! 4 bytes a vertex on a narrow store, 8 on a wide one.
//!
//! Min-label propagation over every tile in both directions; an iteration
//! applies a tile's forward direction only if its row block changed in the
//! previous iteration and its reverse direction only if its column block did
//! (selective fetching); labels updated within an iteration are seen at once.

use crate::engine::program::{unpack, Dir, IterEnd, Tile, TileProgram};
use crate::engine::state::{Flags, IdCells, U32s, U64s};
use crate::engine::stats::RunStats;
use crate::engine::stream::{required_bytes, StreamConfig, StreamEngine};
use crate::error::{Error, Result};
use crate::mem::Budget;
use crate::store::csr::SlotWidth;
use crate::store::manifest::Manifest;
use crate::store::tiles::TILE_BITS;
use crate::store::Store;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The labels, at the store's id width: 4 bytes a vertex on a narrow store,
/// 8 on a wide one (whose ranks may pass 2^32).
enum Labels {
    Narrow(U32s),
    Wide(U64s),
}

/// WCC state.
pub struct Wcc {
    label: Labels,
    cur: Flags,
    next: Flags,
    changed: AtomicU64,
    last_changed: u64,
    n: u64,
}

impl Wcc {
    /// Every vertex starts as its own component, labelled with its dense id
    /// (its rank when dense id = rank; see [`Wcc::for_store`]); labels are
    /// u64 when `wide`, else u32 (`n` at most 2^32).
    pub fn new(n: usize, wide: bool) -> Wcc {
        let blocks = n.div_ceil(1 << TILE_BITS).max(1);
        let label = if wide {
            Labels::Wide(U64s::from_fn(n, |v| v as u64))
        } else {
            assert!(n as u64 <= 1 << 32, "{n} vertices need wide labels");
            Labels::Narrow(U32s::from_fn(n, |v| v as u32))
        };
        Wcc {
            label,
            cur: Flags::new(blocks, false),
            next: Flags::new(blocks, true),
            changed: AtomicU64::new(0),
            last_changed: n as u64,
            n: n as u64,
        }
    }

    /// Every vertex of `store` starts as its own component, labelled with
    /// its rank (streamed from `order.bin`, no memory beyond the labels), at
    /// the store's id width.
    pub fn for_store(store: &Store) -> Result<Wcc> {
        let m = store.manifest();
        let w = Wcc::new(m.num_vertices as usize, Wcc::wide(m));
        store.for_each_rank(|first, ranks| {
            for (i, &r) in ranks.iter().enumerate() {
                w.set(first as usize + i, r as u64);
            }
        })?;
        Ok(w)
    }

    fn wide(m: &Manifest) -> bool {
        m.slot_width() == SlotWidth::Wide
    }

    fn set(&self, v: usize, l: u64) {
        match &self.label {
            Labels::Narrow(c) => c.set_id(v, l),
            Labels::Wide(c) => c.set_id(v, l),
        }
    }

    /// The component label of dense vertex `v`: the smallest rank in its
    /// component (a vertex is its component's root when the label is its
    /// own rank).
    pub fn value(&self, v: usize) -> u64 {
        match &self.label {
            Labels::Narrow(c) => c.id(v),
            Labels::Wide(c) => c.id(v),
        }
    }

    /// Bytes of vertex state on the store of manifest `m`.
    pub fn state_bytes(m: &Manifest) -> u64 {
        let label_bytes = match Wcc::wide(m) {
            true => U64s::BYTES,
            false => U32s::BYTES,
        };
        Wcc::bytes(m.num_vertices, label_bytes)
    }

    fn bytes(n: u64, label_bytes: u64) -> u64 {
        label_bytes * n + 2 * n.div_ceil(1 << TILE_BITS)
    }

    /// Bytes of this state (its labels as held).
    pub fn held_bytes(&self) -> u64 {
        let label_bytes = match &self.label {
            Labels::Narrow(_) => U32s::BYTES,
            Labels::Wide(_) => U64s::BYTES,
        };
        Wcc::bytes(self.n, label_bytes)
    }

    /// Min-label propagation over `tile` in `dir` on labels `label`; the
    /// labels lowered.
    #[inline]
    fn relax<C: IdCells>(label: &C, tile: &Tile, dir: Dir) -> u64 {
        let (sb, db) = (tile.src_base(), tile.dst_base());
        let mut count = 0u64;
        let (from, to) = match dir {
            Dir::Forward => (sb, db),
            Dir::Reverse => (db, sb),
        };
        for &e in tile.edges {
            let (s, d) = unpack(e);
            let (f, t) = match dir {
                Dir::Forward => (from + s, to + d),
                Dir::Reverse => (from + d, to + s),
            };
            let lf = label.id(f);
            if lf < label.id(t) {
                label.set_id(t, lf);
                count += 1;
            }
        }
        count
    }
}

impl TileProgram for Wcc {
    fn directions(&self) -> &'static [Dir] {
        &[Dir::Forward, Dir::Reverse]
    }

    fn begin(&mut self, _iter: usize) -> bool {
        if self.last_changed == 0 || self.n == 0 {
            return false;
        }
        std::mem::swap(&mut self.cur, &mut self.next);
        self.next.fill(false);
        self.changed.store(0, Relaxed);
        true
    }

    fn active_vertices(&self) -> u64 {
        self.last_changed
    }

    fn active(&self, block: u64) -> bool {
        self.cur.get(block as usize)
    }

    #[inline]
    fn apply(&self, tile: &Tile, dir: Dir) {
        let count = match &self.label {
            Labels::Narrow(c) => Wcc::relax(c, tile, dir),
            Labels::Wide(c) => Wcc::relax(c, tile, dir),
        };
        if count > 0 {
            let block = match dir {
                Dir::Forward => tile.col,
                Dir::Reverse => tile.row,
            };
            self.next.set(block as usize, true);
            self.changed.fetch_add(count, Relaxed);
        }
    }

    fn end(&mut self, _iter: usize) -> IterEnd {
        self.last_changed = self.changed.load(Relaxed);
        IterEnd {
            active_vertices: self.last_changed,
            done: self.last_changed == 0,
        }
    }

    fn may_need_next(&self, row: u32, col: u32) -> bool {
        self.next.get(row as usize) || self.next.get(col as usize)
    }
}

/// Runs WCC on `store` inside `budget`.
pub fn wcc(store: &Store, engine: StreamConfig, budget: &Budget) -> Result<(Wcc, RunStats)> {
    let (n, state) = (
        store.manifest().num_vertices,
        Wcc::state_bytes(store.manifest()),
    );
    let need = required_bytes(store, state);
    if budget.limit() < need {
        return Err(Error::Budget(format!(
            "wcc on {n} vertices needs at least {}; raise --memory",
            crate::size::format_size(need)
        )));
    }
    let _state = budget.charge(state, "wcc vertex state")?;
    let mut prog = Wcc::for_store(store)?;
    let mut eng = StreamEngine::new(store, budget, engine)?;
    let mut stats = eng.run(&mut prog, usize::MAX)?;
    stats.vertex_state_bytes = prog.held_bytes();
    Ok((prog, stats))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Wide labels keep ranks past 2^32 whole: 2^32 + 1 is below 2^33
    /// (cut to 32 bits it would read 1 against 0) and spreads both ways.
    #[test]
    fn wide_labels_past_32_bits() {
        let w = Wcc::new(4, true);
        for (v, l) in [
            (0, 1u64 << 33),
            (1, (1 << 32) + 1),
            (2, 1 << 34),
            (3, 7 << 32),
        ] {
            w.set(v, l);
        }
        // Edges 0 -> 1 and 2 -> 3 in block (0, 0): source low 16 bits.
        let edges = [1 << 16, 2 | 3 << 16];
        let tile = Tile {
            row: 0,
            col: 0,
            edges: &edges,
        };
        w.apply(&tile, Dir::Forward);
        w.apply(&tile, Dir::Reverse);
        let labels: Vec<u64> = (0..4).map(|v| w.value(v)).collect();
        assert_eq!(labels, [(1 << 32) + 1, (1 << 32) + 1, 1 << 34, 1 << 34]);
        assert_eq!(w.held_bytes(), 4 * 8 + 2);
    }
}
