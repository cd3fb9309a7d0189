//! Placed tiles coded in frames as their rows finish (`--compress`), on a
//! thread of their own beside the write phase's two.
//!
//! Frame sizes are not known before a tile's edges are, so the placement
//! writes plain tiles to a scratch file ([`super::tiles::TilePlacer`]); the
//! tiles of finished rows lead that file, and this thread reads each final
//! stretch back from the page cache and codes it with the [`TileWriter`]
//! while the placement goes on. It used to be coded whole after the last
//! row: at kron-24, 2.5 s of a 20 s import with the rest of the machine
//! idle. The bytes are the same either way: the writer sees the same edges
//! in the same order.

use crate::error::{Error, IoContext, Result};
use crate::io::fault;
use crate::store::tiles::{TileWriter, TILE_BITS};
use std::fs::File;
use std::path::PathBuf;
use std::sync::mpsc::{channel, Sender};
use std::thread::JoinHandle;

/// Bytes read back at a time (whole edges).
const READ: usize = 1 << 20;

/// The thread coding the plain scratch tiles as they become final.
pub(super) struct RowCoder {
    tx: Option<Sender<u64>>,
    handle: Option<JoinHandle<Result<TileWriter>>>,
    sent: u64,
}

impl RowCoder {
    /// Starts coding the plain tiles of the scratch file at `path` into
    /// `w`: `tiles` are the non-empty tiles (row, column, edges) in physical
    /// order, as the file holds them, 4 bytes an edge (local src, dst).
    pub fn start(path: PathBuf, mut w: TileWriter, tiles: Vec<(u32, u32, u64)>) -> RowCoder {
        let (tx, rx) = channel::<u64>();
        let handle = std::thread::spawn(move || -> Result<TileWriter> {
            let file = File::open(&path).at(&path)?;
            let (mut k, mut left) = (0, tiles.first().map_or(0, |t| t.2));
            let (mut done, mut buf) = (0u64, vec![0u8; READ]);
            for upto in rx {
                while done < upto {
                    let n = ((upto - done) as usize * 4).min(READ);
                    fault::read_exact_at(&file, &mut buf[..n], done * 4).at(&path)?;
                    for c in buf[..n].chunks_exact(4) {
                        while left == 0 {
                            k += 1;
                            left = tiles.get(k).map(|t| t.2).ok_or_else(|| {
                                Error::Invalid("internal: more placed edges than tiles hold".into())
                            })?;
                        }
                        let (s, d) = (
                            u16::from_le_bytes([c[0], c[1]]),
                            u16::from_le_bytes([c[2], c[3]]),
                        );
                        let (row, col) = (tiles[k].0 as u64, tiles[k].1 as u64);
                        w.push(
                            row << TILE_BITS | s as u64,
                            col << TILE_BITS | d as u64,
                            1.0,
                        )?;
                        left -= 1;
                    }
                    done += n as u64 / 4;
                }
            }
            Ok(w)
        });
        RowCoder {
            tx: Some(tx),
            handle: Some(handle),
            sent: 0,
        }
    }

    /// Edges `..upto` of the scratch file are written for good.
    pub fn final_upto(&mut self, upto: u64) {
        if upto > self.sent {
            self.sent = upto;
            // A coder that stopped kept its error for `finish`.
            let _ = self.tx.as_ref().map(|tx| tx.send(upto));
        }
    }

    /// Codes the rest, up to `total` edges, and hands the writer back.
    pub fn finish(mut self, total: u64) -> Result<TileWriter> {
        self.final_upto(total);
        self.tx = None;
        let handle = self.handle.take().expect("running until finish");
        handle.join().expect("tile coder panicked")
    }
}

impl Drop for RowCoder {
    /// A build that stops early (an error, a cancel) waits for the coder,
    /// which ends once its channel closes, before the scratch goes.
    fn drop(&mut self) {
        self.tx = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}
