//! Original <-> dense ids by positioned reads ([`IdLookup`]): what a single
//! query needs, without loading the maps ([`super::OriginalIds`]).

use super::*;
use crate::store::delta::{NewIds, Ranked};
use crate::store::pagesums;
use std::path::Path;

/// Original <-> dense ids by positioned reads of the id files, `order.bin`
/// and `order.inv`, without loading them: what a single query needs (a
/// lookup is a binary search over the ids plus one read of `order.inv`).
pub struct IdLookup {
    store: PathBuf,
    n: u64,
    ids: LookupIds,
    order: Option<(std::fs::File, std::fs::File)>,
    /// The vertices a delta adds (the I seam, [`NewIds`]).
    new: Option<NewIds>,
}

enum LookupIds {
    Identity,
    Ints(Paged),
    Strings { off: Paged, bytes: Paged },
}

/// An id file read by positioned reads, each checked against the file's
/// page sums ([`crate::store::pagesums`]) where the store has them (the
/// names' `ids.str` and `ids.off`; integer ids are checked by their order
/// instead, see [`IdLookup::original_of_rank`]): every
/// 4 KiB page a read reaches is read whole and hashed, and its sum read
/// from `NAME.xxh` beside it, so a damaged byte is an error naming the
/// file, never another vertex's id (these reads skip the whole-file
/// checksums `verify` checks). A damaged sum fails the same way. Stores
/// of names built before these sums existed are read unchecked.
struct Paged {
    rel: &'static str,
    file: std::fs::File,
    sums: Option<std::fs::File>,
    len: u64,
}

impl Paged {
    fn open(store: &Store, rel: &'static str) -> Result<Paged> {
        let open = |rel: &str| {
            let p = store.file(rel);
            std::fs::File::open(&p).at(&p)
        };
        let m = store.base();
        let sums = match m.files.contains_key(&pagesums::sums_file(rel)) {
            true => Some(open(&pagesums::sums_file(rel))?),
            false => None,
        };
        Ok(Paged {
            rel,
            file: open(rel)?,
            sums,
            len: m.files.get(rel).map_or(0, |f| f.bytes),
        })
    }

    /// Reads `buf.len()` bytes at `at` (of the store at `store`).
    fn read_at(&self, store: &Path, buf: &mut [u8], at: u64) -> Result<()> {
        let io = |e| Error::io(store.join(self.rel), e);
        let Some(sums) = &self.sums else {
            return self.file.read_exact_at(buf, at).map_err(io);
        };
        const P: u64 = pagesums::PAGE_BYTES;
        let end = at + buf.len() as u64;
        if buf.is_empty() || end > self.len {
            return match end > self.len {
                true => Err(Error::damaged(
                    store,
                    self.rel,
                    format!("a read ends at {end}, past its {} bytes", self.len),
                )),
                false => Ok(()),
            };
        }
        let lo = at / P * P;
        let hi = end.div_ceil(P).saturating_mul(P).min(self.len);
        let mut pages = vec![0u8; (hi - lo) as usize];
        self.file.read_exact_at(&mut pages, lo).map_err(io)?;
        for (k, page) in pages.chunks(P as usize).enumerate() {
            let p = lo / P + k as u64;
            let mut sum = [0u8; 8];
            sums.read_exact_at(&mut sum, 8 * p)
                .map_err(|e| Error::io(store.join(pagesums::sums_file(self.rel)), e))?;
            pagesums::check_page(store, self.rel, p, page, Some(u64::from_le_bytes(sum)))?;
        }
        buf.copy_from_slice(&pages[(at - lo) as usize..(end - lo) as usize]);
        Ok(())
    }
}

impl IdLookup {
    /// Opens the maps of `store`.
    pub fn open(store: &Store) -> Result<IdLookup> {
        let m = store.base();
        let open = |rel: &str| {
            let p = store.file(rel);
            std::fs::File::open(&p).at(&p)
        };
        let ids = if m.string_ids {
            LookupIds::Strings {
                off: Paged::open(store, IDS_OFF_FILE)?,
                bytes: Paged::open(store, IDS_STR_FILE)?,
            }
        } else if m.has_id_map {
            LookupIds::Ints(Paged::open(store, IDS_FILE)?)
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
            new: NewIds::load(store)?,
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
        self.inside(i, n)?;
        f.read_exact_at(&mut b, i * W as u64)
            .map_err(|e| Error::io(self.store.join(rel), e))?;
        Ok(b)
    }

    /// Entry `i` (of `n`) of the checked id file `f`, a little-endian u64.
    fn read_id(&self, f: &Paged, i: u64, n: u64) -> Result<u64> {
        let mut b = [0u8; 8];
        self.inside(i, n)?;
        f.read_at(&self.store, &mut b, 8 * i)?;
        Ok(u64::from_le_bytes(b))
    }

    fn inside(&self, i: u64, n: u64) -> Result<()> {
        match i < n {
            true => Ok(()),
            false => Err(Error::Invalid(format!(
                "vertex {i} is outside the {} vertices of the store",
                self.n
            ))),
        }
    }

    /// The rank of dense id `v`.
    ///
    /// `order.bin` and `order.inv` are inverse permutations: each lookup
    /// reads both and checks they agree, so a corrupted entry of either is
    /// an error rather than another vertex (these positioned reads skip the
    /// whole-file checksums `verify` checks).
    fn base_rank(&self, v: u64) -> Result<u64> {
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

    /// The dense id of base rank `r` (checked as [`Self::base_rank`]).
    fn base_dense_of_rank(&self, r: u64) -> Result<u64> {
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
        let why =
            format!("it and {ORDER_FILE} disagree (dense id {v}, rank {r}): one is corrupted");
        Err(Error::damaged(&self.store, ORDER_INV_FILE, why))
    }

    /// The name of rank `r` (string ids).
    fn name_of_rank(&self, off: &Paged, bytes: &Paged, r: u64) -> Result<Vec<u8>> {
        let a = self.read_id(off, r, self.n + 1)?;
        let b = self.read_id(off, r + 1, self.n + 1)?;
        if b < a || b - a > 1 << 30 {
            let why = format!("it does not index {IDS_STR_FILE}");
            return Err(Error::damaged(&self.store, IDS_OFF_FILE, why));
        }
        let mut name = vec![0u8; (b - a) as usize];
        bytes.read_at(&self.store, &mut name, a)?;
        Ok(name)
    }

    /// The original id of base rank `r`.
    fn base_original_of_rank(&self, r: u64) -> Result<Id<'static>> {
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
                let at = |i: u64| self.read_id(f, i, self.n);
                let id = at(r)?;
                let ok = (r == 0 || at(r - 1)? < id) && (r + 1 == self.n || at(r + 1)? > id);
                if !ok {
                    let why = format!("ids are not increasing at rank {r}");
                    return Err(Error::damaged(&self.store, IDS_FILE, why));
                }
                Ok(Id::Int(id))
            }
            LookupIds::Strings { off, bytes } => {
                Ok(Id::Name(Cow::Owned(self.name_of_rank(off, bytes, r)?)))
            }
        }
    }

    /// The rank of the vertex `id` as a user wrote it ([`parse_name`] for
    /// names; integer stores need an integer), if it is a vertex.
    fn base_rank_of_text(&self, id: &str) -> Result<Option<u64>> {
        let LookupIds::Strings { off, bytes } = &self.ids else {
            let v: u64 = id.trim().parse().map_err(|_| {
                Error::Invalid(format!(
                    "vertex id `{id}` is not an integer, and this store's ids are integers"
                ))
            })?;
            return self.base_rank_of_original(v);
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

    /// The base rank of integer id `id`, if it is a base vertex.
    fn base_rank_of_original(&self, id: u64) -> Result<Option<u64>> {
        let f = match &self.ids {
            LookupIds::Identity => return Ok((id < self.n).then_some(id)),
            LookupIds::Strings { .. } => return Ok(None),
            LookupIds::Ints(f) => f,
        };
        let at = |r: u64| self.read_id(f, r, self.n);
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
}

/// The view (base + delta, the I seam): base ranks shifted past the new
/// vertices before them, new vertices placed among them ([`NewIds`]).
impl IdLookup {
    /// The view's vertex count.
    fn n_view(&self) -> u64 {
        self.n + self.new.as_ref().map_or(0, |x| x.len())
    }

    fn outside(&self, v: u64) -> Error {
        let n = self.n_view();
        Error::Invalid(format!(
            "vertex {v} is outside the {n} vertices of the store"
        ))
    }

    /// The rank of dense id `v`.
    ///
    /// `order.bin` and `order.inv` are inverse permutations: each lookup
    /// reads both and checks they agree, so a corrupted entry of either is
    /// an error rather than another vertex (these positioned reads skip the
    /// whole-file checksums `verify` checks).
    pub fn rank(&self, v: u64) -> Result<u64> {
        match &self.new {
            None => self.base_rank(v),
            Some(new) if v < self.n => Ok(new.shift(self.base_rank(v)?)),
            Some(new) if v < self.n_view() => Ok(new.rank_of_new(v)),
            Some(_) => Err(self.outside(v)),
        }
    }

    /// What rank `r` of the view is.
    fn at_rank(&self, r: u64) -> Result<Ranked> {
        match &self.new {
            _ if r >= self.n_view() => Err(self.outside(r)),
            None => Ok(Ranked::Base(r)),
            Some(new) => Ok(new.at_rank(r)),
        }
    }

    /// The dense id of rank `r` (checked as [`Self::rank`]).
    pub fn dense_of_rank(&self, r: u64) -> Result<u64> {
        match self.at_rank(r)? {
            Ranked::Base(r) => self.base_dense_of_rank(r),
            Ranked::New(v) => Ok(v),
        }
    }

    /// The original id of rank `r`.
    pub fn original_of_rank(&self, r: u64) -> Result<Id<'static>> {
        match (self.at_rank(r)?, &self.new) {
            (Ranked::New(v), Some(new)) => Ok(new.id(v).into_owned()),
            (Ranked::Base(r), _) | (Ranked::New(r), None) => self.base_original_of_rank(r),
        }
    }

    /// The original id of dense id `v`.
    pub fn original(&self, v: u64) -> Result<Id<'static>> {
        match &self.new {
            Some(new) if v >= self.n && v < self.n_view() => Ok(new.id(v).into_owned()),
            Some(_) if v >= self.n => Err(self.outside(v)),
            _ => self.base_original_of_rank(self.base_rank(v)?),
        }
    }

    /// The rank of base rank `r`'s vertex, or of the new vertex `id`.
    fn view_rank(&self, base: Option<u64>, id: impl FnOnce() -> Id<'static>) -> Option<u64> {
        match (&self.new, base) {
            (None, r) => r,
            (Some(new), Some(r)) => Some(new.shift(r)),
            (Some(new), None) => new.find(&id()).map(|v| new.rank_of_new(v)),
        }
    }

    /// The rank of the vertex `id` as a user wrote it ([`parse_name`] for
    /// names; integer stores need an integer), if it is a vertex.
    pub fn rank_of_text(&self, id: &str) -> Result<Option<u64>> {
        let base = self.base_rank_of_text(id)?;
        Ok(self.view_rank(base, || match self.string_ids() {
            true => Id::Name(Cow::Owned(parse_name(id).into_owned())),
            false => Id::Int(id.trim().parse().expect("parsed as the base's")),
        }))
    }

    /// The rank of integer id `id`, if it is a vertex (`None` in a store of names).
    pub fn rank_of_original(&self, id: u64) -> Result<Option<u64>> {
        let base = self.base_rank_of_original(id)?;
        match self.string_ids() {
            true => Ok(None),
            false => Ok(self.view_rank(base, || Id::Int(id))),
        }
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
