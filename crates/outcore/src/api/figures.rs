//! What a person reads of a run's answer when no values are written (issue
//! 49): the ten top vertices of a score (PageRank, betweenness, LCC, core
//! numbers, triangles, walk visits), or the largest components and
//! communities with their sizes. Each comes from one pass over the values,
//! wherever they are held (in memory, or on disk after the external
//! engine), inside the budget: a heap of ten for a score; for groups, a
//! counter per label when the budget holds one, else the heavy hitters
//! (Misra-Gries) counted exactly in a second pass.

use super::run::Algorithm;
use super::values::{Kind, VertexValues};
use crate::error::Result;
use crate::mem::Budget;
use crate::store::{IdLookup, Store};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// How many vertices or groups are shown.
pub const TOP: usize = 10;

/// Lines for stderr that describe `values`, the answer of `alg` (none for
/// the algorithms whose summary line says it all: BFS, SSSP, colouring,
/// MIS).
pub fn highlights(
    alg: Algorithm,
    values: &mut VertexValues,
    store: &Store,
    budget: &Budget,
) -> Result<Vec<String>> {
    let score = match alg {
        Algorithm::Pagerank => "pagerank",
        Algorithm::Betweenness => "betweenness",
        Algorithm::Lcc => "clustering coefficient",
        Algorithm::Kcore => "core number",
        Algorithm::Triangles => "triangles",
        Algorithm::Randomwalk => "visits",
        Algorithm::Wcc => return groups(values, store, budget, "components"),
        Algorithm::Cdlp => return groups(values, store, budget, "communities"),
        _ => return Ok(Vec::new()),
    };
    let n = store.manifest().num_vertices;
    let kind = values.kind();
    let top = top_vertices(values, store, budget, TOP)?;
    let lookup = IdLookup::open(store)?;
    let mut lines = vec![format!(
        "top {} of {n} vertices by {score} (id value):",
        top.len()
    )];
    for (v, x) in top {
        let shown = match kind {
            Kind::Float => readable(f64::from_bits(x)),
            _ => (x as i64).to_string(),
        };
        lines.push(format!("  {} {shown}", lookup.original(v)?));
    }
    Ok(lines)
}

/// A float to six significant digits, without an exponent where one is not
/// needed (`0.00123457`, `1234.57`, `1.50000e-7`).
pub fn readable(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let mag = x.abs().log10().floor() as i32;
    match (-4..9).contains(&mag) {
        true => format!("{x:.*}", (5 - mag).max(0) as usize),
        false => format!("{x:.5e}"),
    }
}

/// A value's bits mapped so that unsigned order is the value's order
/// (floats: IEEE total order; integers: two's complement).
fn order_key(kind: Kind, x: u64) -> u64 {
    match kind {
        Kind::Float if x >> 63 == 1 => !x,
        _ => x ^ (1 << 63),
    }
}

/// The dense ids and values of the `k` highest values, highest first;
/// of equal values, the smallest original id (rank) first. NaNs are left out.
pub(crate) fn top_vertices(
    values: &mut VertexValues,
    store: &Store,
    budget: &Budget,
    k: usize,
) -> Result<Vec<(u64, u64)>> {
    let kind = values.kind();
    let mut ranks = store.rank_reader()?;
    // By (key, Reverse(rank)); the dense id and value ride along.
    let mut best = Best::new(k);
    let mut err = None;
    values.for_each_dense(store, budget, &mut |v, x| {
        let rank = match ranks.next_rank() {
            Ok(r) => r,
            Err(e) => {
                err.get_or_insert(e);
                return;
            }
        };
        if kind == Kind::Float && f64::from_bits(x).is_nan() {
            return;
        }
        best.push(((order_key(kind, x), Reverse(rank)), v, x));
    })?;
    if let Some(e) = err {
        return Err(e);
    }
    Ok(best
        .largest_first()
        .into_iter()
        .map(|(_, v, x)| (v, x))
        .collect())
}

/// The `.1` largest items pushed (a min-heap of them).
struct Best<T: Ord>(BinaryHeap<Reverse<T>>, usize);

impl<T: Ord> Best<T> {
    fn new(k: usize) -> Self {
        Best(BinaryHeap::new(), k)
    }

    fn push(&mut self, item: T) {
        let item = Reverse(item);
        if self.0.len() < self.1 {
            self.0.push(item);
        } else if self.0.peek().is_some_and(|worst| item < *worst) {
            self.0.pop();
            self.0.push(item);
        }
    }

    fn largest_first(self) -> Vec<T> {
        // Ascending by Reverse is descending.
        self.0
            .into_sorted_vec()
            .into_iter()
            .map(|Reverse(t)| t)
            .collect()
    }
}

/// The largest groups of equal labels (labels are ranks): their number
/// and sizes, each with its label's original id.
fn groups(
    values: &mut VertexValues,
    store: &Store,
    budget: &Budget,
    what: &str,
) -> Result<Vec<String>> {
    let n = store.manifest().num_vertices;
    // A counter per label (u32 below 2^32 vertices) when the budget holds it.
    let width = if n <= u32::MAX as u64 { 4 } else { 8 };
    let (sizes, unranked_below) = match budget.charge(n * width, "group sizes") {
        Ok(_charge) if width == 4 => (exact::<u32>(values, store, budget, TOP)?.top, None),
        Ok(_charge) => (exact::<u64>(values, store, budget, TOP)?.top, None),
        Err(_) => {
            // Counters that fit a sixteenth of what is free (48 bytes each
            // in the map, at least 64 of them).
            let k = (budget.available() / 16 / 48).clamp(64, 1 << 20) as usize;
            let (sizes, floor) =
                heavy_hitters(k, TOP, |f| values.for_each_dense(store, budget, f))?;
            (sizes, Some(floor))
        }
    };
    let lookup = IdLookup::open(store)?;
    let mut parts = Vec::with_capacity(sizes.len());
    for (i, &(size, label)) in sizes.iter().enumerate() {
        let unit = if i == 0 { " vertices" } else { "" };
        parts.push(format!(
            "{size}{unit} (label {})",
            lookup.original_of_rank(label)?
        ));
    }
    let mut line = format!("largest {what}: {}", parts.join(", "));
    if let Some(floor) = unranked_below.filter(|_| sizes.len() < TOP) {
        line.push_str(&format!(
            " ({what} of {floor} vertices or fewer not ranked: the budget holds no counter per label)"
        ));
    }
    Ok(vec![line])
}

/// Groups counted exactly: the `k` largest (size, label), the number of
/// groups and of groups per power of two of sizes (`by_size[i]`: sizes in
/// 2^i..2^(i+1)).
pub(crate) struct Groups {
    pub top: Vec<(u64, u64)>,
    pub count: u64,
    pub by_size: Vec<u64>,
}

/// [`Groups`] from a counter of type `C` per label.
pub(crate) fn exact<C>(
    values: &mut VertexValues,
    store: &Store,
    budget: &Budget,
    k: usize,
) -> Result<Groups>
where
    C: Copy + Default + std::ops::AddAssign + From<u8> + Into<u64>,
{
    let mut count = vec![C::default(); store.manifest().num_vertices as usize];
    values.for_each_dense(store, budget, &mut |_, label| {
        count[label as usize] += C::from(1)
    })?;
    let mut by_size = Vec::new();
    for &c in &count {
        let c: u64 = c.into();
        if c > 0 {
            let bin = c.ilog2() as usize;
            if by_size.len() <= bin {
                by_size.resize(bin + 1, 0);
            }
            by_size[bin] += 1;
        }
    }
    let sizes = count.iter().enumerate().map(|(l, &c)| (c.into(), l as u64));
    Ok(Groups {
        top: largest(sizes, k),
        count: by_size.iter().sum(),
        by_size,
    })
}

/// The `k` largest of (size, label) pairs with a size, largest first;
/// of equal sizes, the smallest label first.
fn largest(items: impl Iterator<Item = (u64, u64)>, k: usize) -> Vec<(u64, u64)> {
    let mut best = Best::new(k);
    for (size, label) in items.filter(|p| p.0 > 0) {
        best.push((size, Reverse(label)));
    }
    let sorted = best.largest_first().into_iter();
    sorted.map(|(s, Reverse(l))| (s, l)).collect()
}

/// The largest groups of the labels `pass` streams (twice), in `k`
/// counters: Misra-Gries finds every label of more than m / (k + 1) of
/// the m labels, a second pass counts those exactly. Returns the `top`
/// largest of them that are certain (their exact size above that floor)
/// and the floor.
pub(crate) fn heavy_hitters(
    k: usize,
    top: usize,
    mut pass: impl FnMut(&mut dyn FnMut(u64, u64)) -> Result<()>,
) -> Result<(Vec<(u64, u64)>, u64)> {
    let mut counters: HashMap<u64, u64> = HashMap::with_capacity(k + 1);
    let mut m = 0u64;
    pass(&mut |_, label| {
        m += 1;
        if let Some(c) = counters.get_mut(&label) {
            *c += 1;
        } else if counters.len() < k {
            counters.insert(label, 1);
        } else {
            counters.retain(|_, c| {
                *c -= 1;
                *c > 0
            });
        }
    })?;
    counters.values_mut().for_each(|c| *c = 0);
    pass(&mut |_, label| {
        if let Some(c) = counters.get_mut(&label) {
            *c += 1;
        }
    })?;
    let floor = m / (k as u64 + 1);
    let sure = counters.into_iter().filter(|&(_, c)| c > floor);
    Ok((largest(sure.map(|(l, c)| (c, l)), top), floor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heavy_hitters_rank_the_large_groups_exactly() {
        // Groups of 500, 300, 120 and 100 vertices, then 2000 singletons,
        // interleaved.
        let mut labels: Vec<u64> = Vec::new();
        for (label, size) in [(7u64, 500), (3, 300), (9, 120), (4, 100)] {
            labels.extend(std::iter::repeat_n(label, size));
        }
        labels.extend(1000..3000);
        let len = labels.len();
        labels = (0..len).map(|i| labels[i * 7919 % len]).collect();
        let (top, floor) = heavy_hitters(64, TOP, |f| {
            labels.iter().enumerate().for_each(|(v, &l)| f(v as u64, l));
            Ok(())
        })
        .unwrap();
        assert_eq!(floor, len as u64 / 65);
        assert_eq!(top, [(500, 7), (300, 3), (120, 9), (100, 4)]);
        let exact = largest([(2, 5), (9, 1), (2, 3), (0, 8)].into_iter(), TOP);
        assert_eq!(exact, [(9, 1), (2, 3), (2, 5)]);
    }

    #[test]
    fn floats_read_to_six_digits() {
        assert_eq!(readable(0.00123456789), "0.00123457");
        assert_eq!(readable(1234.5678), "1234.57");
        assert_eq!(readable(1.5e-7), "1.50000e-7");
        assert_eq!(readable(0.0), "0");
        assert_eq!(readable(f64::INFINITY), "inf");
        let key = |x: f64| order_key(Kind::Float, x.to_bits());
        assert!(key(-2.0) < key(-1.0) && key(-1.0) < key(0.0) && key(0.0) < key(3.0));
        let ikey = |x: i64| order_key(Kind::Int, x as u64);
        assert!(ikey(-5) < ikey(0) && ikey(0) < ikey(7));
    }
}
