//! Edges read at evenly spaced places of the input files, without reading
//! them all ([`EdgeSource::sample_edges`](crate::ingest::EdgeSource)): the
//! input sorter takes its splitters from them (external sample sort),
//! where the first buffer of a list sorted by source holds only its front.

use super::input::InputFile;
use super::pipeline::BlockParser;
use crate::error::{IoContext, Result};
use crate::ingest::{RawEdge, SAMPLE_PER_PLACE, SAMPLE_PLACES};
use std::fs::File;
use std::os::unix::fs::FileExt;

/// Bytes read at each place of a text file: lines of up to 64 bytes give
/// a place its [`SAMPLE_PER_PLACE`] edges.
const TEXT_PLACE: u64 = 64 << 10;

/// How the input's records are cut.
pub(super) enum Records {
    /// Fixed-size records (binary lists).
    Bytes(usize),
    /// Lines.
    Lines,
}

/// Up to [`SAMPLE_PER_PLACE`] edges from each of [`SAMPLE_PLACES`] places
/// spread evenly over `files` taken as one input, parsed by `parser`.
/// `None` when a file is compressed (it can only be read from its start),
/// the input is empty, or a place does not parse (the read proper says
/// where and why).
pub(super) fn sample<P: BlockParser<Item = RawEdge>>(
    files: &[InputFile],
    parser: &P,
    records: Records,
) -> Result<Option<Vec<RawEdge>>> {
    let total: u64 = files.iter().map(|f| f.size).sum();
    if total == 0 || files.iter().any(|f| f.gz) {
        return Ok(None);
    }
    let mut out = Vec::new();
    let mut edges = Vec::new();
    let mut buf = Vec::new();
    let mut opened: Option<(usize, File)> = None;
    for p in 0..SAMPLE_PLACES {
        // The file and offset of the place.
        let (mut i, mut at) = (0, p * total / SAMPLE_PLACES);
        while at >= files[i].size {
            at -= files[i].size;
            i += 1;
        }
        let f = &files[i];
        if opened.as_ref().is_none_or(|(j, _)| *j != i) {
            opened = Some((i, File::open(&f.path).at(&f.path)?));
        }
        let file = &opened.as_ref().expect("opened above").1;
        let (start, len) = match records {
            Records::Bytes(rec) => {
                let start = at - at % rec as u64;
                let len =
                    (SAMPLE_PER_PLACE * rec as u64).min((f.size - start) / rec as u64 * rec as u64);
                (start, len)
            }
            Records::Lines => (at, TEXT_PLACE.min(f.size - at)),
        };
        buf.resize(len as usize, 0);
        file.read_exact_at(&mut buf, start).at(&f.path)?;
        let data = match records {
            Records::Bytes(_) => &buf[..],
            // Whole lines: from after the first line break (a place may
            // start inside a line, and the first line of a file may be a
            // header) to the last.
            Records::Lines => {
                let first = buf.iter().position(|&b| b == b'\n');
                let last = buf.iter().rposition(|&b| b == b'\n');
                match (first, last) {
                    (Some(a), Some(b)) if a < b => &buf[a + 1..=b],
                    _ => continue,
                }
            }
        };
        edges.clear();
        if parser.parse(i, data, &mut edges).is_err() {
            return Ok(None);
        }
        out.extend(edges.iter().take(SAMPLE_PER_PLACE as usize).copied());
    }
    Ok((!out.is_empty()).then_some(out))
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::{FileSource, InputFormat, ParseOptions, DEFAULT_BLOCK_SIZE};
    use crate::ingest::{EdgeSource, RawEdge, SAMPLE_PER_PLACE, SAMPLE_PLACES};
    use std::collections::HashSet;
    use std::path::PathBuf;

    fn sample_of(files: &[PathBuf], format: InputFormat) -> Option<Vec<RawEdge>> {
        let opts = ParseOptions::default();
        let mut src = FileSource::open(files, format, &opts, DEFAULT_BLOCK_SIZE).unwrap();
        src.sample_edges().unwrap()
    }

    /// `n` edges sorted by (src, dst), src spread over `0..n / 8`.
    pub(crate) fn sorted_edges(n: u64) -> Vec<(u64, u64)> {
        (0..n).map(|i| (i / 8, (i * 7919) % 1000)).collect()
    }

    /// Checks that every sampled edge is an edge of the input and that the
    /// sample reaches across it: from the first 64th to the last one,
    /// about [`SAMPLE_PER_PLACE`] edges from each place.
    pub(crate) fn check(sample: &[RawEdge], edges: &[(u64, u64)]) {
        let all: HashSet<(u64, u64)> = edges.iter().copied().collect();
        assert!(sample.iter().all(|e| all.contains(&(e.src, e.dst))));
        let max_src = edges.last().unwrap().0;
        let top = sample.iter().map(|e| e.src).max().unwrap();
        let low = sample.iter().map(|e| e.src).min().unwrap();
        assert!(top >= max_src - max_src / 60, "{top} of {max_src}");
        assert!(low <= max_src / 60, "{low}");
        let want = SAMPLE_PLACES * SAMPLE_PER_PLACE;
        assert!(sample.len() as u64 >= want * 9 / 10, "{}", sample.len());
        assert!(sample.len() as u64 <= want);
    }

    #[test]
    fn binary_lists_are_sampled_across_all_their_files() {
        let dir = tempfile::tempdir().unwrap();
        let edges = sorted_edges(600_000);
        // Three files, split unevenly.
        let mut files = Vec::new();
        for (k, part) in [&edges[..50_000], &edges[50_000..410_000], &edges[410_000..]]
            .iter()
            .enumerate()
        {
            let bytes: Vec<u8> = part
                .iter()
                .flat_map(|&(s, d)| [(s as u32).to_le_bytes(), (d as u32).to_le_bytes()])
                .flatten()
                .collect();
            let p = dir.path().join(format!("part{k}.bin"));
            std::fs::write(&p, bytes).unwrap();
            files.push(p);
        }
        check(&sample_of(&files, InputFormat::Bin32).unwrap(), &edges);
    }

    #[test]
    fn text_lists_are_sampled_from_whole_lines() {
        let dir = tempfile::tempdir().unwrap();
        let edges = sorted_edges(600_000);
        let mut text = String::from("# a comment that is the first line\n");
        for (i, &(s, d)) in edges.iter().enumerate() {
            if i % 1000 == 0 {
                text.push_str("# comment\n");
            }
            text.push_str(&format!("{s}\t{d}\n"));
        }
        let p = dir.path().join("g.txt");
        std::fs::write(&p, &text).unwrap();
        check(
            &sample_of(std::slice::from_ref(&p), InputFormat::Snap).unwrap(),
            &edges,
        );
        // Compressed: read from the start only, so no sample.
        let gz = dir.path().join("g.txt.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut enc, text.as_bytes()).unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        assert!(sample_of(&[gz], InputFormat::Snap).is_none());
        // Places that do not parse: no sample (the read says where).
        std::fs::write(&p, "1 2\n1 x\n".repeat(100_000)).unwrap();
        assert!(sample_of(&[p], InputFormat::Snap).is_none());
    }
}
