//! Writing any [`EdgeSource`] out as a plain edge list (text or packed binary).

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::error::{Error, IoContext, Result};
use crate::ingest::{EdgeSource, RawEdge};

/// The layout of a written edge list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeFileFormat {
    /// `src dst` (or `src dst weight`) per line, ASCII decimal.
    Text,
    /// Little-endian `u32` pairs, 8 bytes an edge.
    Bin32,
    /// Little-endian `u64` pairs, 16 bytes an edge.
    Bin64,
}

impl FromStr for EdgeFileFormat {
    type Err = Error;

    fn from_str(s: &str) -> Result<EdgeFileFormat> {
        match s.to_ascii_lowercase().as_str() {
            "text" => Ok(EdgeFileFormat::Text),
            "bin32" => Ok(EdgeFileFormat::Bin32),
            "bin64" => Ok(EdgeFileFormat::Bin64),
            _ => Err(Error::Invalid(format!(
                "unknown edge file format `{s}` (expected text, bin32 or bin64)"
            ))),
        }
    }
}

impl std::fmt::Display for EdgeFileFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            EdgeFileFormat::Text => "text",
            EdgeFileFormat::Bin32 => "bin32",
            EdgeFileFormat::Bin64 => "bin64",
        })
    }
}

/// Appends the decimal digits of `v`.
#[inline]
fn push_u64(buf: &mut Vec<u8>, mut v: u64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    buf.extend_from_slice(&tmp[i..]);
}

/// Formats one batch into `buf` (cleared first).
fn encode(
    batch: &[RawEdge],
    format: EdgeFileFormat,
    weighted: bool,
    buf: &mut Vec<u8>,
    path: &Path,
) -> Result<()> {
    buf.clear();
    match format {
        EdgeFileFormat::Text => {
            buf.reserve(batch.len() * if weighted { 40 } else { 18 });
            for e in batch {
                push_u64(buf, e.src);
                buf.push(b' ');
                push_u64(buf, e.dst);
                if weighted {
                    buf.push(b' ');
                    // `{}` is the shortest string that round-trips; integral
                    // weights (grid) print without a fraction ("17").
                    write!(buf, "{}", e.weight).expect("writing to a Vec cannot fail");
                }
                buf.push(b'\n');
            }
        }
        EdgeFileFormat::Bin32 => {
            buf.reserve(batch.len() * 8);
            for e in batch {
                let (Ok(s), Ok(d)) = (u32::try_from(e.src), u32::try_from(e.dst)) else {
                    return Err(Error::Invalid(format!(
                        "{}: vertex id {} does not fit in 32 bits (use bin64)",
                        path.display(),
                        e.src.max(e.dst)
                    )));
                };
                buf.extend_from_slice(&s.to_le_bytes());
                buf.extend_from_slice(&d.to_le_bytes());
            }
        }
        EdgeFileFormat::Bin64 => {
            buf.reserve(batch.len() * 16);
            for e in batch {
                buf.extend_from_slice(&e.src.to_le_bytes());
                buf.extend_from_slice(&e.dst.to_le_bytes());
            }
        }
    }
    Ok(())
}

/// `path` with `.tmp-<pid>` appended.
fn tmp_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(format!(".tmp-{}", std::process::id()));
    PathBuf::from(s)
}

fn write_tmp(
    source: &mut dyn EdgeSource,
    tmp: &Path,
    final_path: &Path,
    format: EdgeFileFormat,
    weighted: bool,
) -> Result<u64> {
    let file = File::create(tmp).at(tmp)?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let mut buf = Vec::new();
    let mut edges = 0u64;
    source.for_each_edge_batch(&mut |batch| {
        encode(batch, format, weighted, &mut buf, final_path)?;
        w.write_all(&buf).at(tmp)?;
        edges += batch.len() as u64;
        Ok(())
    })?;
    let file = w.into_inner().map_err(|e| Error::io(tmp, e.into_error()))?;
    file.sync_all().at(tmp)?;
    Ok(edges)
}

/// Streams `source` to a plain edge list at `path`.
///
/// Text: `src dst` per line, plus ` weight` when `weighted` (shortest
/// round-trip formatting of the f64, so integer weights print as integers).
/// `Bin32` / `Bin64`: packed little-endian id pairs; weights cannot be
/// written in binary (an [`Error::Invalid`] if `weighted`), and `Bin32`
/// fails on an id above `u32::MAX`. Isolated vertices are not represented.
///
/// Writes `path.tmp-<pid>` and renames it into place, so `path` never holds a
/// partial file; refuses an existing `path` unless `force`. Returns the number
/// of edges written.
pub fn write_edge_file(
    source: &mut dyn EdgeSource,
    path: &Path,
    format: EdgeFileFormat,
    weighted: bool,
    force: bool,
) -> Result<u64> {
    if weighted && format != EdgeFileFormat::Text {
        return Err(Error::Invalid(format!(
            "{}: weights can only be written in the text format, not {format}",
            path.display()
        )));
    }
    crate::outfile::check_writable(path)?;
    if !force && fs::symlink_metadata(path).is_ok() {
        return Err(Error::Invalid(format!(
            "{}: already exists (use --force to overwrite)",
            path.display()
        )));
    }
    let tmp = tmp_path(path);
    let result = write_tmp(source, &tmp, path, format, weighted).and_then(|n| {
        fs::rename(&tmp, path).at(path)?;
        Ok(n)
    });
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fixed list of edges as a source.
    struct List(Vec<RawEdge>);

    impl EdgeSource for List {
        fn describe(&self) -> String {
            "list".into()
        }
        fn for_each_edge_batch(
            &mut self,
            f: &mut dyn FnMut(&[RawEdge]) -> Result<()>,
        ) -> Result<()> {
            for c in self.0.chunks(3) {
                f(c)?;
            }
            Ok(())
        }
    }

    fn edges() -> Vec<RawEdge> {
        let mut v = vec![
            RawEdge {
                src: 0,
                dst: 1,
                weight: 0.1,
            },
            RawEdge {
                src: 4_000_000_000,
                dst: 7,
                weight: 17.0,
            },
            RawEdge {
                src: 3,
                dst: 3,
                weight: 1e-17,
            },
            RawEdge {
                src: 12345,
                dst: 0,
                weight: 0.999_999_999_999_999_9,
            },
        ];
        for i in 0..20 {
            v.push(RawEdge {
                src: i,
                dst: i * 1_000_003 % 97,
                weight: 1.0 / (i as f64 + 3.0),
            });
        }
        v
    }

    #[test]
    fn text_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let want = edges();
        for weighted in [false, true] {
            let path = dir.path().join(format!("g{weighted}.txt"));
            let n = write_edge_file(
                &mut List(want.clone()),
                &path,
                EdgeFileFormat::Text,
                weighted,
                false,
            )
            .unwrap();
            assert_eq!(n, want.len() as u64);
            let text = fs::read_to_string(&path).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            assert_eq!(lines.len(), want.len());
            assert_eq!(lines[0], if weighted { "0 1 0.1" } else { "0 1" });
            assert_eq!(
                lines[1],
                if weighted {
                    "4000000000 7 17"
                } else {
                    "4000000000 7"
                }
            );
            for (line, e) in lines.iter().zip(&want) {
                let f: Vec<&str> = line.split(' ').collect();
                assert_eq!(f.len(), if weighted { 3 } else { 2 });
                assert_eq!(f[0].parse::<u64>().unwrap(), e.src);
                assert_eq!(f[1].parse::<u64>().unwrap(), e.dst);
                if weighted {
                    assert_eq!(f[2].parse::<f64>().unwrap().to_bits(), e.weight.to_bits());
                    assert!(!f[2].contains('e'));
                }
            }
        }
    }

    #[test]
    fn binary_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let want = edges();
        let path = dir.path().join("g.bin64");
        write_edge_file(
            &mut List(want.clone()),
            &path,
            EdgeFileFormat::Bin64,
            false,
            false,
        )
        .unwrap();
        let bytes = fs::read(&path).unwrap();
        assert_eq!(bytes.len(), want.len() * 16);
        for (c, e) in bytes.chunks(16).zip(&want) {
            assert_eq!(u64::from_le_bytes(c[..8].try_into().unwrap()), e.src);
            assert_eq!(u64::from_le_bytes(c[8..].try_into().unwrap()), e.dst);
        }

        let path = dir.path().join("g.bin32");
        let small: Vec<RawEdge> = want
            .iter()
            .copied()
            .filter(|e| e.src <= u32::MAX as u64)
            .collect();
        write_edge_file(
            &mut List(small.clone()),
            &path,
            EdgeFileFormat::Bin32,
            false,
            false,
        )
        .unwrap();
        let bytes = fs::read(&path).unwrap();
        assert_eq!(bytes.len(), small.len() * 8);
        for (c, e) in bytes.chunks(8).zip(&small) {
            assert_eq!(u32::from_le_bytes(c[..4].try_into().unwrap()) as u64, e.src);
            assert_eq!(u32::from_le_bytes(c[4..].try_into().unwrap()) as u64, e.dst);
        }

        // An id above u32::MAX fails bin32, and leaves no file behind.
        let path = dir.path().join("big.bin32");
        let mut big = want.clone();
        big[1].src = 5_000_000_000;
        let err = write_edge_file(&mut List(big), &path, EdgeFileFormat::Bin32, false, false)
            .unwrap_err();
        assert!(err.to_string().contains("32 bits"), "{err}");
        assert!(!path.exists());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);

        // Weights cannot go to binary.
        let err = write_edge_file(&mut List(want), &path, EdgeFileFormat::Bin64, true, false)
            .unwrap_err();
        assert!(matches!(err, Error::Invalid(_)));
    }

    #[test]
    fn refuses_existing_file_without_force() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.txt");
        fs::write(&path, "old").unwrap();
        let err = write_edge_file(
            &mut List(edges()),
            &path,
            EdgeFileFormat::Text,
            false,
            false,
        )
        .unwrap_err();
        assert!(err.to_string().contains("already exists"), "{err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "old");
        let n =
            write_edge_file(&mut List(edges()), &path, EdgeFileFormat::Text, false, true).unwrap();
        assert_eq!(n, edges().len() as u64);
        assert!(fs::read_to_string(&path).unwrap().starts_with("0 1\n"));
        // No temporary left behind.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn formats_parse() {
        assert_eq!(
            "text".parse::<EdgeFileFormat>().unwrap(),
            EdgeFileFormat::Text
        );
        assert_eq!(
            "bin32".parse::<EdgeFileFormat>().unwrap(),
            EdgeFileFormat::Bin32
        );
        assert_eq!(
            "BIN64".parse::<EdgeFileFormat>().unwrap(),
            EdgeFileFormat::Bin64
        );
        assert!("csv".parse::<EdgeFileFormat>().is_err());
    }
}
