//! Nested distribution: a bucket too large to load is distributed again,
//! by a sorter of its own, rather than sorted as runs and merged (the
//! multi-level distribution sort; GraFBoost and external sample sort
//! recurse the same way when the fan-out one pass allows is short of the
//! data).
//!
//! A bucket overflows where its sorter's splitters missed: the first
//! buffer of a stream that comes in key order (sorted inputs; the remap's
//! stream, sorted inside each hash bucket) holds only the front of the key
//! range, and with a small budget the fan-out itself is short (at
//! `--memory 128MiB` kron-24's adjacency sorter gets 64 buckets of 8 M
//! records against a load capacity of 224 K). The nested sorter takes its
//! splitters from keys read at evenly spaced places across the bucket's
//! file ([`sample`]), so it splits the range the bucket really holds, then
//! is fed the whole file in order ([`feed`]), which keeps equal keys in
//! push order. When the sample finds one key, or a nesting did not divide
//! its bucket, one scan finds a split that does ([`split`]): the first
//! key and the first that differs. A bucket of one key throughout is read
//! back as it is ([`Feed`]). So each nesting makes its largest bucket
//! smaller, or the next one does: nesting ends.

use super::buckets::Packing;
use super::read::{Decoder, To};
use crate::error::{IoContext, Result};
use crate::ingest::sort::{KeyBits, Record};
use crate::io::fault;
use crate::io::{open_direct, Access, AlignedBuf, ALIGN};
use crate::mem::Budget;
use std::fs::File;
use std::path::{Path, PathBuf};

/// Places the sample is read from, and the records read at each.
const PLACES: u64 = 64;
const PER_PLACE: u64 = 1024;
/// Bytes per read when feeding.
pub(super) const FEED: usize = 4 << 20;

/// The tag of the sorter nested in bucket `bucket` of a sorter tagged
/// `parent` (the scratch numbers its files apart).
pub(super) fn tag(parent: &str, bucket: usize) -> String {
    format!("{parent}.{bucket}n")
}

/// Keys of records read from [`PLACES`] evenly spaced places of bucket
/// `bucket`'s file (`n` records), sorted, or, when the buckets have cells
/// (records of varying widths: no place to seek to), spread over its cells
/// as their counts say ([`Cells::sample`]); `None` when they are all one
/// key (no split would divide the bucket).
///
/// [`Cells::sample`]: super::cells::Cells::sample
pub(super) fn sample<R: Record>(
    path: &Path,
    n: u64,
    (pack, bucket): (&Packing, usize),
) -> Result<Option<Vec<u128>>> {
    if let Some(cells) = &pack.cells {
        return Ok(cells.sample(bucket, n, PLACES * PER_PLACE));
    }
    let code = pack.code(bucket);
    let rec = code.rec_bytes::<R>();
    let f = File::open(path).at(path)?;
    let per = PER_PLACE.min(n);
    let mut buf = vec![0u8; per as usize * rec];
    let mut keys = Vec::with_capacity((PLACES * per) as usize);
    for p in 0..PLACES {
        let first = (p * n / PLACES).min(n - per);
        fault::read_exact_at(&f, &mut buf, first * rec as u64).at(path)?;
        keys.extend(
            buf.chunks_exact(rec)
                .map(|c| code.decode::<R>(c).radix_key()),
        );
    }
    keys.sort_unstable();
    Ok(match keys.first() == keys.last() {
        true => None,
        false => Some(keys),
    })
}

/// The records of bucket `bucket`'s file (`n` of them) in file order, read
/// with `O_DIRECT` when `direct` and decoded a stretch at a time, so that
/// records packed narrower than they are in memory (a byte or two in a
/// cell) never outgrow the output's place, which the read buffers the
/// caller dropped had held.
pub(super) struct Feed<R: Record> {
    path: PathBuf,
    f: File,
    n: u64,
    buf: AlignedBuf,
    /// Bytes of the file read, and of them the ones holding records.
    at: u64,
    total: u64,
    /// The part of `buf` that holds records, and how far it is decoded.
    valid: usize,
    pos: usize,
    dec: Decoder<Packing>,
    to: To,
    /// Bytes decoded at a time: at most [`FEED`] records' worth.
    stretch: usize,
    _r: std::marker::PhantomData<R>,
}

impl<R: Record> Feed<R> {
    pub fn open(
        (path, n): (&Path, u64),
        (pack, bucket): (&Packing, usize),
        (budget, direct, size): (&Budget, bool, usize),
    ) -> Result<Self> {
        let (f, _) = open_direct(path, Access::Read, !direct)?;
        let size = size.min(FEED);
        let buf = AlignedBuf::new(size, budget, "bucket sort: nested feed")?;
        // A stretch decodes to at most `records()`: every record takes at
        // least `min_rec_bytes` of it (one cut by the last stretch's end
        // takes at least one byte of this one and completes with what was
        // carried).
        let stretch = (size / std::mem::size_of::<R>().max(1)) * pack.min_rec_bytes::<R>(bucket);
        Ok(Feed {
            path: path.to_path_buf(),
            f,
            n,
            buf,
            at: 0,
            total: pack.len[bucket],
            valid: 0,
            pos: 0,
            dec: Decoder::new(pack.clone(), bucket),
            // Whoever takes the records plans their sorts.
            to: To::Append(KeyBits::default()),
            stretch,
            _r: std::marker::PhantomData,
        })
    }

    /// The most records one [`Self::next`] appends: as many as its read
    /// buffer's bytes would hold decoded.
    pub fn records(&self) -> usize {
        self.buf.len() / std::mem::size_of::<R>().max(1)
    }

    /// Appends the records of the next stretch to `out` (maybe none);
    /// false at the end of the file, which is checked whole.
    pub fn next(&mut self, out: &mut Vec<R>) -> Result<bool> {
        if self.pos == self.valid {
            if self.at >= self.total {
                return match self.dec.ended(self.n) {
                    true => Ok(false),
                    false => Err(super::read::damaged(&self.path)),
                };
            }
            let left = self.total - self.at;
            let want = left
                .next_multiple_of(ALIGN as u64)
                .min(self.buf.len() as u64) as usize;
            let buf = &mut self.buf.as_mut_slice()[..want];
            fault::read_exact_at(&self.f, buf, self.at).at(&self.path)?;
            (self.valid, self.pos) = (want.min(left as usize), 0);
            self.at += want as u64;
        }
        let end = (self.pos + self.stretch).min(self.valid);
        let data = &self.buf.as_slice()[self.pos..end];
        self.dec.push(data, out, &mut self.to);
        self.pos = end;
        Ok(true)
    }
}

/// Hands the records of bucket `bucket`'s file to `sink` in order, at most
/// [`FEED`] bytes of them at a time ([`Feed`]).
pub(super) fn feed<R: Record>(
    file: (&Path, u64),
    bucket: (&Packing, usize),
    read: (&Budget, bool, usize),
    sink: &mut dyn FnMut(&[R]) -> Result<()>,
) -> Result<()> {
    let mut feed = Feed::<R>::open(file, bucket, read)?;
    let mut out: Vec<R> = Vec::with_capacity(feed.records());
    while feed.next(&mut out)? {
        sink(&out)?;
        out.clear();
    }
    Ok(())
}

/// Splitters that divide bucket `bucket`'s file for sure, when a sample
/// found none (or did not divide it): its first key and the first key that
/// differs, read in one scan that decodes only as far as that key; `None`
/// when every key is the first (the bucket is read back as it is: spills
/// keep push order, which is the order of equal keys).
pub(super) fn split<R: Record>(
    file: (&Path, u64),
    bucket: (&Packing, usize),
    read: (&Budget, bool, usize),
) -> Result<Option<Vec<u128>>> {
    let mut feed = Feed::<R>::open(file, bucket, read)?;
    let mut out: Vec<R> = Vec::with_capacity(feed.records());
    let mut first = None;
    while feed.next(&mut out)? {
        for r in &out {
            let k = r.radix_key();
            match first {
                None => first = Some(k),
                Some(f) if f != k => return Ok(Some(vec![f, k])),
                Some(_) => {}
            }
        }
        out.clear();
    }
    Ok(None)
}
