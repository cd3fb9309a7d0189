//! Frames from keys in physical order (the format: [`super`]).

use crate::store::tiles::CHUNK_BYTES;

/// Bytes a frame may take beyond its count and codes: a length byte and
/// the padding.
const FRAME_SLACK: u64 = 4 + 1 + 4 + 3;

/// Builds frames from keys arriving in physical order, tile by tile.
pub struct FrameEncoder {
    /// Closed frames not yet taken; `base` is the file offset of `out[0]`.
    out: Vec<u8>,
    base: u64,
    /// The open frame: its lengths and gap bytes, its count and last key.
    open: bool,
    lens: Vec<u8>,
    data: Vec<u8>,
    count: u32,
    prev: u32,
    /// The file offset the open frame must end by, and where it starts.
    limit: u64,
    start: u64,
}

impl Default for FrameEncoder {
    fn default() -> Self {
        FrameEncoder {
            out: Vec::with_capacity(1 << 20),
            base: 0,
            open: false,
            lens: Vec::new(),
            data: Vec::new(),
            count: 0,
            prev: 0,
            limit: 0,
            start: 0,
        }
    }
}

impl FrameEncoder {
    fn pos(&self) -> u64 {
        self.base + self.out.len() as u64
    }

    /// Bytes of the open frame with `more` keys of `extra` bytes more,
    /// padded.
    fn frame_bytes(&self, more: u32, extra: usize) -> u64 {
        let n = (self.count + more) as u64;
        (4 + n.div_ceil(4) + (self.data.len() + extra) as u64).next_multiple_of(4)
    }

    /// Closes the open frame (if any): count, lengths, gaps, padding.
    fn close(&mut self) {
        if !std::mem::take(&mut self.open) {
            return;
        }
        let len = self.frame_bytes(0, 0);
        self.out.extend_from_slice(&self.count.to_le_bytes());
        self.out.extend_from_slice(&self.lens);
        self.out.extend_from_slice(&self.data);
        let pad = self.start + len - self.pos();
        self.out.extend(std::iter::repeat_n(0u8, pad as usize));
        self.lens.clear();
        self.data.clear();
    }

    /// Opens a frame at the next position that leaves room for a key
    /// before the chunk ends; returns its file offset.
    fn open_frame(&mut self) -> u64 {
        let mut at = self.pos();
        let end = (at / CHUNK_BYTES + 1) * CHUNK_BYTES;
        if end - at < FRAME_SLACK {
            self.out
                .extend(std::iter::repeat_n(0u8, (end - at) as usize));
            at = end;
        }
        self.limit = (at / CHUNK_BYTES + 1) * CHUNK_BYTES;
        self.start = at;
        self.open = true;
        self.count = 0;
        at
    }

    /// Starts a new tile: closes the open frame and returns the file offset
    /// of the tile's first frame.
    pub fn begin_tile(&mut self) -> u64 {
        self.close();
        self.open_frame()
    }

    /// Codes `key` (`src << 16 | dst`, above the tile's previous key).
    /// Returns the offset of a new frame of the same tile when the key did
    /// not fit before the chunk's end (the caller indexes it).
    #[inline]
    pub fn push(&mut self, key: u32) -> Option<u64> {
        let gap = match self.count {
            0 => key,
            _ => key.wrapping_sub(self.prev).wrapping_sub(1),
        };
        let len =
            1 + (gap >= 1 << 8) as usize + (gap >= 1 << 16) as usize + (gap >= 1 << 24) as usize;
        if self.start + self.frame_bytes(1, len) > self.limit {
            self.close();
            let new = self.open_frame();
            let fresh = self.push(key);
            debug_assert!(fresh.is_none(), "a key fits an empty frame");
            return Some(new);
        }
        let i = self.count as usize;
        if i.is_multiple_of(4) {
            self.lens.push(0);
        }
        *self.lens.last_mut().expect("a length byte") |= ((len - 1) as u8) << (2 * (i % 4));
        self.data.extend_from_slice(&gap.to_le_bytes()[..len]);
        self.count += 1;
        self.prev = key;
        None
    }

    /// Closed frames ready to write, if at least `min` bytes of them.
    pub fn take(&mut self, min: usize) -> Option<Vec<u8>> {
        if self.out.len() < min || self.out.is_empty() {
            return None;
        }
        self.base += self.out.len() as u64;
        Some(std::mem::replace(
            &mut self.out,
            Vec::with_capacity(1 << 20),
        ))
    }

    /// Closes the last frame; returns the remaining bytes and the file length.
    pub fn finish(mut self) -> (Vec<u8>, u64) {
        self.close();
        let len = self.pos();
        (self.out, len)
    }
}
