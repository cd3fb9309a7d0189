//! The manifest a build commits: what it built, how, from what.

use super::{BuildOptions, Counts};
use crate::store::csr::CsrStats;
use crate::store::manifest::{BuildInfo, CsrInfo, DegreeInfo, Manifest, TileInfo, FORMAT_NAME};
use crate::store::tiles::{TileGeometry, TileStats, TILE_BITS};
use crate::store::VertexOrder;

/// What the phases found.
pub(super) struct Facts<'a> {
    pub n: u64,
    pub counts: &'a Counts,
    pub opts: &'a BuildOptions,
    pub has_id_map: bool,
    pub string_ids: bool,
    pub vertex_order: VertexOrder,
    pub has_order_map: bool,
    pub geom: TileGeometry,
    /// Bytes of a CSR slot: 4, or 8 in a wide store.
    pub id_bytes: u64,
    pub tiles: &'a TileStats,
    /// The out-CSR (undirected: the adjacency) and, directed, the in-CSR.
    pub out: &'a CsrStats,
    pub r#in: Option<&'a CsrStats>,
    pub source: String,
    pub seconds: f64,
}

/// The manifest of a store built with `f` (its files are filled in when it
/// is committed).
pub(super) fn assemble(f: Facts) -> Manifest {
    Manifest {
        format: FORMAT_NAME.into(),
        format_version: Manifest::version_for(f.id_bytes),
        num_vertices: f.n,
        num_edges: f.counts.edges,
        num_self_loops: f.counts.self_loops,
        directed: f.opts.directed,
        weighted: f.opts.weighted,
        weight_type: f.opts.weighted.then(|| "f64".to_string()),
        has_id_map: f.has_id_map,
        string_ids: f.string_ids,
        name_page_sums: f.string_ids,
        vertex_order: f.vertex_order,
        has_order_map: f.has_order_map,
        tiles: TileInfo {
            tile_bits: TILE_BITS,
            group_tiles: f.opts.group_tiles,
            blocks: f.geom.blocks,
            upper_triangle: !f.opts.directed,
            num_tiles: f.tiles.tiles,
            num_groups: f.tiles.groups,
            max_tile_edges: f.tiles.max_tile_edges,
            edges: f.tiles.edges,
            compression: f
                .opts
                .compress
                .then(|| crate::store::tilecode::GAP_SVB.to_string()),
            frames: f.opts.compress.then_some(f.tiles.frames),
        },
        csr: CsrInfo {
            page_bytes: f.opts.page_bytes,
            id_bytes: f.id_bytes,
            out_slots: f.out.slots,
            out_entries: f.out.entries,
            in_slots: f.r#in.map_or(0, |s| s.slots),
            in_entries: f.r#in.map_or(0, |s| s.entries),
            page_sums: true,
            compression: f.opts.compress.then(|| f.opts.csr_code.codec().to_string()),
        },
        degrees: DegreeInfo {
            max_out: f.out.max_degree,
            max_in: f.r#in.map_or(f.out.max_degree, |s| s.max_degree),
            out_overflow: f.out.overflow,
            in_overflow: f.r#in.map_or(0, |s| s.overflow),
        },
        build: BuildInfo {
            tool: format!("outcore {}", env!("CARGO_PKG_VERSION")),
            source: f.source,
            format: f.opts.format.clone(),
            memory_budget: f.opts.memory,
            drop_self_loops: f.opts.drop_self_loops,
            input_edges: f.counts.input_edges,
            duplicates_merged: f.counts.duplicates,
            self_loops_dropped: f.counts.self_loops_dropped,
            seconds: f.seconds,
            created_unix: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        },
        files: Default::default(),
        delta: None,
        checksum: None,
    }
}
