//! The width of a CSR slot: 4 bytes (u32 ids) in every store of format
//! version 1, 8 (u64 ids, padding `u64::MAX`) in a wide store (format
//! version 2; DESIGN.md, "Wide ids"). The external engine's vertex
//! programs read ids at the slot's width ([`SlotWidth::id`]), the select
//! engine in the id type its caller picks ([`SlotWidth::extend`]: u32, or
//! u64 for the walks on a wide store); the other readers hand out u32 ids
//! until their engines take wider ones.

use super::csr::PAD;
use super::csrcode::Code;
use super::file::{DataWriter, WriteLe};
use crate::error::Result;

/// Bytes a slot of `csr/{dir}.adj` takes: 4 (u32 ids, every store built
/// before format version 2) or 8 (u64 ids, padding `u64::MAX`). Readers
/// of u32 ids refuse a wide slot holding an id of 2^32 or more
/// ([`SlotWidth::get`]); [`SlotWidth::id`] reads it whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotWidth {
    Narrow,
    Wide,
}

impl SlotWidth {
    /// The width of a manifest's `csr.id_bytes`; `None` for any other value.
    pub fn of_id_bytes(b: u64) -> Option<SlotWidth> {
        match b {
            4 => Some(SlotWidth::Narrow),
            8 => Some(SlotWidth::Wide),
            _ => None,
        }
    }

    /// Bytes a slot takes.
    #[inline]
    pub fn bytes(self) -> u64 {
        match self {
            SlotWidth::Narrow => 4,
            SlotWidth::Wide => 8,
        }
    }

    /// Slots in a page of `page_bytes`.
    #[inline]
    pub fn per_page(self, page_bytes: u64) -> u64 {
        page_bytes / self.bytes()
    }

    /// Slots `a..b` of `bytes` appended to `out` as ids of type `T`
    /// (padding as `T::PAD`); `None` at a wide slot beyond what `T` holds
    /// (a u32 reader of a wide store: ids of 2^32 - 1 and more).
    #[inline]
    pub fn extend<T: Slot>(self, bytes: &[u8], a: usize, b: usize, out: &mut Vec<T>) -> Option<()> {
        match self {
            SlotWidth::Narrow => out.extend(
                bytes[4 * a..4 * b]
                    .chunks_exact(4)
                    .map(|c| T::of_narrow(u32::from_le_bytes(c.try_into().expect("4 bytes")))),
            ),
            SlotWidth::Wide => {
                for c in bytes[8 * a..8 * b].chunks_exact(8) {
                    out.push(T::of_wide(u64::from_le_bytes(
                        c.try_into().expect("8 bytes"),
                    ))?);
                }
            }
        }
        Some(())
    }

    /// The id in slot `i` of `bytes` (slots of this width, little-endian)
    /// at its full width; `None` for padding.
    #[inline]
    pub fn id(self, bytes: &[u8], i: usize) -> Option<u64> {
        match self {
            SlotWidth::Narrow => {
                let x = u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().expect("4 bytes"));
                (x != PAD).then_some(x as u64)
            }
            SlotWidth::Wide => {
                let x = u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8 bytes"));
                (x != u64::MAX).then_some(x)
            }
        }
    }

    /// Slot `i` of `bytes` (slots of this width, little-endian): an id, or
    /// [`PAD`] for padding; `None` for a wide slot beyond u32 ids (read as
    /// a corrupted store: no store of this version holds one).
    #[inline]
    pub fn get(self, bytes: &[u8], i: usize) -> Option<u32> {
        match self {
            SlotWidth::Narrow => Some(u32::from_le_bytes(
                bytes[4 * i..4 * i + 4].try_into().expect("4 bytes"),
            )),
            SlotWidth::Wide => narrow(u64::from_le_bytes(
                bytes[8 * i..8 * i + 8].try_into().expect("8 bytes"),
            )),
        }
    }
}

/// A slot word as the CSR writer takes it: u32 ids (narrow slots) or u64
/// ids (wide slots), each with its padding value. The build picks the
/// type by the store's width, so a narrow store is written as before.
pub trait Slot: Copy + Ord + Send + Sync + std::fmt::Debug + 'static {
    /// The padding slot.
    const PAD: Self;
    /// The width of a slot of this type.
    const WIDTH: SlotWidth;
    /// Id `v` (below the padding value).
    fn of(v: u64) -> Self;
    /// The id.
    fn get(self) -> u64;
    /// Appends the coded form of one plain page (ids then padding) to
    /// `out` ([`super::csrcode`]; wide pages: [`super::csrcode::wide`]).
    fn encode_page(code: Code, page: &[Self], out: &mut Vec<u8>);
    /// Appends `slots` to a store file, little-endian.
    fn put(slots: &[Self], out: &mut DataWriter) -> Result<()>;
    /// A narrow slot (an id, or the narrow padding) as this type.
    fn of_narrow(x: u32) -> Self;
    /// A wide slot (an id, or `u64::MAX` for padding) as this type; `None`
    /// for an id it cannot hold.
    fn of_wide(x: u64) -> Option<Self>;
}

impl Slot for u32 {
    const PAD: u32 = PAD;
    const WIDTH: SlotWidth = SlotWidth::Narrow;
    #[inline]
    fn of(v: u64) -> u32 {
        debug_assert!(v < PAD as u64, "{v} is no narrow id");
        v as u32
    }
    #[inline]
    fn get(self) -> u64 {
        self as u64
    }
    fn encode_page(code: Code, page: &[u32], out: &mut Vec<u8>) {
        super::csrcode::encode(code, page, out)
    }
    fn put(slots: &[u32], out: &mut DataWriter) -> Result<()> {
        out.put_u32s(slots)
    }
    #[inline]
    fn of_narrow(x: u32) -> u32 {
        x
    }
    #[inline]
    fn of_wide(x: u64) -> Option<u32> {
        narrow(x)
    }
}

impl Slot for u64 {
    const PAD: u64 = u64::MAX;
    const WIDTH: SlotWidth = SlotWidth::Wide;
    #[inline]
    fn of(v: u64) -> u64 {
        v
    }
    #[inline]
    fn get(self) -> u64 {
        self
    }
    fn encode_page(code: Code, page: &[u64], out: &mut Vec<u8>) {
        super::csrcode::wide::encode(code, page, out)
    }
    fn put(slots: &[u64], out: &mut DataWriter) -> Result<()> {
        out.put_u64s(slots)
    }
    #[inline]
    fn of_narrow(x: u32) -> u64 {
        match x {
            PAD => u64::MAX,
            x => x as u64,
        }
    }
    #[inline]
    fn of_wide(x: u64) -> Option<u64> {
        Some(x)
    }
}

/// A wide slot as a u32 id: `u64::MAX` is padding ([`PAD`]), ids below
/// `u32::MAX` stay; `None` for the rest.
#[inline]
pub fn narrow(x: u64) -> Option<u32> {
    match x {
        u64::MAX => Some(PAD),
        x if x < PAD as u64 => Some(x as u32),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Padding, the largest u32 id, and the first ids a narrow slot cannot
    /// hold (u32::MAX is the narrow padding, so it is no id either).
    #[test]
    fn wide_slots_narrow_at_the_edges() {
        assert_eq!(narrow(u64::MAX), Some(PAD));
        assert_eq!(narrow(PAD as u64 - 1), Some(PAD - 1));
        assert_eq!(narrow(0), Some(0));
        assert_eq!(narrow(PAD as u64), None);
        assert_eq!(narrow(1 << 32), None);
        let ids = [7u64, u64::MAX, 1 << 20];
        let wide: Vec<u8> = ids.iter().flat_map(|x| x.to_le_bytes()).collect();
        let mut out: Vec<u32> = Vec::new();
        assert_eq!(SlotWidth::Wide.extend(&wide, 0, 3, &mut out), Some(()));
        assert_eq!(out, [7, PAD, 1 << 20]);
        assert_eq!(SlotWidth::Wide.get(&wide, 2), Some(1 << 20));
        let narrow_bytes: Vec<u8> = out.iter().flat_map(|x| x.to_le_bytes()).collect();
        out.clear();
        SlotWidth::Narrow.extend(&narrow_bytes, 1, 3, &mut out);
        assert_eq!(out, [PAD, 1 << 20]);
        let bad: Vec<u8> = [3u64, 1 << 40]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        assert_eq!(SlotWidth::Wide.extend(&bad, 0, 2, &mut out), None);
        assert_eq!(SlotWidth::Wide.per_page(4096), 512);
    }

    /// A u64 reader takes either width whole: narrow padding becomes wide
    /// padding, and a wide id past 32 bits stays.
    #[test]
    fn u64_readers_take_either_width() {
        let wide: Vec<u8> = [7u64, u64::MAX, 1 << 40, PAD as u64]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let mut out: Vec<u64> = Vec::new();
        assert_eq!(SlotWidth::Wide.extend(&wide, 0, 4, &mut out), Some(()));
        assert_eq!(out, [7, u64::MAX, 1 << 40, PAD as u64]);
        let narrow_bytes: Vec<u8> = [9u32, PAD, PAD - 1]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        out.clear();
        assert_eq!(
            SlotWidth::Narrow.extend(&narrow_bytes, 0, 3, &mut out),
            Some(())
        );
        assert_eq!(out, [9, u64::MAX, PAD as u64 - 1]);
    }
}
