//! The vertices in rank order (= ascending original id) with their dense ids
//! and original ids, streamed from `order.inv` and the id files: what writing
//! one line per vertex needs, in a few buffers whatever the vertex count
//! (the id maps are merged with the results, not loaded). With a delta,
//! the base's vertices are merged with the new ones by original id (the I
//! seam, [`NewIds`]): the ranks are the view's.

use super::delta::NewIds;
use super::file::CheckedStream;
use super::{Id, IdLookup, Store, IDS_FILE, IDS_OFF_FILE, IDS_STR_FILE, ORDER_INV_FILE};
use crate::error::Result;
use std::borrow::Cow;
use std::collections::HashMap;

/// A map file read front to back, checked against the manifest at its end.
struct Stream(CheckedStream);

impl Stream {
    fn open(store: &Store, rel: &str) -> Result<Stream> {
        Ok(Stream(CheckedStream::open(&store.file(rel))?))
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<()> {
        self.0.read_exact(buf)
    }

    fn u64(&mut self) -> Result<u64> {
        let mut b = [0u8; 8];
        self.read(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }
}

/// Vertices in rank order; see the module docs.
pub struct RankWalk {
    n: u64,
    next: u64,
    dense: Option<Stream>,
    ids: Option<Stream>,
    names: Option<(Stream, Stream, u64)>,
    /// Bytes read at once from `dense` or `ids`.
    raw: Vec<u8>,
    /// The batch [`RankWalk::next_vertex`] serves from, and its place in it.
    cur: RankBatch,
    at: usize,
    /// With new vertices (the I seam, [`NewIds`]): them, the next by
    /// original id, the view rank of the next vertex, and the base's
    /// batch being merged with them.
    new: Option<Merge>,
}

/// The base's vertices in rank order merged with the new ones.
struct Merge {
    ids: NewIds,
    next_new: usize,
    next_rank: u64,
    base: RankBatch,
    at: usize,
}

/// Consecutive vertices in rank order: their dense ids and original ids.
#[derive(Default)]
pub struct RankBatch {
    /// The rank of the first.
    pub first: u64,
    /// Dense ids.
    pub dense: Vec<u64>,
    /// Original ids, when the store has an id map.
    ints: Vec<u64>,
    /// Names, when the store has string ids: `names[ends[i-1]..ends[i]]`.
    names: Vec<u8>,
    ends: Vec<usize>,
}

impl RankBatch {
    fn clear(&mut self, first: u64) {
        self.first = first;
        self.dense.clear();
        self.ints.clear();
        self.names.clear();
        self.ends.clear();
    }

    /// Appends a vertex (its id of the batch's kind).
    fn push(&mut self, dense: u64, id: &Id<'_>) {
        self.dense.push(dense);
        match id {
            Id::Int(x) => self.ints.push(*x),
            Id::Name(n) => {
                self.names.extend_from_slice(n);
                self.ends.push(self.names.len());
            }
        }
    }

    /// Appends `other`'s vertices `at..at + len`.
    fn extend_from(&mut self, other: &RankBatch, at: usize, len: usize) {
        let range = at..at + len;
        self.dense.extend_from_slice(&other.dense[range.clone()]);
        if !other.ints.is_empty() {
            self.ints.extend_from_slice(&other.ints[range]);
        } else if other.ends.is_empty() {
            // Ids are ranks.
            self.ints.extend(range.map(|i| other.first + i as u64));
        } else {
            range.for_each(|i| self.push_name(other, i));
        }
    }

    fn push_name(&mut self, other: &RankBatch, i: usize) {
        if let Id::Name(n) = other.id(i) {
            self.names.extend_from_slice(&n);
            self.ends.push(self.names.len());
        }
    }

    pub fn len(&self) -> usize {
        self.dense.len()
    }

    pub fn is_empty(&self) -> bool {
        self.dense.is_empty()
    }

    /// The batch's original ids when they are integers (the id map's, or
    /// the ranks themselves in a store without one); `None` for names.
    pub fn int_ids(&self) -> Option<IntIds<'_>> {
        if !self.ints.is_empty() {
            Some(IntIds::Of(&self.ints))
        } else if !self.ends.is_empty() {
            None
        } else {
            Some(IntIds::From(self.first))
        }
    }

    /// The original id of the `i`th vertex.
    pub fn id(&self, i: usize) -> Id<'_> {
        if !self.ints.is_empty() {
            Id::Int(self.ints[i])
        } else if !self.ends.is_empty() {
            let start = if i == 0 { 0 } else { self.ends[i - 1] };
            Id::Name(Cow::Borrowed(&self.names[start..self.ends[i]]))
        } else {
            Id::Int(self.first + i as u64)
        }
    }
}

/// Integer original ids of consecutive vertices.
#[derive(Clone, Copy, Debug)]
pub enum IntIds<'a> {
    /// `first`, `first + 1`, ... (ids are ranks: the store has no id map).
    From(u64),
    /// One each.
    Of(&'a [u64]),
}

impl IntIds<'_> {
    /// The `i`th.
    #[inline]
    pub fn get(&self, i: usize) -> u64 {
        match self {
            IntIds::From(first) => first + i as u64,
            IntIds::Of(ids) => ids[i],
        }
    }
}

/// Vertices [`RankWalk::next_vertex`] reads at once.
const STEP: usize = 4096;

impl RankWalk {
    /// Opens the maps of `store`.
    pub fn open(store: &Store) -> Result<RankWalk> {
        let m = store.base();
        let names = match m.string_ids {
            true => {
                let mut off = Stream::open(store, IDS_OFF_FILE)?;
                let first = off.u64()?;
                Some((off, Stream::open(store, IDS_STR_FILE)?, first))
            }
            false => None,
        };
        Ok(RankWalk {
            n: m.num_vertices,
            next: 0,
            dense: match m.has_order_map {
                true => Some(Stream::open(store, ORDER_INV_FILE)?),
                false => None,
            },
            ids: match m.has_id_map {
                true => Some(Stream::open(store, IDS_FILE)?),
                false => None,
            },
            names,
            raw: Vec::new(),
            cur: RankBatch::default(),
            at: 0,
            new: NewIds::load(store)?.map(|ids| Merge {
                ids,
                next_new: 0,
                next_rank: 0,
                base: RankBatch::default(),
                at: 0,
            }),
        })
    }

    /// The next vertex: (rank, dense id, original id), or `None` after the last.
    pub fn next_vertex(&mut self) -> Result<Option<(u64, u64, Id<'_>)>> {
        if self.at == self.cur.len() {
            let mut cur = std::mem::take(&mut self.cur);
            let more = self.next_batch(STEP, &mut cur);
            self.cur = cur;
            self.at = 0;
            if !more? {
                return Ok(None);
            }
        }
        let i = self.at;
        self.at += 1;
        let r = self.cur.first + i as u64;
        Ok(Some((r, self.cur.dense[i], self.cur.id(i))))
    }

    /// The next `max` vertices (fewer at the end) into `b`; false after the
    /// last. Not to be mixed with [`RankWalk::next_vertex`].
    pub fn next_batch(&mut self, max: usize, b: &mut RankBatch) -> Result<bool> {
        let Some(mut m) = self.new.take() else {
            return self.next_base_batch(max, b);
        };
        let got = self.merge_batch(&mut m, max, b);
        self.new = Some(m);
        got
    }

    /// [`Self::next_batch`] with new vertices: the base's next vertex, or
    /// the next new one when no more base ranks than its own are before
    /// it (an LSM-style merge of two sorted runs).
    fn merge_batch(&mut self, m: &mut Merge, max: usize, b: &mut RankBatch) -> Result<bool> {
        b.clear(m.next_rank);
        while b.len() < max {
            if m.at == m.base.len() && self.next < self.n {
                self.next_base_batch(STEP, &mut m.base)?;
                m.at = 0;
            }
            let base_rank = (m.at < m.base.len()).then(|| m.base.first + m.at as u64);
            match (m.ids.by_id().get(m.next_new), base_rank) {
                (Some(&(before, v)), r) if r.is_none_or(|r| before <= r) => {
                    b.push(v, &m.ids.id(v));
                    m.next_new += 1;
                }
                // The base's run before the next new vertex, at once.
                (next, Some(r)) => {
                    let until = next.map_or(usize::MAX, |e| (e.0 - r) as usize);
                    let len = until.min(m.base.len() - m.at).min(max - b.len());
                    b.extend_from(&m.base, m.at, len);
                    m.at += len;
                }
                _ => break,
            }
        }
        m.next_rank += b.len() as u64;
        Ok(!b.is_empty())
    }

    /// The base's next `max` vertices (fewer at the end) into `b`.
    fn next_base_batch(&mut self, max: usize, b: &mut RankBatch) -> Result<bool> {
        let k = (self.n - self.next).min(max as u64) as usize;
        b.clear(self.next);
        if k == 0 {
            return Ok(false);
        }
        let (n, raw) = (self.n, &mut self.raw);
        match &mut self.dense {
            Some(s) => {
                raw.resize(4 * k, 0);
                s.read(raw)?;
                let dense = raw
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().unwrap()));
                b.dense.extend(dense.map(u64::from));
                if let Some(&v) = b.dense.iter().find(|&&v| v >= n) {
                    let why = format!("dense id {v} is beyond the {n} vertices");
                    return Err(s.0.damaged(why));
                }
            }
            None => b.dense.extend(self.next..self.next + k as u64),
        }
        match (&mut self.ids, &mut self.names) {
            (Some(s), _) => {
                raw.resize(8 * k, 0);
                s.read(raw)?;
                let ids = raw
                    .chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().unwrap()));
                b.ints.extend(ids);
            }
            (None, Some((off, bytes, start))) => {
                for _ in 0..k {
                    let end = off.u64()?;
                    if end < *start || end - *start > 1 << 30 {
                        return Err(off.0.damaged(format!("it does not index {IDS_STR_FILE}")));
                    }
                    let at = b.names.len();
                    b.names.resize(at + (end - *start) as usize, 0);
                    bytes.read(&mut b.names[at..])?;
                    b.ends.push(b.names.len());
                    *start = end;
                }
            }
            (None, None) => {}
        }
        self.next += k as u64;
        Ok(true)
    }
}

/// Original ids of ranks named as values (WCC and CDLP labels): a label is
/// most often the vertex's own rank or one seen recently, else it is read
/// from the id files (positioned reads, a bounded cache).
pub struct LabelNames {
    lookup: Option<IdLookup>,
    /// The last label named (a giant component's label is most of them:
    /// no hashing for it).
    last: Option<(u64, Id<'static>)>,
    cache: HashMap<u64, Id<'static>>,
}

/// Labels remembered at most.
const CACHE: usize = 1 << 16;

impl LabelNames {
    pub fn open(store: &Store) -> Result<LabelNames> {
        let m = store.base();
        let new = store.manifest().num_vertices > m.num_vertices;
        Ok(LabelNames {
            lookup: match m.has_id_map || m.string_ids || new {
                true => Some(IdLookup::open(store)?),
                false => None,
            },
            last: None,
            cache: HashMap::new(),
        })
    }

    /// True when a label is its own original id (no id map, no names):
    /// [`LabelNames::name`] is then the identity.
    pub fn is_identity(&self) -> bool {
        self.lookup.is_none()
    }

    /// The original id of rank `label`; `own` is the rank being written and
    /// `own_id` its original id.
    pub fn name(&mut self, label: u64, own: u64, own_id: &Id<'_>) -> Result<Id<'static>> {
        let Some(lookup) = &self.lookup else {
            return Ok(Id::Int(label));
        };
        if label == own {
            return Ok(own_id.clone().into_owned());
        }
        if let Some((l, id)) = &self.last {
            if *l == label {
                return Ok(id.clone());
            }
        }
        let id = match self.cache.get(&label) {
            Some(id) => id.clone(),
            None => {
                let id = lookup.original_of_rank(label)?;
                if self.cache.len() == CACHE {
                    self.cache.clear();
                }
                self.cache.insert(label, id.clone());
                id
            }
        };
        self.last = Some((label, id.clone()));
        Ok(id)
    }
}
