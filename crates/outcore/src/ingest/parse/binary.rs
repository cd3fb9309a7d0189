//! Packed binary edge lists: little-endian `(u32 src, u32 dst)` or
//! `(u64 src, u64 dst)` records, no weights.

use std::path::Path;

use super::input::InputFile;
use super::lex::LocalError;
use super::pipeline::{BlockParser, Stats};
use crate::error::{Error, Result};
use crate::ingest::RawEdge;

/// Converts blocks of whole records.
pub(crate) struct BinParser {
    /// 64-bit ids (`bin64`) rather than 32-bit (`bin32`).
    pub wide: bool,
}

impl BinParser {
    pub(crate) fn record_size(&self) -> usize {
        if self.wide {
            16
        } else {
            8
        }
    }
}

impl BlockParser for BinParser {
    type Item = RawEdge;

    fn parse(
        &self,
        _file: usize,
        data: &[u8],
        out: &mut Vec<RawEdge>,
    ) -> Result<Stats, LocalError> {
        let rec = self.record_size();
        debug_assert_eq!(data.len() % rec, 0);
        out.reserve(data.len() / rec);
        if self.wide {
            out.extend(data.chunks_exact(16).map(|c| RawEdge {
                src: u64::from_le_bytes(c[..8].try_into().unwrap()),
                dst: u64::from_le_bytes(c[8..].try_into().unwrap()),
                weight: 1.0,
            }));
        } else {
            out.extend(data.chunks_exact(8).map(|c| RawEdge {
                src: u32::from_le_bytes(c[..4].try_into().unwrap()) as u64,
                dst: u32::from_le_bytes(c[4..].try_into().unwrap()) as u64,
                weight: 1.0,
            }));
        }
        Ok(Stats {
            lines: 0,
            records: (data.len() / rec) as u64,
        })
    }
}

/// The error for a file that ends inside a record; `full` whole records precede it.
pub(crate) fn trailing_error(path: &Path, rec: usize, full: u64, trailing: usize) -> Error {
    let width = if rec == 16 { 64 } else { 32 };
    Error::parse(
        path,
        full + 1,
        format!("{trailing} trailing bytes after {full} records").as_bytes(),
        format!(
            "expected whole {rec}-byte records (little-endian u{width} src, u{width} dst); \
             the file size is not a multiple of {rec}"
        ),
    )
}

/// Checks the size of an uncompressed binary input up front.
pub(crate) fn check_size(file: &InputFile, rec: usize) -> Result<()> {
    let trailing = file.size % rec as u64;
    if !file.gz && trailing > 0 {
        return Err(trailing_error(
            &file.path,
            rec,
            file.size / rec as u64,
            trailing as usize,
        ));
    }
    Ok(())
}
