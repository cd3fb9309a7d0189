//! Simple neighbour lists on the select engine: for a batch of vertices,
//! each one's neighbours in the undirected simple graph, `out ∪ in` as a
//! set, without itself (what `networkx.core_number` sees; a list source
//! of the select engine beside [`SelectEngine::for_each_list`]).
//!
//! The engines (one per stored direction: "out", and "in" on a directed
//! store) deliver a batch's lists as pieces, one per page of a list, in any
//! page order (TurboGraph's pin-and-slide). The pieces are gathered, then
//! ordered by (vertex, direction, first neighbour), which restores each
//! sorted list; a vertex's out- and in-list are then merged without
//! duplicates or itself, on demand, into a per-thread [`Scratch`]. Ids are
//! of the caller's type `T` (u64 on a wide store).

use super::SelectEngine;
use crate::error::Result;
use crate::store::csr::Slot;
use std::ops::Range;

/// Per-thread scratch: one vertex's out- and in-list and its neighbour set.
pub struct Scratch<T> {
    out: Vec<T>,
    inn: Vec<T>,
    set: Vec<T>,
}

impl<T> Default for Scratch<T> {
    fn default() -> Self {
        Scratch {
            out: Vec::new(),
            inn: Vec::new(),
            set: Vec::new(),
        }
    }
}

impl<T> Scratch<T> {
    /// The neighbour set last built by [`Simple::neighbours`]: sorted,
    /// distinct, without the vertex.
    pub fn set(&self) -> &[T] {
        &self.set
    }
}

/// One piece of an adjacency list from the select engine.
#[derive(Clone, Copy)]
pub struct Piece<T> {
    v: T,
    /// Index of the engine (0 = out, 1 = in).
    dir: u8,
    /// The piece's first neighbour: pieces of one list are disjoint sorted
    /// runs, so ordering them by it restores the sorted list.
    first: T,
    at: usize,
    len: u32,
}

/// A batch's simple neighbour lists, gathered from the engines' pieces.
pub struct Simple<T> {
    flat: Vec<T>,
    pieces: Vec<Piece<T>>,
    /// The pieces of the batch's `i`-th vertex: `pieces[bounds[i]..bounds[i + 1]]`.
    bounds: Vec<usize>,
}

impl<T> Default for Simple<T> {
    fn default() -> Self {
        Simple {
            flat: Vec::new(),
            pieces: Vec::new(),
            bounds: Vec::new(),
        }
    }
}

impl<T: Slot> Simple<T> {
    /// Bytes of a piece record (one per vertex and page of its list), for
    /// the callers' batch charges.
    pub const PIECE_BYTES: u64 = std::mem::size_of::<Piece<T>>() as u64;

    /// Reads the lists of `vs` (ascending, distinct) from `engines` (the
    /// "out" engine, then on a directed store the "in" engine); returns the
    /// list entries read (before merging).
    pub fn gather(&mut self, engines: &mut [&mut SelectEngine], vs: &[T]) -> Result<u64> {
        self.clear();
        for (dir, e) in engines.iter_mut().enumerate() {
            e.for_each_list(vs, |v, nbrs| {
                self.piece(v, dir as u8, nbrs);
                Ok(())
            })?;
        }
        self.sort(vs);
        Ok(self.flat.len() as u64)
    }

    fn clear(&mut self) {
        self.flat.clear();
        self.pieces.clear();
        self.bounds.clear();
    }

    fn piece(&mut self, v: T, dir: u8, nbrs: &[T]) {
        self.pieces.push(Piece {
            v,
            dir,
            first: nbrs[0],
            at: self.flat.len(),
            len: nbrs.len() as u32,
        });
        self.flat.extend_from_slice(nbrs);
    }

    /// Orders the pieces and finds each vertex's of `vs` (ascending).
    fn sort(&mut self, vs: &[T]) {
        self.pieces.sort_unstable_by_key(|p| (p.v, p.dir, p.first));
        self.bounds.clear();
        self.bounds.reserve(vs.len() + 1);
        let mut at = 0usize;
        self.bounds.push(0);
        for &v in vs {
            while at < self.pieces.len() && self.pieces[at].v == v {
                at += 1;
            }
            self.bounds.push(at);
        }
        debug_assert_eq!(
            at,
            self.pieces.len(),
            "pieces of vertices outside the batch"
        );
    }

    fn range(&self, i: usize) -> Range<usize> {
        self.bounds[i]..self.bounds[i + 1]
    }

    /// The neighbour set of `v`, the batch's `i`-th vertex, without `v`,
    /// sorted, into `sc` ([`Scratch::set`]).
    pub fn neighbours(&self, i: usize, v: T, sc: &mut Scratch<T>) {
        sc.set.clear();
        sc.out.clear();
        sc.inn.clear();
        for p in &self.pieces[self.range(i)] {
            let list = &self.flat[p.at..p.at + p.len as usize];
            if p.dir == 0 {
                sc.out.extend_from_slice(list);
            } else {
                sc.inn.extend_from_slice(list);
            }
        }
        // A list a store's delta touches comes as its base pieces, then
        // its additions (the select engine's merge on read): in order again.
        for l in [&mut sc.out, &mut sc.inn] {
            if !l.is_sorted() {
                l.sort_unstable();
            }
        }
        if sc.inn.is_empty() {
            sc.set.extend(sc.out.iter().copied().filter(|&u| u != v));
            return;
        }
        // Each list is sorted and unique: merge the two without duplicates.
        let (a, b) = (&sc.out, &sc.inn);
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            let x = if j == b.len() || (i < a.len() && a[i] < b[j]) {
                i += 1;
                a[i - 1]
            } else if i == a.len() || b[j] < a[i] {
                j += 1;
                b[j - 1]
            } else {
                i += 1;
                j += 1;
                a[i - 1]
            };
            if x != v {
                sc.set.push(x);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_merge_pieces() {
        let mut g = Simple::<u32>::default();
        // Vertex 7: out-list 1 3 7 9 | 12 (two pages, arriving late page
        // first), in-list 3 5 | 9 12 20; vertex 8: out-list 1 3 only.
        g.piece(7, 0, &[12]);
        g.piece(8, 0, &[1, 3]);
        g.piece(7, 1, &[9, 12, 20]);
        g.piece(7, 0, &[1, 3, 7, 9]);
        g.piece(7, 1, &[3, 5]);
        g.sort(&[7, 8]);
        let mut sc = Scratch::default();
        g.neighbours(0, 7, &mut sc);
        assert_eq!(sc.set(), [1, 3, 5, 9, 12, 20]);
        g.neighbours(1, 8, &mut sc);
        assert_eq!(sc.set(), [1, 3]);
    }

    /// A wide store's lists merge on whole u64 ids: ids sharing their low 32
    /// bits stay apart, and only `v` itself (not its low half) is left out.
    #[test]
    fn neighbours_merge_wide_ids() {
        let far = 1u64 << 32;
        let v = far + 7;
        let mut g = Simple::<u64>::default();
        g.piece(v, 0, &[7, far + 3, v]);
        g.piece(v, 1, &[3, far + 3, 2 * far + 7]);
        g.sort(&[v]);
        let mut sc = Scratch::default();
        g.neighbours(0, v, &mut sc);
        assert_eq!(sc.set(), [3, 7, far + 3, 2 * far + 7]);
        // Out-list only (an undirected store).
        g.clear();
        g.piece(v, 0, &[7, far + 3, v]);
        g.sort(&[v]);
        g.neighbours(0, v, &mut sc);
        assert_eq!(sc.set(), [7, far + 3]);
    }
}
