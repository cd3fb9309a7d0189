//! An update's batch in memory: the removals and additions as read from
//! their sources (in input order), each vertex id interned once.
//! Integer ids are kept as themselves, names as their fingerprints
//! ([`crate::ingest::names`]) with the names beside them.

use crate::error::{Error, Result};
use crate::ingest::EdgeSource;
use crate::size::format_size;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// A multiply-rotate hash of an edge key or id (FxHash's step on its
/// words): every base edge of a rewrite is looked up, and the default
/// SipHash made a 1% update of kron-22 spend 12 of its 22 s hashing. Keys
/// are the user's own ids, so flooding defence is not needed here.
#[derive(Default, Clone, Copy)]
pub struct KeyHash(u64);

impl std::hash::Hasher for KeyHash {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(w));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u128(&mut self, x: u128) {
        self.write_u64(x as u64);
        self.write_u64((x >> 64) as u64);
    }
}

/// A hash map keyed by ids or edge keys, with [`KeyHash`].
pub type KeyMap<K, V> = HashMap<K, V, BuildHasherDefault<KeyHash>>;

/// Bytes held per interned id (the id, its map entry with slack), per
/// removal and per addition.
const ID_BYTES: u64 = 16 + 40;
const REMOVE_BYTES: u64 = 8;
const ADD_BYTES: u64 = 16;

/// The batch (see the module docs).
#[derive(Default)]
pub struct Batch {
    /// Interned ids, in order of first appearance.
    pub ids: Vec<u128>,
    index: KeyMap<u128, u32>,
    /// String ids: the name of each fingerprint.
    pub names: KeyMap<u128, Vec<u8>>,
    name_bytes: u64,
    /// Vertices the additions list on their own, then their edges, and
    /// the edges to remove, as interned ids.
    pub listed: Vec<u32>,
    pub adds: Vec<(u32, u32, f64)>,
    pub removes: Vec<(u32, u32)>,
    limit: u64,
    /// Set when a read stopped because the batch passed its limit.
    pub overflowed: bool,
}

impl Batch {
    /// An empty batch that may hold `limit` bytes.
    pub fn new(limit: u64) -> Batch {
        Batch {
            limit,
            ..Default::default()
        }
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        self.ids.len() as u64 * ID_BYTES
            + self.name_bytes
            + self.listed.len() as u64 * 4
            + self.adds.len() as u64 * ADD_BYTES
            + self.removes.len() as u64 * REMOVE_BYTES
    }

    fn intern(&mut self, id: u128) -> u32 {
        let next = self.ids.len() as u32;
        let ids = &mut self.ids;
        *self.index.entry(id).or_insert_with(|| {
            ids.push(id);
            next
        })
    }

    fn check(&mut self, what: &str) -> Result<()> {
        if self.bytes() > self.limit || self.ids.len() >= u32::MAX as usize {
            self.overflowed = true;
            return Err(Error::Budget(format!(
                "{what}: the update's edges and ids need more than the {} --memory leaves \
                 them ({} ids, {} additions, {} removals so far); split the update into \
                 several, raise --memory, or let the update rewrite \
                 the store (without --no-compact it does so by itself; `outcore update \
                 --rewrite`; Python: compact=True)",
                format_size(self.limit),
                self.ids.len(),
                self.adds.len(),
                self.removes.len()
            )));
        }
        Ok(())
    }

    /// Reads `source`'s edges as additions (`add`, with their listed
    /// vertices) or removals, of a store with string ids or not.
    pub fn read(&mut self, source: &mut dyn EdgeSource, add: bool, names: bool) -> Result<u64> {
        let what = source.describe();
        if source.string_ids() != names {
            let (has, wants) = match names {
                true => ("string", "integer"),
                false => ("integer", "string"),
            };
            return Err(Error::Invalid(format!(
                "{what}: its vertex ids are {wants}s, but the store has {has} ids"
            )));
        }
        let mut read = 0u64;
        if names {
            source.for_each_named_batch(&mut |b| {
                for name in b.names() {
                    let fp = crate::ingest::names::fingerprint(name);
                    if !self.names.contains_key(&fp) {
                        self.name_bytes += name.len() as u64 + 40;
                        self.names.insert(fp, name.to_vec());
                    }
                }
                if add {
                    for &v in &b.vertices {
                        let i = self.intern(v);
                        self.listed.push(i);
                    }
                }
                for e in &b.edges {
                    self.edge(add, e.src, e.dst, e.weight);
                }
                read += b.edges.len() as u64;
                self.check(&what)
            })?;
        } else {
            if add {
                source.for_each_vertex_batch(&mut |vs| {
                    for &v in vs {
                        let i = self.intern(v as u128);
                        self.listed.push(i);
                    }
                    self.check(&what)
                })?;
            }
            source.for_each_edge_batch(&mut |b| {
                for e in b {
                    self.edge(add, e.src as u128, e.dst as u128, e.weight);
                }
                read += b.len() as u64;
                self.check(&what)
            })?;
        }
        Ok(read)
    }

    fn edge(&mut self, add: bool, s: u128, d: u128, w: f64) {
        let (s, d) = (self.intern(s), self.intern(d));
        match add {
            true => self.adds.push((s, d, w)),
            false => self.removes.push((s, d)),
        }
    }

    /// The name of interned id `i` (string ids).
    pub fn name(&self, i: u32) -> &[u8] {
        self.names
            .get(&self.ids[i as usize])
            .map_or(&[][..], |n| n.as_slice())
    }
}
