//! Original ids <-> ranks <-> dense ids: in memory ([`OriginalIds`]) or by
//! positioned reads ([`IdLookup`]). Original ids are integers (`ids.bin`,
//! or none when they are already `0..n`) or names (`ids.str` + `ids.off`,
//! [`crate::ingest::names`]); either way they increase with the rank, so
//! "ascending original id" is "ascending rank".

use super::{file, Store, IDS_FILE, IDS_OFF_FILE, IDS_STR_FILE, ORDER_FILE, ORDER_INV_FILE};
use crate::error::{Error, IoContext, Result};
use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

/// An original vertex id: an integer, or a name (string ids).
///
/// Displayed as the integer, or as the name (UTF-8; invalid bytes shown as
/// U+FFFD) in double quotes with `""` for a quote when it is empty, starts
/// with `#`, or holds a blank, a control character or a quote, so that an
/// `id value` line always splits into two fields.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Id<'a> {
    Int(u64),
    Name(Cow<'a, [u8]>),
}

impl Id<'_> {
    /// The integer, for integer ids.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Id::Int(v) => Some(*v),
            Id::Name(_) => None,
        }
    }

    /// The id as an owned value.
    pub fn into_owned(self) -> Id<'static> {
        match self {
            Id::Int(v) => Id::Int(v),
            Id::Name(n) => Id::Name(Cow::Owned(n.into_owned())),
        }
    }
}

impl PartialEq<u64> for Id<'_> {
    fn eq(&self, o: &u64) -> bool {
        self.as_u64() == Some(*o)
    }
}

/// Integers before names; within a kind, the order of ranks.
impl Ord for Id<'_> {
    fn cmp(&self, o: &Self) -> Ordering {
        match (self, o) {
            (Id::Int(a), Id::Int(b)) => a.cmp(b),
            (Id::Name(a), Id::Name(b)) => a.cmp(b),
            (Id::Int(_), Id::Name(_)) => Ordering::Less,
            (Id::Name(_), Id::Int(_)) => Ordering::Greater,
        }
    }
}

impl PartialOrd for Id<'_> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl fmt::Display for Id<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Int(v) => write!(f, "{v}"),
            Id::Name(n) => {
                let text = String::from_utf8_lossy(n);
                let quote = n.is_empty()
                    || n[0] == b'#'
                    || n.iter().any(|&c| c <= b' ' || c == b'"' || c == 0x7f);
                if quote {
                    write!(f, "\"{}\"", text.replace('"', "\"\""))
                } else {
                    f.write_str(&text)
                }
            }
        }
    }
}

/// A vertex id as a user typed it (a source, a line of a vertex set): a
/// name with surrounding blanks trimmed and one pair of quotes removed
/// (`""` inside for a quote), as [`Id`] displays it.
pub fn parse_name(text: &str) -> Cow<'_, [u8]> {
    let t = text.trim();
    if t.len() >= 2 && t.starts_with('"') && t.ends_with('"') {
        let inner = &t[1..t.len() - 1];
        return Cow::Owned(inner.replace("\"\"", "\"").into_bytes());
    }
    Cow::Borrowed(t.as_bytes())
}

/// rank -> original id.
enum Names {
    /// The rank itself.
    Identity,
    Ints(Vec<u64>),
    /// `off[r]..off[r + 1]` of `bytes` is rank `r`'s name.
    Strings {
        off: Vec<u64>,
        bytes: Vec<u8>,
    },
}

/// The id maps in memory: dense id -> rank -> original id and back.
///
/// Original ids are increasing in the rank, so "ascending original id" is
/// "ascending rank", and the smallest original id of a set is the one of
/// its smallest rank.
pub struct OriginalIds {
    ids: Names,
    /// dense id -> rank (`None`: the same).
    rank: Option<Vec<u32>>,
    /// rank -> dense id (`None`: the same).
    dense: Option<Vec<u32>>,
}

impl OriginalIds {
    /// The identity maps (dense id = rank = original id).
    pub fn identity() -> OriginalIds {
        OriginalIds {
            ids: Names::Identity,
            rank: None,
            dense: None,
        }
    }

    /// Loads the maps of `store` (up to 16 bytes per vertex, plus the names).
    pub(super) fn load(store: &Store) -> Result<OriginalIds> {
        let m = store.manifest();
        let n = m.num_vertices;
        let ids = if m.string_ids {
            let off = file::read_u64s(&store.file(IDS_OFF_FILE))?;
            let bytes = std::fs::read(store.file(IDS_STR_FILE)).at(store.file(IDS_STR_FILE))?;
            check_offsets(store, &off, bytes.len() as u64)?;
            Names::Strings { off, bytes }
        } else if m.has_id_map {
            let ids = file::read_u64s(&store.file(IDS_FILE))?;
            if ids.len() as u64 != n {
                return Err(Error::store(
                    store.path(),
                    "ids.bin does not hold one id per vertex",
                ));
            }
            Names::Ints(ids)
        } else {
            Names::Identity
        };
        let rank = store.load_ranks()?;
        let dense = if m.has_order_map {
            Some(store.read_u32s(ORDER_INV_FILE)?)
        } else {
            None
        };
        Ok(OriginalIds { ids, rank, dense })
    }

    /// The original id of dense id `v`.
    #[inline]
    pub fn get(&self, v: u64) -> Id<'_> {
        self.original_of_rank(self.rank(v))
    }

    /// The rank of dense id `v`.
    #[inline]
    pub fn rank(&self, v: u64) -> u64 {
        match &self.rank {
            Some(r) => r[v as usize] as u64,
            None => v,
        }
    }

    /// The original id of rank `r`.
    #[inline]
    pub fn original_of_rank(&self, r: u64) -> Id<'_> {
        match &self.ids {
            Names::Identity => Id::Int(r),
            Names::Ints(ids) => Id::Int(ids[r as usize]),
            Names::Strings { off, bytes } => Id::Name(Cow::Borrowed(
                &bytes[off[r as usize] as usize..off[r as usize + 1] as usize],
            )),
        }
    }

    /// The dense id of rank `r`.
    #[inline]
    pub fn dense_of_rank(&self, r: u64) -> u64 {
        match &self.dense {
            Some(d) => d[r as usize] as u64,
            None => r,
        }
    }

    /// The rank of integer id `id`, if it is a vertex (binary search; `n`
    /// is the vertex count). Always `None` in a store of names.
    pub fn rank_of_original(&self, id: u64, n: u64) -> Option<u64> {
        match &self.ids {
            Names::Ints(ids) => ids.binary_search(&id).ok().map(|r| r as u64),
            Names::Identity => (id < n).then_some(id),
            Names::Strings { .. } => None,
        }
    }

    /// The dense id of integer id `id`, if it is a vertex.
    pub fn dense_of_original(&self, id: u64, n: u64) -> Option<u64> {
        self.rank_of_original(id, n).map(|r| self.dense_of_rank(r))
    }

    /// True when dense id = rank.
    pub fn order_is_identity(&self) -> bool {
        self.rank.is_none()
    }
}

/// `ids.off` must start at 0, never decrease, and end at the length of
/// `ids.str`, with one entry per vertex plus one.
fn check_offsets(store: &Store, off: &[u64], len: u64) -> Result<()> {
    let n = store.manifest().num_vertices;
    let ok = off.len() as u64 == n + 1
        && off.first() == Some(&0)
        && off.last() == Some(&len)
        && off.windows(2).all(|w| w[0] <= w[1]);
    if ok {
        Ok(())
    } else {
        Err(Error::store(
            store.path(),
            format!("{IDS_OFF_FILE} does not index {IDS_STR_FILE} (run `outcore verify`)"),
        ))
    }
}

/// Original <-> dense ids by positioned reads of the id files, `order.bin`
/// and `order.inv`, without loading them: what a single query needs (a
/// lookup is a binary search over the ids plus one read of `order.inv`).
pub struct IdLookup {
    store: PathBuf,
    n: u64,
    ids: LookupIds,
    order: Option<(std::fs::File, std::fs::File)>,
}

enum LookupIds {
    Identity,
    Ints(std::fs::File),
    Strings {
        off: std::fs::File,
        bytes: std::fs::File,
    },
}

impl IdLookup {
    /// Opens the maps of `store`.
    pub fn open(store: &Store) -> Result<IdLookup> {
        let m = store.manifest();
        let open = |rel: &str| {
            let p = store.file(rel);
            std::fs::File::open(&p).at(&p)
        };
        let ids = if m.string_ids {
            LookupIds::Strings {
                off: open(IDS_OFF_FILE)?,
                bytes: open(IDS_STR_FILE)?,
            }
        } else if m.has_id_map {
            LookupIds::Ints(open(IDS_FILE)?)
        } else {
            LookupIds::Identity
        };
        Ok(IdLookup {
            store: store.path().to_path_buf(),
            n: m.num_vertices,
            ids,
            order: if m.has_order_map {
                Some((open(ORDER_FILE)?, open(ORDER_INV_FILE)?))
            } else {
                None
            },
        })
    }

    /// True when the store's ids are names.
    pub fn string_ids(&self) -> bool {
        matches!(self.ids, LookupIds::Strings { .. })
    }

    fn read<const W: usize>(
        &self,
        f: &std::fs::File,
        rel: &str,
        i: u64,
        n: u64,
    ) -> Result<[u8; W]> {
        let mut b = [0u8; W];
        if i >= n {
            return Err(Error::Invalid(format!(
                "vertex {i} is outside the {} vertices of the store",
                self.n
            )));
        }
        f.read_exact_at(&mut b, i * W as u64)
            .map_err(|e| Error::io(self.store.join(rel), e))?;
        Ok(b)
    }

    /// The rank of dense id `v`.
    ///
    /// `order.bin` and `order.inv` are inverse permutations: each lookup
    /// reads both and checks they agree, so a corrupted entry of either is
    /// an error rather than another vertex (these positioned reads skip the
    /// whole-file checksums `verify` checks).
    pub fn rank(&self, v: u64) -> Result<u64> {
        let Some((bin, inv)) = &self.order else {
            return Ok(v);
        };
        let r = u32::from_le_bytes(self.read(bin, ORDER_FILE, v, self.n)?) as u64;
        self.agree(
            r < self.n && self.read_u32(inv, ORDER_INV_FILE, r)? == v,
            v,
            r,
        )?;
        Ok(r)
    }

    /// The dense id of rank `r` (checked as [`Self::rank`]).
    pub fn dense_of_rank(&self, r: u64) -> Result<u64> {
        let Some((bin, inv)) = &self.order else {
            return Ok(r);
        };
        let v = u32::from_le_bytes(self.read(inv, ORDER_INV_FILE, r, self.n)?) as u64;
        self.agree(v < self.n && self.read_u32(bin, ORDER_FILE, v)? == r, v, r)?;
        Ok(v)
    }

    fn read_u32(&self, f: &std::fs::File, rel: &str, i: u64) -> Result<u64> {
        Ok(u32::from_le_bytes(self.read(f, rel, i, self.n)?) as u64)
    }

    fn agree(&self, ok: bool, v: u64, r: u64) -> Result<()> {
        if ok {
            return Ok(());
        }
        Err(Error::store(
            &self.store,
            format!(
                "{ORDER_FILE} and {ORDER_INV_FILE} disagree (dense id {v}, rank {r}): the store is corrupted (run `outcore verify`)"
            ),
        ))
    }

    /// The name of rank `r` (string ids).
    fn name_of_rank(&self, off: &std::fs::File, bytes: &std::fs::File, r: u64) -> Result<Vec<u8>> {
        let a = u64::from_le_bytes(self.read(off, IDS_OFF_FILE, r, self.n + 1)?);
        let b = u64::from_le_bytes(self.read(off, IDS_OFF_FILE, r + 1, self.n + 1)?);
        if b < a || b - a > 1 << 30 {
            return Err(Error::store(
                &self.store,
                format!("{IDS_OFF_FILE} does not index {IDS_STR_FILE} (run `outcore verify`)"),
            ));
        }
        let mut name = vec![0u8; (b - a) as usize];
        bytes
            .read_exact_at(&mut name, a)
            .map_err(|e| Error::io(self.store.join(IDS_STR_FILE), e))?;
        Ok(name)
    }

    /// The original id of rank `r`.
    pub fn original_of_rank(&self, r: u64) -> Result<Id<'static>> {
        if r >= self.n {
            return Err(Error::Invalid(format!(
                "vertex {r} is outside the {} vertices of the store",
                self.n
            )));
        }
        match &self.ids {
            LookupIds::Identity => Ok(Id::Int(r)),
            LookupIds::Ints(f) => {
                // Ids increase with the rank: a corrupted entry usually
                // breaks that with a neighbour.
                let at = |i: u64| -> Result<u64> {
                    Ok(u64::from_le_bytes(self.read(f, IDS_FILE, i, self.n)?))
                };
                let id = at(r)?;
                let ok = (r == 0 || at(r - 1)? < id) && (r + 1 == self.n || at(r + 1)? > id);
                if !ok {
                    return Err(Error::store(
                        &self.store,
                        format!("{IDS_FILE} is not increasing at rank {r}: the store is corrupted (run `outcore verify`)"),
                    ));
                }
                Ok(Id::Int(id))
            }
            LookupIds::Strings { off, bytes } => {
                Ok(Id::Name(Cow::Owned(self.name_of_rank(off, bytes, r)?)))
            }
        }
    }

    /// The original id of dense id `v`.
    pub fn original(&self, v: u64) -> Result<Id<'static>> {
        self.original_of_rank(self.rank(v)?)
    }

    /// The rank of the vertex `id` as a user wrote it ([`parse_name`] for
    /// names; integer stores need an integer), if it is a vertex.
    pub fn rank_of_text(&self, id: &str) -> Result<Option<u64>> {
        let LookupIds::Strings { off, bytes } = &self.ids else {
            let v: u64 = id.trim().parse().map_err(|_| {
                Error::Invalid(format!(
                    "vertex id `{id}` is not an integer, and this store's ids are integers"
                ))
            })?;
            return self.rank_of_original(v);
        };
        let name = parse_name(id);
        let (mut lo, mut hi) = (0u64, self.n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.name_of_rank(off, bytes, mid)?.as_slice() < &*name {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let found = lo < self.n && self.name_of_rank(off, bytes, lo)?.as_slice() == &*name;
        Ok(found.then_some(lo))
    }

    /// The rank of integer id `id`, if it is a vertex (`None` in a store of names).
    pub fn rank_of_original(&self, id: u64) -> Result<Option<u64>> {
        let f = match &self.ids {
            LookupIds::Identity => return Ok((id < self.n).then_some(id)),
            LookupIds::Strings { .. } => return Ok(None),
            LookupIds::Ints(f) => f,
        };
        let at =
            |r: u64| -> Result<u64> { Ok(u64::from_le_bytes(self.read(f, IDS_FILE, r, self.n)?)) };
        let (mut lo, mut hi) = (0u64, self.n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if at(mid)? < id {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok((lo < self.n && at(lo)? == id).then_some(lo))
    }

    /// The dense id of integer id `id`, if it is a vertex.
    pub fn dense(&self, id: u64) -> Result<Option<u64>> {
        match self.rank_of_original(id)? {
            Some(r) => self.dense_of_rank(r).map(Some),
            None => Ok(None),
        }
    }

    /// The dense id of the vertex `id` as a user wrote it, if it is a vertex.
    pub fn dense_of_text(&self, id: &str) -> Result<Option<u64>> {
        match self.rank_of_text(id)? {
            Some(r) => self.dense_of_rank(r).map(Some),
            None => Ok(None),
        }
    }
}
