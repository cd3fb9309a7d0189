//! BFS with LDBC Graphalytics semantics on the stream engine: hop depth from
//! the source along out-edges (both directions when undirected); unreachable
//! vertices get `9223372036854775807`.
//!
//! Level-synchronous push: a tile is applied when its source block holds
//! vertices of the current level (selective fetching); a tile is cached when
//! a block it reads from already holds vertices of the next level (G-Store's
//! partial-knowledge caching rule for BFS).

use crate::engine::program::{unpack, Dir, IterEnd, Tile, TileProgram};
use crate::engine::state::{Flags, U32s};
use crate::engine::stats::RunStats;
use crate::engine::stream::{required_bytes, StreamConfig, StreamEngine};
use crate::error::{Error, Result};
use crate::mem::Budget;
use crate::store::tiles::TILE_BITS;
use crate::store::Store;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Depth of an unreachable vertex in the output.
pub const UNREACHABLE: i64 = i64::MAX;
const INF: u32 = u32::MAX;

/// BFS state.
pub struct Bfs {
    depth: U32s,
    level: u32,
    cur: Flags,
    next: Flags,
    found: AtomicU64,
    frontier: u64,
    directed: bool,
}

impl Bfs {
    /// A BFS from dense vertex `source` over `n` vertices.
    pub fn new(n: usize, source: usize, directed: bool) -> Bfs {
        let blocks = n.div_ceil(1 << TILE_BITS).max(1);
        let depth = U32s::new(n, INF);
        let next = Flags::new(blocks, false);
        if n > 0 {
            depth.set(source, 0);
            next.set(source >> TILE_BITS, true);
        }
        Bfs {
            depth,
            level: 0,
            cur: Flags::new(blocks, false),
            next,
            found: AtomicU64::new(0),
            frontier: (n > 0) as u64,
            directed,
        }
    }

    /// Hop depth of dense vertex `v` (UNREACHABLE when not reached).
    pub fn value(&self, v: usize) -> i64 {
        match self.depth.get(v) {
            INF => UNREACHABLE,
            d => d as i64,
        }
    }

    /// Bytes of vertex state for `n` vertices.
    pub fn state_bytes(n: u64) -> u64 {
        4 * n + 2 * n.div_ceil(1 << TILE_BITS)
    }

    #[inline]
    fn visit(&self, v: usize, block: u32, count: &mut u64) {
        if self.depth.get(v) == INF {
            self.depth.set(v, self.level + 1);
            self.next.set(block as usize, true);
            *count += 1;
        }
    }
}

impl TileProgram for Bfs {
    fn directions(&self) -> &'static [Dir] {
        if self.directed {
            &[Dir::Forward]
        } else {
            &[Dir::Forward, Dir::Reverse]
        }
    }

    fn begin(&mut self, iter: usize) -> bool {
        if self.frontier == 0 {
            return false;
        }
        self.level = iter as u32;
        std::mem::swap(&mut self.cur, &mut self.next);
        self.next.fill(false);
        self.found.store(0, Relaxed);
        true
    }

    fn active_vertices(&self) -> u64 {
        self.frontier
    }

    fn active(&self, block: u64) -> bool {
        self.cur.get(block as usize)
    }

    #[inline]
    fn apply(&self, tile: &Tile, dir: Dir) {
        let (sb, db) = (tile.src_base(), tile.dst_base());
        let lv = self.level;
        let mut count = 0;
        match dir {
            Dir::Forward => {
                for &e in tile.edges {
                    let (s, d) = unpack(e);
                    if self.depth.get(sb + s) == lv {
                        self.visit(db + d, tile.col, &mut count);
                    }
                }
            }
            Dir::Reverse => {
                for &e in tile.edges {
                    let (s, d) = unpack(e);
                    if self.depth.get(db + d) == lv {
                        self.visit(sb + s, tile.row, &mut count);
                    }
                }
            }
        }
        if count > 0 {
            self.found.fetch_add(count, Relaxed);
        }
    }

    fn end(&mut self, _iter: usize) -> IterEnd {
        self.frontier = self.found.load(Relaxed);
        IterEnd {
            active_vertices: self.frontier,
            done: self.frontier == 0,
        }
    }

    fn may_need_next(&self, row: u32, col: u32) -> bool {
        self.next.get(row as usize) || (!self.directed && self.next.get(col as usize))
    }
}

/// Runs BFS from dense vertex `source` on `store` inside `budget`.
pub fn bfs(
    store: &Store,
    source: u64,
    engine: StreamConfig,
    budget: &Budget,
) -> Result<(Bfs, RunStats)> {
    let m = store.manifest();
    let n = m.num_vertices;
    if source >= n {
        return Err(Error::Invalid(format!(
            "source vertex {source} is not in the graph"
        )));
    }
    let need = required_bytes(store, Bfs::state_bytes(n));
    if budget.limit() < need {
        return Err(Error::Budget(format!(
            "bfs on {n} vertices needs at least {}; raise --memory",
            crate::size::format_size(need)
        )));
    }
    let _state = budget.charge(Bfs::state_bytes(n), "bfs vertex state")?;
    let mut prog = Bfs::new(n as usize, source as usize, m.directed);
    let mut eng = StreamEngine::new(store, budget, engine)?;
    let mut stats = eng.run(&mut prog, usize::MAX)?;
    stats.vertex_state_bytes = Bfs::state_bytes(n);
    Ok((prog, stats))
}
