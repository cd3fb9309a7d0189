//! LDBC Graphalytics output: one `id value` line per vertex, in original ids,
//! floats as C's `%.15e`.

use crate::error::{IoContext, Result};
use crate::store::walk::{LabelNames, RankWalk};
use crate::store::{Id, Store};
use std::fmt;
use std::io::Write;
use std::path::Path;

mod columns;
mod lines;
pub use columns::Column;
pub use lines::{Cell, Lines};

/// Formats a float as Graphalytics does: C's "%.15e" (e.g. 1.477629166666667e-01, 0.000000000000000e+00), and "infinity" for +inf.
///
/// Rust's `{:.15e}` is correctly rounded (ties to even on the exact binary
/// value), as glibc's `printf` is; only the exponent differs (`e-1` vs
/// `e-01`) and is rewritten with a sign and at least two digits. `-inf` is
/// written `-infinity` and NaN `nan`; `-0.0` keeps its sign, as in C.
pub fn format_float(x: f64) -> String {
    let mut b = Vec::with_capacity(24);
    push_float(&mut b, x);
    String::from_utf8(b).expect("digits are ASCII")
}

/// Appends `x` as [`format_float`] formats it, without allocating.
pub fn push_float(out: &mut Vec<u8>, x: f64) {
    if x.is_nan() {
        return out.extend_from_slice(b"nan");
    }
    if x.is_infinite() {
        return out.extend_from_slice(if x > 0.0 { b"infinity" } else { b"-infinity" });
    }
    let start = out.len();
    write!(out, "{x:.15e}").expect("a Vec takes every write");
    let e = start
        + out[start..]
            .iter()
            .rposition(|&c| c == b'e')
            .expect("{:e} always has an exponent");
    let neg = out.get(e + 1) == Some(&b'-');
    let digits = e + 1 + neg as usize;
    let mut exp = [0u8; 4];
    let len = out.len() - digits;
    exp[..len].copy_from_slice(&out[digits..]);
    out.truncate(e + 1);
    out.push(if neg { b'-' } else { b'+' });
    if len < 2 {
        out.push(b'0');
    }
    out.extend_from_slice(&exp[..len]);
}

/// Two digits for each number below 100.
const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Appends `x` in decimal.
#[inline]
pub fn push_u64(out: &mut Vec<u8>, mut x: u64) {
    let mut buf = [0u8; 20];
    let n = x.checked_ilog10().map_or(1, |d| d as usize + 1);
    let mut i = n;
    while x >= 100 {
        let p = (x % 100) as usize * 2;
        x /= 100;
        i -= 2;
        buf[i..i + 2].copy_from_slice(&PAIRS[p..p + 2]);
    }
    if x >= 10 {
        let p = x as usize * 2;
        buf[i - 2..i].copy_from_slice(&PAIRS[p..p + 2]);
    } else {
        buf[i - 1] = b'0' + x as u8;
    }
    // The whole buffer (a copy of constant length), then cut to the digits.
    let at = out.len();
    out.extend_from_slice(&buf);
    out.truncate(at + n);
}

/// Appends `x` in decimal.
#[inline]
pub fn push_i64(out: &mut Vec<u8>, x: i64) {
    if x < 0 {
        out.push(b'-');
    }
    push_u64(out, x.unsigned_abs());
}

/// A wrapper making f64 display with [`format_float`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ldbc(pub f64);

impl fmt::Display for Ldbc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_float(self.0))
    }
}

/// Writes one `id value` line per vertex in original ids, ascending, atomically (temp file + rename; `-` = stdout).
///
/// Lines go in rank order (= ascending original id), whatever the store's
/// vertex order, so the file does not depend on it; the id maps are
/// streamed beside the values ([`RankWalk`]), never loaded. `value(v)` gets
/// the dense id; floats wrapped in [`Ldbc`]; a value that is itself a vertex
/// goes through [`write_vertex_labels`]. The file is written beside `path`
/// as `.NAME.tmp-PID`, fsynced and renamed over `path`; on any error (or
/// Ctrl-C) the temporary file is removed.
pub fn write_vertex_values<T>(path: &Path, store: &Store, value: impl Fn(u64) -> T) -> Result<()>
where
    T: fmt::Display,
{
    write_lines(path, store, |_, v, _| Ok(value(v)))
}

/// As [`write_vertex_values`], for values that are vertices named by their
/// rank (WCC's and CDLP's labels): each is written as its original id.
pub fn write_vertex_labels(path: &Path, store: &Store, label: impl Fn(u64) -> u64) -> Result<()> {
    let mut names = LabelNames::open(store)?;
    write_lines(path, store, |r, v, id| names.name(label(v), r, id))
}

/// Writes the original ids of the vertices `keep(dense id)` selects, one
/// per line, ascending, atomically (as [`write_vertex_values`]).
pub fn write_vertex_set(path: &Path, store: &Store, keep: impl Fn(u64) -> bool) -> Result<()> {
    walk_lines(path, store, |w, at, _, v, id| match keep(v) {
        true => writeln!(w, "{id}").at(at),
        false => Ok(()),
    })
}

fn write_lines<T: fmt::Display>(
    path: &Path,
    store: &Store,
    mut value: impl FnMut(u64, u64, &Id<'_>) -> Result<T>,
) -> Result<()> {
    walk_lines(path, store, |w, at, r, v, id| {
        let x = value(r, v, id)?;
        writeln!(w, "{id} {x}").at(at)
    })
}

/// Walks the vertices in rank order: `line(out, out's path, rank, dense id,
/// original id)` writes each one's line, if any.
fn walk_lines(
    path: &Path,
    store: &Store,
    mut line: impl FnMut(&mut dyn std::io::Write, &Path, u64, u64, &Id<'_>) -> Result<()>,
) -> Result<()> {
    let mut f = crate::outfile::OutFile::create(path)?;
    let target = f.target().to_path_buf();
    let w = f.writer();
    let mut walk = RankWalk::open(store)?;
    while let Some((r, v, id)) = walk.next_vertex()? {
        if r & 0xFFFF == 0 {
            crate::cancel::check()?;
        }
        line(w, &target, r, v, &id)?;
    }
    f.commit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::build::{build_store, BuildOptions};
    use crate::ingest::VecSource;
    use crate::store::Store;

    /// C's `snprintf("%.15e")` (glibc).
    fn c_format(x: f64) -> String {
        let mut buf = [0u8; 64];
        // SAFETY: the buffer is large enough for any "%.15e" of a double
        // (at most 24 bytes) and snprintf writes at most its length.
        let len = unsafe {
            libc::snprintf(
                buf.as_mut_ptr() as *mut libc::c_char,
                buf.len(),
                c"%.15e".as_ptr(),
                x,
            )
        };
        assert!(len > 0 && (len as usize) < buf.len());
        String::from_utf8(buf[..len as usize].to_vec()).unwrap()
    }

    #[test]
    fn format_float_cases() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0.000000000000000e+00"),
            (-0.0, "-0.000000000000000e+00"),
            (1.0, "1.000000000000000e+00"),
            (1e-300, "1.000000000000000e-300"),
            (123456.789, "1.234567890000000e+05"),
            (0.1 + 0.2, "3.000000000000000e-01"),
            (0.30000000000000004, "3.000000000000000e-01"),
            (0.3 + 0.53, "8.300000000000001e-01"),
            (0.69, "6.899999999999999e-01"),
            (1e100, "1.000000000000000e+100"),
            (-1.5, "-1.500000000000000e+00"),
            (5e-324, "4.940656458412465e-324"),
            (f64::MAX, "1.797693134862316e+308"),
            (9.5, "9.500000000000000e+00"),
            (f64::INFINITY, "infinity"),
            (f64::NEG_INFINITY, "-infinity"),
            (f64::NAN, "nan"),
        ];
        for &(x, want) in cases {
            assert_eq!(format_float(x), want, "{x:?}");
            assert_eq!(Ldbc(x).to_string(), want, "{x:?}");
        }
    }

    #[test]
    fn format_float_matches_glibc() {
        let mut values: Vec<f64> = vec![
            0.0,
            -0.0,
            1.0,
            0.1,
            1e-5,
            9.999999999999999e-5,
            1e22,
            1e23,
            f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
            f64::EPSILON,
        ];
        // Exact ties at the 16th significant digit (round half to even).
        for k in 0..2000u64 {
            values.push(1_000_000_000_000_000.0 + k as f64 + 0.5);
            values.push((1u64 << 52) as f64 + k as f64 * 5.0 + 0.5);
            values.push((k as f64 + 0.5) / 1024.0);
        }
        // Random bit patterns and random small quotients.
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let x = f64::from_bits(s);
            if x.is_finite() {
                values.push(x);
            }
            values.push((s % 1_000_000) as f64 / ((s >> 40) % 1000 + 1) as f64);
        }
        for x in values {
            assert_eq!(format_float(x), c_format(x), "{x:?} ({:#x})", x.to_bits());
        }
    }

    fn store_with_ids(dir: &Path, ids: &[u64], order: crate::store::VertexOrder) -> Store {
        crate::progress::set_quiet(true);
        let mut src = VecSource::new([(ids[0], ids[1], 1.0)]);
        src.vertices = ids.to_vec();
        let dest = dir.join("g.oc");
        let opts = BuildOptions {
            order,
            force: true,
            ..BuildOptions::default()
        };
        build_store(&mut src, &dest, &opts).unwrap();
        Store::open(&dest).unwrap()
    }

    #[test]
    fn writes_original_ids_atomically() {
        use crate::store::VertexOrder;
        let tmp = tempfile::tempdir().unwrap();
        // Ranks: 5 -> 0, 7 -> 1, 100 -> 2. By degree, 7 (no edge) comes last.
        for order in [VertexOrder::Original, VertexOrder::Degree] {
            let store = store_with_ids(tmp.path(), &[100, 5, 7], order);
            assert_eq!(store.manifest().has_order_map, order == VertexOrder::Degree);
            let ids = store.load_ids().unwrap();
            let out = tmp.path().join("out.txt");
            std::fs::write(&out, "old contents\n").unwrap();
            // Values by original id, looked up from the dense id.
            let val = |v: u64| match ids.get(v).as_u64().unwrap() {
                5 => 0.5,
                7 => f64::INFINITY,
                _ => 0.0,
            };
            write_vertex_values(&out, &store, |v| Ldbc(val(v))).unwrap();
            assert_eq!(
                std::fs::read_to_string(&out).unwrap(),
                "5 5.000000000000000e-01\n7 infinity\n100 0.000000000000000e+00\n"
            );
            // A label naming a vertex, by rank (its own, or another).
            write_vertex_labels(&out, &store, |v| 2 - ids.rank(v)).unwrap();
            assert_eq!(
                std::fs::read_to_string(&out).unwrap(),
                "5 100\n7 7\n100 5\n"
            );
        }
        let store = store_with_ids(tmp.path(), &[100, 5, 7], VertexOrder::Degree);
        // Nothing else left beside it.
        let names: Vec<String> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        // An unwritable destination fails and leaves no temporary file.
        let bad = tmp.path().join("no-such-dir").join("x");
        assert!(write_vertex_values(&bad, &store, |v| v).is_err());
    }
}
