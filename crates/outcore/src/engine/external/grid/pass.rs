//! The grid superstep's passes over the intervals' states: the values
//! pass writing every vertex's outgoing word, and the apply pass.

use super::{Grid, Layout};
use crate::engine::external::disk::{align_up, read_slot, write_all, Appender};
use crate::engine::state::BLOCK;
use crate::engine::vertex::{Aggregate, Value, VertexProgram};
use crate::engine::words::{unword, word};
use crate::error::Result;
use crate::io::{AlignedBuf, Reader};

impl Grid {
    /// Writes every vertex's outgoing word to the words file.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn values<P: VertexProgram>(
        &mut self,
        reader: &mut Reader,
        prog: &P,
        lay: &Layout,
        state_buf: &mut AlignedBuf,
        bits_buf: &mut AlignedBuf,
        stage: &mut Appender,
        active: &[u64],
        id: u64,
    ) -> Result<()> {
        let sb = P::State::BYTES;
        self.sends.fill(false);
        stage.switch(reader, self.words_file, 0)?;
        for (i, &count) in active.iter().enumerate() {
            crate::cancel::check()?;
            let (lo, hi) = (lay.bounds[i], lay.bounds[i + 1]);
            let len = (hi - lo) as usize;
            let on = count > 0;
            if on {
                let b = len.div_ceil(8);
                read_slot(reader, lay.bits_file, i, lay.bit_stride, bits_buf, b)?;
                read_slot(reader, lay.state_file, i, lay.stride, state_buf, len * sb)?;
            }
            let (sv, bv) = (state_buf.as_slice(), bits_buf.as_slice());
            let bv = if on { bv } else { &[] };
            put_words(prog, reader, stage, lo, len, sv, bv, &mut self.sends, id)?;
        }
        stage.finish_run(reader)?;
        stage.drain(reader)
    }
}

/// Applies interval `i` from its accumulators `acc`; writes its states and
/// next active bits; returns its active count.
#[allow(clippy::too_many_arguments)]
pub(super) fn apply<P: VertexProgram>(
    reader: &mut Reader,
    prog: &P,
    lay: &Layout,
    i: usize,
    acc: &[u64],
    state_buf: &mut AlignedBuf,
    bits_buf: &mut AlignedBuf,
    id: u64,
    agg: &mut Aggregate,
    blocks: &mut [u64],
    next: Option<(&mut Appender, &mut [bool])>,
) -> Result<u64> {
    let all = prog.apply_all();
    let lo = lay.bounds[i];
    if !all && acc.iter().all(|&a| a == 0) {
        if let Some((stage, _)) = next {
            put_words(prog, reader, stage, lo, acc.len(), &[], &[], &mut [], id)?;
        }
        return Ok(0);
    }
    let sb = P::State::BYTES;
    let len = acc.len();
    let sl = read_slot(reader, lay.state_file, i, lay.stride, state_buf, len * sb)?;
    let bl = align_up(len.div_ceil(8) as u64) as usize;
    let bv = &mut bits_buf.as_mut_slice()[..bl];
    bv.fill(0);
    let sv = state_buf.as_mut_slice();
    let mut count = 0;
    for (x, &a) in acc.iter().enumerate() {
        if a == 0 && !all {
            continue;
        }
        let m = [unword::<P::Msg>(a ^ id)];
        let ms: &[P::Msg] = if a == 0 { &[] } else { &m };
        let mut s = P::State::get(&sv[x * sb..]);
        if prog.apply(lo + x as u64, &mut s, ms, agg) {
            bv[x / 8] |= 1 << (x % 8);
            count += 1;
            blocks[(lo as usize + x) / BLOCK] += 1;
        }
        s.put(&mut sv[x * sb..]);
    }
    write_all(reader, lay.state_file, i as u64 * lay.stride, &sv[..sl])?;
    if let Some((stage, sends)) = next {
        // The next superstep's words, from the new states and active bits.
        let (sv, bv) = (state_buf.as_slice(), bits_buf.as_slice());
        put_words(prog, reader, stage, lo, len, sv, bv, sends, id)?;
    }
    if count > 0 {
        let b = &bits_buf.as_slice()[..bl];
        write_all(reader, lay.bits_file, i as u64 * lay.bit_stride, b)?;
    }
    Ok(count)
}

/// Appends the outgoing words of vertices `lo..lo + len` to `stage`: a
/// vertex whose bit is set in `bv` (none when `bv` is empty) sends what
/// `scatter` makes of its state in `sv`, the others the identity; blocks
/// with a sender are marked in `sends`.
#[allow(clippy::too_many_arguments)]
fn put_words<P: VertexProgram>(
    prog: &P,
    reader: &mut Reader,
    stage: &mut Appender,
    lo: u64,
    len: usize,
    sv: &[u8],
    bv: &[u8],
    sends: &mut [bool],
    id: u64,
) -> Result<()> {
    let sb = P::State::BYTES;
    let mut x = 0;
    while x < len {
        let space = stage.space(reader, (len - x) * 8)?;
        let fit = space.len() / 8;
        for (slot, y) in space.chunks_exact_mut(8).zip(x..x + fit) {
            let w = match !bv.is_empty() && bv[y / 8] >> (y % 8) & 1 == 1 {
                true => prog
                    .scatter(lo + y as u64, &P::State::get(&sv[y * sb..]))
                    .map_or(id, word),
                false => id,
            };
            if w != id {
                sends[(lo as usize + y) / BLOCK] = true;
            }
            slot.copy_from_slice(&w.to_le_bytes());
        }
        stage.commit(reader, fit * 8)?;
        x += fit;
    }
    Ok(())
}
