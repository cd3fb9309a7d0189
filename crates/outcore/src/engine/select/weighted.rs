//! The select engine's weighted lists: the adjacency pieces first, then
//! the weight pages beside their slots (`weights/{dir}.f64`, one f64 a
//! slot), through the engine's weights pool.

use super::SelectEngine;
use crate::error::{Error, Result};
use crate::store::csr::Slot;

impl SelectEngine {
    /// Like [`for_each_list`](Self::for_each_list) with the weight of each
    /// neighbour (the engine must have been opened with weights).
    pub fn for_each_weighted<T: Slot>(
        &mut self,
        vs: &[T],
        mut f: impl FnMut(T, &[T], &[f64]) -> Result<()>,
    ) -> Result<()> {
        let Some(wf) = self.w_file else {
            return Err(Error::Invalid(
                "the select engine was opened without weights".into(),
            ));
        };
        // Gather the adjacency pieces first, then their weights.
        let mut pieces: Vec<(T, u64, usize, usize)> = Vec::new();
        let mut nbrs: Vec<T> = Vec::new();
        self.base_pieces(vs, |v, slot, _start, list| {
            pieces.push((v, slot, nbrs.len(), list.len()));
            nbrs.extend_from_slice(list);
            Ok(())
        })?;
        let per_page = self.page_bytes / 8;
        let mut pages: Vec<u64> = pieces
            .iter()
            .flat_map(|&(_, slot, _, len)| (slot / per_page)..=((slot + len as u64 - 1) / per_page))
            .collect();
        pages.sort_unstable();
        pages.dedup();
        self.pages_touched += pages.len() as u64;
        let mut weights = vec![0f64; nbrs.len()];
        // Pieces sorted by slot, to find those touching a page.
        let mut order: Vec<usize> = (0..pieces.len()).collect();
        order.sort_unstable_by_key(|&i| pieces[i].1);
        let pool = self.wts.as_mut().expect("weights pool");
        pool.for_each_page(&mut self.reader, wf, &pages, |page, bytes| {
            let (first, last) = (page * per_page, (page + 1) * per_page);
            // Pieces are at most a page of 4-byte slots long: start from those
            // beginning up to one page of slots earlier.
            let lo = order.partition_point(|&i| pieces[i].1 + 2 * per_page <= first);
            for &i in &order[lo..] {
                let (_, slot, at, len) = pieces[i];
                if slot >= last {
                    break;
                }
                let (s, e) = (slot.max(first), (slot + len as u64).min(last));
                for x in s..e {
                    let b = ((x - first) * 8) as usize;
                    weights[at + (x - slot) as usize] =
                        f64::from_le_bytes(bytes[b..b + 8].try_into().expect("8 bytes"));
                }
            }
            Ok(())
        })?;
        // With a delta, touched lists lose their removed entries and gain
        // their additions (`delta.rs`).
        let Some(d) = self.delta.clone() else {
            for &(v, _, at, len) in &pieces {
                f(v, &nbrs[at..at + len], &weights[at..at + len])?;
            }
            return Ok(());
        };
        let d = d.window(vs)?;
        let mut sc = super::delta::Scratch::default();
        for &(v, _, at, len) in &pieces {
            let (ns, ws) = (&nbrs[at..at + len], &weights[at..at + len]);
            match sc.kept(&d, v.get(), ns, ws) {
                None => f(v, ns, ws)?,
                Some(([], _)) => {}
                Some((kept, kw)) => f(v, kept, kw)?,
            }
        }
        sc.additions(&d, vs, f)
    }
}
