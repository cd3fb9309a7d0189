//! The stream engine's reads of a store's delta (issue 53, the T seam):
//! the delta applied as an extra pass over the tiles, the LSM-style merge
//! on read of PartitionedVC's buffered structural updates
//! ([`DeltaTiles`]). Base pieces of tiles with tombstones are applied in
//! the runs between those edges, found by a merge join the first time a
//! piece is read ([`filtered`]; no edge is copied, and other pieces keep
//! the fast path, one lookup per piece when the engine opens). A piece's
//! edges are the same every iteration, so the positions of its
//! tombstoned edges are kept ([`PieceCuts`]): later passes cut the piece
//! at them without searching (4 bytes a tombstone). The
//! additions are tiles of their own, held in memory and applied after the
//! base's every iteration, under the same selective fetching. With
//! `OUTCORE_DELTA_SKIP=stream` the engine reads the base alone (the
//! seam's red check; `stream-tombstones`, `stream-additions`: one half).

use super::super::tileset::{TileMeta, TileSet};
use crate::error::Result;
use crate::mem::Budget;
use crate::store::delta::skip;
use crate::store::delta::tiles::{key, DeltaTiles};
use crate::store::Store;
use std::sync::OnceLock;

/// A piece with no tombstones.
const NONE: u32 = u32::MAX;

/// The delta as the stream engine holds it.
pub(super) struct StreamDelta {
    tiles: DeltaTiles,
    /// The additions' tiles, cut into pieces as the base's are; `offset`
    /// is in words of the additions.
    pub(super) metas: Vec<TileMeta>,
    /// Per base piece: its tile's tombstone run, or [`NONE`].
    kill: Vec<u32>,
    /// Per base piece: the positions of its tombstoned edges among its
    /// edges, once a pass has found them.
    cuts: Vec<OnceLock<Box<[u32]>>>,
    /// False under `OUTCORE_DELTA_SKIP=stream-cuts`: every pass searches.
    keep_cuts: bool,
    _kill: crate::mem::budget::Charge,
}

impl StreamDelta {
    /// `store`'s delta over the base pieces `base` (cut at `piece` bytes),
    /// charged to `budget`; `None` without a delta (or with the seam
    /// switched off).
    pub(super) fn load(
        store: &Store,
        budget: &Budget,
        base: &TileSet,
        piece: u64,
    ) -> Result<Option<StreamDelta>> {
        if skip("stream") {
            return Ok(None);
        }
        let Some(tiles) = DeltaTiles::load(store, budget)? else {
            return Ok(None);
        };
        // The parts of the seam's switch: each half alone goes red too.
        let (adds, tombs) = (!skip("stream-additions"), !skip("stream-tombstones"));
        let per = (piece / 4).max(1) as usize;
        let mut metas = Vec::new();
        for t in tiles.adds.iter().filter(|_| adds) {
            let mut at = t.start;
            while at < t.end {
                let len = per.min(t.end - at);
                metas.push(TileMeta {
                    row: t.row,
                    col: t.col,
                    offset: at as u64,
                    bytes: 4 * len as u64,
                });
                at += len;
            }
        }
        let cut = std::mem::size_of::<OnceLock<Box<[u32]>>>() as u64;
        let charge = budget.charge(
            (4 + cut) * base.tiles.len() as u64
                + 4 * tiles.tomb_edges.len() as u64
                + (metas.len() * std::mem::size_of::<TileMeta>()) as u64,
            "delta pieces",
        )?;
        let kill = base
            .tiles
            .iter()
            .map(|m| match tombs {
                true => tiles.tomb_run(m.row, m.col).map_or(NONE, |i| i as u32),
                false => NONE,
            })
            .collect();
        Ok(Some(StreamDelta {
            tiles,
            metas,
            kill,
            cuts: (0..base.tiles.len()).map(|_| OnceLock::new()).collect(),
            keep_cuts: !skip("stream-cuts"),
            _kill: charge,
        }))
    }

    /// The cutter of base piece `i`, when its tile has tombstones: feed
    /// it the piece's edges in order ([`PieceCuts::feed`]), then
    /// [`PieceCuts::finish`] it.
    #[inline]
    pub(super) fn cutter(&self, i: usize) -> Option<PieceCuts<'_>> {
        let dead = self.kills(i)?;
        let known = match self.keep_cuts {
            true => self.cuts[i].get().map(|c| &c[..]),
            false => None,
        };
        Some(PieceCuts {
            dead,
            known,
            found: Vec::new(),
            at: 0,
            k: 0,
            slot: &self.cuts[i],
        })
    }

    /// The tombstones of base piece `i`, sorted, when its tile has any.
    #[inline]
    pub(super) fn kills(&self, i: usize) -> Option<&[u32]> {
        match self.kill[i] {
            NONE => None,
            k => Some(self.tiles.kills(k as usize)),
        }
    }

    /// The words of addition piece `i`.
    pub(super) fn piece(&self, i: usize) -> &[u32] {
        let m = &self.metas[i];
        let at = m.offset as usize;
        &self.tiles.add_edges[at..at + (m.bytes / 4) as usize]
    }
}

/// One pass over a base piece with tombstones: its edges, given in order
/// (a plain piece whole, a coded one frame by frame), are applied in the
/// runs between the tombstoned ones, cut at the positions an earlier pass
/// kept or, on the first pass, at those a merge join finds (kept by
/// [`PieceCuts::finish`]).
pub(super) struct PieceCuts<'a> {
    dead: &'a [u32],
    known: Option<&'a [u32]>,
    found: Vec<u32>,
    /// Edges of the piece fed so far.
    at: u64,
    /// Known cuts used so far.
    k: usize,
    slot: &'a OnceLock<Box<[u32]>>,
}

impl PieceCuts<'_> {
    /// Calls `f` on the runs of `edges`, the piece's next ones, between
    /// its tombstoned edges.
    #[inline]
    pub(super) fn feed(&mut self, edges: &[u32], mut f: impl FnMut(&[u32])) {
        let at = self.at;
        self.at += edges.len() as u64;
        let Some(known) = self.known else {
            let found = &mut self.found;
            // Past 2^32 edges nothing is kept ([`PieceCuts::finish`]).
            return filtered_at(edges, self.dead, |j| found.push((at + j as u64) as u32), f);
        };
        let end = self.at;
        let mut i = 0;
        while let Some(&p) = known.get(self.k).filter(|&&p| (p as u64) < end) {
            let j = (p as u64 - at) as usize;
            if j > i {
                f(&edges[i..j]);
            }
            i = j + 1;
            self.k += 1;
        }
        if i < edges.len() {
            f(&edges[i..]);
        }
    }

    /// Keeps the positions a first pass found, for the next passes.
    pub(super) fn finish(self) {
        if self.known.is_none() && u32::try_from(self.at).is_ok() {
            // Two threads reading the piece's two directions find the same.
            let _ = self.slot.set(self.found.into_boxed_slice());
        }
    }
}

/// Calls `f` on the runs of `edges` (sorted as a tile's are, by source
/// then target) between those whose [`key`] is in `kills` (sorted): the
/// pieces of a merge join, without copying an edge.
#[cfg(test)]
fn filtered(edges: &[u32], kills: &[u32], f: impl FnMut(&[u32])) {
    filtered_at(edges, kills, |_| {}, f)
}

/// [`filtered`], telling `cut` the position in `edges` of each edge it
/// drops.
#[inline]
fn filtered_at(edges: &[u32], kills: &[u32], mut cut: impl FnMut(u32), mut f: impl FnMut(&[u32])) {
    let (Some(&first), Some(&last)) = (edges.first(), edges.last()) else {
        return;
    };
    let (lo, hi) = (key(first), key(last));
    let mut k = kills.partition_point(|&t| t < lo);
    let mut i = 0;
    while k < kills.len() && kills[k] <= hi {
        let j = i + first_at_least(&edges[i..], kills[k]);
        if j < edges.len() && key(edges[j]) == kills[k] {
            if j > i {
                f(&edges[i..j]);
            }
            cut(j as u32);
            i = j + 1;
        }
        k += 1;
    }
    if i < edges.len() {
        f(&edges[i..]);
    }
}

/// The first edge of `s` (sorted) whose key is at least `x`: a galloping
/// search from the front, the tombstones being sparse.
#[inline]
fn first_at_least(s: &[u32], x: u32) -> usize {
    let (mut lo, mut step) = (0, 1);
    while lo + step <= s.len() && key(s[lo + step - 1]) < x {
        lo += step;
        step *= 2;
    }
    let hi = (lo + step).min(s.len());
    lo + s[lo..hi].partition_point(|&e| key(e) < x)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The runs `filtered` yields are the edges less the tombstoned ones,
    /// in order, for tombstones at the ends, in runs, and outside the
    /// edges' range.
    #[test]
    fn filtered_runs_drop_exactly_the_tombstones() {
        let mut rng = crate::base::rng::SplitMix64::new(7);
        let mut next = || rng.next_u64();
        for round in 0..200 {
            let len = (next() % 300) as usize;
            let mut keys: Vec<u32> = (0..len).map(|_| (next() % 5000) as u32).collect();
            keys.sort_unstable();
            keys.dedup();
            let edges: Vec<u32> = keys.iter().map(|&k| k.rotate_right(16)).collect();
            let mut kills: Vec<u32> = Vec::new();
            for &k in &keys {
                if next() % 4 == 0 || round % 7 == 0 {
                    kills.push(k);
                }
            }
            kills.extend((0..5).map(|_| (next() % 6000) as u32));
            kills.sort_unstable();
            kills.dedup();
            let mut got = Vec::new();
            filtered(&edges, &kills, |run| {
                assert!(!run.is_empty());
                got.extend_from_slice(run)
            });
            let want: Vec<u32> = edges
                .iter()
                .copied()
                .filter(|&e| kills.binary_search(&key(e)).is_err())
                .collect();
            assert_eq!(got, want, "round {round}");
        }
    }

    /// A piece fed in frames is cut at its tombstones on the first pass
    /// (a search) and on the next ones (the kept positions), frames cut
    /// differently each time.
    #[test]
    fn kept_cuts_drop_exactly_the_tombstones() {
        let mut rng = crate::base::rng::SplitMix64::new(11);
        let mut next = || rng.next_u64();
        for round in 0..100 {
            let len = (next() % 400) as usize;
            let mut keys: Vec<u32> = (0..len).map(|_| (next() % 9000) as u32).collect();
            keys.sort_unstable();
            keys.dedup();
            let edges: Vec<u32> = keys.iter().map(|&k| k.rotate_right(16)).collect();
            let mut dead: Vec<u32> = keys.iter().copied().filter(|_| next() % 5 == 0).collect();
            dead.extend((0..3).map(|_| (next() % 9500) as u32));
            dead.sort_unstable();
            dead.dedup();
            let want: Vec<u32> = (edges.iter().copied())
                .filter(|&e| dead.binary_search(&key(e)).is_err())
                .collect();
            let slot: OnceLock<Box<[u32]>> = OnceLock::new();
            for pass in 0..3 {
                let mut cuts = PieceCuts {
                    dead: &dead,
                    known: slot.get().map(|c| &c[..]),
                    found: Vec::new(),
                    at: 0,
                    k: 0,
                    slot: &slot,
                };
                assert_eq!(cuts.known.is_some(), pass > 0);
                let mut got = Vec::new();
                let mut rest = &edges[..];
                while !rest.is_empty() {
                    let (frame, more) = rest.split_at(1 + (next() % 50) as usize % rest.len());
                    cuts.feed(frame, |run| {
                        assert!(!run.is_empty());
                        got.extend_from_slice(run)
                    });
                    rest = more;
                }
                cuts.finish();
                assert_eq!(got, want, "round {round}, pass {pass}");
            }
        }
    }
}
