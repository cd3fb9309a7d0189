//! The ranks of dense ids (`order.bin`), in memory or streamed: with a
//! delta, the view's ranks ([`super::delta::ids`], the I seam: base rank
//! `r` shifted by the new vertices before it, new vertices placed among
//! them), what a rebuild's ranks are.

use super::delta::NewIds;
use super::{file, OriginalIds, Store, ORDER_FILE};
use crate::error::{Error, Result};

impl Store {
    /// Loads the id maps of the view: dense id -> rank -> original id, and
    /// back (each part absent when it is the identity). Holds up to 16
    /// bytes per vertex.
    pub fn load_ids(&self) -> Result<OriginalIds> {
        OriginalIds::load(self)
    }

    /// Loads the base files' id maps (what checks of the base read).
    pub fn load_base_ids(&self) -> Result<OriginalIds> {
        OriginalIds::load_base(self)
    }

    /// The rank of every dense id of the view, or `None` when dense id =
    /// rank. With new vertices ([`NewIds`]) always `Some`.
    pub fn load_ranks(&self) -> Result<Option<Vec<u32>>> {
        let base = self.load_base_ranks()?;
        let Some(new) = NewIds::load(self)? else {
            return Ok(base);
        };
        view_fits(self, &new)?;
        let n_base = new.n_base();
        let mut out: Vec<u32> = match base {
            Some(r) => r.into_iter().map(|r| new.shift(r as u64) as u32).collect(),
            None => (0..n_base).map(|r| new.shift(r) as u32).collect(),
        };
        out.extend((n_base..n_base + new.len()).map(|v| new.rank_of_new(v) as u32));
        Ok(Some(out))
    }

    /// The base's `order.bin` (dense id -> base rank), or `None` when
    /// dense id = rank: what checks of the base files read.
    pub fn load_base_ranks(&self) -> Result<Option<Vec<u32>>> {
        if !self.base.has_order_map {
            return Ok(None);
        }
        self.read_u32s(ORDER_FILE).map(Some)
    }

    /// Streams the ranks of dense ids `0..n` of the view in order:
    /// `f(first dense id, ranks)` per chunk. Returns false (and calls
    /// nothing) when dense id = rank.
    pub fn for_each_rank(&self, mut f: impl FnMut(u64, &[u32])) -> Result<bool> {
        let new = NewIds::load(self)?;
        if let Some(new) = &new {
            view_fits(self, new)?;
        }
        let shift = |buf: &mut Vec<u32>| {
            if let Some(new) = &new {
                buf.iter_mut()
                    .for_each(|r| *r = new.shift(*r as u64) as u32);
            }
        };
        let n = self.base.num_vertices;
        let mut buf: Vec<u32> = Vec::new();
        if !self.base.has_order_map {
            if new.is_none() {
                return Ok(false);
            }
            for first in (0..n).step_by(1 << 16) {
                buf.clear();
                buf.extend((first..n.min(first + (1 << 16))).map(|r| r as u32));
                shift(&mut buf);
                f(first, &buf);
            }
        } else {
            let path = self.file(ORDER_FILE);
            let mut next = 0u64;
            file::read_chunks(&path, 4, |b| {
                buf.clear();
                buf.extend(
                    b.chunks_exact(4)
                        .map(|c| u32::from_le_bytes(c.try_into().unwrap())),
                );
                if buf.iter().any(|&r| r as u64 >= n) {
                    let why = format!("it holds a rank beyond the {n} vertices");
                    return Err(Error::damaged(&self.path, ORDER_FILE, why));
                }
                shift(&mut buf);
                f(next, &buf);
                next += buf.len() as u64;
                Ok(())
            })?;
            if next != n {
                let why = "it does not hold one rank per vertex";
                return Err(Error::damaged(&self.path, ORDER_FILE, why));
            }
        }
        if let Some(new) = &new {
            buf.clear();
            buf.extend((n..n + new.len()).map(|v| new.rank_of_new(v) as u32));
            f(n, &buf);
        }
        Ok(true)
    }

    /// The view ranks of dense ids `0, 1, ...` one at a time (a buffered
    /// scan of `order.bin`, or the dense ids themselves when dense id =
    /// rank; shifted past the new vertices with a delta).
    pub fn rank_reader(&self) -> Result<RankStream> {
        let file = if self.base.has_order_map {
            Some(file::CheckedStream::open(&self.file(ORDER_FILE))?)
        } else {
            None
        };
        Ok(RankStream {
            file,
            next: 0,
            n: self.base.num_vertices,
            new: NewIds::load(self)?,
        })
    }
}

/// Ranks of the view in u32 (what `order.bin` holds): a view past them
/// is refused.
fn view_fits(store: &Store, new: &NewIds) -> Result<()> {
    match u32::try_from(new.n_base() + new.len()) {
        Ok(_) => Ok(()),
        Err(_) => Err(Error::store(
            store.path(),
            "its delta's new vertices take it past 2^32 vertices; run `outcore compact` on it",
        )),
    }
}

/// Ranks in dense-id order, from [`Store::rank_reader`].
pub struct RankStream {
    file: Option<file::CheckedStream>,
    next: u64,
    /// The base's vertices (`order.bin` holds their ranks).
    n: u64,
    new: Option<NewIds>,
}

impl RankStream {
    /// The rank of the next dense id.
    pub fn next_rank(&mut self) -> Result<u64> {
        let v = self.next;
        self.next += 1;
        let r = match (&mut self.file, &self.new) {
            (_, Some(new)) if v >= self.n => return Ok(new.rank_of_new(v)),
            (None, _) => v,
            (Some(r), _) => {
                let mut b = [0u8; 4];
                r.read_exact(&mut b)?;
                let x = u32::from_le_bytes(b);
                if x as u64 >= self.n {
                    let why = format!("rank {x} of dense id {v} is beyond the {} vertices", self.n);
                    return Err(r.damaged(why));
                }
                x as u64
            }
        };
        Ok(self.new.as_ref().map_or(r, |new| new.shift(r)))
    }

    /// The ranks of the next `out.len()` dense ids, in one read (what a
    /// parallel pass over the vertices reads ahead of its batch).
    pub fn next_ranks(&mut self, out: &mut [u64], buf: &mut Vec<u8>) -> Result<()> {
        let first = self.next;
        let k = match &self.new {
            Some(_) => self.n.saturating_sub(first).min(out.len() as u64) as usize,
            None => out.len(),
        };
        let (based, added) = out.split_at_mut(k);
        self.next_base_ranks(first, based, buf)?;
        if let Some(new) = &self.new {
            new_ranks(new, first + k as u64, added);
            new_ranks_shift(new, based);
        }
        self.next = first + out.len() as u64;
        Ok(())
    }

    fn next_base_ranks(&mut self, first: u64, out: &mut [u64], buf: &mut Vec<u8>) -> Result<()> {
        let Some(r) = &mut self.file else {
            out.iter_mut().zip(first..).for_each(|(o, v)| *o = v);
            return Ok(());
        };
        buf.resize(4 * out.len(), 0);
        r.read_exact(buf)?;
        for (o, c) in out.iter_mut().zip(buf.chunks_exact(4)) {
            *o = u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as u64;
        }
        if let Some(i) = out.iter().position(|&x| x >= self.n) {
            let (x, v) = (out[i], first + i as u64);
            let why = format!("rank {x} of dense id {v} is beyond the {} vertices", self.n);
            return Err(r.damaged(why));
        }
        Ok(())
    }
}

/// The view ranks of new vertices `first..` into `out`.
fn new_ranks(new: &NewIds, first: u64, out: &mut [u64]) {
    out.iter_mut()
        .zip(first..)
        .for_each(|(o, v)| *o = new.rank_of_new(v));
}

/// Base ranks `out` shifted to the view's, in place.
fn new_ranks_shift(new: &NewIds, out: &mut [u64]) {
    out.iter_mut().for_each(|r| *r = new.shift(*r));
}
