//! The in-memory reference of [`super::ColoringVp`]: the same synchronous
//! rounds (Jacobi: every tentative vertex reads its neighbours' colours
//! as of the round's start) on an edge list.

use super::{nth_free, pick, COLOR, FINAL};

/// The in-memory reference: the same rounds on the graph of `edges` on
/// `0..keys.len()` (arcs when `directed`: a pair linked both ways counts
/// twice, as its messages do), by dense id.
pub fn reference(keys: &[u64], edges: &[(u32, u32)], directed: bool) -> Vec<u32> {
    let n = keys.len();
    let mut arcs: Vec<(u32, u32)> = edges
        .iter()
        .filter(|(a, b)| a != b)
        .map(|&(a, b)| {
            if directed {
                (a, b)
            } else {
                (a.min(b), a.max(b))
            }
        })
        .collect();
    arcs.sort_unstable();
    arcs.dedup();
    let mut nbrs = vec![Vec::new(); n];
    for &(a, b) in &arcs {
        nbrs[a as usize].push(b as usize);
        nbrs[b as usize].push(a as usize);
    }
    let (mut word, mut losses) = (vec![0u32; n], vec![0u32; n]);
    while word.iter().any(|w| w & FINAL == 0) {
        let before = word.clone();
        for v in 0..n {
            let near = || nbrs[v].iter().map(|&u| before[u]);
            if before[v] & FINAL != 0 || nbrs[v].is_empty() {
                word[v] |= FINAL;
                continue;
            }
            let k = nbrs[v]
                .iter()
                .filter(|&&u| before[u] == before[v] && keys[u] > keys[v])
                .count() as u64;
            if k == 0 {
                word[v] |= FINAL;
                continue;
            }
            losses[v] += 1;
            let k = if directed { k.div_ceil(2) } else { k };
            let j = pick(keys[v], losses[v], k);
            word[v] = nth_free(near().map(|w| w & COLOR), j);
        }
    }
    word.iter().map(|w| w & COLOR).collect()
}
