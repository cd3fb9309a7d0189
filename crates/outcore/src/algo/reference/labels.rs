//! Reference labellings: weakly connected components and label propagation (CDLP).

use super::*;

/// Weakly connected components: each vertex is labelled with the smallest
/// rank of its component (= the smallest original id), direction ignored.
pub fn wcc(g: &MemGraph) -> Vec<u32> {
    const NONE: u32 = u32::MAX;
    let mut label = vec![NONE; g.n];
    let mut queue = VecDeque::new();
    let mut by_rank = vec![0u32; g.n];
    for (v, &r) in g.rank.iter().enumerate() {
        by_rank[r as usize] = v as u32;
    }
    for (r, &root) in by_rank.iter().enumerate() {
        let root = root as usize;
        if label[root] != NONE {
            continue;
        }
        // Roots are visited by increasing rank: the root has the smallest.
        label[root] = r as u32;
        queue.push_back(root);
        while let Some(v) = queue.pop_front() {
            for &(u, _) in g.out[v].iter().chain(g.inn[v].iter()) {
                if label[u as usize] == NONE {
                    label[u as usize] = r as u32;
                    queue.push_back(u as usize);
                }
            }
        }
    }
    label
}

/// Graphalytics community detection by label propagation: `L0(v) = rank(v)`; in
/// each of exactly `iterations` synchronous rounds every vertex takes the most
/// frequent label among its neighbours, ties to the smallest label; a vertex
/// without neighbours keeps its label. Neighbours: directed, `out(v) ++ in(v)`
/// (a vertex linked both ways counts twice, a self-loop too); undirected,
/// `out(v)`. Labels are ranks: smallest rank = smallest original id.
pub fn cdlp(g: &MemGraph, iterations: usize) -> Vec<u32> {
    let mut label: Vec<u32> = g.rank.clone();
    let mut seen: Vec<u32> = Vec::new();
    for _ in 0..iterations {
        let next: Vec<u32> = (0..g.n)
            .map(|v| {
                seen.clear();
                seen.extend(g.out[v].iter().map(|e| label[e.0 as usize]));
                if g.directed {
                    seen.extend(g.inn[v].iter().map(|e| label[e.0 as usize]));
                }
                if seen.is_empty() {
                    return label[v];
                }
                seen.sort_unstable();
                // The first label of the longest run: ties go to the smallest.
                let (mut best, mut best_count) = (seen[0], 0usize);
                let mut i = 0;
                while i < seen.len() {
                    let j = i + seen[i..].iter().take_while(|&&l| l == seen[i]).count();
                    if j - i > best_count {
                        best = seen[i];
                        best_count = j - i;
                    }
                    i = j;
                }
                best
            })
            .collect();
        label = next;
    }
    label
}
