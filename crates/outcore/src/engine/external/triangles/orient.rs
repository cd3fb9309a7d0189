//! Step 1 of triangle listing: the neighbourhoods as sets ignoring
//! direction, oriented towards lower dense ids (higher degree), cut into
//! blocks that fit the budget.
//!
//! On a store with a delta (issue 53) the lists are the view's: a list the
//! delta touches is read whole and merged with its records (the LSM-style
//! merge on read of PartitionedVC's buffered updates,
//! [`crate::store::delta::merge`]), a new vertex's list is its additions.
//! New vertices take dense ids past the base's whatever their degree, so
//! the orientation is no longer by degree there: the listing stays exact
//! (any total order lists each triangle once), only a new hub's oriented
//! list is longer. `OUTCORE_DELTA_SKIP=triangles` reads the base alone
//! (the red check of the merge).

use super::super::words::{CodedSlots, WordStream};
use super::entry::Entry;
use super::{Bufs, Plan, PER_VERTEX};
use crate::error::{Error, Result};
use crate::io::Reader;
use crate::mem::Budget;
use crate::progress::Progress;
use crate::store::csr::{files, SlotWidth, PAD};
use crate::store::csrcode::PageDir;
use crate::store::delta::{merge, skip, DeltaLists};
use crate::store::pagesums::PageSums;
use crate::store::Store;
use std::sync::Arc;

/// One direction's lists, read in vertex order.
struct Lists<'a> {
    /// The store, the offsets and the adjacency, for errors.
    store: &'a Store,
    off_rel: String,
    adj_rel: String,
    off: &'a mut WordStream,
    adj: &'a mut WordStream,
    /// Slot where the current list starts.
    at: u64,
    /// Slots of the current list not yet read.
    left: u64,
    /// A coded adjacency: `adj` reads its bytes, this decodes them.
    coded: Option<CodedSlots>,
    /// Slots of two words each (a wide store, [`SlotWidth::Wide`]).
    wide: bool,
    /// The view's side: the base's vertices (those with base lists), the
    /// vertex [`Lists::start`] moves to next, and the delta's lists of this
    /// direction.
    n_base: u64,
    v: u64,
    delta: Option<&'a DeltaLists>,
    /// A touched or new vertex's list, merged whole, and the next position
    /// in it (`None`: the base list is read as it is).
    base_list: Vec<(u64, f64)>,
    merged: Vec<(u64, f64)>,
    at_merged: Option<usize>,
}

impl Lists<'_> {
    /// Moves to the next vertex's list: the base's, merged with the
    /// delta's records when it touches the vertex.
    fn start(&mut self, reader: &mut Reader) -> Result<()> {
        let v = self.v;
        self.v += 1;
        self.at_merged = None;
        if v < self.n_base {
            self.start_base(reader)?;
        } else {
            self.skip(reader)?;
        }
        match self.delta.and_then(|d| d.lookup(v)) {
            Some(r) => {
                self.base_list.clear();
                while let Some(u) = self.next_base(reader)? {
                    self.base_list.push((u, 1.0));
                }
                merge(&self.base_list, &r, &mut self.merged);
            }
            None if v < self.n_base => return Ok(()),
            None => self.merged.clear(),
        }
        self.at_merged = Some(0);
        Ok(())
    }

    /// Moves to the next vertex's base list.
    fn start_base(&mut self, reader: &mut Reader) -> Result<()> {
        self.skip(reader)?;
        let end = self.off.next_u64(reader)?;
        if end < self.at {
            let why = format!("offsets decrease ({} after {})", end, self.at);
            return Err(Error::damaged(self.store.path(), &self.off_rel, why));
        }
        self.left = end - self.at;
        self.at = end;
        Ok(())
    }

    /// The list's next neighbour.
    #[inline]
    fn next(&mut self, reader: &mut Reader) -> Result<Option<u64>> {
        match self.at_merged {
            Some(i) => {
                self.at_merged = Some(i + 1);
                Ok(self.merged.get(i).map(|e| e.0))
            }
            None => self.next_base(reader),
        }
    }

    /// The base list's next neighbour (padding ends the list).
    #[inline]
    fn next_base(&mut self, reader: &mut Reader) -> Result<Option<u64>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        let x = match &mut self.coded {
            Some(c) => c.next(self.adj, reader)?,
            None if self.wide => Some(self.adj.next_u64(reader)?).filter(|&x| x != u64::MAX),
            None => Some(self.adj.next(reader)?)
                .filter(|&x| x != PAD)
                .map(u64::from),
        };
        if x.is_none() {
            self.skip(reader)?;
        }
        Ok(x)
    }

    /// Skips what is left of the current list.
    fn skip(&mut self, reader: &mut Reader) -> Result<()> {
        let left = std::mem::take(&mut self.left) as usize;
        match &mut self.coded {
            Some(c) => c.skip(self.adj, reader, left),
            None => self.adj.skip(reader, left << self.wide as u32),
        }
    }
}

/// A block holds fewer vertices than this (its local ids are u32s shifted
/// left by one).
const MAX_BLOCK_VERTICES: u64 = 1 << 31;

/// Writes the meta file (`|N(v)|, |N+(v)|` per vertex, two u32s) and the
/// oriented lists (entries `E`); returns the blocks as (first vertex, first
/// entry), plus (n, entries).
pub(super) fn orient<E: Entry>(
    store: &Store,
    reader: &mut Reader,
    p: &Plan,
    bufs: &mut Bufs,
    [meta, adj]: [usize; 2],
    budget: &Budget,
    progress: &mut Progress,
) -> Result<Vec<(u64, u64)>> {
    let m = store.manifest();
    let n = m.num_vertices;
    let n_base = store.base().num_vertices;
    let dirs: &[(&str, u64)] = if m.directed {
        &[("out", m.csr.out_slots), ("in", m.csr.in_slots)]
    } else {
        &[("out", m.csr.out_slots)]
    };
    // The delta's lists, held while the lists are oriented; a touched
    // list is merged whole (the base's and the view's largest degrees).
    let mut deltas = Vec::new();
    let mut _held = Vec::new();
    for &(d, _) in dirs {
        let l = match skip("triangles") {
            true => None,
            false => DeltaLists::load(store, d)?,
        };
        if let Some(l) = &l {
            let (b, v) = (&store.base().degrees, &m.degrees);
            let longest = b.max_out.max(b.max_in) + v.max_out.max(v.max_in);
            _held.push(budget.charge(
                l.memory_bytes() + 16 * longest,
                "delta lists merged into triangle listing",
            )?);
        }
        deltas.push(l);
    }
    let mut lists = Vec::new();
    let Bufs { s, out } = bufs;
    for ((&(d, slots), pair), delta) in dirs.iter().zip(s.chunks_exact_mut(2)).zip(&deltas) {
        let (a, o, _) = files(d);
        let of = store.open_in(reader, &o, "offsets")?;
        let [off, adj] = pair else { unreachable!() };
        let coded = PageDir::load(store, d, budget)?.map(Arc::new);
        let sums = |rel: &str| PageSums::load(store, rel, budget);
        off.seek_checked(reader, of, 0, 2 * (n_base + 1), sums(&o)?)?;
        match &coded {
            Some(dir) => {
                let (adz, _) = crate::store::csrcode::files(d);
                let zf = store.open_in(reader, &adz, "adjacency")?;
                adj.seek_bytes(reader, zf, 0, dir.coded_bytes(), sums(&adz)?)?;
            }
            None => {
                let af = store.open_in(reader, &a, "adjacency")?;
                // Words: two a slot in a wide store.
                let words = slots * m.slot_width().bytes() / 4;
                adj.seek_checked(reader, af, 0, words, sums(&a)?)?;
            }
        }
        let l = Lists {
            store,
            off_rel: o.clone(),
            adj_rel: match &coded {
                Some(_) => crate::store::csrcode::files(d).0,
                None => a.clone(),
            },
            off,
            adj,
            at: 0,
            left: 0,
            coded: coded.map(|d| CodedSlots::new(d, m.slot_width())),
            wide: store.manifest().slot_width() == SlotWidth::Wide,
            n_base,
            v: 0,
            delta: delta.as_ref(),
            base_list: Vec::new(),
            merged: Vec::new(),
            at_merged: None,
        };
        if l.off.next_u64(reader)? != 0 {
            return Err(Error::damaged(
                store.path(),
                &o,
                "the first offset is not 0",
            ));
        }
        lists.push(l);
    }
    let [meta_out, adj_out] = out;
    meta_out.switch(reader, meta, 0)?;
    adj_out.switch(reader, adj, 0)?;
    let both_always = !m.directed;
    let mut blocks = vec![(0u64, 0u64)];
    let (mut cost, mut entries) = (0u64, 0u64);
    let mut heads = [None, None];
    let mut b = [0u8; 8];
    for v in 0..n {
        if v % (1 << 16) == 0 {
            crate::cancel::check()?;
            progress.tick(|| format!("orienting: vertex {v}/{n}"));
        }
        for (h, l) in heads.iter_mut().zip(lists.iter_mut()) {
            l.start(reader)?;
            *h = l.next(reader)?;
        }
        let (mut deg, mut len) = (0u64, 0u64);
        let mut last = None;
        loop {
            let u = match heads {
                [None, None] => break,
                [Some(a), None] => a,
                [None, Some(b)] => b,
                [Some(a), Some(b)] => a.min(b),
            };
            let mut both = both_always;
            let mut dirs_seen = 0;
            for (h, l) in heads.iter_mut().zip(lists.iter_mut()) {
                if *h == Some(u) {
                    dirs_seen += 1;
                    *h = l.next(reader)?;
                }
            }
            both |= dirs_seen == 2;
            if last.is_some_and(|x| x >= u) || u >= n {
                let why =
                    format!("the list of vertex {v} is not sorted or names a vertex beyond {n}");
                let rels: Vec<&str> = lists.iter().map(|l| l.adj_rel.as_str()).collect();
                return Err(Error::damaged(store.path(), &rels.join(" or "), why));
            }
            last = Some(u);
            if u == v {
                continue;
            }
            deg += 1;
            if u < v {
                len += 1;
                let k = E::oriented(u, both).put(&mut b);
                adj_out.push(reader, &b[..k])?;
            }
        }
        if len > p.max_list.min(u32::MAX as u64) || PER_VERTEX + p.per_entry * len > p.block {
            return Err(Error::Budget(format!(
                "vertex {v} has {len} neighbours of higher degree, more than triangle listing holds in --memory {}; raise --memory{}",
                crate::size::format_size(budget.limit()),
                if m.vertex_order == crate::store::VertexOrder::Degree {
                    ""
                } else {
                    " or build the store with --order degree"
                }
            )));
        }
        let deg = u32::try_from(deg).map_err(|_| {
            Error::Invalid(format!(
                "triangle listing: vertex {v} has {deg} neighbours, more than 2^32 - 1"
            ))
        })?;
        meta_out.push(reader, &deg.to_le_bytes())?;
        meta_out.push(reader, &(len as u32).to_le_bytes())?;
        let c = PER_VERTEX + p.per_entry * len;
        let start = blocks.last().expect("a first block");
        // Positions in a block are u32s, local ids u32s shifted by one.
        if cost + c > p.block
            || v - start.0 >= MAX_BLOCK_VERTICES - 1
            || entries + len - start.1 > u32::MAX as u64
        {
            blocks.push((v, entries));
            cost = 0;
        }
        cost += c;
        entries += len;
    }
    blocks.push((n, entries));
    for l in &mut lists {
        l.off.drain(reader)?;
        l.adj.drain(reader)?;
    }
    meta_out.finish_run(reader)?;
    meta_out.drain(reader)?;
    adj_out.finish_run(reader)?;
    adj_out.drain(reader)?;
    Ok(blocks)
}
