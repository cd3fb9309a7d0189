//! Cuthill-McKee levels over a store (`--order bfs`, see [`super`]):
//! a level of many vertices streams the tiles of the blocks it holds (the
//! stream engine, G-Store's selective fetching), a level of few reads their
//! adjacency lists (the select engine, TurboGraph's pin-and-slide): a grid
//! or road network has thousands of thin levels, each spread over every
//! block, which tiles would read whole. When the lists fit the budget beside
//! the state, they are read once into memory instead (a shuffled 4096 x
//! 4096 grid: 108 s list by list, every list on a page of its own). Vertex
//! state is 20 bytes a vertex.
//! Components are entered from their lowest-numbered vertex in the store
//! (by degree, so the highest degree first), in batches that double from 1
//! to 4096 roots whenever a level reaches nobody (so many small components
//! take few levels).

use crate::cancel;
use crate::engine::program::{unpack, Dir, IterEnd, Tile, TileProgram};
use crate::engine::select::{SelectConfig, SelectEngine};
use crate::engine::state::{Flags, U32s};
use crate::engine::stream::{required_bytes, StreamConfig, StreamEngine};
use crate::error::{Error, Result};
use crate::mem::Budget;
use crate::progress::Progress;
use crate::size::format_size;
use crate::store::held::HeldLists;
use crate::store::tiles::TILE_BITS;
use crate::store::Store;
use std::sync::Mutex;

/// Most roots entered at once when a component is finished.
const MAX_ROOTS: usize = 4096;
/// A level of fewer than n / SMALL vertices is read list by list.
const SMALL: u64 = 64;
/// Vertices handed to the select engine at once.
const CHUNK: usize = 1 << 16;
/// Budget kept for the select engines' pools at the least.
const POOLS: u64 = 16 << 20;
const NONE: u32 = u32::MAX;

/// Numbers the vertices of `store` in Cuthill-McKee order: the new id of
/// every dense id of `store`.
/// `on_disk`: read the lists through the engines even when they fit.
/// `held_only`: refuse (a budget error) when the lists do not fit in memory
/// (`--order auto`: out of core, a traversal of a graph without locality
/// reads a page a list; a shuffled 4096 x 4096 grid took 279 s at 512 MiB).
pub fn enumerate(store: &Store, budget: &Budget, on_disk: bool, held_only: bool) -> Result<U32s> {
    let m = store.manifest();
    let n = m.num_vertices;
    // Its ids are u32 (`NONE` above them), as are the maps it composes.
    if n > u32::MAX as u64 {
        return Err(Error::Budget(format!(
            "--order bfs on {n} vertices: its maps hold at most {} vertices",
            u32::MAX
        )));
    }
    let state = 20 * n + 2 * n.div_ceil(1 << TILE_BITS);
    let need = required_bytes(store, state) + POOLS;
    if budget.available() < need {
        return Err(Error::Budget(format!(
            "--order bfs on {n} vertices needs {} of --memory, {} is left (raise --memory or pass --order degree)",
            format_size(need),
            format_size(budget.available())
        )));
    }
    let _state = budget.charge(state, "bfs order: ids, keys and a level's sort")?;
    let mut prog = CuthillMcKee::new(n as usize);
    let dirs: &[&str] = if m.directed { &["out", "in"] } else { &["out"] };
    let held: u64 = dirs.iter().map(|d| HeldLists::<u32>::bytes(store, d)).sum();
    if held_only && held + POOLS > budget.available() {
        return Err(Error::Budget(format!(
            "the adjacency lists ({}) do not fit in what --memory leaves ({}) for the bfs order",
            format_size(held),
            format_size(budget.available())
        )));
    }
    // Held in memory when they fit, else read through the engines: the
    // lists' pools take what the stream engine's ring leaves. At most SMALL
    // levels hold n / SMALL vertices or more, so few levels stream and a
    // tile cache would gain little, while thin levels (a 4096 x 4096 grid
    // has 8,189) re-read the pages of the last ones (at --memory 512MiB: 66 s
    // with half the room given to a tile cache, 3.8 s without).
    let mut lists = if !on_disk && held + POOLS <= budget.available() {
        let held = dirs.iter().map(|d| HeldLists::load(store, d, budget));
        Lists::Held(held.collect::<Result<Vec<_>>>()?)
    } else {
        let cfg = StreamConfig {
            label: "bfs order".into(),
            cache_bytes: Some(0),
            ..Default::default()
        };
        let stream = StreamEngine::new(store, budget, cfg)?;
        let pool = budget.available().saturating_sub(4 << 20) / dirs.len() as u64;
        let cfg = SelectConfig {
            pool_bytes: Some(pool),
            ..Default::default()
        };
        let select = dirs
            .iter()
            .map(|d| SelectEngine::new(store, d, false, budget, &cfg));
        Lists::Engines {
            stream,
            select: select.collect::<Result<Vec<_>>>()?,
        }
    };
    let mut progress = Progress::new("bfs order");
    let (mut level, mut streamed, mut listed) = (0usize, 0u64, 0u64);
    let mut vs = Vec::new();
    while prog.begin(level) {
        cancel::check()?;
        match &mut lists {
            Lists::Held(held) => {
                for l in held.iter() {
                    for &v in &prog.level {
                        prog.reach(v as usize, l.list(v as u64));
                    }
                }
            }
            Lists::Engines { select, .. } if (prog.level.len() as u64) * SMALL < n => {
                vs.clear();
                vs.extend_from_slice(&prog.level);
                vs.sort_unstable();
                for eng in select.iter_mut() {
                    for chunk in vs.chunks(CHUNK) {
                        eng.for_each_list(chunk, |v, nbrs| {
                            prog.reach(v as usize, nbrs);
                            Ok(())
                        })?;
                    }
                }
                listed += 1;
            }
            Lists::Engines { stream, .. } => {
                stream.iterate(&prog, level, &mut progress)?;
                streamed += 1;
            }
        }
        prog.end(level);
        level += 1;
        let numbered = prog.numbered;
        progress.tick(|| format!("level {level}: {numbered} of {n} vertices numbered"));
    }
    progress.done(|| match lists {
        Lists::Held(_) => format!("{level} levels, the lists held in memory"),
        Lists::Engines { .. } => {
            format!("{level} levels, {streamed} over tiles and {listed} list by list")
        }
    });
    if prog.numbered as u64 != n {
        return Err(Error::Invalid(format!(
            "bfs order numbered {} of {n} vertices",
            prog.numbered
        )));
    }
    Ok(prog.id)
}

/// Where the levels read adjacency lists from (one per build).
#[allow(clippy::large_enum_variant)]
enum Lists {
    Held(Vec<HeldLists<u32>>),
    Engines {
        stream: StreamEngine,
        select: Vec<SelectEngine>,
    },
}

/// The levels as a tile program. The level being expanded holds new ids
/// `lo..hi` (a level's ids are consecutive).
struct CuthillMcKee {
    /// New id of each vertex (`NONE` until numbered).
    id: U32s,
    /// Smallest new id of a neighbour in the level (`NONE`: not reached).
    key: U32s,
    lo: u32,
    hi: u32,
    numbered: u32,
    /// Blocks holding the level, and the next one.
    cur: Flags,
    next: Flags,
    /// The level's vertices, in new-id order.
    level: Vec<u32>,
    /// Vertices reached by the level.
    found: Mutex<Vec<u32>>,
    /// Next vertex to try as a root, and how many to enter at once.
    cursor: usize,
    roots: usize,
}

impl CuthillMcKee {
    fn new(n: usize) -> CuthillMcKee {
        let blocks = n.div_ceil(1 << TILE_BITS).max(1);
        CuthillMcKee {
            id: U32s::new(n, NONE),
            key: U32s::new(n, NONE),
            lo: 0,
            hi: 0,
            numbered: 0,
            cur: Flags::new(blocks, false),
            next: Flags::new(blocks, false),
            level: Vec::new(),
            found: Mutex::new(Vec::new()),
            cursor: 0,
            roots: 1,
        }
    }

    /// Numbers `vs` next, as the level to expand.
    fn number(&mut self, vs: impl Iterator<Item = usize>) {
        self.cur.fill(false);
        self.lo = self.numbered;
        self.level.clear();
        for v in vs {
            self.id.set(v, self.numbered);
            self.numbered += 1;
            self.cur.set(v >> TILE_BITS, true);
            self.level.push(v as u32);
        }
        self.hi = self.numbered;
    }

    /// Neighbour `u` of a level vertex numbered `p`: reached the first time
    /// (into `reached`), keyed by the smallest such `p`.
    #[inline]
    fn visit(&self, p: u32, u: usize, reached: &mut Vec<u32>) {
        if self.id.get(u) == NONE && self.key.fetch_min(u, p) == NONE {
            self.next.set(u >> TILE_BITS, true);
            reached.push(u as u32);
        }
    }

    /// Hands vertices reached by one caller to the level's end.
    fn publish(&self, reached: &[u32]) {
        if !reached.is_empty() {
            self.found.lock().unwrap().extend_from_slice(reached);
        }
    }

    /// Level vertex `v` with neighbours `nbrs` (read list by list).
    fn reach(&self, v: usize, nbrs: &[u32]) {
        let p = self.id.get(v);
        let mut reached = Vec::new();
        for &u in nbrs {
            self.visit(p, u as usize, &mut reached);
        }
        self.publish(&reached);
    }
}

impl TileProgram for CuthillMcKee {
    fn directions(&self) -> &'static [Dir] {
        &[Dir::Forward, Dir::Reverse]
    }

    fn begin(&mut self, _iter: usize) -> bool {
        if self.lo == self.hi {
            // No level left: enter the next component(s).
            let n = self.id.len();
            let mut roots = Vec::new();
            while roots.len() < self.roots && self.cursor < n {
                if self.id.get(self.cursor) == NONE {
                    roots.push(self.cursor);
                }
                self.cursor += 1;
            }
            if roots.is_empty() {
                return false;
            }
            self.roots = (2 * self.roots).min(MAX_ROOTS);
            self.number(roots.into_iter());
        }
        self.next.fill(false);
        true
    }

    fn active_vertices(&self) -> u64 {
        (self.hi - self.lo) as u64
    }

    fn active(&self, block: u64) -> bool {
        self.cur.get(block as usize)
    }

    fn apply(&self, tile: &Tile, dir: Dir) {
        let (mut sb, mut db) = (tile.src_base(), tile.dst_base());
        let reverse = dir == Dir::Reverse;
        if reverse {
            std::mem::swap(&mut sb, &mut db);
        }
        let (lo, hi) = (self.lo, self.hi);
        let mut reached = Vec::new();
        for &e in tile.edges {
            let (mut s, mut d) = unpack(e);
            if reverse {
                std::mem::swap(&mut s, &mut d);
            }
            let (a, b) = (sb + s, db + d);
            let p = self.id.get(a);
            if p < lo || p >= hi {
                continue;
            }
            self.visit(p, b, &mut reached);
        }
        self.publish(&reached);
    }

    fn end(&mut self, _iter: usize) -> IterEnd {
        let found = std::mem::take(&mut *self.found.lock().unwrap());
        // By the smallest neighbour id in the level, then the first store's id.
        let mut keyed: Vec<u64> = found
            .iter()
            .map(|&v| (self.key.get(v as usize) as u64) << 32 | v as u64)
            .collect();
        drop(found);
        keyed.sort_unstable();
        self.number(keyed.iter().map(|&k| k as u32 as usize));
        let left = self.id.len() as u32 - self.numbered;
        IterEnd {
            active_vertices: (self.hi - self.lo) as u64,
            done: left == 0,
        }
    }

    fn may_need_next(&self, row: u32, col: u32) -> bool {
        self.next.get(row as usize) || self.next.get(col as usize)
    }
}
