//! `outcore verify`: recomputes every checksum and checks the structural
//! invariants of every layout; the first problem is returned as an error
//! naming the broken file.

use super::csrscan::scan_base_csr;
use super::degrees;
use super::file::checksum;
use super::read::{scan_tiles, LeReader};
use super::tiles::{TileGeometry, GROUPS_FILE, INDEX_FILE};
use super::{Store, VertexOrder, IDS_FILE, ORDER_FILE, ORDER_INV_FILE};
use crate::error::{Error, Result};
use crate::progress::Progress;
use std::path::Path;

/// What verify checked.
#[derive(Clone, Debug, Default)]
pub struct VerifyReport {
    pub files: u64,
    pub bytes: u64,
}

/// Verifies the store at `path`: the base files, then the delta's
/// ([`super::delta`]), when it has one.
pub fn verify(path: &Path) -> Result<VerifyReport> {
    let store = Store::open_with_delta(path)?;
    let m = store.base();
    let mut report = VerifyReport::default();
    let mut progress = Progress::new("verify checksums");
    for (rel, entry) in &m.files {
        progress.tick(|| rel.clone());
        let got = checksum(&store.file(rel))?;
        if got != *entry {
            let why = format!(
                "checksum mismatch (manifest: {} bytes, xxh3 {}; file: {} bytes, xxh3 {})",
                entry.bytes, entry.xxh3, got.bytes, got.xxh3
            );
            return Err(Error::damage_verified(path, rel, why));
        }
        report.files += 1;
        report.bytes += got.bytes;
    }
    progress.done(|| format!("{} files", report.files));
    let bad = |rel: &str, msg: String| Error::damage_verified(path, rel, msg);
    let n = m.num_vertices;

    if m.has_id_map {
        let mut r = LeReader::open(&store.file(IDS_FILE))?;
        let mut prev: Option<u64> = None;
        while let Some(x) = r.next_u64()? {
            if prev.is_some_and(|p| p >= x) {
                return Err(bad(IDS_FILE, "ids are not strictly increasing".into()));
            }
            prev = Some(x);
        }
    }

    if m.string_ids {
        // Loading checks that ids.off indexes ids.str; names must be
        // strictly increasing (ranks are positions in byte order).
        let ids = store.load_base_ids()?;
        for r in 1..n {
            if ids.original_of_rank(r - 1) >= ids.original_of_rank(r) {
                return Err(bad(
                    super::IDS_STR_FILE,
                    format!("names are not strictly increasing (at rank {r})"),
                ));
            }
        }
    }

    // The vertex order: order.bin a permutation, order.inv its inverse.
    let ranks = store.load_base_ranks()?;
    if let Some(rank) = &ranks {
        let mut seen = vec![false; n as usize];
        for (v, &r) in rank.iter().enumerate() {
            if std::mem::replace(&mut seen[r as usize], true) {
                return Err(bad(
                    ORDER_FILE,
                    format!("rank {r} appears twice (again at dense id {v}): not a permutation"),
                ));
            }
        }
        drop(seen);
        let mut r = LeReader::open(&store.file(ORDER_INV_FILE))?;
        for want in 0..n {
            let v = r.req_u32()?;
            if rank.get(v as usize) != Some(&(want as u32)) {
                return Err(bad(
                    ORDER_INV_FILE,
                    format!("rank {want} maps to dense id {v}, whose rank is not {want}"),
                ));
            }
        }
    }

    // Tiles: order, bounds, triangle, sorted unique edges; degrees from tiles.
    let geom = TileGeometry::new(n, m.tiles.group_tiles, !m.directed);
    if geom.blocks != m.tiles.blocks || m.tiles.upper_triangle == m.directed {
        return Err(bad(
            "manifest.json",
            "tile geometry does not match the vertex count".into(),
        ));
    }
    let mut out_deg = vec![0u32; n as usize];
    let mut in_deg = vec![0u32; if m.directed { n as usize } else { 0 }];
    let mut last: Option<(u64, u64, u64)> = None;
    let (mut tiles, mut edges, mut loops) = (0u64, 0u64, 0u64);
    // Edges in the current tile, and the most any tile holds.
    let (mut in_tile, mut most) = (0u64, 0u64);
    scan_tiles(
        store.root(),
        m.weighted,
        m.tiles.compressed(),
        |row, col, e| {
            let order = geom.tile_order(row as u64, col as u64);
            if row as u64 >= geom.blocks || col as u64 >= geom.blocks {
                return Err(bad(
                    INDEX_FILE,
                    format!("tile ({row}, {col}) is outside the {} blocks", geom.blocks),
                ));
            }
            if e.src >= n || e.dst >= n {
                return Err(bad(
                    "tiles/edges.bin",
                    format!("edge ({}, {}) names a vertex >= {n}", e.src, e.dst),
                ));
            }
            if !m.directed && e.src > e.dst {
                return Err(bad(
                    "tiles/edges.bin",
                    format!("edge ({}, {}) is below the diagonal", e.src, e.dst),
                ));
            }
            let key = (order, e.src, e.dst);
            match last {
                Some(l) if l >= key => {
                    return Err(bad(
                        "tiles/edges.bin",
                        format!("edge ({}, {}) is out of order or repeated", e.src, e.dst),
                    ));
                }
                Some(l) if l.0 == order => {}
                _ => {
                    tiles += 1;
                    in_tile = 0;
                }
            }
            in_tile += 1;
            most = most.max(in_tile);
            last = Some(key);
            edges += 1;
            loops += (e.src == e.dst) as u64;
            out_deg[e.src as usize] += 1;
            if m.directed {
                in_deg[e.dst as usize] += 1;
            } else if e.src != e.dst {
                out_deg[e.dst as usize] += 1;
            }
            Ok(())
        },
    )?;
    if edges != m.num_edges
        || edges != m.tiles.edges
        || tiles != m.tiles.num_tiles
        || tiles > m.tiles.index_entries()
        || m.tiles.compressed() != m.tiles.frames.is_some()
        || loops != m.num_self_loops
        || most != m.tiles.max_tile_edges
    {
        return Err(bad(
            "tiles/edges.bin",
            format!(
                "holds {edges} edges ({loops} self-loops) in {tiles} tiles, at most {most} in one; the manifest says {} ({}) in {}, at most {}",
                m.num_edges, m.num_self_loops, m.tiles.num_tiles, m.tiles.max_tile_edges
            ),
        ));
    }
    check_groups(
        store.root(),
        &geom,
        m.tiles.num_groups,
        m.tiles.index_entries(),
    )?;
    check_chunks(store.root())?;

    // CSR: page packing, sorted unique neighbours, degrees agree with tiles.
    let dirs: &[(&str, &Vec<u32>)] = if m.directed {
        &[("out", &out_deg), ("in", &in_deg)]
    } else {
        &[("out", &out_deg)]
    };
    let page_slots = m.slot_width().per_page(m.csr.page_bytes);
    for &(which, expect) in dirs {
        let (adj, off, _) = super::csr::files(which);
        let mut cur: Option<(u64, u64, u64)> = None; // vertex, first slot, last neighbour
        let mut count = vec![0u32; n as usize];
        let check_list = |v: u64, first: u64, len: u64| -> Result<()> {
            let fits = len <= page_slots;
            if (fits && first / page_slots != (first + len - 1) / page_slots)
                || (!fits && !first.is_multiple_of(page_slots))
            {
                return Err(bad(
                    &off,
                    format!("the list of vertex {v} breaks the page packing"),
                ));
            }
            Ok(())
        };
        scan_base_csr(&store, which, m.weighted, |v, slot, u, _| {
            if u >= n {
                return Err(bad(&adj, format!("vertex {v} has neighbour {u} >= {n}")));
            }
            match cur {
                Some((cv, first, lastn)) if cv == v => {
                    if u <= lastn {
                        return Err(bad(
                            &adj,
                            format!("the list of vertex {v} is not sorted and unique"),
                        ));
                    }
                    if slot != first + count[v as usize] as u64 {
                        return Err(bad(
                            &adj,
                            format!("the list of vertex {v} is not contiguous"),
                        ));
                    }
                    cur = Some((v, first, u));
                }
                prev => {
                    if let Some((pv, first, _)) = prev {
                        check_list(pv, first, count[pv as usize] as u64)?;
                    }
                    cur = Some((v, slot, u));
                }
            }
            count[v as usize] += 1;
            Ok(())
        })?;
        if let Some((pv, first, _)) = cur {
            check_list(pv, first, count[pv as usize] as u64)?;
        }
        let (dfile, _) = degrees::files(which);
        degrees::for_each(store.root(), which, |v, d| {
            if v >= n || d != count[v as usize] as u64 || d != expect[v as usize] as u64 {
                return Err(bad(
                    &dfile,
                    format!(
                        "vertex {v}: degree {d}, adjacency holds {}, tiles hold {}",
                        count.get(v as usize).copied().unwrap_or(0),
                        expect.get(v as usize).copied().unwrap_or(0)
                    ),
                ));
            }
            Ok(())
        })?;
    }

    // Degree order: degrees (out + in when directed) non-increasing in the
    // dense id, equal degrees by increasing rank.
    if m.vertex_order == VertexOrder::Degree {
        let rank = |v: usize| ranks.as_ref().map_or(v as u64, |r| r[v] as u64);
        let degree = |v: usize| {
            let d = out_deg[v] as u64 + in_deg.get(v).map_or(0, |&d| d as u64);
            d.min(u32::MAX as u64)
        };
        for v in 1..n as usize {
            let (a, b) = ((degree(v - 1), rank(v - 1)), (degree(v), rank(v)));
            if a.0 < b.0 || (a.0 == b.0 && a.1 > b.1) {
                return Err(bad(
                    if ranks.is_some() { ORDER_FILE } else { "manifest.json" },
                    format!(
                        "the vertex order is not by degree: dense id {} has degree {} (rank {}), dense id {v} degree {} (rank {})",
                        v - 1,
                        a.0,
                        a.1,
                        b.0,
                        b.1
                    ),
                ));
            }
        }
    }
    super::delta::verify_delta(&store, &mut report)?;
    Ok(report)
}

fn check_chunks(path: &Path) -> Result<()> {
    use super::tiles::{ChunkHasher, CHUNKS_FILE, EDGES_FILE};
    let mut h = ChunkHasher::default();
    super::file::read_chunks(&path.join(EDGES_FILE), 1, |b| {
        h.update(b);
        Ok(())
    })?;
    let expect = super::file::read_u64s(&path.join(CHUNKS_FILE))?;
    let got = h.finish();
    if let Some(i) = (0..got.len().max(expect.len())).find(|&i| got.get(i) != expect.get(i)) {
        let why = format!("chunk {i} does not match {CHUNKS_FILE}");
        return Err(Error::damage_verified(path, EDGES_FILE, why));
    }
    Ok(())
}

fn check_groups(path: &Path, geom: &TileGeometry, groups: u64, tiles: u64) -> Result<()> {
    let bad = |rel: &str, msg: String| Error::damage_verified(path, rel, msg);
    let mut gr = LeReader::open(&path.join(GROUPS_FILE))?;
    // The first tile of each group, from the index.
    let mut ir = LeReader::open(&path.join(INDEX_FILE))?;
    let mut firsts = Vec::new();
    let mut prev = None;
    for t in 0..=tiles {
        let (row, col, _) = (ir.req_u32()?, ir.req_u32()?, ir.req_u64()?);
        if t == tiles {
            if row != u32::MAX || col != u32::MAX || ir.next_u32()?.is_some() {
                return Err(bad(
                    INDEX_FILE,
                    format!("holds other than {tiles} entries and the closing one"),
                ));
            }
            break;
        }
        let g = geom.group_of(row as u64, col as u64);
        if prev != Some(g) {
            firsts.push((g, t));
            prev = Some(g);
        }
    }
    if firsts.len() as u64 != groups {
        return Err(bad(
            GROUPS_FILE,
            format!(
                "{} groups in the index, the manifest says {groups}",
                firsts.len()
            ),
        ));
    }
    for (g, t) in firsts {
        let (row, col, first) = (gr.req_u32()?, gr.req_u32()?, gr.req_u64()?);
        if (row as u64, col as u64, first) != (g.0, g.1, t) {
            return Err(bad(
                GROUPS_FILE,
                format!("group ({row}, {col}) does not match the tile index"),
            ));
        }
    }
    let (row, _, last) = (gr.req_u32()?, gr.req_u32()?, gr.req_u64()?);
    if row != u32::MAX || last != tiles {
        return Err(bad(GROUPS_FILE, "the closing entry is wrong".into()));
    }
    Ok(())
}
