//! Decoding a bucket file stretch by stretch (the chunks it is read in):
//! records of one width throughout, or sections grouped by cell ([`Packing`]:
//! each piece the counts of its bucket's cells, then the runs of records
//! cell by cell), a varint or a record cut by a stretch's end carried over.

use super::buckets::Packing;
use super::read::To;
use crate::ingest::sort::Record;
use std::borrow::Borrow;

/// Decodes a bucket file stretch by stretch (the chunks it is read in),
/// with its packing borrowed or owned (`P`).
pub(super) struct Decoder<P: Borrow<Packing>> {
    pack: P,
    bucket: usize,
    /// A record cut by the last stretch's end: its first bytes.
    cut: Vec<u8>,
    /// Buckets with cells: where in its sections the file is.
    runs: Option<Runs>,
    /// Records decoded.
    records: u64,
}

/// A decoder's place in a file of sections ([`Packing`]).
struct Runs {
    /// The section's counts, and how many of them are read.
    counts: Vec<u32>,
    parsed: usize,
    /// A count's varint being read: its value so far and its next shift.
    acc: u64,
    shift: u32,
    /// The cell whose run is being read, and its records left.
    cell: usize,
    left: u64,
    /// A run went past its cell's count, or a count's varint is too long.
    bad: bool,
}

impl<P: Borrow<Packing>> Decoder<P> {
    pub fn new(pack: P, bucket: usize) -> Self {
        let runs = pack.borrow().cells.as_deref().map(|cells| Runs {
            counts: vec![0; 1 << cells.bits],
            parsed: 0,
            acc: 0,
            shift: 0,
            cell: 0,
            left: 0,
            bad: false,
        });
        Decoder {
            pack,
            bucket,
            cut: Vec::new(),
            runs,
            records: 0,
        }
    }

    /// True when the stretches decoded were `records` whole records, the
    /// last section whole.
    pub fn ended(&self, records: u64) -> bool {
        let whole = self.runs.as_ref().is_none_or(|r| {
            let rest = r.counts.get(r.cell + 1..).unwrap_or(&[]);
            let run_out = r.left == 0 && rest.iter().all(|&n| n == 0);
            !r.bad && r.shift == 0 && (r.parsed == 0 || (r.parsed == r.counts.len() && run_out))
        });
        whole && self.cut.is_empty() && self.records == records
    }

    /// Decodes `data`, the next stretch of the file, into `out` as `to`
    /// says.
    pub fn push<R: Record>(&mut self, data: &[u8], out: &mut Vec<R>, to: &mut To) {
        match self.runs.is_some() {
            true => self.push_runs(data, out, to),
            false => self.push_plain(data, out, to),
        }
    }

    /// Records of one width throughout (buckets without cells): its first
    /// bytes complete the record cut by the last stretch's end.
    fn push_plain<R: Record>(&mut self, mut data: &[u8], out: &mut Vec<R>, to: &mut To) {
        let To::Append(bits) = to else {
            unreachable!("buckets without cells are read in file order")
        };
        let code = self.pack.borrow().code(self.bucket);
        let rec = code.rec_bytes::<R>();
        let before = out.len();
        if !self.cut.is_empty() {
            let take = (rec - self.cut.len()).min(data.len());
            self.cut.extend_from_slice(&data[..take]);
            data = &data[take..];
            if self.cut.len() == rec {
                let r = code.decode::<R>(&self.cut);
                bits.add(r.radix_key());
                out.push(r);
                self.cut.clear();
            }
        }
        let whole = data.len() / rec * rec;
        code.decode_into(&data[..whole], out, bits);
        self.cut.extend_from_slice(&data[whole..]);
        self.records += (out.len() - before) as u64;
    }

    /// Sections: each cell's count, then the runs of records cell by cell.
    fn push_runs<R: Record>(&mut self, mut data: &[u8], out: &mut Vec<R>, to: &mut To) {
        let (pack, bucket) = (self.pack.borrow(), self.bucket);
        let cells = pack.cells.as_deref().expect("cells");
        let r = self.runs.as_mut().expect("cells");
        let per = r.counts.len();
        while !r.bad {
            if r.parsed < per {
                let Some((&byte, rest)) = data.split_first() else {
                    return;
                };
                data = rest;
                r.acc |= ((byte & 0x7f) as u64) << r.shift;
                if byte & 0x80 != 0 {
                    r.shift += 7;
                    r.bad = r.shift > 28;
                    continue;
                }
                r.bad = r.acc > u32::MAX as u64;
                r.counts[r.parsed] = r.acc as u32;
                (r.parsed, r.acc, r.shift) = (r.parsed + 1, 0, 0);
                if r.parsed == per {
                    (r.cell, r.left) = (0, r.counts[0] as u64);
                }
                continue;
            }
            while r.left == 0 && r.cell + 1 < per {
                r.cell += 1;
                r.left = r.counts[r.cell] as u64;
            }
            if r.left == 0 {
                // The next section.
                r.parsed = 0;
                if data.is_empty() {
                    return;
                }
                continue;
            }
            let code = cells.code(pack, bucket, r.cell);
            let rec = code.rec_bytes::<R>();
            if !self.cut.is_empty() || data.len() < rec {
                let take = (rec - self.cut.len()).min(data.len());
                self.cut.extend_from_slice(&data[..take]);
                data = &data[take..];
                if self.cut.len() < rec {
                    return;
                }
                let one = [code.decode::<R>(&self.cut)];
                self.cut.clear();
                r.bad = !run(to, r.cell, &one, out);
                r.left -= 1;
                self.records += 1;
                continue;
            }
            let k = (r.left as usize).min(data.len() / rec);
            let (bytes, rest) = data.split_at(k * rec);
            r.bad = !match to {
                To::Append(bits) => {
                    code.decode_into(bytes, out, bits);
                    true
                }
                To::Place(p) => match p.run(r.cell, k) {
                    Some(slots) => {
                        let slots = &mut out.spare_capacity_mut()[slots];
                        let mut j = 0;
                        code.decode_each(bytes, |x| {
                            slots[j].write(x);
                            j += 1;
                        });
                        true
                    }
                    None => false,
                },
            };
            data = rest;
            r.left -= k as u64;
            self.records += k as u64;
        }
    }
}

/// Hands `recs` (of cell `cell`) on as `to` says; false when the cell
/// counted fewer.
fn run<R: Record>(to: &mut To, cell: usize, recs: &[R], out: &mut Vec<R>) -> bool {
    match to {
        To::Append(bits) => {
            for r in recs {
                bits.add(r.radix_key());
            }
            out.extend_from_slice(recs);
            true
        }
        To::Place(p) => match p.run(cell, recs.len()) {
            Some(slots) => {
                for (s, r) in out.spare_capacity_mut()[slots].iter_mut().zip(recs) {
                    s.write(*r);
                }
                true
            }
            None => false,
        },
    }
}
