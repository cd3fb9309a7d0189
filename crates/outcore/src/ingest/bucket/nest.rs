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
//! push order. A bucket no split can divide (one key throughout) or one
//! nested [`MAX_LEVEL`] deep is merged from runs instead.

use super::buckets::Packing;
use super::read::{Decoder, To};
use crate::error::{IoContext, Result};
use crate::ingest::sort::{KeyBits, Record};
use crate::io::fault;
use crate::io::{open_direct, Access, AlignedBuf, ALIGN};
use crate::mem::Budget;
use std::fs::File;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The deepest a sorter is nested; a bucket of one nested this deep that
/// still overflows is merged from runs.
pub(super) const MAX_LEVEL: u32 = 3;
/// Places the sample is read from, and the records read at each.
const PLACES: u64 = 64;
const PER_PLACE: u64 = 1024;
/// Bytes per read when feeding.
pub(super) const FEED: usize = 4 << 20;

/// The tag of the sorter nested in bucket `bucket` of a sorter tagged
/// `parent`, unique in the process: a stream rewound nests the bucket
/// again while the first nesting's files are still queued for removal
/// ([`crate::ingest::reap`]), so a reused name would lose the new files.
pub(super) fn tag(parent: &str, bucket: usize) -> String {
    static NESTINGS: AtomicU64 = AtomicU64::new(0);
    format!("{parent}.{bucket}n{}", NESTINGS.fetch_add(1, Relaxed))
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

/// Reads the `n` records of bucket `bucket`'s file in order (with
/// `O_DIRECT` when `direct`), handing them to `sink` 4 MiB (of decoded
/// records) at a time: each read is decoded a stretch at a time, so that
/// records packed narrower than they are in memory (a byte or two in a
/// cell) never outgrow the output's place, which the read buffers the
/// caller dropped had held.
pub(super) fn feed<R: Record>(
    (path, n): (&Path, u64),
    (pack, bucket): (&Packing, usize),
    (budget, direct): (&Budget, bool),
    sink: &mut dyn FnMut(&[R]) -> Result<()>,
) -> Result<()> {
    let (f, _) = open_direct(path, Access::Read, !direct)?;
    let mut buf = AlignedBuf::new(FEED, budget, "bucket sort: nested feed")?;
    let total = pack.len[bucket];
    let mut at = 0u64;
    let mut dec = Decoder::new(pack, bucket);
    let mut out: Vec<R> = Vec::with_capacity(FEED / std::mem::size_of::<R>().max(1));
    // A stretch decodes to at most `out`'s capacity: every record takes at
    // least `min_rec_bytes` of it (one cut by the last stretch's end takes
    // at least one byte of this one and completes with what was carried).
    let stretch = out.capacity() * pack.min_rec_bytes::<R>(bucket);
    // The nested sorter plans its own sorts.
    let mut to = To::Append(KeyBits::default());
    while at < total {
        let want = (total - at).next_multiple_of(ALIGN as u64).min(FEED as u64) as usize;
        fault::read_exact_at(&f, &mut buf.as_mut_slice()[..want], at).at(path)?;
        let valid = want.min((total - at) as usize);
        for data in buf.as_slice()[..valid].chunks(stretch) {
            out.clear();
            dec.push(data, &mut out, &mut to);
            sink(&out)?;
        }
        at += want as u64;
    }
    match dec.ended(n) {
        true => Ok(()),
        false => Err(super::read::damaged(path)),
    }
}
