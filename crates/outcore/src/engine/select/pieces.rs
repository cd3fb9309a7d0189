//! The select engine's adjacency pieces (TurboGraph's pin-and-slide):
//! each requested list's pages through the buffer pool, a piece per page
//! as soon as it is read, and with a delta the touched lists merged
//! (`delta.rs`).

use super::{delta, SelectEngine, PIECE_WINDOW};
use crate::error::{Error, Result};
use crate::store::csr::Slot;

impl SelectEngine {
    /// Adjacency pieces `(vertex, first slot, first slot of the list,
    /// neighbours)` page by page, [`PIECE_WINDOW`] vertices at a time;
    /// with a delta, a touched vertex's base pieces less their removed
    /// entries, then its additions as one more piece (slots 0) after its
    /// window's pages (`delta.rs`): a list's pieces are then not in
    /// neighbour order, nor are their positions those of the view.
    pub(super) fn pieces<T: Slot>(
        &mut self,
        vs: &[T],
        mut f: impl FnMut(T, u64, u64, &[T]) -> Result<()>,
    ) -> Result<()> {
        let Some(d) = self.delta.clone() else {
            return self.base_pieces(vs, f);
        };
        let mut sc = delta::Scratch::default();
        vs.chunks(PIECE_WINDOW).try_for_each(|w| {
            let d = d.window(w)?;
            self.pieces_of(w, &mut |v: T, slot, start, nbrs: &[T]| match sc.kept(
                &d,
                v.get(),
                nbrs,
                &[],
            ) {
                None => f(v, slot, start, nbrs),
                Some(([], _)) => Ok(()),
                Some((kept, _)) => f(v, slot, start, kept),
            })?;
            sc.additions(&d, w, |v, nbrs, _| f(v, 0, 0, nbrs))
        })
    }

    /// The base's adjacency pieces, as [`pieces`](Self::pieces) without
    /// the delta.
    pub(super) fn base_pieces<T: Slot>(
        &mut self,
        vs: &[T],
        mut f: impl FnMut(T, u64, u64, &[T]) -> Result<()>,
    ) -> Result<()> {
        vs.chunks(PIECE_WINDOW)
            .try_for_each(|w| self.pieces_of(w, &mut f))
    }

    /// [`pieces`](Self::pieces) of one window.
    fn pieces_of<T: Slot>(
        &mut self,
        vs: &[T],
        f: &mut impl FnMut(T, u64, u64, &[T]) -> Result<()>,
    ) -> Result<()> {
        let ranges = self.ranges(vs)?;
        let width = self.width;
        let slots_per_page = width.per_page(self.page_bytes);
        // (page, vertex index) for every page of every list.
        let mut touch: Vec<(u64, usize)> = Vec::new();
        for (i, &(s, e)) in ranges.iter().enumerate() {
            if e > s {
                for p in (s / slots_per_page)..=((e - 1) / slots_per_page) {
                    touch.push((p, i));
                }
            }
        }
        touch.sort_unstable();
        let mut pages: Vec<u64> = touch.iter().map(|t| t.0).collect();
        pages.dedup();
        self.pages_touched += pages.len() as u64;
        let mut list: Vec<T> = Vec::new();
        let (n, store_path, adj) = (self.n, &self.store_path, &self.rels[0]);
        self.adj
            .for_each_page(&mut self.reader, self.adj_file, &pages, |page, bytes| {
                let first = page * slots_per_page;
                let lo = touch.partition_point(|t| t.0 < page);
                let hi = touch.partition_point(|t| t.0 <= page);
                for &(_, i) in &touch[lo..hi] {
                    let (s, e) = ranges[i];
                    let (a, b) = (s.max(first) - first, e.min(first + slots_per_page) - first);
                    list.clear();
                    if width
                        .extend(bytes, a as usize, b as usize, &mut list)
                        .is_none()
                    {
                        let why = format!(
                            "the list of vertex {} holds an id beyond 32 bits",
                            vs[i].get()
                        );
                        return Err(Error::damaged(store_path, adj, why));
                    }
                    while list.last() == Some(&T::PAD) {
                        list.pop();
                    }
                    if let Some(u) = list.iter().map(|u| u.get()).find(|&u| u >= n) {
                        let why = format!(
                            "the list of vertex {} holds {u}, beyond the {n} vertices",
                            vs[i].get()
                        );
                        return Err(Error::damaged(store_path, adj, why));
                    }
                    if !list.is_empty() {
                        f(vs[i], s.max(first), s, &list)?;
                    }
                }
                Ok(())
            })
    }
}
