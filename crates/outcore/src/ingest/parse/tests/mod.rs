//! Tests of the parsers through the public `EdgeSource` interface: the
//! helpers every topic shares (reading with every block size, the error of
//! a read); the tests are in the submodules, one per format or concern.

use std::io::Write;
use std::path::{Path, PathBuf};

use flate2::write::GzEncoder;
use flate2::Compression;

use super::*;
use crate::ingest::RawEdge;

mod csv;
mod ldbc_and_binary;
mod matrix_market;
mod recognised;
mod snap;
mod sources;

/// Block sizes every reading test is run with: byte-sized blocks exercise
/// carrying lines across blocks, the default the fast path.
const SIZES: [usize; 5] = [1, 3, 17, 4096, DEFAULT_BLOCK_SIZE];

fn write(dir: &Path, name: &str, content: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p
}

fn gz(content: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(content).unwrap();
    e.finish().unwrap()
}

fn e(src: u64, dst: u64) -> RawEdge {
    RawEdge {
        src,
        dst,
        weight: 1.0,
    }
}

fn ew(src: u64, dst: u64, weight: f64) -> RawEdge {
    RawEdge { src, dst, weight }
}

fn opts() -> ParseOptions {
    ParseOptions::default()
}

fn weighted() -> ParseOptions {
    ParseOptions {
        weighted: true,
        ..ParseOptions::default()
    }
}

/// Reads vertices and edges with one block size.
fn read_with(
    inputs: &[PathBuf],
    format: InputFormat,
    opts: &ParseOptions,
    block: usize,
) -> Result<(Vec<u64>, Vec<RawEdge>)> {
    let mut src = FileSource::open(inputs, format, opts, block)?;
    let mut vs = Vec::new();
    src.for_each_vertex_batch(&mut |b| {
        vs.extend_from_slice(b);
        Ok(())
    })?;
    let mut es = Vec::new();
    src.for_each_edge_batch(&mut |b| {
        assert!(!b.is_empty());
        es.extend_from_slice(b);
        Ok(())
    })?;
    Ok((vs, es))
}

/// Reads with every block size, checking they agree.
fn read(
    inputs: &[PathBuf],
    format: InputFormat,
    opts: &ParseOptions,
) -> Result<(Vec<u64>, Vec<RawEdge>)> {
    let first = read_with(inputs, format, opts, SIZES[0]);
    for &bs in &SIZES[1..] {
        let other = read_with(inputs, format, opts, bs);
        match (&first, &other) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "block size {bs}"),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "block size {bs}"),
            _ => panic!("block size {bs}: {other:?} vs {first:?}"),
        }
    }
    first
}

fn edges(inputs: &[PathBuf], format: InputFormat, opts: &ParseOptions) -> Vec<RawEdge> {
    read(inputs, format, opts).unwrap().1
}

/// The error of reading, with its line (0 for non-parse errors).
fn fail(inputs: &[PathBuf], format: InputFormat, opts: &ParseOptions) -> (u64, String) {
    let err = read(inputs, format, opts).unwrap_err();
    let line = match &err {
        Error::Parse { line, .. } => *line,
        _ => 0,
    };
    (line, err.to_string())
}
