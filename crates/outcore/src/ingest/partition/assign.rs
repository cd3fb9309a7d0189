//! Which shard owns each vertex: balanced by stored edges (DESIGN.md,
//! "Partitioned stores").
//!
//! A vertex weighs its degree (out + in), so a shard's weight is about
//! the edges it stores. Hubs, vertices of at least 1/(16K) of the total
//! weight, go first, largest first, each to the lightest shard (LPT); the
//! rest follow in runs of the given order (rank: the input's own locality)
//! that fill shard after shard to an equal share of what is left.

use crate::error::{Error, Result};

/// A vertex's share of the total weight, as a fraction 1/(HUB_SHARE K),
/// from which it is placed on its own as a hub.
pub const HUB_SHARE: u64 = 16;

/// Owners, one per vertex, and the shards' weights.
#[derive(Clone, Debug)]
pub struct Assignment {
    /// The shard of each vertex.
    pub owner: Vec<u16>,
    /// Each shard's weight (the sum of its vertices' degrees).
    pub load: Vec<u64>,
    /// Vertices placed as hubs.
    pub hubs: u64,
}

/// Not yet placed.
const FREE: u16 = u16::MAX;

/// Assigns the vertices `0..weights.len()` to `parts` shards: hubs by LPT,
/// then the rest in the order `runs` gives (it calls its argument with
/// every vertex once).
pub fn assign(
    weights: &[u32],
    parts: usize,
    runs: impl FnOnce(&mut dyn FnMut(u64) -> Result<()>) -> Result<()>,
) -> Result<Assignment> {
    if parts == 0 || parts >= FREE as usize {
        return Err(Error::Invalid(format!(
            "{parts} parts: give 1 to {}",
            FREE - 1
        )));
    }
    let n = weights.len();
    let total: u64 = weights.iter().map(|&w| w as u64).sum();
    let mut owner = vec![FREE; n];
    let mut load = vec![0u64; parts];
    let mut hubs: Vec<(u32, u64)> = Vec::new();
    if parts > 1 {
        let least = (total / (HUB_SHARE * parts as u64)).max(1);
        hubs = (weights.iter().enumerate())
            .filter(|(_, &w)| w as u64 >= least)
            .map(|(v, &w)| (w, v as u64))
            .collect();
        // Largest first, ties by vertex.
        hubs.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for &(w, v) in &hubs {
            let k = (0..parts).min_by_key(|&k| (load[k], k)).unwrap_or(0);
            owner[v as usize] = k as u16;
            load[k] += w as u64;
        }
    }
    let hub_weight: u64 = load.iter().sum();
    // Shard k fills to an equal share of its own weight, the runs' weight
    // still to place and the later shards' hubs.
    let (mut k, mut left) = (0usize, total - hub_weight);
    let mut later: u64 = load.iter().skip(1).sum();
    let mut seen = 0u64;
    runs(&mut |v| {
        let Some(&w) = weights.get(v as usize) else {
            return Err(Error::Invalid(format!(
                "vertex {v} is past the {n} vertices"
            )));
        };
        if owner[v as usize] != FREE {
            return Ok(()); // a hub
        }
        let w = w as u64;
        while k + 1 < parts {
            // Placed while it brings the shard nearer its share than
            // leaving it: load + w/2 <= share, in integers.
            let share2 = 2 * (left + load[k] + later) as u128;
            if (2 * load[k] + w) as u128 * (parts - k) as u128 <= share2 {
                break;
            }
            k += 1;
            later -= load[k];
        }
        owner[v as usize] = k as u16;
        load[k] += w;
        left -= w;
        seen += 1;
        Ok(())
    })?;
    if seen + hubs.len() as u64 != n as u64 || owner.contains(&FREE) {
        return Err(Error::Invalid(format!(
            "the run order named {seen} vertices besides {} hubs, not all {n}",
            hubs.len()
        )));
    }
    Ok(Assignment {
        owner,
        load,
        hubs: hubs.len() as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn by_order(weights: &[u32], parts: usize) -> Assignment {
        let n = weights.len() as u64;
        assign(weights, parts, |f| (0..n).try_for_each(f)).unwrap()
    }

    #[test]
    fn hubs_spread_and_runs_fill_equal_shares() {
        // Two hubs of 100, then 200 vertices of 1: each of 2 shards gets
        // a hub and half the rest.
        let mut w = vec![100, 100];
        w.extend(std::iter::repeat_n(1, 200));
        let a = by_order(&w, 2);
        assert_eq!(a.hubs, 2);
        assert_ne!(a.owner[0], a.owner[1]);
        assert_eq!(a.load, vec![200, 200]);
        // Runs are contiguous in the order given.
        let firsts: Vec<u16> = a.owner[2..].to_vec();
        assert!(firsts.windows(2).all(|p| p[0] <= p[1]));
    }

    #[test]
    fn one_part_owns_everything_and_every_shard_gets_its_share() {
        let w: Vec<u32> = (0..1000).map(|v| (v % 7) as u32).collect();
        assert!(by_order(&w, 1).owner.iter().all(|&o| o == 0));
        for parts in 2..9 {
            let a = by_order(&w, parts);
            let mean = a.load.iter().sum::<u64>() as f64 / parts as f64;
            let max = *a.load.iter().max().unwrap() as f64;
            assert!(max / mean < 1.02, "{parts}: {:?}", a.load);
        }
    }

    #[test]
    fn a_run_order_missing_vertices_is_an_error() {
        // No hubs among 100 vertices of 1: the runs must name them all.
        let r = assign(&[1; 100], 2, |f| (0..50).try_for_each(f));
        assert!(r.unwrap_err().to_string().contains("not all 100"));
    }
}
