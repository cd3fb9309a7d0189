//! TurboGraph's targeted queries (§5.1: k-step neighbours, induced subgraph,
//! k-step egonet, cross edges) on the select engine: only the CSR pages of
//! the vertices a query touches are read.
//!
//! # Semantics (exact; all ids are dense ids, callers map original ids)
//!
//! The engine must be opened on direction `"out"`. Edges are the store's:
//! duplicates were merged by the build, so every stored edge is unique.
//! "N(v)" is the stored list of `v`: its out-neighbours in a directed store;
//! in an undirected store all its neighbours, a self-loop once. `directed`
//! must be the store's `manifest().directed`.
//!
//! - [`khop`]`(s, k)`: every vertex at hop distance <= `k` from `s` along
//!   N (out-edges; undirected: edges), `s` included (also for `k = 0`),
//!   sorted ascending. Self-loops change nothing.
//! - [`induced`]`(S)` (`S` in any order, duplicates ignored): the stored
//!   edges with both ends in `S`, sorted ascending.
//!   - directed: every edge `u -> v` with `u, v` in `S`, as `(u, v)`; a
//!     self-loop `v -> v` once when `v` is in `S`;
//!   - undirected: every edge `{u, v}` with `u, v` in `S`, once, as
//!     `(min, max)`; a self-loop `(v, v)` once when `v` is in `S`.
//! - [`egonet`]`(s, k)`: `induced(khop(s, k))` (GBase/TurboGraph's k-step
//!   egonet, `EG^k(v) = BFS_is(BFS_wnh^k(v))`). For `k = 0`: the self-loop
//!   of `s` if it has one, else nothing.
//! - [`cross`]`(A, B)` (any order, duplicates ignored; the sets may overlap):
//!   - directed: every edge `a -> b` with `a` in `A`, `b` in `B`, as
//!     `(a, b)`, once (a self-loop `v -> v` when `v` is in `A ∩ B`; an edge
//!     with both ends in `A ∩ B` appears once per direction stored);
//!   - undirected: every edge `{x, y}` with (`x` in `A` and `y` in `B`) or
//!     (`y` in `A` and `x` in `B`), once, oriented `(a, b)` with `a` in `A`,
//!     `b` in `B`; when both orientations qualify (both ends in `A ∩ B`,
//!     which includes a self-loop `(v, v)` with `v` in `A ∩ B`) as
//!     `(min, max)`.
//!
//!   Sorted ascending. For disjoint `A`, `B` this is TurboGraph's T7 cross
//!   edges `E(A ∪ B) - E(A) - E(B)` restricted to the `A -> B` direction
//!   when directed (query `cross(B, A)` for the other).
//!
//! An id `>= |V|` anywhere is an error (`Error::Invalid`), also where its
//! list is not needed (`k = 0`, the unread side of a cross query).
//!
//! "Sorted" and "(min, max)" above are in dense ids, which follow the
//! store's vertex order. [`original_vertices`] and [`original_edges`] turn a
//! result into original ids ordered and oriented by original id, the same
//! for every vertex order (what `outcore query` prints).
//!
//! # Execution
//!
//! Every query expands level by level: a level is one
//! [`SelectEngine::for_each_list`] call over the whole (sorted, deduplicated)
//! level, so all of its pages are requested at the engine's in-flight depth
//! before any is processed (the run-ahead), and each page is processed as
//! soon as it arrives (pin-and-slide). Membership uses a hash set (k-hop) or
//! a sorted `Vec` with binary search (sets of induced/cross): nothing is
//! O(|V|), so a query on a huge graph costs what it touches.
//!
//! - k-hop: levels `0..k` are expanded, the last level is not read.
//! - egonet: as k-hop; the lists read while expanding levels `0..k` are
//!   kept (every neighbour of an interior vertex lies in the set, so all
//!   those edges belong to the result), then only the last level's lists
//!   are read and filtered. Every list of the set is read exactly once.
//! - induced: the lists of `S`, filtered by membership in `S`.
//! - cross: directed, the lists of `A` filtered by `B`; undirected, the
//!   lists of the smaller set filtered by the other.
//!
//! Undirected lists hold both directions, so an edge `{u, v}` of the result
//! is seen from both lists; it is kept only from the list of `min(u, v)`
//! (`u <= v`), which gives each edge once.

use crate::engine::select::SelectEngine;
use crate::error::Result;
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};
use std::time::Instant;

/// What a query cost.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct QueryStats {
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Bytes the engine's reader read during the query.
    pub bytes_read: u64,
    /// Read requests the engine's reader completed during the query.
    pub read_requests: u64,
    /// Distinct pages requested per engine call, summed (adjacency and offsets).
    pub pages_touched: u64,
    /// Vertices (k-hop) or edges (the others) in the result.
    pub result_size: u64,
}

/// Vertices within `k` hops of `source` along out-edges (undirected stores:
/// neighbours), the source included, sorted.
pub fn khop(eng: &mut SelectEngine, source: u64, k: u32) -> Result<(Vec<u64>, QueryStats)> {
    let meter = Meter::start(eng);
    if k == 0 {
        // Nothing is expanded: only check the source exists.
        check_ids(eng, &[source])?;
    }
    let x = expand(eng, source, k, |_, _| {})?;
    let stats = meter.finish(eng, x.members.len());
    Ok((x.members, stats))
}

/// The k-step egonet: the subgraph induced by the k-hop vertex set: every
/// stored edge (u, v) with both ends in the set, sorted, each directed edge
/// once; for undirected stores each edge once as (min, max).
pub fn egonet(
    eng: &mut SelectEngine,
    source: u64,
    k: u32,
    directed: bool,
) -> Result<(Vec<(u64, u64)>, QueryStats)> {
    let meter = Meter::start(eng);
    let mut edges: Vec<(u64, u64)> = Vec::new();
    // Interior vertices (levels < k): all their neighbours are in the set.
    let x = expand(eng, source, k, |v, nbrs| {
        edges.extend(
            nbrs.iter()
                .filter(|&&u| directed || v <= u)
                .map(|&u| (v, u)),
        );
    })?;
    // The last level: keep the neighbours inside the set.
    filtered_edges(eng, &x.last, &x.members, directed, &mut edges)?;
    edges.sort_unstable();
    let stats = meter.finish(eng, edges.len());
    Ok((edges, stats))
}

/// The subgraph induced by `vertices` (any order, duplicates allowed): edges
/// as in [`egonet`].
pub fn induced(
    eng: &mut SelectEngine,
    vertices: &[u64],
    directed: bool,
) -> Result<(Vec<(u64, u64)>, QueryStats)> {
    let meter = Meter::start(eng);
    let set = sorted_set(vertices);
    let mut edges: Vec<(u64, u64)> = Vec::new();
    filtered_edges(eng, &set, &set, directed, &mut edges)?;
    edges.sort_unstable();
    let stats = meter.finish(eng, edges.len());
    Ok((edges, stats))
}

/// Cross edges: edges (a, b) with a in `set_a` and b in `set_b` (directed:
/// a -> b out-edges; undirected: each such edge once, oriented (a, b) with a
/// in A and b in B; an edge with both ends in A ∩ B appears once, as
/// (min, max)), sorted. See the module documentation.
pub fn cross(
    eng: &mut SelectEngine,
    set_a: &[u64],
    set_b: &[u64],
    directed: bool,
) -> Result<(Vec<(u64, u64)>, QueryStats)> {
    let meter = Meter::start(eng);
    let a = sorted_set(set_a);
    let b = sorted_set(set_b);
    let mut edges: Vec<(u64, u64)> = Vec::new();
    // Ids in sets whose lists are not read are checked by their largest.
    if a.is_empty() || b.is_empty() {
        check_ids(eng, &a)?;
        check_ids(eng, &b)?;
    } else {
        check_ids(
            eng,
            if directed || b.len() >= a.len() {
                &b
            } else {
                &a
            },
        )?;
    }
    if directed {
        // Out-lists of A, targets in B.
        if !a.is_empty() && !b.is_empty() {
            eng.for_each_list(&a, |v, nbrs| {
                edges.extend(nbrs.iter().filter(|&&u| contains(&b, u)).map(|&u| (v, u)));
                Ok(())
            })?;
        }
    } else if !a.is_empty() && !b.is_empty() {
        // Read the lists of the smaller set `s`, neighbours in the other set
        // `t`. An edge {v, u} (v in s, u in t) is oriented with its s-end in
        // place: (v, u) when s = A, (u, v) when s = B. Both orientations
        // qualify iff v is in t and u in s as well; then only v <= u keeps it
        // (it is seen again from u's list), as (min, max) = (v, u).
        let swap = b.len() < a.len();
        let (s, t) = if swap { (&b, &a) } else { (&a, &b) };
        eng.for_each_list(s, |v, nbrs| {
            let v_in_t = contains(t, v);
            for &u in nbrs {
                if !contains(t, u) {
                    continue;
                }
                let both = v_in_t && contains(s, u);
                if both {
                    if v <= u {
                        edges.push((v, u));
                    }
                } else if swap {
                    edges.push((u, v));
                } else {
                    edges.push((v, u));
                }
            }
            Ok(())
        })?;
    }
    edges.sort_unstable();
    let stats = meter.finish(eng, edges.len());
    Ok((edges, stats))
}

/// A vertex result (dense ids) as original ids, ascending. `original` maps
/// a dense id to its original id.
pub fn original_vertices<T: Ord>(
    vs: &[u64],
    mut original: impl FnMut(u64) -> Result<T>,
) -> Result<Vec<T>> {
    let mut out = vs
        .iter()
        .map(|&v| original(v))
        .collect::<Result<Vec<T>>>()?;
    out.sort_unstable();
    Ok(out)
}

/// An edge result (dense ids) as original ids, sorted. `min_max(s, d)` says
/// the query oriented edge `(s, d)` as (min, max): every edge of an
/// undirected [`egonet`] or [`induced`], an undirected [`cross`] edge with
/// both ends in A ∩ B ([`cross_min_max`]); those are oriented by original
/// id instead, the others keep their orientation.
pub fn original_edges<T: Ord>(
    edges: &[(u64, u64)],
    min_max: impl Fn(u64, u64) -> bool,
    mut original: impl FnMut(u64) -> Result<T>,
) -> Result<Vec<(T, T)>> {
    let mut out = edges
        .iter()
        .map(|&(s, d)| {
            let (a, b) = (original(s)?, original(d)?);
            Ok(if min_max(s, d) && a > b {
                (b, a)
            } else {
                (a, b)
            })
        })
        .collect::<Result<Vec<(T, T)>>>()?;
    out.sort_unstable();
    Ok(out)
}

/// For [`original_edges`] of an undirected [`cross`] result: edge `(a, b)`
/// (a in A, b in B) was oriented as (min, max) iff `b` is in A and `a` in B.
pub fn cross_min_max(set_a: &[u64], set_b: &[u64]) -> impl Fn(u64, u64) -> bool {
    let (a, b) = (sorted_set(set_a), sorted_set(set_b));
    move |s, d| contains(&a, d) && contains(&b, s)
}

/// The result of a level-by-level expansion.
struct Expansion {
    /// Every vertex within `k` hops, sorted.
    members: Vec<u64>,
    /// The vertices at exactly `k` hops (their lists were not read), sorted.
    last: Vec<u64>,
}

/// Breadth-first expansion from `source` for `k` levels: `interior(v, piece)`
/// gets every list piece read (the lists of the vertices at distance < k).
fn expand(
    eng: &mut SelectEngine,
    source: u64,
    k: u32,
    mut interior: impl FnMut(u64, &[u64]),
) -> Result<Expansion> {
    let mut seen: IdSet = HashSet::default();
    seen.insert(source);
    let mut frontier = vec![source];
    let mut next: Vec<u64> = Vec::new();
    let mut level = 0u32;
    while level < k && !frontier.is_empty() {
        crate::cancel::check()?;
        next.clear();
        eng.for_each_list(&frontier, |v, nbrs| {
            interior(v, nbrs);
            for &u in nbrs {
                if seen.insert(u) {
                    next.push(u);
                }
            }
            Ok(())
        })?;
        next.sort_unstable();
        std::mem::swap(&mut frontier, &mut next);
        level += 1;
    }
    let mut members: Vec<u64> = seen.into_iter().collect();
    members.sort_unstable();
    Ok(Expansion {
        members,
        // `frontier` is the unexpanded level k (empty if the expansion died out).
        last: frontier,
    })
}

/// Appends the edges from the lists of `vs` (sorted, unique) to neighbours
/// in `set` (sorted, unique); undirected, only those with `v <= u`.
fn filtered_edges(
    eng: &mut SelectEngine,
    vs: &[u64],
    set: &[u64],
    directed: bool,
    edges: &mut Vec<(u64, u64)>,
) -> Result<()> {
    if vs.is_empty() {
        return Ok(());
    }
    crate::cancel::check()?;
    eng.for_each_list(vs, |v, nbrs| {
        edges.extend(
            nbrs.iter()
                .filter(|&&u| (directed || v <= u) && contains(set, u))
                .map(|&u| (v, u)),
        );
        Ok(())
    })
}

/// `xs` sorted and deduplicated.
fn sorted_set(xs: &[u64]) -> Vec<u64> {
    let mut s = xs.to_vec();
    s.sort_unstable();
    s.dedup();
    s
}

/// Fails if the largest id of `sorted` is out of range (costs one offsets page).
fn check_ids(eng: &mut SelectEngine, sorted: &[u64]) -> Result<()> {
    if let Some(&max) = sorted.last() {
        eng.ranges(&[max])?;
    }
    Ok(())
}

#[inline]
fn contains(sorted: &[u64], x: u64) -> bool {
    sorted.binary_search(&x).is_ok()
}

/// Snapshot of the engine's counters at the start of a query.
struct Meter {
    start: Instant,
    io: crate::io::IoStats,
    pages: u64,
}

impl Meter {
    fn start(eng: &SelectEngine) -> Meter {
        Meter {
            start: Instant::now(),
            io: eng.reader().stats(),
            pages: eng.stats().pages_touched,
        }
    }

    fn finish(&self, eng: &SelectEngine, result_size: usize) -> QueryStats {
        let io = eng.reader().stats() - self.io;
        QueryStats {
            seconds: self.start.elapsed().as_secs_f64(),
            bytes_read: io.bytes_read,
            read_requests: io.requests,
            pages_touched: eng.stats().pages_touched - self.pages,
            result_size: result_size as u64,
        }
    }
}

/// A hash set of vertex ids with a cheap multiplicative hash.
type IdSet = HashSet<u64, BuildHasherDefault<IdHasher>>;

/// Fibonacci hashing of a `u64` id, high bits folded down.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    #[inline]
    fn write_u64(&mut self, x: u64) {
        let h = (self.0 ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 29);
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}
