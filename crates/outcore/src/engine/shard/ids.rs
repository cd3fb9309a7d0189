//! [`ShardIds`]: where a shard's vertices live (its owned local range,
//! its ghosts by owner, every local vertex's global id), read from
//! partition.json and the shard store's id map and checked against both.

use super::id_bytes;
use crate::error::{Error, Result};
use crate::store::partition::PartitionManifest;
use crate::store::Store;
use std::ops::Range;

/// Where a shard's vertices live: its owned local range, its ghosts'
/// ranges by owner, and the global id of every local vertex.
pub struct ShardIds {
    /// Shard index and K.
    pub k: usize,
    pub parts: usize,
    /// Owned local ids.
    pub owned: Range<usize>,
    /// The first global id owned.
    pub first_global: u64,
    /// Per shard j != k: the local ids of the ghosts it owns (empty for k).
    pub ghosts: Vec<Range<usize>>,
    /// Per shard j: the local id of its first owned vertex and its first
    /// global id (its receivers' ids are `local_first + g - bounds[j]`).
    pub receivers: Vec<(u64, u64)>,
    /// Per shard j: its local vertices (owned and ghosts), which size
    /// the ids of its outboxes ([`id_bytes`]).
    pub sizes: Vec<u64>,
    /// Global id of each local vertex.
    pub global: std::sync::Arc<Vec<u64>>,
}

impl ShardIds {
    /// The ids of shard `k` of `m`, whose store is `store`.
    pub fn load(m: &PartitionManifest, k: usize, store: &Store) -> Result<ShardIds> {
        let parts = m.parts as usize;
        let info = &m.shards[k];
        let n = store.manifest().num_vertices;
        let ids = store.load_ids()?;
        let global: Vec<u64> = (0..n)
            .map(|v| ids.get(v).as_u64().unwrap_or(u64::MAX))
            .collect();
        let mut ghosts = Vec::with_capacity(parts);
        let mut start = 0usize;
        for j in 0..parts {
            if j == k {
                ghosts.push(0..0);
                start += info.owned as usize;
            } else {
                let c = info.ghosts[j] as usize;
                ghosts.push(start..start + c);
                start += c;
            }
        }
        let first = info.local_first as usize;
        let owned = first..first + info.owned as usize;
        let receivers = (m.shards.iter().zip(&m.bounds))
            .map(|(s, &b)| (s.local_first, b))
            .collect();
        let sid = ShardIds {
            k,
            parts,
            owned,
            first_global: m.bounds[k],
            ghosts,
            receivers,
            sizes: m.shards.iter().map(|s| s.owned + s.ghost_count()).collect(),
            global: std::sync::Arc::new(global),
        };
        // The layout partition.json describes must be the store's.
        let bad = (start as u64 != n)
            || sid
                .owned
                .clone()
                .any(|v| sid.global[v] != m.bounds[k] + (v - first) as u64)
            || (0..parts).any(|j| sid.ghosts[j].clone().any(|v| m.owner(sid.global[v]) != j));
        if bad {
            return Err(Error::store(
                store.path(),
                format!("shard {k}: its vertices are not laid out as partition.json says (owned, then ghosts by owner); partition the store again"),
            ));
        }
        Ok(sid)
    }

    /// The local id on shard `j` of global id `g` (owned by `j`).
    #[inline]
    pub fn receiver(&self, j: usize, g: u64) -> u64 {
        let (local_first, first) = self.receivers[j];
        local_first + (g - first)
    }

    /// The bytes of a target id in the outboxes for shard `j`.
    pub fn id_bytes(&self, j: usize) -> usize {
        id_bytes(self.sizes[j])
    }

    /// The local id of global id `g` if this shard owns it.
    pub fn local_of(&self, g: u64) -> Option<u64> {
        let owned = self.owned.len() as u64;
        (g >= self.first_global && g - self.first_global < owned)
            .then(|| self.owned.start as u64 + (g - self.first_global))
    }
}
