//! Sorted streams of fixed-size records: from memory, or from the buckets
//! of a distribution sort ([`super::bucket`]). Ties between equal keys come
//! out in push order, so a consumer that keeps the last of equal keys
//! implements "last occurrence wins".

pub use crate::base::radix::{
    sort_cells, sort_records, sort_records_known, sort_records_with, KeyBits, Record,
};
use crate::error::Result;
use crate::mem::budget::Charge;

/// Records in key order: from memory, or from a distribution sort's
/// buckets. The stream can be read again from the start
/// ([`Sorted::rewind`]): records in memory are kept, bucket files stay on
/// disk until the stream is dropped (unless consumed once).
pub struct Sorted<R: Record> {
    inner: Inner<R>,
    _charge: Option<Charge>,
}

enum Inner<R: Record> {
    /// The records and the index of the next one.
    Memory(Vec<R>, usize),
    /// Buckets of a distribution sort, loaded one at a time.
    Buckets(Box<super::bucket::BucketStream<R>>),
}

impl<R: Record> Sorted<R> {
    /// Records sorted in memory, holding `charge`.
    pub(crate) fn memory(buf: Vec<R>, charge: Charge) -> Self {
        Sorted {
            inner: Inner::Memory(buf, 0),
            _charge: Some(charge),
        }
    }

    /// The buckets of a distribution sort (they carry their own charge).
    pub(crate) fn buckets(s: super::bucket::BucketStream<R>) -> Self {
        Sorted {
            inner: Inner::Buckets(Box::new(s)),
            _charge: None,
        }
    }

    /// The next record, or `None` at the end.
    #[inline]
    pub fn next_record(&mut self) -> Result<Option<R>> {
        match &mut self.inner {
            Inner::Memory(v, i) => {
                let r = v.get(*i).copied();
                *i += r.is_some() as usize;
                Ok(r)
            }
            Inner::Buckets(b) => b.next_record(),
        }
    }

    /// Appends the next records to `out` until it holds `max` (fewer only
    /// at the end); false when nothing was left. In-memory records are
    /// copied as slices, not one call per record.
    pub fn next_chunk(&mut self, out: &mut Vec<R>, max: usize) -> Result<bool> {
        let before = out.len();
        match &mut self.inner {
            Inner::Memory(v, i) => {
                let take = max.saturating_sub(out.len()).min(v.len() - *i);
                out.extend_from_slice(&v[*i..*i + take]);
                *i += take;
            }
            Inner::Buckets(b) => b.next_chunk(out, max)?,
        }
        Ok(out.len() > before)
    }

    /// Says the stream will not be rewound, so a distribution sort's bucket
    /// files can go as soon as they are read ([`super::bucket::BucketStream::consume_once`]).
    pub fn consume_once(&mut self) {
        if let Inner::Buckets(b) = &mut self.inner {
            b.consume_once();
        }
    }

    /// Starts the stream over: the next record is the first again.
    pub fn rewind(&mut self) -> Result<()> {
        match &mut self.inner {
            Inner::Memory(_, i) => *i = 0,
            Inner::Buckets(b) => b.rewind()?,
        }
        Ok(())
    }

    /// What a spilled distribution sort's stream did.
    pub fn bucket_stats(&self) -> Option<super::bucket::BucketStats> {
        match &self.inner {
            Inner::Buckets(b) => Some(b.stats()),
            Inner::Memory(..) => None,
        }
    }

    /// True when the records come from files on disk (a rewind reads them again).
    pub fn is_spilled(&self) -> bool {
        matches!(self.inner, Inner::Buckets(..))
    }
}

#[cfg(test)]
pub(crate) mod tests;
