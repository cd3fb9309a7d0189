//! Sequential little-endian readers over store files (export, verify).
//!
//! These are buffered tools' readers; the engines read graph data with their
//! own direct I/O.

use crate::error::{Error, IoContext, Result};
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

/// Reads fixed-size little-endian values one after another.
pub struct LeReader {
    path: PathBuf,
    input: BufReader<File>,
}

macro_rules! next_le {
    ($name:ident, $t:ty) => {
        /// The next value, or `None` at the end of the file.
        #[inline]
        pub fn $name(&mut self) -> Result<Option<$t>> {
            let mut b = [0u8; std::mem::size_of::<$t>()];
            match self.input.read_exact(&mut b) {
                Ok(()) => Ok(Some(<$t>::from_le_bytes(b))),
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(None),
                Err(e) => Err(Error::io(&self.path, e)),
            }
        }
    };
}

impl LeReader {
    /// Opens `path`.
    pub fn open(path: &Path) -> Result<LeReader> {
        let f = File::open(path).at(path)?;
        Ok(LeReader {
            path: path.to_path_buf(),
            input: BufReader::with_capacity(1 << 20, f),
        })
    }

    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    next_le!(next_u16, u16);
    next_le!(next_u32, u32);
    next_le!(next_u64, u64);
    next_le!(next_f64, f64);

    /// The next u16; the end of the file is an error.
    pub fn req_u16(&mut self) -> Result<u16> {
        self.next_u16()?.ok_or_else(|| self.early())
    }

    /// The next u32; the end of the file is an error.
    pub fn req_u32(&mut self) -> Result<u32> {
        self.next_u32()?.ok_or_else(|| self.early())
    }

    /// The next u64; the end of the file is an error.
    pub fn req_u64(&mut self) -> Result<u64> {
        self.next_u64()?.ok_or_else(|| self.early())
    }

    /// The next f64; the end of the file is an error.
    pub fn req_f64(&mut self) -> Result<f64> {
        self.next_f64()?.ok_or_else(|| self.early())
    }

    /// The next `n` bytes, into `buf`; the end of the file is an error.
    pub fn req_bytes(&mut self, buf: &mut Vec<u8>, n: usize) -> Result<()> {
        buf.resize(n, 0);
        match self.input.read_exact(buf) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Err(self.early()),
            Err(e) => Err(Error::io(&self.path, e)),
        }
    }

    fn early(&self) -> Error {
        super::file::damaged_at(&self.path, "ends early")
    }
}

/// An edge as stored, in dense ids.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DenseEdge {
    pub src: u64,
    pub dst: u64,
    pub weight: f64,
}

/// Scans `tiles/` in physical order, calling `f(tile_row, tile_col, edge)`;
/// `compressed` tiles are decoded strictly ([`super::tilecode`]).
pub fn scan_tiles(
    store: &Path,
    weighted: bool,
    compressed: bool,
    mut f: impl FnMut(u32, u32, DenseEdge) -> Result<()>,
) -> Result<()> {
    use super::tiles::{CHUNK_BYTES, EDGES_FILE, INDEX_FILE, TILE_BITS, WEIGHTS_FILE};
    let mut index = LeReader::open(&store.join(INDEX_FILE))?;
    let mut edges = LeReader::open(&store.join(EDGES_FILE))?;
    let mut weights = if weighted {
        Some(LeReader::open(&store.join(WEIGHTS_FILE))?)
    } else {
        None
    };
    let read_entry = |r: &mut LeReader| -> Result<(u32, u32, u64)> {
        let row = r.req_u32()?;
        let col = r.req_u32()?;
        let first = r.req_u64()?;
        Ok((row, col, first))
    };
    let mut cur = read_entry(&mut index)?;
    let (mut frame, mut pairs) = (Vec::new(), Vec::new());
    while cur.0 != u32::MAX {
        let next = read_entry(&mut index)?;
        if next.2 < cur.2 {
            return Err(super::file::damaged_at(
                index.path(),
                "tile start edges decrease",
            ));
        }
        pairs.clear();
        let count = if compressed {
            if next.2 > cur.2 && cur.2 / CHUNK_BYTES != (next.2 - 1) / CHUNK_BYTES {
                return Err(super::file::damaged_at(
                    index.path(),
                    format!("the frame at byte {} straddles a chunk", cur.2),
                ));
            }
            edges.req_bytes(&mut frame, (next.2 - cur.2) as usize)?;
            super::tilecode::decode_strict(&frame, |s, d| pairs.push((s, d))).map_err(|e| {
                super::file::damaged_at(edges.path(), format!("the frame at byte {}: {e}", cur.2))
            })?;
            pairs.len() as u64
        } else {
            next.2 - cur.2
        };
        let mut coded = pairs.iter();
        for _ in 0..count {
            let (s, d) = match coded.next() {
                Some(&p) => p,
                None => (edges.req_u16()?, edges.req_u16()?),
            };
            let (s, d) = (s as u64, d as u64);
            let w = match weights.as_mut() {
                Some(r) => r.req_f64()?,
                None => 1.0,
            };
            let e = DenseEdge {
                src: ((cur.0 as u64) << TILE_BITS) | s,
                dst: ((cur.1 as u64) << TILE_BITS) | d,
                weight: w,
            };
            f(cur.0, cur.1, e)?;
        }
        cur = next;
    }
    if edges.next_u16()?.is_some() {
        return Err(super::file::damaged_at(
            edges.path(),
            "holds edges past the last tile",
        ));
    }
    Ok(())
}
