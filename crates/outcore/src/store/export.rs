//! `outcore export`: writes a layout back as an edge list in original ids, so
//! any layout can be checked against the input.

use super::csrscan::scan_csr;
use super::read::scan_tiles;
use super::{Id, Store};
use crate::error::{Error, IoContext, Result};
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

/// Calls `edge(src, dst, weight)` for every edge of `layout` in original
/// ids, in the layout's order (weight 1.0 in an unweighted store). An
/// undirected edge comes once, smaller original id first, unless
/// `both_directions`, which gives (u, v) and (v, u) (a self-loop once).
/// Streams: the original ids and one tile or CSR chunk in memory at a time.
/// Returns the number of edges. On a store with a delta the CSR layouts
/// give the view (base + delta, [`scan_csr`]); the tiles, which hold the
/// base alone, are refused.
pub fn for_each_edge(
    store: &Store,
    layout: Layout,
    both_directions: bool,
    mut edge: impl FnMut(Id<'_>, Id<'_>, f64) -> Result<()>,
) -> Result<u64> {
    let m = store.manifest();
    if layout == Layout::CsrIn && !m.directed {
        return Err(Error::Invalid(
            "csr-in exists only in directed stores (undirected adjacency is in csr)".into(),
        ));
    }
    if let (Layout::Tiles, Some(d)) = (layout, store.delta()) {
        return Err(Error::Invalid(format!(
            "the tiles of {} do not hold its pending updates (delta generation {}); export \
             --layout csr (the view, base + delta) or run `outcore compact` on it first",
            store.path().display(),
            d.generation
        )));
    }
    let ids = store.load_ids()?;
    let mut n = 0u64;
    let weighted = m.weighted;
    let once = !m.directed && !both_directions;
    let mut line = |s: u64, d: u64, wt: f64| -> Result<()> {
        n += 1;
        let (mut s, mut d) = (ids.get(s), ids.get(d));
        if once && s > d {
            // Stored as (min, max) in dense ids, which need not be the
            // original ids' order.
            std::mem::swap(&mut s, &mut d);
        }
        edge(s, d, wt)
    };
    match layout {
        Layout::Tiles => scan_tiles(store.root(), weighted, m.tiles.compressed(), |_, _, e| {
            line(e.src, e.dst, e.weight)?;
            if both_directions && !m.directed && e.src != e.dst {
                line(e.dst, e.src, e.weight)?;
            }
            Ok(())
        }),
        Layout::Csr => scan_csr(store, "out", weighted, |v, _, u, wt| {
            if m.directed || both_directions || v <= u {
                line(v, u, wt)?;
            }
            Ok(())
        }),
        Layout::CsrIn => scan_csr(store, "in", weighted, |v, _, u, wt| line(u, v, wt)),
    }?;
    Ok(n)
}

/// Writes the edges of `layout` ([`for_each_edge`]) to `out` (`-` for
/// standard output) as text, one `src dst [weight]` line per edge. Returns
/// the number of lines. (`--out X.parquet`: `api::export_parquet`.)
pub fn export(store: &Store, layout: Layout, both_directions: bool, out: &Path) -> Result<u64> {
    let weighted = store.manifest().weighted;
    let mut f = crate::outfile::OutFile::create(out)?;
    let target = f.target().to_path_buf();
    let w = f.writer();
    let lines = for_each_edge(store, layout, both_directions, |s, d, wt| {
        let r = if weighted {
            writeln!(w, "{s} {d} {wt}")
        } else {
            writeln!(w, "{s} {d}")
        };
        r.at(&target)
    })?;
    f.commit()?;
    Ok(lines)
}
