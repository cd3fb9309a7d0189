//! The updated edge list as one [`EdgeSource`]: the base's vertices, its
//! edges (from the out-CSR, in original ids) less the removals, then the
//! additions in their order.

use crate::error::{Error, Result};
use crate::ingest::names::fingerprint;
use crate::ingest::parse::named::Namer;
use crate::ingest::{EdgeSource, NamedBatch, NamedEdge, RawEdge};
use crate::size::format_size;
use crate::store::export::{for_each_edge, Layout};
use crate::store::{Id, Store};
use std::collections::HashSet;

/// Bytes the removals' hash set takes per element of its capacity: a pair
/// of 128-bit keys and a control byte per bucket, with the table's 1/8
/// slack. The set is charged by its capacity, and grows only when the old
/// table and the new one fit together.
const SLOT_BYTES: u64 = 38;
/// Edges (or vertices) handed to the build in one batch.
const BATCH: usize = 1 << 16;

use crate::ingest::update::KeyHash;

type KeySet = HashSet<(u128, u128), std::hash::BuildHasherDefault<KeyHash>>;

/// The edges to remove, as keys ([`key`]), held in memory.
pub(super) struct Removals {
    pub(super) set: KeySet,
    undirected: bool,
}

impl Removals {
    pub(super) fn read(
        sources: Vec<Box<dyn EdgeSource>>,
        undirected: bool,
        share: u64,
    ) -> Result<Removals> {
        let mut r = Removals {
            set: KeySet::default(),
            undirected,
        };
        for mut s in sources {
            let what = s.describe();
            let add = |set: &mut KeySet, k| {
                if set.len() == set.capacity() {
                    // Growing holds the old table and one twice its size.
                    let grown = (set.capacity().max(1) * 2 + set.capacity()) as u64;
                    if grown * SLOT_BYTES > share {
                        return Err(Error::Budget(format!(
                            "{what}: more edges to remove than {} holds ({} so far); \
                             remove them in several updates or raise --memory",
                            format_size(share),
                            set.len()
                        )));
                    }
                    set.reserve(set.capacity().max(1024));
                }
                set.insert(k);
                Ok(())
            };
            if s.string_ids() {
                s.for_each_named_batch(&mut |b| {
                    (b.edges.iter())
                        .try_for_each(|e| add(&mut r.set, key(undirected, e.src, e.dst)))
                })?;
            } else {
                s.for_each_edge_batch(&mut |b| {
                    (b.iter()).try_for_each(|e| {
                        add(&mut r.set, key(undirected, e.src as u128, e.dst as u128))
                    })
                })?;
            }
        }
        Ok(r)
    }

    pub(super) fn bytes(&self) -> u64 {
        self.set.capacity() as u64 * SLOT_BYTES
    }

    fn contains(&self, s: u128, d: u128) -> bool {
        !self.set.is_empty() && self.set.contains(&key(self.undirected, s, d))
    }
}

/// An edge's key: its ids (integers, or names' fingerprints), smaller
/// first when undirected.
fn key(undirected: bool, s: u128, d: u128) -> (u128, u128) {
    if undirected && d < s {
        (d, s)
    } else {
        (s, d)
    }
}

/// The updated edge list: the base's vertices, its edges less the removed
/// ones, then the additions.
pub(super) struct UpdateSource<'a> {
    pub(super) store: &'a Store,
    pub(super) adds: Vec<Box<dyn EdgeSource>>,
    pub(super) removals: Removals,
    /// Removals found in the base, and additions read (of the last pass).
    pub(super) hits: u64,
    pub(super) additions: u64,
}

impl UpdateSource<'_> {
    fn int(id: &Id<'_>) -> u64 {
        id.as_u64().unwrap_or_default()
    }
}

/// Hands `batch` to `f` and starts the next one when it holds `len` =
/// [`BATCH`] items, or (`last`) whatever it holds: the one place the
/// updated list is cut into batches, of integer ids or of names.
fn hand_on<B: Default>(
    len: usize,
    last: bool,
    batch: &mut B,
    f: impl FnOnce(&B) -> Result<()>,
) -> Result<()> {
    if last || len >= BATCH {
        f(&std::mem::take(batch))?;
    }
    Ok(())
}

impl EdgeSource for UpdateSource<'_> {
    fn describe(&self) -> String {
        let adds: Vec<String> = self.adds.iter().map(|a| a.describe()).collect();
        format!(
            "{} updated with {}",
            self.store.path().display(),
            adds.join(", ")
        )
    }

    fn expected_edges(&self) -> Option<u64> {
        let adds: u64 = (self.adds.iter()).filter_map(|a| a.expected_edges()).sum();
        Some(self.store.manifest().num_edges + adds)
    }

    fn string_ids(&self) -> bool {
        self.store.manifest().string_ids
    }

    fn for_each_vertex_batch(&mut self, f: &mut dyn FnMut(&[u64]) -> Result<()>) -> Result<()> {
        let ids = self.store.load_ids()?;
        let n = self.store.manifest().num_vertices;
        let mut batch = Vec::new();
        for v in 0..n {
            batch.push(Self::int(&ids.get(v)));
            hand_on(batch.len(), false, &mut batch, |b| f(b))?;
        }
        hand_on(batch.len(), true, &mut batch, |b| f(b))?;
        // The additions' own vertex lists (an LDBC `.v`, a Matrix Market
        // matrix's dimension).
        for a in &mut self.adds {
            a.for_each_vertex_batch(f)?;
        }
        Ok(())
    }

    fn for_each_edge_batch(&mut self, f: &mut dyn FnMut(&[RawEdge]) -> Result<()>) -> Result<()> {
        let (removals, mut hits) = (&self.removals, 0);
        let mut batch = Vec::new();
        for_each_edge(self.store, Layout::Csr, false, |s, d, weight| {
            let (src, dst) = (Self::int(&s), Self::int(&d));
            if removals.contains(src as u128, dst as u128) {
                hits += 1;
                return Ok(());
            }
            batch.push(RawEdge { src, dst, weight });
            hand_on(batch.len(), false, &mut batch, |b| f(b))
        })?;
        hand_on(batch.len(), true, &mut batch, |b| f(b))?;
        self.hits = hits;
        self.additions = 0;
        for a in &mut self.adds {
            a.for_each_edge_batch(&mut |b| {
                self.additions += b.len() as u64;
                f(b)
            })?;
        }
        Ok(())
    }

    fn for_each_named_batch(&mut self, f: &mut dyn FnMut(&NamedBatch) -> Result<()>) -> Result<()> {
        let what = self.store.path().to_path_buf();
        let named = |namer: &mut Namer, id: &Id<'_>| -> Result<u128> {
            let Id::Name(n) = id else {
                return Err(Error::damaged(
                    &what,
                    "ids.str",
                    "an integer id in a string store",
                ));
            };
            (namer.name(n)).map_err(|_| Error::damaged(&what, "ids.str", "a name that is not text"))
        };
        // The base's vertices, on their own first.
        let ids = self.store.load_ids()?;
        let n = self.store.manifest().num_vertices;
        let mut namer = Namer::default();
        for v in 0..n {
            let fp = named(&mut namer, &ids.get(v))?;
            namer.batch.vertices.push(fp);
            let len = namer.batch.vertices.len();
            hand_on(len, false, &mut namer, |n| f(&n.batch))?;
        }
        hand_on(0, true, &mut namer, |n| f(&n.batch))?;
        drop(ids);
        let (removals, mut hits) = (&self.removals, 0);
        for_each_edge(self.store, Layout::Csr, false, |s, d, weight| {
            let Id::Name(sn) = &s else {
                return Err(Error::damaged(
                    &what,
                    "ids.str",
                    "an integer id in a string store",
                ));
            };
            let Id::Name(dn) = &d else {
                return Err(Error::damaged(
                    &what,
                    "ids.str",
                    "an integer id in a string store",
                ));
            };
            if removals.contains(fingerprint(sn), fingerprint(dn)) {
                hits += 1;
                return Ok(());
            }
            let (src, dst) = (named(&mut namer, &s)?, named(&mut namer, &d)?);
            namer.batch.edges.push(NamedEdge { src, dst, weight });
            let len = namer.batch.edges.len();
            hand_on(len, false, &mut namer, |n| f(&n.batch))
        })?;
        hand_on(0, true, &mut namer, |n| f(&n.batch))?;
        self.hits = hits;
        self.additions = 0;
        for a in &mut self.adds {
            a.for_each_named_batch(&mut |b| {
                self.additions += b.edges.len() as u64;
                f(b)
            })?;
        }
        Ok(())
    }
}
