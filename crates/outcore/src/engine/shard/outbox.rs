//! Outboxes: the messages of one superstep from one shard for another (a
//! message log per destination, Pregel's "messages sent to vertices on
//! other workers", combined on the sender). A message is its target, a
//! local id of the *receiving* shard, and its [`Value`](crate::engine::vertex::Value)
//! encoding. The ids are 4 bytes when every local id of the receiver fits
//! in a u32 (its vertex count at most 2^32: always, in practice), else 8
//! ([`id_bytes`]); sender and receiver both derive the width from
//! partition.json, and the width travels with the ids ([`Targets`], a
//! numpy array's dtype from Python), so a receiver refuses an outbox of
//! the other width ([`check_width`]) instead of misreading it.

use crate::error::{Error, Result};

/// The bytes of a target id in the outboxes for a shard of `n` local
/// vertices: 4 while its ids (below `n`) fit in a u32, else 8.
pub fn id_bytes(n: u64) -> usize {
    match n <= 1 << 32 {
        true => 4,
        false => 8,
    }
}

/// The receivers of an outbox, as the receiving shard's local ids.
#[derive(Clone, Debug, PartialEq)]
pub enum Targets {
    U32(Vec<u32>),
    U64(Vec<u64>),
}

impl Default for Targets {
    fn default() -> Targets {
        Targets::U32(Vec::new())
    }
}

impl Targets {
    /// Empty targets of `bytes` (4 or 8) each, as [`id_bytes`] says.
    pub fn of_width(bytes: usize) -> Targets {
        match bytes {
            4 => Targets::U32(Vec::new()),
            _ => Targets::U64(Vec::new()),
        }
    }

    /// Appends `id`; false (and nothing appended) when it does not fit
    /// the width.
    #[must_use]
    pub fn push(&mut self, id: u64) -> bool {
        match self {
            Targets::U32(v) => match u32::try_from(id) {
                Ok(x) => v.push(x),
                Err(_) => return false,
            },
            Targets::U64(v) => v.push(id),
        }
        true
    }

    /// The number of targets.
    pub fn len(&self) -> usize {
        self.ids().len()
    }

    /// True without targets.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of one id.
    pub fn width(&self) -> usize {
        self.ids().width()
    }

    /// Their bytes on the wire.
    pub fn bytes(&self) -> usize {
        self.len() * self.width()
    }

    /// A view of them.
    pub fn ids(&self) -> Ids<'_> {
        match self {
            Targets::U32(v) => Ids::U32(v),
            Targets::U64(v) => Ids::U64(v),
        }
    }
}

/// The receivers of an outbox as a receiver reads them (in place, e.g.
/// from Ray's object store).
#[derive(Clone, Copy, Debug)]
pub enum Ids<'a> {
    U32(&'a [u32]),
    U64(&'a [u64]),
}

impl Ids<'_> {
    /// The number of ids.
    pub fn len(&self) -> usize {
        match self {
            Ids::U32(v) => v.len(),
            Ids::U64(v) => v.len(),
        }
    }

    /// True without ids.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of one id.
    pub fn width(&self) -> usize {
        match self {
            Ids::U32(_) => 4,
            Ids::U64(_) => 8,
        }
    }

    /// Id `i`.
    #[inline]
    pub fn get(&self, i: usize) -> u64 {
        match self {
            Ids::U32(v) => v[i] as u64,
            Ids::U64(v) => v[i],
        }
    }

    /// The ids in order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

impl<'a> From<&'a [u64]> for Ids<'a> {
    fn from(v: &'a [u64]) -> Ids<'a> {
        Ids::U64(v)
    }
}

impl<'a> From<&'a [u32]> for Ids<'a> {
    fn from(v: &'a [u32]) -> Ids<'a> {
        Ids::U32(v)
    }
}

/// Refuses an outbox from shard `from` to shard `k` (of `n` local
/// vertices) whose ids are not of the width `k` reads ([`id_bytes`]).
pub fn check_width(k: usize, from: usize, n: u64, ids: Ids<'_>) -> Result<()> {
    let want = id_bytes(n);
    if ids.width() == want {
        return Ok(());
    }
    Err(Error::Invalid(format!(
        "shard {k}: shard {from} sent an outbox with {}-byte target ids, but this shard's outboxes carry {want}-byte ones ({n} local vertices); it is refused, not misread (were the shards opened by different outcore builds?)",
        ids.width()
    )))
}

/// An outbox: the messages of one superstep for shard `to`, the receivers
/// as `to`'s local ids and the messages' encodings one after another, in
/// the same order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outbox {
    pub to: usize,
    pub targets: Targets,
    pub bytes: Vec<u8>,
}

impl Outbox {
    /// An empty outbox for shard `to`, with ids of `id_bytes` each.
    pub fn new(to: usize, id_bytes: usize) -> Outbox {
        Outbox {
            to,
            targets: Targets::of_width(id_bytes),
            bytes: Vec::new(),
        }
    }

    /// Its bytes on the wire: the ids and the messages.
    pub fn wire_bytes(&self) -> u64 {
        (self.targets.bytes() + self.bytes.len()) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_four_bytes_while_they_fit() {
        assert_eq!(id_bytes(0), 4);
        assert_eq!(id_bytes(1 << 32), 4);
        assert_eq!(id_bytes((1 << 32) + 1), 8);
        let mut t = Targets::of_width(4);
        assert!(t.push(u32::MAX as u64));
        assert!(!t.push(1 << 32));
        assert_eq!((t.len(), t.bytes()), (1, 4));
        let mut t = Targets::of_width(8);
        assert!(t.push(1 << 32));
        assert_eq!(t.ids().get(0), 1 << 32);
    }

    #[test]
    fn an_outbox_of_the_other_width_is_refused() {
        let wide = [7u64];
        let e = check_width(2, 0, 100, Ids::from(&wide[..]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("8-byte") && e.contains("4-byte"), "{e}");
        let narrow = [7u32];
        assert!(check_width(2, 0, 100, Ids::from(&narrow[..])).is_ok());
        assert!(check_width(2, 0, 5 << 32, Ids::from(&narrow[..])).is_err());
    }
}
