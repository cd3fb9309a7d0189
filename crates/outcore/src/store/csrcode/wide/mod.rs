//! Coded wide pages (`csr.id_bytes` 8 with `--compress`; DESIGN.md, "Wide
//! ids"): a page of u64 ids as the narrow code of their low halves and the
//! few carries the low halves lose.
//!
//! The delta of two low halves is the delta of the ids modulo 2^32, so
//! either narrow code ([`super::svb`], [`super::huff`], or the store's
//! tag and the smaller of them) takes the low halves at the cost it takes
//! narrow ids. A delta of 2^31 or more either way (a jump between lists,
//! or a gap in a short list, of a store past 2^31 vertices) also needs its
//! high part, the *carry*:
//!
//! ```text
//! u8 form 0 | the low halves x_i mod 2^32 as a narrow page of k entries, any
//!             values, in the store's code |
//!             varint carries | each: varint index gap (its entry's index
//!             minus the previous carry's, minus 1; the first: its index),
//!             varint zigzag carry
//! u8 form 1 | u32 k | k u64 ids (plain: when the code would be longer)
//! ```
//!
//! with `x_i = x_{i-1} + sext32((x_i - x_{i-1}) mod 2^32) + carry_i * 2^32`
//! (`x_{-1} = 0`; a carry not listed is 0). A store of fewer than 2^31
//! vertices has no carries: its wide pages cost the narrow code and one
//! byte. Form 1 bounds a page at its plain bytes and 5, under the bound of
//! a narrow page of the same bytes ([`super::max_coded`]), so the page
//! directory's check and the read buffers hold for both widths.
//!
//! Decoding is in place: the low halves go to the page's upper half, are
//! copied out, and the ids are written from the page's start in runs
//! between carries. Ids are below 2^63 (the build's dense ids stop at
//! 2^48), so the padding `u64::MAX` is never one.

use super::{decode_tagged, encode_entries, svb, Code};
use crate::base::leb128;

/// The form byte of a page of low halves and carries.
const FORM_CODED: u8 = 0;
/// The form byte of a plain page.
const FORM_PLAIN: u8 = 1;
/// Ids stay below this: deltas fit an i64, the padding is never an id.
const END: u64 = 1 << 63;

/// The delta of `x` from `prev` that the low halves do not carry, in units
/// of 2^32.
#[inline]
fn carry(x: u64, prev: u64) -> i64 {
    let d = x as i128 - prev as i128;
    ((d - (d as i32 as i128)) >> 32) as i64
}

/// Appends the coded form of one plain wide page (its slots, ids then
/// padding `u64::MAX`) to `out` in `code`.
pub fn encode(code: Code, slots: &[u64], out: &mut Vec<u8>) {
    let k = slots
        .iter()
        .position(|&x| x == u64::MAX)
        .unwrap_or(slots.len());
    let ids = &slots[..k];
    debug_assert!(
        slots[k..].iter().all(|&x| x == u64::MAX),
        "padding inside a page"
    );
    debug_assert!(ids.iter().all(|&x| x < END), "an id past 2^63");
    let at = out.len();
    out.push(FORM_CODED);
    let lows: Vec<u32> = ids.iter().map(|&x| x as u32).collect();
    encode_entries(code, &lows, out);
    let carries: Vec<(usize, i64)> = (0..k)
        .map(|i| (i, carry(ids[i], if i == 0 { 0 } else { ids[i - 1] })))
        .filter(|&(_, c)| c != 0)
        .collect();
    let mut v = [0u8; 10];
    let mut put = |x: u64, out: &mut Vec<u8>| {
        let n = leb128::put(&mut v, x);
        out.extend_from_slice(&v[..n]);
    };
    put(carries.len() as u64, out);
    let mut next = 0;
    for (i, c) in carries {
        put((i - next) as u64, out);
        put(((c << 1) ^ (c >> 63)) as u64, out);
        next = i + 1;
    }
    if out.len() - at > 5 + 8 * k {
        out.truncate(at);
        out.push(FORM_PLAIN);
        out.extend_from_slice(&(k as u32).to_le_bytes());
        out.extend(ids.iter().flat_map(|x| x.to_le_bytes()));
    }
}

/// Decodes the coded wide page at the start of `coded` into `page` (the
/// plain page's bytes: little-endian u64 slots, the tail padded); `tagged`
/// as the store's pages are ([`super::HUFF`]). Returns the coded bytes
/// consumed, or what is wrong with them.
pub fn decode(coded: &[u8], page: &mut [u8], tagged: bool) -> Result<usize, String> {
    let slots = page.len() / 8;
    let (form, body) = coded.split_first().ok_or("the page's form is cut off")?;
    let count = |b: &[u8]| -> Result<usize, String> {
        let k = b
            .get(..4)
            .map(|h| u32::from_le_bytes(h.try_into().expect("4 bytes")) as usize)
            .ok_or("the page's entry count is cut off")?;
        match k <= slots {
            true => Ok(k),
            false => Err(format!("a page claims {k} entries; a page holds {slots}")),
        }
    };
    let (k, used) = match *form {
        FORM_PLAIN => {
            let k = count(body)?;
            let ids = body.get(4..4 + 8 * k).ok_or("the page's ids are cut off")?;
            page[..8 * k].copy_from_slice(ids);
            let bad = page[..8 * k]
                .chunks_exact(8)
                .any(|x| u64::from_le_bytes(x.try_into().expect("8 bytes")) >= END);
            if bad {
                return Err("an id of 2^63 or more".into());
            }
            (k, 4 + 8 * k)
        }
        FORM_CODED => {
            let k = count(body.get(tagged as usize..).unwrap_or(&[]))?;
            let lows = &mut page[4 * slots..8 * slots];
            let low_bytes = match tagged {
                true => decode_tagged(body, lows, false)?,
                false => svb::decode_words(body, lows)?,
            };
            let carries = widen(&body[low_bytes..], page, k)?;
            (k, low_bytes + carries)
        }
        f => return Err(format!("a page of form {f}; the forms are 0 and 1")),
    };
    page[8 * k..].fill(0xff);
    Ok(1 + used)
}

/// Turns the `k` low halves in the upper half of `page` into ids from its
/// start, with the carries coded at the start of `carries`; returns the
/// carries' bytes.
fn widen(carries: &[u8], page: &mut [u8], k: usize) -> Result<usize, String> {
    let base = page.len() / 8 * 4;
    // The halves copied out (a 4 KiB page's fit on the stack), so the ids
    // can be written over them in one pass.
    let (mut stack, mut heap) = ([0u32; 512], Vec::new());
    let lows = match k <= stack.len() {
        true => &mut stack[..k],
        false => {
            heap.resize(k, 0);
            &mut heap[..]
        }
    };
    for (l, b) in lows.iter_mut().zip(page[base..].chunks_exact(4)) {
        *l = u32::from_le_bytes(b.try_into().expect("4 bytes"));
    }
    let mut at = 0;
    let mut take = || -> Result<u64, String> {
        let (v, n) = leb128::take(&carries[at..]).ok_or("the page's carries are cut off")?;
        at += n;
        Ok(v)
    };
    let mut left = take()?;
    if left > k as u64 {
        return Err(format!("a page of {k} entries with {left} carries"));
    }
    let mut next = match left {
        0 => k,
        _ => take()?.min(k as u64) as usize,
    };
    let (mut prev, mut prev_low, mut i) = (0i64, 0u32, 0usize);
    // Bit 63 of any id set: outside 0..2^63.
    let mut outside = 0u64;
    let mut ids = page[..8 * k].chunks_exact_mut(8);
    while i < k {
        // A run without carries. A step from an id below 2^63 that leaves
        // 0..2^63 sets bit 63 (as i64 it wraps or goes below 0).
        for (&low, out) in lows[i..next].iter().zip(&mut ids) {
            prev = prev.wrapping_add(low.wrapping_sub(prev_low) as i32 as i64);
            prev_low = low;
            outside |= prev as u64;
            out.copy_from_slice(&prev.to_le_bytes());
        }
        if next == k {
            break;
        }
        let z = take()?;
        let c = ((z >> 1) ^ (z & 1).wrapping_neg()) as i64;
        if c == 0 || c.unsigned_abs() > 1 << 31 {
            return Err(format!("entry {next} has a carry of {c}"));
        }
        let low = lows[next];
        let x = prev as i128 + (low.wrapping_sub(prev_low) as i32) as i128 + ((c as i128) << 32);
        if !(0..END as i128).contains(&x) || outside >> 63 != 0 {
            return Err(format!("entry {next} decodes outside 0..2^63"));
        }
        (prev, prev_low) = (x as i64, low);
        ids.next()
            .expect("an id a low half")
            .copy_from_slice(&prev.to_le_bytes());
        i = next + 1;
        left -= 1;
        next = match left {
            0 => k,
            _ => take()?.saturating_add(i as u64).min(k as u64) as usize,
        };
    }
    if outside >> 63 != 0 {
        return Err("an entry decodes outside 0..2^63".into());
    }
    if left > 0 {
        return Err("a carry past the page's entries".into());
    }
    Ok(at)
}

#[cfg(test)]
mod tests;
