//! Builds a store in any vertex order: the ingest builds in the orders it
//! computes while reading (original, degree, auto's choice of them); the
//! locality orders (`--order bfs`, and `--order auto --compress` switching
//! to a better-coded one) are computed here from a built store through the
//! engines ([`crate::algo::order`]) and written by relabelling that store
//! ([`relabel`]): ingest needs no engine.

use crate::algo::order::{choose, enumerate, original_ranks, Choice};
use crate::error::{Error, IoContext, Result};
use crate::ingest::build::{build_store, relabel, BuildOptions, BuildReport, VertexOrder};
use crate::ingest::EdgeSource;
use crate::mem::Budget;
use crate::progress::Progress;
use crate::store::Store;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Builds a store at `out` from `source` in the order `opts` asks for.
pub fn build(source: &mut dyn EdgeSource, out: &Path, opts: &BuildOptions) -> Result<BuildReport> {
    let bfs = opts.order == VertexOrder::Bfs;
    let from_store = bfs || (opts.order_auto && opts.compress);
    if !from_store {
        return build_store(source, out, opts);
    }
    opts.validate()?;
    // Refused now, not after a first build.
    crate::store::check_store_dest(out, opts.force, &[])?;
    let start = Instant::now();
    let budget = Budget::new(opts.memory);
    if bfs {
        return bfs_order(source, out, opts, &budget, start);
    }
    let r1 = build_store(source, out, opts)?;
    // Auto's first store is the one asked for, already in place: a failure
    // from here on (reading it for the choice, the relabelling) removes it,
    // so that a failed command leaves no store behind.
    let r = auto_order(r1, opts, &budget, start);
    if r.is_err() {
        let _ = std::fs::remove_dir_all(out);
    }
    r
}

/// `--order bfs`: a first store by degree (roots and ties go by degree)
/// beside `out`, numbered, relabelled into `out`, removed.
fn bfs_order(
    source: &mut dyn EdgeSource,
    out: &Path,
    opts: &BuildOptions,
    budget: &Budget,
    start: Instant,
) -> Result<BuildReport> {
    let base = match &opts.scratch_dir {
        Some(b) => b.clone(),
        None => out
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
    };
    // `.NAME.outcore-first-PID`: a build killed outright leaves it, and the
    // next one on the same target removes it.
    let name = out
        .file_name()
        .map_or_else(|| "store".into(), |n| n.to_string_lossy().into_owned());
    crate::stale::clean(&base, &name, "outcore-first");
    let pid = std::process::id();
    let dir = FirstDir(base.join(format!(".{name}.outcore-first-{pid}")));
    std::fs::create_dir_all(&dir.0).at(&dir.0)?;
    let first = BuildOptions {
        order: VertexOrder::Degree,
        order_auto: false,
        compress: false,
        force: true,
        ..opts.clone()
    };
    let r1 = build_store(source, &dir.0.join("store"), &first).map_err(|e| match e {
        Error::Budget(m) => Error::Budget(format!(
            "--order bfs numbers a first store built by degree: {m}"
        )),
        e => e,
    })?;
    let t = Instant::now();
    let store = Store::open(&r1.path)?;
    let ids = enumerate(&store, budget, opts.bfs_lists_on_disk, false)?;
    let secs = t.elapsed().as_secs_f64();
    let r2 = relabel(&store, out, ids.into_vec(), VertexOrder::Bfs, opts, budget)?;
    drop((store, dir));
    Ok(joined(r1, ("bfs order", secs), r2, start))
}

/// `--order auto --compress` after its first store `r1` (in place): keeps
/// it, or relabels it in the order whose gaps cost less.
fn auto_order(
    r1: BuildReport,
    opts: &BuildOptions,
    budget: &Budget,
    start: Instant,
) -> Result<BuildReport> {
    if r1.manifest.num_edges == 0 {
        // No edge, no neighbour to put near another: nothing to order.
        return Ok(r1);
    }
    let t = Instant::now();
    let store = Store::open(&r1.path)?;
    // Over a skewed graph (the first store came out in degree order),
    // Cuthill-McKee's levels are a few huge ones (a hub reaches most of the
    // graph in two steps), so they do not code `GAIN` smaller than the
    // degree order (Kronecker scale 20: 7.27 against 7.28 bits an entry;
    // p2p-Gnutella31: 9.36 against 10.16) and numbering them cost as much
    // as half the first build. Only the input's own order is weighed there.
    let skewed = r1.manifest.vertex_order == VertexOrder::Degree;
    let found = match skewed {
        true => None,
        false => match enumerate(&store, budget, opts.bfs_lists_on_disk, true) {
            Err(Error::Budget(m)) => {
                Progress::new("vertex order")
                    .done(|| format!("{m}; keeping the {} order", r1.manifest.vertex_order));
                None
            }
            r => Some(r?),
        },
    };
    // Over a store in degree order the input's own order is a candidate
    // too (a crawl order often has locality of its own).
    let ranks = match store.manifest().has_order_map {
        true => original_ranks(&store, budget)?,
        false => None,
    };
    let choice = choose(&store, &r1.manifest, found.as_ref(), ranks.as_ref())?;
    let secs = t.elapsed().as_secs_f64();
    let weighed = if skewed { "order choice" } else { "bfs order" };
    let (new_of_old, order) = match (choice, found, ranks) {
        (Choice::Bfs, Some(ids), _) => (ids.into_vec(), VertexOrder::Bfs),
        (Choice::Original, _, Some((ranks, _))) => (ranks.into_vec(), VertexOrder::Original),
        _ => {
            // The first store is the one kept: its own phases, then the choice.
            let mut phases = r1.phases.clone();
            phases.push((weighed, secs));
            return Ok(BuildReport {
                seconds: start.elapsed().as_secs_f64(),
                phases,
                ..r1
            });
        }
    };
    let again = BuildOptions {
        force: true,
        ..opts.clone()
    };
    let r2 = relabel(&store, &r1.path, new_of_old, order, &again, budget)?;
    // The first store, replaced while this one pinned it, goes once closed.
    drop(store);
    crate::store::file::clean_beside(&r1.path);
    Ok(joined(r1, (weighed, secs), r2, start))
}

/// The report of a first build `r1`, the order's computation and the
/// relabelling `r2`.
fn joined(
    r1: BuildReport,
    order: (&'static str, f64),
    r2: BuildReport,
    start: Instant,
) -> BuildReport {
    let mut phases = vec![("first build", r1.seconds), order];
    phases.extend(r2.phases.iter().copied());
    BuildReport {
        seconds: start.elapsed().as_secs_f64(),
        phases,
        input_bytes: r1.input_bytes,
        spilled_bytes: r1.spilled_bytes + r2.spilled_bytes,
        ..r2
    }
}

/// The first store's directory, removed on drop.
struct FirstDir(PathBuf);

impl Drop for FirstDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
