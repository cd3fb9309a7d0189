//! Original ids <-> ranks <-> dense ids: in memory ([`OriginalIds`]) or by
//! positioned reads ([`IdLookup`]). Original ids are integers (`ids.bin`,
//! or none when they are already `0..n`) or names (`ids.str` + `ids.off`,
//! [`crate::ingest::names`]); either way they increase with the rank, so
//! "ascending original id" is "ascending rank".

mod lookup;

pub use lookup::IdLookup;

use super::delta::NewIds;
use super::{file, Store, IDS_FILE, IDS_OFF_FILE, IDS_STR_FILE, ORDER_FILE, ORDER_INV_FILE};
use crate::error::{Error, IoContext, Result};
use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

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

    /// Loads the maps of `store`'s view (up to 16 bytes per vertex, plus
    /// the names): with new vertices ([`NewIds`]), the base's merged with
    /// theirs by original id (an LSM-style merge on read).
    pub(super) fn load(store: &Store) -> Result<OriginalIds> {
        let base = Self::load_base(store)?;
        match NewIds::load(store)? {
            Some(new) => base.with_new(store, &new),
            None => Ok(base),
        }
    }

    /// Loads the maps of `store`'s base files.
    pub(super) fn load_base(store: &Store) -> Result<OriginalIds> {
        let m = store.base();
        let kind = IdFiles {
            n: m.num_vertices,
            string_ids: m.string_ids,
            has_id_map: m.has_id_map,
            has_order_map: m.has_order_map,
        };
        Self::load_in(store.path(), &kind)
    }

    /// These base maps merged with the new vertices `new`: every rank of
    /// the view, in order, is a base rank or the next new vertex.
    fn with_new(self, store: &Store, new: &NewIds) -> Result<OriginalIds> {
        let (n_base, k) = (new.n_base(), new.len());
        let n = n_base + k;
        if u32::try_from(n).is_err() {
            let why = "its delta's new vertices take it past 2^32 vertices; run `outcore compact`";
            return Err(Error::store(store.path(), why));
        }
        let mut rank = vec![0u32; n as usize];
        let mut dense = Vec::with_capacity(n as usize);
        let mut ids = match &self.ids {
            Names::Strings { .. } => Names::Strings {
                off: vec![0],
                bytes: Vec::new(),
            },
            _ => Names::Ints(Vec::with_capacity(n as usize)),
        };
        let (mut r, mut j) = (0u64, 0usize);
        let ins = new.by_id();
        for view_rank in 0..n {
            let (v, id) = match ins.get(j) {
                Some(&(before, v)) if before <= r || r == n_base => {
                    j += 1;
                    (v, new.id(v))
                }
                _ => {
                    r += 1;
                    (self.dense_of_rank(r - 1), self.original_of_rank(r - 1))
                }
            };
            rank[v as usize] = view_rank as u32;
            dense.push(v as u32);
            match (&mut ids, id) {
                (Names::Ints(x), Id::Int(i)) => x.push(i),
                (Names::Strings { off, bytes }, Id::Name(name)) => {
                    bytes.extend_from_slice(&name);
                    off.push(bytes.len() as u64);
                }
                _ => unreachable!("new ids are of the base's kind"),
            }
        }
        Ok(OriginalIds {
            ids,
            rank: Some(rank),
            dense: Some(dense),
        })
    }

    /// Loads the id files of the kind `kind` from the directory `dir` (a
    /// store's, or a partition's `ids/`): `ids.bin` or `ids.str` +
    /// `ids.off`, and `order.bin` + `order.inv`, each absent when it is
    /// the identity.
    pub fn load_in(dir: &Path, kind: &IdFiles) -> Result<OriginalIds> {
        let n = kind.n;
        let ids = if kind.string_ids {
            let off = file::read_u64s(&dir.join(IDS_OFF_FILE))?;
            let bytes = std::fs::read(dir.join(IDS_STR_FILE)).at(dir.join(IDS_STR_FILE))?;
            check_offsets(dir, n, &off, bytes.len() as u64)?;
            Names::Strings { off, bytes }
        } else if kind.has_id_map {
            let ids = file::read_u64s(&dir.join(IDS_FILE))?;
            if ids.len() as u64 != n {
                let why = "it does not hold one id per vertex";
                return Err(Error::damaged(dir, IDS_FILE, why));
            }
            Names::Ints(ids)
        } else {
            Names::Identity
        };
        let (rank, dense) = match kind.has_order_map {
            true => (
                Some(read_u32s(dir, ORDER_FILE, n)?),
                Some(read_u32s(dir, ORDER_INV_FILE, n)?),
            ),
            false => (None, None),
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

/// What id files a directory holds ([`OriginalIds::load_in`]).
#[derive(Clone, Debug)]
pub struct IdFiles {
    /// Vertices.
    pub n: u64,
    pub string_ids: bool,
    pub has_id_map: bool,
    pub has_order_map: bool,
}

/// A u32 file of `dir` holding one id below `n` per vertex.
fn read_u32s(dir: &Path, rel: &str, n: u64) -> Result<Vec<u32>> {
    let mut out = Vec::with_capacity(n as usize);
    file::read_chunks(&dir.join(rel), 4, |b| {
        out.extend(
            b.chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes"))),
        );
        Ok(())
    })?;
    if out.len() as u64 != n || out.iter().any(|&x| x as u64 >= n) {
        let why = format!("it does not hold one id below {n} per vertex");
        return Err(Error::damaged(dir, rel, why));
    }
    Ok(out)
}

/// `ids.off` must start at 0, never decrease, and end at the length of
/// `ids.str`, with one entry per vertex plus one.
fn check_offsets(dir: &Path, n: u64, off: &[u64], len: u64) -> Result<()> {
    let ok = off.len() as u64 == n + 1
        && off.first() == Some(&0)
        && off.last() == Some(&len)
        && off.windows(2).all(|w| w[0] <= w[1]);
    if ok {
        Ok(())
    } else {
        let why = format!("it does not index {IDS_STR_FILE}");
        Err(Error::damaged(dir, IDS_OFF_FILE, why))
    }
}
