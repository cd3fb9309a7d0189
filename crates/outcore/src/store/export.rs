//! `outcore export`: writes a layout back as an edge list in original ids, so
//! any layout can be checked against the input.

use super::read::{scan_csr, scan_tiles};
use super::Store;
use crate::error::{Error, IoContext, Result};
use std::io::{BufWriter, Write};
use std::path::Path;

/// Which layout to read the edges from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `tiles/`.
    Tiles,
    /// `csr/out.*`.
    Csr,
    /// `csr/in.*` (directed stores), written as `src dst` all the same.
    CsrIn,
}

impl std::str::FromStr for Layout {
    type Err = Error;
    fn from_str(s: &str) -> Result<Layout> {
        match s {
            "tiles" => Ok(Layout::Tiles),
            "csr" | "csr-out" => Ok(Layout::Csr),
            "csr-in" => Ok(Layout::CsrIn),
            _ => Err(Error::Invalid(format!(
                "unknown layout `{s}`: expected tiles, csr or csr-in"
            ))),
        }
    }
}

/// Writes the edges of `layout` to `out` (`-` for standard output), one
/// `src dst [weight]` line per edge in original ids, in the layout's order.
/// An undirected edge is written once, smaller original id first, unless
/// `both_directions`, which writes (u, v) and (v, u) (a self-loop once).
/// Returns the number of lines.
pub fn export(store: &Store, layout: Layout, both_directions: bool, out: &Path) -> Result<u64> {
    let m = store.manifest();
    if layout == Layout::CsrIn && !m.directed {
        return Err(Error::Invalid(
            "csr-in exists only in directed stores (undirected adjacency is in csr)".into(),
        ));
    }
    let ids = store.load_ids()?;
    let to_stdout = out.as_os_str() == "-";
    let tmp = out.with_file_name(format!(
        ".{}.tmp-{}",
        out.file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        std::process::id()
    ));
    let sink: Box<dyn Write> = if to_stdout {
        Box::new(std::io::stdout().lock())
    } else {
        Box::new(std::fs::File::create(&tmp).at(&tmp)?)
    };
    let target = if to_stdout {
        Path::new("<stdout>")
    } else {
        tmp.as_path()
    };
    let mut w = BufWriter::with_capacity(1 << 20, sink);
    let mut lines = 0u64;
    let weighted = m.weighted;
    let once = !m.directed && !both_directions;
    let mut line = |w: &mut BufWriter<Box<dyn Write>>, s: u64, d: u64, wt: f64| -> Result<()> {
        lines += 1;
        let (mut s, mut d) = (ids.get(s), ids.get(d));
        if once && s > d {
            // Stored as (min, max) in dense ids, which need not be the
            // original ids' order.
            std::mem::swap(&mut s, &mut d);
        }
        let r = if weighted {
            writeln!(w, "{s} {d} {wt}")
        } else {
            writeln!(w, "{s} {d}")
        };
        r.at(target)
    };
    let result = (|| -> Result<()> {
        match layout {
            Layout::Tiles => scan_tiles(store.path(), weighted, |_, _, e| {
                line(&mut w, e.src, e.dst, e.weight)?;
                if both_directions && !m.directed && e.src != e.dst {
                    line(&mut w, e.dst, e.src, e.weight)?;
                }
                Ok(())
            }),
            Layout::Csr => scan_csr(
                store.path(),
                "out",
                m.num_vertices,
                weighted,
                |v, _, u, wt| {
                    if m.directed || both_directions || v <= u {
                        line(&mut w, v, u, wt)?;
                    }
                    Ok(())
                },
            ),
            Layout::CsrIn => scan_csr(
                store.path(),
                "in",
                m.num_vertices,
                weighted,
                |v, _, u, wt| line(&mut w, u, v, wt),
            ),
        }?;
        w.flush().at(target)
    })();
    drop(w);
    match result {
        Ok(()) if !to_stdout => std::fs::rename(&tmp, out).at(out)?,
        Ok(()) => {}
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
    }
    Ok(lines)
}
