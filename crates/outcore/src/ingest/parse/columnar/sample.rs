//! Edges read at evenly spaced places of a Parquet or Arrow input without
//! reading it all ([`EdgeSource::sample_edges`](crate::ingest::EdgeSource)),
//! as the text and binary lists give them: the input sorter takes its
//! bucket ranges from them (external sample sort) and stores each edge in
//! the bytes its bucket's range needs; without them it hashes, and a
//! kron-24 Parquet import spilled 4.76 GiB against text's 3.74.

use super::files::ColFile;
use super::{int_batch, local, Cols};
use crate::error::Result;
use crate::ingest::{RawEdge, SAMPLE_PER_PLACE, SAMPLE_PLACES};

/// Up to [`SAMPLE_PER_PLACE`] edges from each of [`SAMPLE_PLACES`] places
/// spread evenly over the rows of `files` (columns `cols`, one per file)
/// taken as one input; over their groups when a file is Arrow IPC (whose
/// batches' rows are not known before they are read). `None` when the
/// input is empty or a place does not convert (a null or a negative id:
/// the read proper says where).
pub(super) fn sample(files: &[ColFile], cols: &[Cols]) -> Result<Option<Vec<RawEdge>>> {
    let by_rows = files.iter().all(|f| f.rows().is_some());
    // Every group as (file, group, weight).
    let groups: Vec<(usize, usize, u64)> = (files.iter().enumerate())
        .flat_map(|(i, f)| {
            (0..f.groups()).map(move |g| (i, g, if by_rows { f.group_rows(g) } else { 1 }))
        })
        .collect();
    let total: u64 = groups.iter().map(|g| g.2).sum();
    if total == 0 {
        return Ok(None);
    }
    let per = SAMPLE_PER_PLACE as usize;
    let mut out = Vec::with_capacity((SAMPLE_PLACES as usize) * per);
    let mut bad = false;
    // Place p is at p / SAMPLE_PLACES of the weights.
    let place = |p: u64| p as f64 * total as f64 / SAMPLE_PLACES as f64;
    let (mut p, mut start) = (0, 0.0);
    for &(fi, g, weight) in &groups {
        // The places in this group, as fractions of it.
        let mut at = Vec::new();
        while p < SAMPLE_PLACES && place(p) < start + weight as f64 {
            at.push((place(p) - start) / weight as f64);
            p += 1;
        }
        start += weight as f64;
        if at.is_empty() {
            continue;
        }
        let c = cols[fi];
        files[fi].sample_group(g, &c.projection(), &at, per, &mut |batch| {
            match int_batch(&batch, local(c)) {
                Ok(edges) => out.extend(edges),
                Err(_) => bad = true,
            }
            Ok(())
        })?;
        if bad {
            return Ok(None);
        }
    }
    Ok((!out.is_empty()).then_some(out))
}

#[cfg(test)]
mod tests {
    use super::super::super::sample::tests::{check, sorted_edges};
    use super::super::ColumnarSource;
    use crate::ingest::parse::ParseOptions;
    use crate::ingest::{EdgeSource, RawEdge};
    use arrow_array::{ArrayRef, Int64Array, RecordBatch, UInt32Array};
    use std::path::{Path, PathBuf};
    use std::sync::Arc;

    fn batch(edges: &[(u64, u64)], nulls: bool) -> RecordBatch {
        let src: ArrayRef = Arc::new(UInt32Array::from_iter_values(
            edges.iter().map(|e| e.0 as u32),
        ));
        let dst: ArrayRef = Arc::new(Int64Array::from_iter(
            (edges.iter()).map(|e| (!nulls).then_some(e.1 as i64)),
        ));
        RecordBatch::try_from_iter([("src", src), ("dst", dst)]).unwrap()
    }

    fn parquet(path: &Path, edges: &[(u64, u64)], group: usize, nulls: bool) -> PathBuf {
        let b = batch(edges, nulls);
        let props = parquet::file::properties::WriterProperties::builder()
            .set_max_row_group_row_count(Some(group))
            .build();
        let file = std::fs::File::create(path).unwrap();
        let mut w = parquet::arrow::ArrowWriter::try_new(file, b.schema(), Some(props)).unwrap();
        w.write(&b).unwrap();
        w.close().unwrap();
        path.to_path_buf()
    }

    fn sample_of(files: &[PathBuf]) -> Option<Vec<RawEdge>> {
        let mut src = ColumnarSource::open(files, &ParseOptions::default()).unwrap();
        src.sample_edges().unwrap()
    }

    #[test]
    fn parquet_datasets_are_sampled_across_all_their_groups() {
        let dir = tempfile::tempdir().unwrap();
        let edges = sorted_edges(600_000);
        // Fewer groups than places: several places in each, files of
        // uneven sizes and group sizes.
        let files = [
            parquet(&dir.path().join("a"), &edges[..50_000], 7_000, false),
            parquet(
                &dir.path().join("b"),
                &edges[50_000..410_000],
                100_000,
                false,
            ),
            parquet(&dir.path().join("c"), &edges[410_000..], 1 << 20, false),
        ];
        check(&sample_of(&files).unwrap(), &edges);
        // More groups than places: the start of evenly spaced groups.
        let many = [parquet(&dir.path().join("d"), &edges, 5_000, false)];
        check(&sample_of(&many).unwrap(), &edges);
        // A place with a null: no sample (the read proper says where).
        let nulls = [parquet(&dir.path().join("e"), &edges, 50_000, true)];
        assert!(sample_of(&nulls).is_none());
    }

    #[test]
    fn arrow_ipc_files_are_sampled_across_their_record_batches() {
        let dir = tempfile::tempdir().unwrap();
        let edges = sorted_edges(600_000);
        let p = dir.path().join("g.arrows");
        let b = batch(&edges, false);
        let mut w =
            arrow_ipc::writer::FileWriter::try_new(std::fs::File::create(&p).unwrap(), &b.schema())
                .unwrap();
        for at in (0..edges.len()).step_by(150_000) {
            w.write(&b.slice(at, 150_000)).unwrap();
        }
        w.finish().unwrap();
        check(&sample_of(&[p]).unwrap(), &edges);
    }
}
