//! The memory plan of an external run (intervals, message buffer, staging,
//! merge) from the budget, and the shares of edges and blocks a frontier
//! sends along, which the planner prices supersteps by.

use super::*;

/// Memory plan of one run.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sizes {
    pub(super) interval: u64,
    pub(super) messages: usize,
    pub(super) chunk: usize,
    pub(super) staging: usize,
    pub(super) merge: MergeConfig,
}

/// Fixed bytes the engine keeps outside its shares (I/O queues, small tables).
pub(super) const SLACK: u64 = 4 << 20;

pub(super) fn sizes<P: VertexProgram, T: crate::store::csr::Slot>(
    n: u64,
    weighted: bool,
    coded: bool,
    budget: &Budget,
    cfg: &ExternalConfig,
) -> Result<Sizes> {
    let avail = budget.available().saturating_sub(SLACK);
    let chunk = ((avail / 24) as usize).clamp(16 * ALIGN, 4 << 20) / ALIGN * ALIGN;
    // Per adjacency buffer: itself, its weights, a coded read's buffer.
    let weighted = if weighted { 3 } else { 1 }
        + if coded {
            coded_bytes(chunk).div_ceil(chunk) as u64
        } else {
            0
        };
    let staging = cfg
        .staging
        .unwrap_or((avail / 32) as usize)
        .clamp(ALIGN, 1 << 20)
        / ALIGN
        * ALIGN;
    let fixed = 2 * chunk as u64 * weighted + 2 * staging as u64;
    let share = avail.saturating_sub(fixed) / 3;
    let per_vertex = P::State::BYTES as u64 + 8 + 1;
    let interval = cfg
        .interval_vertices
        .unwrap_or(share / per_vertex)
        .clamp(1, n.max(1))
        .min(super::log::MAX_INTERVAL);
    let mem_rec = std::mem::size_of::<(T, P::Msg)>() as u64;
    let messages = (cfg.message_buffer.unwrap_or(share) / mem_rec).max(16) as usize;
    let memory = cfg
        .merge_memory
        .unwrap_or(share)
        .min(share.max(ALIGN as u64));
    let run_buffer = ((share / 8) as usize).clamp(ALIGN, 1 << 20) / ALIGN * ALIGN;
    let need = fixed + 3 * (interval * per_vertex).max(ALIGN as u64) + SLACK;
    if interval * per_vertex > share.max(per_vertex) && cfg.interval_vertices.is_none()
        || budget.available() < need.min(budget.available().max(48 * ALIGN as u64 + SLACK))
    {
        return Err(Error::Budget(format!(
            "the external engine needs at least {}; raise --memory",
            crate::size::format_size(need)
        )));
    }
    Ok(Sizes {
        interval,
        messages,
        chunk,
        staging,
        merge: MergeConfig::new(memory, run_buffer, cfg.fan_in),
    })
}

/// The share of the stored edges the active vertices send along (each
/// block's actives taken at its mean degree) and the share of blocks with
/// an active vertex.
pub(super) fn shares(active: &[u64], degree: &[u64], n: u64) -> (f64, f64) {
    let total = degree.iter().sum::<u64>().max(1) as f64;
    let mut edges = 0.0;
    for (b, (&a, &d)) in active.iter().zip(degree).enumerate() {
        let size = (n - (b * BLOCK) as u64).min(BLOCK as u64).max(1);
        edges += a as f64 / size as f64 * d as f64;
    }
    let with = active.iter().filter(|&&a| a > 0).count();
    (edges / total, with as f64 / active.len().max(1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frontier of hubs is priced by its edges: half of a block holding
    /// 90 % of the degrees weighs 45 % of the edges, not its share of the
    /// vertices.
    #[test]
    fn shares_weigh_blocks_by_their_degrees() {
        let n = 4 * BLOCK as u64;
        let degree = [900, 50, 30, 20];
        let (e, b) = shares(&[BLOCK as u64 / 2, 0, 0, 0], &degree, n);
        assert!((e - 0.45).abs() < 1e-12 && b == 0.25, "{e} {b}");
        // The last block may be short: its actives count against its size.
        let (e, _) = shares(&[0, 10], &[0, 100], BLOCK as u64 + 10);
        assert!((e - 1.0).abs() < 1e-12, "{e}");
    }
}
