//! What a build is asked to do.

use super::{VertexOrder, MIN_MEMORY};
use crate::error::{Error, Result};
use crate::mem::Budget;
use crate::size::format_size;
use crate::store::csr::DEFAULT_PAGE_BYTES;
use crate::store::tiles::DEFAULT_GROUP_TILES;
use std::path::PathBuf;

/// How to build a store.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Keep edge direction (default true).
    pub directed: bool,
    /// Store edge weights.
    pub weighted: bool,
    /// Drop self-loops (default: keep them, as NetworkX does).
    pub drop_self_loops: bool,
    /// The memory budget in bytes.
    pub memory: u64,
    /// Where sorted runs go (default: beside the destination).
    pub scratch_dir: Option<PathBuf>,
    /// Replace an existing store.
    pub force: bool,
    /// Tiles per physical group side (a power of two).
    pub group_tiles: u32,
    /// Page size of the CSR files (a power of two, at least 4096).
    pub page_bytes: u64,
    /// Input format name, for the manifest.
    pub format: String,
    /// The order of dense ids (default: by degree; DESIGN.md, "Dense ids").
    pub order: VertexOrder,
    /// With `order` = degree: fall back to the original order when the
    /// degrees are not skewed (largest < [`SKEWED`](super::SKEWED) x mean: no hubs to
    /// gather, and the ids' own locality is kept) or when the budget cannot
    /// hold the order's 8 bytes per vertex. Default false (the CLI's
    /// `--order auto` sets it).
    pub order_auto: bool,
    /// Code the tiles in frames of gaps and the CSR's pages
    /// (`store::tilecode`, `store::csrcode`). The CLI and the Python API
    /// default to it (`--no-compress` and `compress=False` keep the plain
    /// layout); this struct's default is the plain layout, the one every
    /// byte-for-byte test of the library pins.
    pub compress: bool,
    /// With `compress`, the CSR's code (`--compress=fast|small`).
    pub csr_code: crate::store::csrcode::Code,
    /// Bytes a CSR slot takes: 4, or 8 for the wide layout (format version
    /// 2) that dense ids beyond 2^32 will need; forced here (the hidden
    /// `--csr-id-bytes`) to exercise it on small graphs.
    #[doc(hidden)]
    pub csr_id_bytes: u64,
    /// The most vertices a narrow build numbers (`u32::MAX`, the most u32
    /// ids hold); a build that counts more after reading its input goes on
    /// wide. Lowered by tests to build wide from the count.
    #[doc(hidden)]
    pub narrow_max: u64,
    /// Caps every sort buffer (bytes), to exercise spilling on small inputs
    /// in tests; `None` lets the budget decide.
    #[doc(hidden)]
    pub sort_buffer_cap: Option<u64>,
    /// Ranks integer ids on disk from the start, as the build does by
    /// itself when they outgrow the in-memory id map (tests).
    #[doc(hidden)]
    pub external_ids: bool,
    /// Sorts the tiles by a sorter of their own instead of placing them
    /// from the out stream (tests: both write the same bytes).
    #[doc(hidden)]
    pub sort_tiles: bool,
    /// `--order bfs` reads adjacency lists through the engines even when
    /// they fit in memory (tests).
    #[doc(hidden)]
    pub bfs_lists_on_disk: bool,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            directed: true,
            weighted: false,
            drop_self_loops: false,
            memory: Budget::default_limit(),
            scratch_dir: None,
            force: false,
            group_tiles: DEFAULT_GROUP_TILES,
            page_bytes: DEFAULT_PAGE_BYTES,
            format: String::new(),
            order: VertexOrder::Degree,
            order_auto: false,
            compress: false,
            csr_code: Default::default(),
            csr_id_bytes: 4,
            narrow_max: u32::MAX as u64,
            sort_buffer_cap: None,
            sort_tiles: false,
            bfs_lists_on_disk: false,
            external_ids: false,
        }
    }
}

impl BuildOptions {
    /// The options that shape the files of the store `m` describes
    /// (direction, weights, layout, codes, width, order), the rest default:
    /// what a rebuild of it (an update) or a build beside it (a shard) uses.
    pub fn shaped_like(m: &crate::store::manifest::Manifest) -> BuildOptions {
        use crate::store::csrcode;
        BuildOptions {
            directed: m.directed,
            weighted: m.weighted,
            drop_self_loops: m.build.drop_self_loops,
            group_tiles: m.tiles.group_tiles,
            page_bytes: m.csr.page_bytes,
            format: m.build.format.clone(),
            order: m.vertex_order,
            order_auto: false,
            compress: m.tiles.compression.is_some(),
            csr_code: match m.csr.compression.as_deref() {
                Some(csrcode::HUFF) => csrcode::Code::Small,
                _ => csrcode::Code::Fast,
            },
            csr_id_bytes: m.csr.id_bytes,
            ..BuildOptions::default()
        }
    }

    /// Whether the build carries dense ids as u64 and writes a wide store
    /// (8-byte CSR slots): when `csr_id_bytes` asks for it, or when the
    /// `n` vertices counted are more than u32 ids hold (`narrow_max`).
    pub(super) fn wide(&self, n: u64) -> bool {
        self.csr_id_bytes == 8 || n > self.narrow_max
    }

    /// Checks the options.
    pub fn validate(&self) -> Result<()> {
        if self.narrow_max > u32::MAX as u64 {
            return Err(Error::Invalid(format!(
                "narrow_max {} is more than 32-bit ids hold",
                self.narrow_max
            )));
        }
        if !self.group_tiles.is_power_of_two() || self.group_tiles > 1 << 16 {
            return Err(Error::Invalid(format!(
                "--group-tiles {} must be a power of two between 1 and 65536",
                self.group_tiles
            )));
        }
        if !self.page_bytes.is_power_of_two() || self.page_bytes < 4096 || self.page_bytes > 1 << 24
        {
            return Err(Error::Invalid(format!(
                "--page-size {} must be a power of two between 4 KiB and 16 MiB",
                self.page_bytes
            )));
        }
        if self.compress && self.page_bytes != 4096 {
            return Err(Error::Invalid(format!(
                "--compress codes CSR pages of 4 KiB; drop --page-size {} or --compress",
                self.page_bytes
            )));
        }
        if !matches!(self.csr_id_bytes, 4 | 8) {
            return Err(Error::Invalid(format!(
                "--csr-id-bytes {}: a CSR slot takes 4 or 8 bytes",
                self.csr_id_bytes
            )));
        }
        crate::mem::budget::check_limit(self.memory)?;
        if self.memory < MIN_MEMORY {
            return Err(Error::Budget(format!(
                "--memory {} is below the {} a build needs",
                format_size(self.memory),
                format_size(MIN_MEMORY)
            )));
        }
        Ok(())
    }
}

/// `--order`: `degree`, `bfs`, `original`, or `auto` (degree when the
/// degrees are skewed and the budget holds the order, else original; with
/// `compress`, bfs when it codes smaller: `algo::order`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OrderChoice {
    Auto,
    Degree,
    Bfs,
    Original,
}

impl OrderChoice {
    /// Sets `opts.order` and `opts.order_auto` as this choice says.
    pub fn apply(self, opts: &mut BuildOptions) {
        opts.order = match self {
            OrderChoice::Original => VertexOrder::Original,
            OrderChoice::Auto | OrderChoice::Degree => VertexOrder::Degree,
            OrderChoice::Bfs => VertexOrder::Bfs,
        };
        opts.order_auto = self == OrderChoice::Auto;
    }
}

impl std::str::FromStr for OrderChoice {
    type Err = crate::error::Error;
    fn from_str(s: &str) -> crate::error::Result<OrderChoice> {
        match s {
            "auto" => Ok(OrderChoice::Auto),
            "degree" => Ok(OrderChoice::Degree),
            "bfs" => Ok(OrderChoice::Bfs),
            "original" => Ok(OrderChoice::Original),
            _ => Err(crate::error::Error::Invalid(format!(
                "unknown vertex order `{s}`: expected auto, degree, bfs or original"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Wide when asked, or when the vertices counted pass u32.
    #[test]
    fn a_build_is_wide_when_asked_or_past_u32() {
        let narrow = BuildOptions::default();
        let asked = BuildOptions {
            csr_id_bytes: 8,
            ..Default::default()
        };
        assert!(!narrow.wide(0) && !narrow.wide(u32::MAX as u64));
        assert!(narrow.wide(u32::MAX as u64 + 1));
        assert!(asked.wide(0) && asked.wide(5));
    }
}
