//! Weakly connected components with LDBC Graphalytics semantics on the
//! stream engine: components ignoring direction, each vertex labelled with
//! the smallest original id in its component. Labels are *ranks* (positions
//! of the original ids among the sorted distinct ids, `order.bin`), which
//! keep the original ids' order whatever the store's vertex order: the
//! smallest rank of a component is its smallest original id; print a label
//! with `OriginalIds::original_of_rank`.
//!
//! Min-label propagation over every tile in both directions; an iteration
//! applies a tile's forward direction only if its row block changed in the
//! previous iteration and its reverse direction only if its column block did
//! (selective fetching); labels updated within an iteration are seen at once.

use crate::engine::program::{unpack, Dir, IterEnd, Tile, TileProgram};
use crate::engine::state::{Flags, U32s};
use crate::engine::stats::RunStats;
use crate::engine::stream::{required_bytes, StreamConfig, StreamEngine};
use crate::error::{Error, Result};
use crate::mem::Budget;
use crate::store::tiles::TILE_BITS;
use crate::store::Store;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// WCC state.
pub struct Wcc {
    label: U32s,
    cur: Flags,
    next: Flags,
    changed: AtomicU64,
    last_changed: u64,
    n: u64,
}

impl Wcc {
    /// Every vertex starts as its own component, labelled with its dense id
    /// (its rank when dense id = rank; see [`Wcc::for_store`]).
    pub fn new(n: usize) -> Wcc {
        let blocks = n.div_ceil(1 << TILE_BITS).max(1);
        Wcc {
            label: U32s::from_fn(n, |v| v as u32),
            cur: Flags::new(blocks, false),
            next: Flags::new(blocks, true),
            changed: AtomicU64::new(0),
            last_changed: n as u64,
            n: n as u64,
        }
    }

    /// Every vertex of `store` starts as its own component, labelled with
    /// its rank (streamed from `order.bin`, no memory beyond the labels).
    pub fn for_store(store: &Store) -> Result<Wcc> {
        let w = Wcc::new(store.manifest().num_vertices as usize);
        store.for_each_rank(|first, ranks| {
            for (i, &r) in ranks.iter().enumerate() {
                w.label.set(first as usize + i, r);
            }
        })?;
        Ok(w)
    }

    /// The component label of dense vertex `v`: the smallest rank in its
    /// component (a vertex is its component's root when the label is its
    /// own rank).
    pub fn value(&self, v: usize) -> u32 {
        self.label.get(v)
    }

    /// Bytes of vertex state for `n` vertices.
    pub fn state_bytes(n: u64) -> u64 {
        4 * n + 2 * n.div_ceil(1 << TILE_BITS)
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
        let (sb, db) = (tile.src_base(), tile.dst_base());
        let mut count = 0u64;
        let (from, to, block) = match dir {
            Dir::Forward => (sb, db, tile.col),
            Dir::Reverse => (db, sb, tile.row),
        };
        for &e in tile.edges {
            let (s, d) = unpack(e);
            let (f, t) = match dir {
                Dir::Forward => (from + s, to + d),
                Dir::Reverse => (from + d, to + s),
            };
            let lf = self.label.get(f);
            if lf < self.label.get(t) {
                self.label.set(t, lf);
                count += 1;
            }
        }
        if count > 0 {
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
    let n = store.manifest().num_vertices;
    let need = required_bytes(store, Wcc::state_bytes(n));
    if budget.limit() < need {
        return Err(Error::Budget(format!(
            "wcc on {n} vertices needs at least {}; raise --memory",
            crate::size::format_size(need)
        )));
    }
    let _state = budget.charge(Wcc::state_bytes(n), "wcc vertex state")?;
    let mut prog = Wcc::for_store(store)?;
    let mut eng = StreamEngine::new(store, budget, engine)?;
    let mut stats = eng.run(&mut prog, usize::MAX)?;
    stats.vertex_state_bytes = Wcc::state_bytes(n);
    Ok((prog, stats))
}
