//! `outcore export`: writes a layout back as an edge list in original ids, so
//! any layout can be checked against the input.

use super::csrscan::scan_csr;
use super::read::scan_tiles;
use super::Store;
use crate::error::{Error, IoContext, Result};
use std::io::Write;
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
    let mut f = crate::outfile::OutFile::create(out)?;
    let target = f.target().to_path_buf();
    let target = target.as_path();
    let mut w = f.writer();
    let mut lines = 0u64;
    let weighted = m.weighted;
    let once = !m.directed && !both_directions;
    let mut line = |w: &mut &mut dyn Write, s: u64, d: u64, wt: f64| -> Result<()> {
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
            Layout::Tiles => scan_tiles(store.path(), weighted, m.tiles.compressed(), |_, _, e| {
                line(&mut w, e.src, e.dst, e.weight)?;
                if both_directions && !m.directed && e.src != e.dst {
                    line(&mut w, e.dst, e.src, e.weight)?;
                }
                Ok(())
            }),
            Layout::Csr => scan_csr(store, "out", weighted, |v, _, u, wt| {
                if m.directed || both_directions || v <= u {
                    line(&mut w, v, u, wt)?;
                }
                Ok(())
            }),
            Layout::CsrIn => scan_csr(store, "in", weighted, |v, _, u, wt| line(&mut w, u, v, wt)),
        }?;
        Ok(())
    })();
    result?;
    f.commit()?;
    Ok(lines)
}
