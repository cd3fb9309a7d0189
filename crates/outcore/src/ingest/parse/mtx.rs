//! Matrix Market coordinate files (`.mtx`).
//!
//! The header and the size line are read when the source is opened; the
//! reader thread then skips those lines and the entries stream through the
//! block pipeline. Ids stay 1-based, as written.

use super::input::{InputFile, LineReader};
use super::lex::{
    at_field_end, is_blank, parse_id, parse_weight, skip_blanks, token_end, Fault, LocalError,
};
use super::pipeline::{BlockParser, Stats};
use super::text::{for_each_line, line_start};
use crate::error::{Error, Result};
use crate::ingest::RawEdge;

/// Vertex ids per batch handed to `for_each_vertex_batch`.
pub(crate) const VERTEX_BATCH: usize = 1 << 16;

/// The value type of a Matrix Market matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Field {
    Pattern,
    Integer,
    Real,
}

/// What the header and size line of one file declare.
#[derive(Clone, Debug)]
pub(crate) struct MtxHeader {
    pub field: Field,
    pub symmetric: bool,
    pub rows: u64,
    pub cols: u64,
    pub nnz: u64,
    /// Lines up to and including the size line.
    pub skip_lines: u64,
}

const HEADER_SHAPE: &str = "expected a Matrix Market header `%%MatrixMarket matrix coordinate \
                            (pattern|integer|real) (general|symmetric)`";

/// Reads and validates the header, comments and size line of `file`.
pub(crate) fn read_header(file: &InputFile) -> Result<MtxHeader> {
    let path = &file.path;
    let mut r = LineReader::open(file)?;
    let first = r.next_line()?.unwrap_or_default();
    let text = String::from_utf8_lossy(&first).to_ascii_lowercase();
    let words: Vec<&str> = text.split_ascii_whitespace().collect();
    let bad = |expected: String| Error::parse(path, 1, &first, expected);
    if words.first() != Some(&"%%matrixmarket") || words.len() < 5 {
        return Err(bad(HEADER_SHAPE.to_string()));
    }
    if words[1] != "matrix" {
        return Err(bad(format!(
            "{HEADER_SHAPE} (only `matrix` objects are supported)"
        )));
    }
    match words[2] {
        "coordinate" => {}
        "array" => {
            return Err(bad(format!(
                "{HEADER_SHAPE} (dense `array` matrices are not supported)"
            )))
        }
        _ => return Err(bad(HEADER_SHAPE.to_string())),
    }
    let field = match words[3] {
        "pattern" => Field::Pattern,
        "integer" => Field::Integer,
        "real" | "double" => Field::Real,
        "complex" => {
            return Err(bad(format!(
                "{HEADER_SHAPE} (`complex` matrices are not supported)"
            )))
        }
        _ => return Err(bad(HEADER_SHAPE.to_string())),
    };
    let symmetric = match words[4] {
        "general" => false,
        "symmetric" => true,
        s @ ("skew-symmetric" | "hermitian") => {
            return Err(bad(format!(
                "{HEADER_SHAPE} (`{s}` matrices are not supported)"
            )));
        }
        _ => return Err(bad(HEADER_SHAPE.to_string())),
    };
    loop {
        let Some(line) = r.next_line()? else {
            return Err(Error::parse(
                path,
                r.lines + 1,
                b"",
                "expected the size line `rows cols nnz` (the file ends after the header)",
            ));
        };
        let p = skip_blanks(&line, 0);
        if p == line.len() || line[p] == b'%' {
            continue;
        }
        let size_err = |f: Fault| {
            Error::parse(
                path,
                r.lines,
                &line,
                format!(
                    "{}expected the size line `rows cols nnz` (three non-negative integers)",
                    f.prefix()
                ),
            )
        };
        let mut nums = [0u64; 3];
        let mut q = p;
        for (k, n) in nums.iter_mut().enumerate() {
            if k > 0 {
                if q >= line.len() || !is_blank(line[q]) {
                    return Err(size_err(Fault::Syntax));
                }
                q = skip_blanks(&line, q);
            }
            *n = parse_id(&line, &mut q).map_err(size_err)?;
        }
        if skip_blanks(&line, q) != line.len() {
            return Err(size_err(Fault::Syntax));
        }
        // Every declared row and column is a vertex (isolated ones too),
        // listed one by one: a size past 2^32 - 1 is refused here, before
        // the build would list trillions of them (found by fuzzing).
        if nums[0].max(nums[1]) > u32::MAX as u64 {
            return Err(Error::parse(
                path,
                r.lines,
                &line,
                format!(
                    "the size line declares {} x {}: a Matrix Market input lists at most 2^32 - 1 vertices",
                    nums[0], nums[1]
                ),
            ));
        }
        return Ok(MtxHeader {
            field,
            symmetric,
            rows: nums[0],
            cols: nums[1],
            nnz: nums[2],
            skip_lines: r.lines,
        });
    }
}

/// Parses the entries of Matrix Market files.
pub(crate) struct MtxParser {
    pub files: Vec<MtxHeader>,
    pub weighted: bool,
    /// Symmetric entries yield both directions.
    pub directed: bool,
}

impl MtxParser {
    fn expected(&self, h: &MtxHeader, fault: Fault) -> String {
        let value = if self.weighted { ", then a value" } else { "" };
        format!(
            "{}expected an entry `row col{}`: 1-based indices within the declared size {} x {}{value}",
            fault.prefix(),
            if self.weighted { " value" } else { "" },
            h.rows,
            h.cols,
        )
    }

    #[inline(always)]
    fn entry(&self, h: &MtxHeader, data: &[u8], p: &mut usize) -> Result<RawEdge, Fault> {
        let i = parse_id(data, p)?;
        if *p >= data.len() || !is_blank(data[*p]) {
            return Err(Fault::Syntax);
        }
        *p = skip_blanks(data, *p);
        let j = parse_id(data, p)?;
        if !at_field_end(data, *p) {
            return Err(Fault::Syntax);
        }
        if i == 0 || i > h.rows || j == 0 || j > h.cols {
            return Err(Fault::OutOfRange);
        }
        let weight = if self.weighted {
            *p = skip_blanks(data, *p);
            let end = token_end(data, *p);
            let w = parse_weight(&data[*p..end])?;
            *p = end;
            w
        } else {
            1.0
        };
        Ok(RawEdge {
            src: i,
            dst: j,
            weight,
        })
    }
}

impl BlockParser for MtxParser {
    type Item = RawEdge;

    fn parse(&self, file: usize, data: &[u8], out: &mut Vec<RawEdge>) -> Result<Stats, LocalError> {
        let h = &self.files[file];
        let both = h.symmetric && self.directed;
        let mut entries = 0u64;
        let lines = for_each_line(data, |p, line| {
            let mut q = p;
            match self.entry(h, data, &mut q) {
                Ok(e) => {
                    entries += 1;
                    out.push(e);
                    if both && e.src != e.dst {
                        out.push(RawEdge {
                            src: e.dst,
                            dst: e.src,
                            weight: e.weight,
                        });
                    }
                    Ok(q)
                }
                Err(f) => Err(LocalError::at(
                    data,
                    line_start(data, p),
                    line,
                    self.expected(h, f),
                )),
            }
        })?;
        Ok(Stats {
            lines,
            records: entries,
        })
    }
}

/// The 1-based line number (within `data`) and start of its `k`-th entry (1-based).
pub(crate) fn nth_entry(data: &[u8], k: u64) -> (u64, usize) {
    let mut seen = 0u64;
    let mut found = (0u64, 0usize);
    let _ = for_each_line(data, |p, line| {
        seen += 1;
        if seen == k {
            found = (line, line_start(data, p));
            return Err(());
        }
        Ok(p)
    });
    found
}

/// Checks entry counts against the size lines while the blocks stream by.
pub(crate) struct EntryCounter {
    counts: Vec<u64>,
}

impl EntryCounter {
    pub(crate) fn new(files: usize) -> EntryCounter {
        EntryCounter {
            counts: vec![0; files],
        }
    }

    /// Adds a block's entries; an error when the file now has more than `nnz`.
    pub(crate) fn block(
        &mut self,
        file: &InputFile,
        h: &MtxHeader,
        data: &[u8],
        line_base: u64,
        entries: u64,
        idx: usize,
    ) -> Result<()> {
        let before = self.counts[idx];
        self.counts[idx] = before + entries;
        if before + entries > h.nnz {
            let (line, start) = nth_entry(data, h.nnz - before + 1);
            let end = super::lex::line_end(data, start);
            return Err(Error::parse(
                &file.path,
                line_base + line,
                &data[start..end],
                format!(
                    "expected only {} entries, as declared by the size line",
                    h.nnz
                ),
            ));
        }
        Ok(())
    }

    /// At the end of a file: an error when it had fewer than `nnz` entries.
    pub(crate) fn file_end(&self, file: &InputFile, h: &MtxHeader, idx: usize) -> Result<()> {
        let n = self.counts[idx];
        if n < h.nnz {
            return Err(Error::Invalid(format!(
                "{}: the size line declares {} entries but the file has only {n}",
                file.path.display(),
                h.nnz
            )));
        }
        Ok(())
    }
}

/// Streams `1..=n` in batches.
pub(crate) fn vertex_range(n: u64, f: &mut dyn FnMut(&[u64]) -> Result<()>) -> Result<()> {
    let mut batch = Vec::with_capacity(VERTEX_BATCH.min(n as usize));
    let mut next = 1u64;
    let mut remaining = n;
    while remaining > 0 {
        let k = remaining.min(VERTEX_BATCH as u64);
        batch.clear();
        batch.extend(next..next + k - 1);
        batch.push(next + k - 1);
        f(&batch)?;
        remaining -= k;
        next = next.wrapping_add(k);
    }
    Ok(())
}
