//! What the fuzz targets share: an input written to a file (the parsers
//! read files, as users give them) and drained through the real pipeline.

#![allow(dead_code)]

use outcore::ingest::parse::{self, IdKind, InputFormat, ParseOptions};
use std::path::PathBuf;

/// A scratch directory in memory when the machine has /dev/shm.
pub fn scratch() -> tempfile::TempDir {
    let shm = std::path::Path::new("/dev/shm");
    match shm.is_dir() {
        true => tempfile::tempdir_in(shm).expect("a scratch directory"),
        false => tempfile::tempdir().expect("a scratch directory"),
    }
}

/// Options from one control byte.
pub fn options(ctl: u8) -> ParseOptions {
    outcore::progress::set_quiet(true);
    ParseOptions {
        weighted: ctl & 8 != 0,
        directed: ctl & 16 != 0,
        header: ctl & 32 != 0,
        ids: [IdKind::Auto, IdKind::Int, IdKind::String][(ctl >> 6) as usize % 3],
        ..Default::default()
    }
}

/// Parses `files` (name, bytes) as `format`, reading every edge; errors are
/// fine, panics, hangs and huge allocations are what the fuzzer looks for.
pub fn drain(files: &[(&str, &[u8])], format: InputFormat, opts: &ParseOptions) {
    let dir = scratch();
    let paths: Vec<PathBuf> = files
        .iter()
        .map(|(name, bytes)| {
            let p = dir.path().join(name);
            std::fs::write(&p, bytes).expect("write the input");
            p
        })
        .collect();
    // Small blocks, of a size that varies with the input: the cuts between
    // blocks (a line carried over, a record split) are fuzzed too.
    let total: usize = files.iter().map(|(_, b)| b.len()).sum();
    let block = 8 + total % 251;
    let Ok(mut src) = parse::open_with_block_size(&paths, format, opts, block) else {
        return;
    };
    let mut edges = 0u64;
    if src.string_ids() {
        let _ = src.for_each_named_batch(&mut |b| {
            edges += b.bytes.len() as u64;
            Ok(())
        });
    } else {
        let _ = src.for_each_vertex_batch(&mut |_| Ok(()));
        let _ = src.for_each_edge_batch(&mut |b| {
            edges += b.len() as u64;
            Ok(())
        });
    }
    std::hint::black_box(edges);
}
