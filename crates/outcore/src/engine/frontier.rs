//! The frontier: the vertices active in a superstep, as a sparse sorted list
//! or a dense bitmap (Ligra's `vertexSubset`; DESIGN.md "The program model").
//! Small frontiers stay a list (cheap to walk, what the select engine wants);
//! large ones become a bitmap (constant size, what a sequential pass wants).
//! The switch is at |V| / 32 vertices, where the list (4 bytes a vertex)
//! outgrows the bitmap (1 bit a vertex).

/// Vertices of `0..n` (dense ids), sparse or dense.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Frontier {
    /// Sorted, distinct vertices.
    Sparse { n: u64, list: Vec<u32> },
    /// Bit `v` set when `v` is in the frontier; `count` bits are set.
    Dense { n: u64, bits: Vec<u64>, count: u64 },
}

impl Frontier {
    /// The empty frontier over `n` vertices.
    pub fn empty(n: u64) -> Frontier {
        Frontier::Sparse {
            n,
            list: Vec::new(),
        }
    }

    /// Every vertex of `0..n`.
    pub fn all(n: u64) -> Frontier {
        let mut bits = vec![u64::MAX; n.div_ceil(64) as usize];
        if !n.is_multiple_of(64) {
            if let Some(last) = bits.last_mut() {
                *last = (1u64 << (n % 64)) - 1;
            }
        }
        Frontier::Dense { n, bits, count: n }
    }

    /// From vertices in any order (duplicates dropped); dense when large.
    pub fn from_vertices(n: u64, mut list: Vec<u32>) -> Frontier {
        list.sort_unstable();
        list.dedup();
        debug_assert!(list.last().is_none_or(|&v| (v as u64) < n));
        Frontier::Sparse { n, list }.normalised()
    }

    /// From a bitmap of `n` bits; sparse when small.
    pub fn from_bits(n: u64, bits: Vec<u64>) -> Frontier {
        let count = bits.iter().map(|w| w.count_ones() as u64).sum();
        Frontier::Dense { n, bits, count }.normalised()
    }

    /// Above this many vertices a frontier is kept dense.
    pub fn dense_threshold(n: u64) -> u64 {
        n / 32
    }

    /// The representation that suits the size.
    pub fn normalised(self) -> Frontier {
        let n = self.universe();
        let len = self.len();
        match self {
            Frontier::Sparse { list, .. } if len > Self::dense_threshold(n) => {
                let mut bits = vec![0u64; n.div_ceil(64) as usize];
                for &v in &list {
                    bits[v as usize / 64] |= 1 << (v % 64);
                }
                Frontier::Dense {
                    n,
                    bits,
                    count: len,
                }
            }
            f @ Frontier::Dense { .. } if len <= Self::dense_threshold(n) / 2 => {
                let list = f.iter().collect();
                Frontier::Sparse { n, list }
            }
            f => f,
        }
    }

    /// Number of vertices in the universe.
    pub fn universe(&self) -> u64 {
        match self {
            Frontier::Sparse { n, .. } | Frontier::Dense { n, .. } => *n,
        }
    }

    /// Vertices in the frontier.
    pub fn len(&self) -> u64 {
        match self {
            Frontier::Sparse { list, .. } => list.len() as u64,
            Frontier::Dense { count, .. } => *count,
        }
    }

    /// True when no vertex is active.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when the frontier is held as a bitmap.
    pub fn is_dense(&self) -> bool {
        matches!(self, Frontier::Dense { .. })
    }

    /// Whether `v` is in the frontier.
    pub fn contains(&self, v: u32) -> bool {
        match self {
            Frontier::Sparse { list, .. } => list.binary_search(&v).is_ok(),
            Frontier::Dense { bits, .. } => bits
                .get(v as usize / 64)
                .is_some_and(|w| w >> (v % 64) & 1 == 1),
        }
    }

    /// The vertices in increasing order.
    pub fn iter(&self) -> Box<dyn Iterator<Item = u32> + '_> {
        match self {
            Frontier::Sparse { list, .. } => Box::new(list.iter().copied()),
            Frontier::Dense { bits, .. } => {
                Box::new(bits.iter().enumerate().flat_map(|(i, &w)| {
                    let mut w = w;
                    std::iter::from_fn(move || {
                        if w == 0 {
                            return None;
                        }
                        let b = w.trailing_zeros();
                        w &= w - 1;
                        Some(i as u32 * 64 + b)
                    })
                }))
            }
        }
    }

    /// How many vertices of `lo..hi` are in the frontier.
    pub fn count_in(&self, lo: u32, hi: u32) -> u64 {
        match self {
            Frontier::Sparse { list, .. } => {
                (list.partition_point(|&v| v < hi) - list.partition_point(|&v| v < lo)) as u64
            }
            Frontier::Dense { .. } => self.iter().filter(|&v| v >= lo && v < hi).count() as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_and_dense_agree() {
        let n = 1000;
        let vs: Vec<u32> = (0..n as u32).filter(|v| v % 7 == 3).collect();
        let f = Frontier::from_vertices(n, vs.iter().rev().copied().collect());
        assert!(f.is_dense(), "143 of 1000 is above n/32");
        assert_eq!(f.iter().collect::<Vec<_>>(), vs);
        assert_eq!(f.len(), vs.len() as u64);
        assert!(f.contains(10) && !f.contains(11));
        let small = Frontier::from_vertices(n, vec![5, 3, 5]);
        assert!(!small.is_dense());
        assert_eq!(small.iter().collect::<Vec<_>>(), vec![3, 5]);
        assert_eq!(small.count_in(4, 6), 1);
        let all = Frontier::all(70);
        assert_eq!(all.len(), 70);
        assert_eq!(all.iter().count(), 70);
        assert!(all.contains(69) && !all.contains(70));
        let back = Frontier::from_bits(n, vec![0b101; 16]).normalised();
        assert_eq!(back.iter().take(3).collect::<Vec<_>>(), vec![0, 2, 64]);
    }
}
