//! The vertices in rank order (= ascending original id) with their dense ids
//! and original ids, streamed from `order.inv` and the id files: what writing
//! one line per vertex needs, in a few buffers whatever the vertex count
//! (the id maps are merged with the results, not loaded).

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
    name: Vec<u8>,
}

impl RankWalk {
    /// Opens the maps of `store`.
    pub fn open(store: &Store) -> Result<RankWalk> {
        let m = store.manifest();
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
            name: Vec::new(),
        })
    }

    /// The next vertex: (rank, dense id, original id), or `None` after the last.
    pub fn next_vertex(&mut self) -> Result<Option<(u64, u64, Id<'_>)>> {
        let r = self.next;
        if r >= self.n {
            return Ok(None);
        }
        self.next += 1;
        let dense = match &mut self.dense {
            Some(s) => {
                let mut b = [0u8; 4];
                s.read(&mut b)?;
                let v = u32::from_le_bytes(b) as u64;
                if v >= self.n {
                    let why = format!("dense id {v} is beyond the {} vertices", self.n);
                    return Err(s.0.damaged(why));
                }
                v
            }
            None => r,
        };
        let id = match (&mut self.ids, &mut self.names) {
            (Some(s), _) => Id::Int(s.u64()?),
            (None, Some((off, bytes, start))) => {
                let end = off.u64()?;
                if end < *start || end - *start > 1 << 30 {
                    return Err(off.0.damaged(format!("it does not index {IDS_STR_FILE}")));
                }
                self.name.resize((end - *start) as usize, 0);
                bytes.read(&mut self.name)?;
                *start = end;
                Id::Name(Cow::Borrowed(&self.name))
            }
            (None, None) => Id::Int(r),
        };
        Ok(Some((r, dense, id)))
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
        let m = store.manifest();
        Ok(LabelNames {
            lookup: match m.has_id_map || m.string_ids {
                true => Some(IdLookup::open(store)?),
                false => None,
            },
            last: None,
            cache: HashMap::new(),
        })
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
