//! A [`MemState`] saved and loaded at a superstep boundary: the state half
//! of BSP checkpointing (Pregel's "checkpoint at the beginning of a
//! superstep"; the file, its header and checksum are
//! `engine/shard/ckpt.rs`'s).
//!
//! At a boundary (after `end`, or `apply_local` + `finish`, and before the
//! next `begin`) the live state is: the states (general and grouped
//! forms), the state or message words (in place, accumulating), the
//! next frontier's bits (`active`, in place `changed`), the blocks that
//! received, the aggregate, and when `end` computed the next messages
//! (`ready`) those messages, their sending blocks and frontier. Everything
//! else is empty there: the accumulators were taken by `apply` (owned
//! vertices) and `drain` (a shard's ghosts), a grouped arena's cursors
//! were rewound. So a state opened afresh on the same store and loaded
//! runs on bit for bit as the saved one would have.
//!
//! Encoding: little endian; each vector as its length (u64) then its
//! items ([`Value`] encodings, words as `W::BYTES` bytes, bitset words as
//! u64). A length other than the state's is refused.

use super::MemState;
use crate::engine::frontier::Frontier;
use crate::engine::vertex::{Value, VertexProgram};
use crate::engine::words::Word;
use std::io::{self, Read, Write};
use std::sync::atomic::Ordering::Relaxed;

/// Items encoded per write.
const CHUNK: usize = 8192;

fn bad(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg)
}

/// Writes `items`' count, then each through `put` into `bytes` bytes.
fn put_all<T>(
    w: &mut dyn Write,
    items: &[T],
    bytes: usize,
    put: impl Fn(&T, &mut [u8]),
) -> io::Result<()> {
    w.write_all(&(items.len() as u64).to_le_bytes())?;
    let mut buf = vec![0u8; CHUNK * bytes];
    for c in items.chunks(CHUNK) {
        for (i, x) in c.iter().enumerate() {
            put(x, &mut buf[i * bytes..(i + 1) * bytes]);
        }
        w.write_all(&buf[..c.len() * bytes])?;
    }
    Ok(())
}

/// Reads a vector [`put_all`] wrote, which must hold `n` items of `bytes`
/// bytes: each handed to `f` with its index.
fn get_all(
    r: &mut dyn Read,
    what: &str,
    n: usize,
    bytes: usize,
    f: impl FnMut(usize, &[u8]),
) -> io::Result<()> {
    let len = get_u64(r)? as usize;
    if len != n {
        return Err(bad(format!("{what}: {len} items, not the state's {n}")));
    }
    get_items(r, n, bytes, f)
}

/// Reads `n` items of `bytes` bytes, each handed to `f` with its index.
fn get_items(
    r: &mut dyn Read,
    n: usize,
    bytes: usize,
    mut f: impl FnMut(usize, &[u8]),
) -> io::Result<()> {
    let mut buf = vec![0u8; CHUNK * bytes];
    let mut at = 0;
    while at < n {
        let c = (n - at).min(CHUNK);
        r.read_exact(&mut buf[..c * bytes])?;
        for i in 0..c {
            f(at + i, &buf[i * bytes..(i + 1) * bytes]);
        }
        at += c;
    }
    Ok(())
}

/// A u64, little endian.
fn get_u64(r: &mut dyn Read) -> io::Result<u64> {
    let mut b = [0u8; 8];
    r.read_exact(&mut b)?;
    Ok(u64::from_le_bytes(b))
}

fn get_u8(r: &mut dyn Read) -> io::Result<u8> {
    let mut b = [0u8; 1];
    r.read_exact(&mut b)?;
    Ok(b[0])
}

fn le(x: &u64, b: &mut [u8]) {
    b.copy_from_slice(&x.to_le_bytes())
}

fn le_atomic(x: &std::sync::atomic::AtomicU64, b: &mut [u8]) {
    b.copy_from_slice(&x.load(Relaxed).to_le_bytes())
}

fn of_le(b: &[u8]) -> u64 {
    u64::from_le_bytes(b.try_into().expect("8 bytes"))
}

impl<P: VertexProgram, W: Word> MemState<P, W> {
    /// Writes the state at a superstep boundary to `w` (see the module).
    pub fn save(&self, w: &mut dyn Write) -> io::Result<()> {
        w.write_all(&(self.n as u64).to_le_bytes())?;
        w.write_all(&[self.ready as u8])?;
        for s in self.agg.sums {
            w.write_all(&s.to_bits().to_le_bytes())?;
        }
        w.write_all(&self.senders.to_le_bytes())?;
        match &self.frontier {
            Frontier::Sparse(list) => {
                w.write_all(&[1])?;
                put_all(w, list, 8, le)?;
            }
            Frontier::Dense => w.write_all(&[0])?,
        }
        let sb = <P::State as Value>::BYTES;
        put_all(w, &self.states, sb, |s, b| s.put(b))?;
        put_all(w, self.active.words(), 8, le)?;
        put_all(w, self.sending.words(), 8, le)?;
        put_all(w, self.received.words(), 8, le_atomic)?;
        put_all(w, self.changed.words(), 8, le_atomic)?;
        let wb = W::BYTES as usize;
        let words = self.words.as_ref().map_or(&[][..], |ws| &ws.out[..self.n]);
        put_all(w, words, wb, |c, b| {
            b.copy_from_slice(&W::load(c).wide().to_le_bytes()[..wb])
        })?;
        // The general form's next messages, when `end` computed them.
        let out = match self.ready && self.words.is_none() {
            true => &self.out[..],
            false => &[],
        };
        let mb = <P::Msg as Value>::BYTES;
        put_all(w, out, 1 + mb, |m, b| match m {
            Some(m) => {
                b[0] = 1;
                m.put(&mut b[1..]);
            }
            None => b.fill(0),
        })
    }

    /// Loads a state [`MemState::save`] wrote over this one (opened afresh
    /// on the same store for the same program). The aggregate loaded is
    /// the one the next `begin` sees.
    pub fn load(&mut self, r: &mut dyn Read) -> io::Result<()> {
        let n = get_u64(r)? as usize;
        if n != self.n {
            return Err(bad(format!("{n} vertices, not the state's {}", self.n)));
        }
        let ready = get_u8(r)? != 0;
        for s in &mut self.agg.sums {
            *s = f64::from_bits(get_u64(r)?);
        }
        self.senders = get_u64(r)?;
        self.frontier = match get_u8(r)? {
            0 => Frontier::Dense,
            _ => {
                let len = get_u64(r)? as usize;
                if len > self.n {
                    return Err(bad(format!("a frontier of {len} of {n} vertices")));
                }
                let mut list = vec![0u64; len];
                get_items(r, len, 8, |i, b| list[i] = of_le(b))?;
                Frontier::Sparse(list)
            }
        };
        let sb = <P::State as Value>::BYTES;
        let states = &mut self.states;
        get_all(r, "states", states.len(), sb, |i, b| {
            states[i] = <P::State as Value>::get(b)
        })?;
        let active = self.active.words_mut();
        get_all(r, "active", active.len(), 8, |i, b| active[i] = of_le(b))?;
        let sending = self.sending.words_mut();
        get_all(r, "sending", sending.len(), 8, |i, b| sending[i] = of_le(b))?;
        for (what, bits) in [("received", &self.received), ("changed", &self.changed)] {
            let ws = bits.words();
            get_all(r, what, ws.len(), 8, |i, b| ws[i].store(of_le(b), Relaxed))?;
        }
        let wb = W::BYTES as usize;
        let words = self.words.as_ref().map_or(&[][..], |ws| &ws.out[..self.n]);
        get_all(r, "words", words.len(), wb, |i, b| {
            let mut x = [0u8; 8];
            x[..wb].copy_from_slice(b);
            W::store(&words[i], W::of(u64::from_le_bytes(x)))
        })?;
        let mb = <P::Msg as Value>::BYTES;
        let out = match ready && self.words.is_none() {
            true => &mut self.out[..],
            false => &mut [],
        };
        get_all(r, "messages", out.len(), 1 + mb, |i, b| {
            out[i] = (b[0] != 0).then(|| <P::Msg as Value>::get(&b[1..]))
        })?;
        self.ready = ready;
        Ok(())
    }
}
