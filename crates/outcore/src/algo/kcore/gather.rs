//! A k-core batch's adjacency-list pieces as the select engine delivers them
//! (one per page of a list, in any order), and the merge of a vertex's
//! sorted out- and in-list into its neighbour set (no duplicates, not itself).
//! Ids are of the select engine's caller's type `T` (u64 on a wide store).

use crate::store::csr::Slot;

/// Per-thread scratch: one vertex's out- and in-list, its neighbour set and
/// the h-index counts.
pub(super) struct Scratch<T> {
    out: Vec<T>,
    inn: Vec<T>,
    pub(super) set: Vec<T>,
    pub(super) counts: Vec<u32>,
}

impl<T> Default for Scratch<T> {
    fn default() -> Self {
        Scratch {
            out: Vec::new(),
            inn: Vec::new(),
            set: Vec::new(),
            counts: Vec::new(),
        }
    }
}

/// One piece of an adjacency list from the select engine.
#[derive(Clone, Copy)]
pub(super) struct Piece<T> {
    pub(super) v: T,
    /// Index of the engine (0 = out, 1 = in).
    pub(super) dir: u8,
    /// The piece's first neighbour: pieces of one list are disjoint sorted
    /// runs, so ordering them by it restores the sorted list.
    pub(super) first: T,
    at: usize,
    len: u32,
}

/// A batch's list pieces, gathered as they arrive (in any page order).
pub(super) struct Gather<T> {
    pub(super) flat: Vec<T>,
    pub(super) pieces: Vec<Piece<T>>,
}

impl<T> Default for Gather<T> {
    fn default() -> Self {
        Gather {
            flat: Vec::new(),
            pieces: Vec::new(),
        }
    }
}

impl<T: Slot> Gather<T> {
    pub(super) fn clear(&mut self) {
        self.flat.clear();
        self.pieces.clear();
    }

    pub(super) fn piece(&mut self, v: T, dir: u8, nbrs: &[T]) {
        self.pieces.push(Piece {
            v,
            dir,
            first: nbrs[0],
            at: self.flat.len(),
            len: nbrs.len() as u32,
        });
        self.flat.extend_from_slice(nbrs);
    }

    /// The neighbour set of `v` (its pieces are `pieces[r]`, sorted by
    /// direction and first neighbour) without `v`, sorted, into `sc.set`.
    pub(super) fn neighbours(&self, v: T, r: std::ops::Range<usize>, sc: &mut Scratch<T>) {
        sc.set.clear();
        sc.out.clear();
        sc.inn.clear();
        for p in &self.pieces[r] {
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
