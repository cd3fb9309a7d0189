//! A k-core batch's adjacency-list pieces as the select engine delivers them
//! (one per page of a list, in any order), and the merge of a vertex's
//! sorted out- and in-list into its neighbour set (no duplicates, not itself).

/// Per-thread scratch: one vertex's out- and in-list, its neighbour set and
/// the h-index counts.
#[derive(Default)]
pub(super) struct Scratch {
    out: Vec<u32>,
    inn: Vec<u32>,
    pub(super) set: Vec<u32>,
    pub(super) counts: Vec<u32>,
}

/// One piece of an adjacency list from the select engine.
#[derive(Clone, Copy)]
pub(super) struct Piece {
    pub(super) v: u32,
    /// Index of the engine (0 = out, 1 = in).
    pub(super) dir: u8,
    /// The piece's first neighbour: pieces of one list are disjoint sorted
    /// runs, so ordering them by it restores the sorted list.
    pub(super) first: u32,
    at: usize,
    len: u32,
}

/// A batch's list pieces, gathered as they arrive (in any page order).
#[derive(Default)]
pub(super) struct Gather {
    pub(super) flat: Vec<u32>,
    pub(super) pieces: Vec<Piece>,
}

impl Gather {
    pub(super) fn clear(&mut self) {
        self.flat.clear();
        self.pieces.clear();
    }

    pub(super) fn piece(&mut self, v: u32, dir: u8, nbrs: &[u32]) {
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
    pub(super) fn neighbours(&self, v: u32, r: std::ops::Range<usize>, sc: &mut Scratch) {
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
