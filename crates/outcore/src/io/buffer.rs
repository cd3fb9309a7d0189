//! Heap buffers aligned for direct I/O, charged to the budget for their life.

use super::ALIGN;
use crate::error::{Error, Result};
use crate::mem::budget::{Budget, Charge};
use std::ptr::NonNull;

/// A heap buffer aligned to [`ALIGN`], length a multiple of `ALIGN`,
/// zero-initialised, charged to the budget for its life.
///
/// The memory comes from an anonymous `mmap`: zero pages the kernel supplies
/// lazily, so a large buffer costs nothing until touched (the allocator's
/// aligned `alloc_zeroed` would memset it all up front).
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    len: usize,
    _charge: Charge,
}

// SAFETY: AlignedBuf owns its allocation exclusively (like a Box<[u8]>); shared
// access only hands out `&[u8]`.
unsafe impl Send for AlignedBuf {}
// SAFETY: as above.
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    /// A zeroed buffer of `len` bytes rounded up to a multiple of [`ALIGN`],
    /// charged to `budget` as `what` until it is dropped.
    pub fn new(len: usize, budget: &Budget, what: &'static str) -> Result<AlignedBuf> {
        let len = len
            .checked_next_multiple_of(ALIGN)
            .ok_or_else(|| Error::Invalid(format!("{what}: buffer of {len} bytes is too large")))?;
        let charge = budget.charge(len as u64, what)?;
        if len == 0 {
            // An aligned, dangling, never-dereferenced pointer: no allocation.
            let ptr = NonNull::new(ALIGN as *mut u8).expect("ALIGN is non-zero");
            return Ok(AlignedBuf {
                ptr,
                len,
                _charge: charge,
            });
        }
        // SAFETY: an anonymous private mapping with no address hint; checked below.
        let raw = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if raw == libc::MAP_FAILED {
            return Err(Error::Budget(format!(
                "{what}: the system refused to allocate {}",
                crate::size::format_size(len as u64)
            )));
        }
        let ptr = NonNull::new(raw as *mut u8).expect("mmap does not return null on success");
        Ok(AlignedBuf {
            ptr,
            len,
            _charge: charge,
        })
    }

    /// Length in bytes (a multiple of [`ALIGN`]).
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for a zero-length buffer.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The contents.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr is valid for len initialised bytes (or dangling and aligned with len 0).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// The contents, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as in as_slice, and &mut self gives exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }

    /// The start of the buffer, for [`super::ReadReq::buf`].
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr.as_ptr()
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        if self.len > 0 {
            // SAFETY: mapped in new with this length, unmapped only here.
            unsafe { libc::munmap(self.ptr.as_ptr() as *mut libc::c_void, self.len) };
        }
    }
}

impl std::fmt::Debug for AlignedBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AlignedBuf")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish()
    }
}
