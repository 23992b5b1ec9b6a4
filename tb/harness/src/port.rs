//! Handles on a Verilated model's port members.
//!
//! Verilator stores a port of up to 8/16/32/64 bits in a `u8`/`u16`/`u32`/`u64` member and a
//! wider one in an array of 32-bit words, least significant first. The generated port struct
//! holds one handle per port; handles are only reachable through the model that owns the
//! memory, so they cannot outlive it. Inputs are masked to their width on every write:
//! Verilator assumes the unused upper bits of an input are zero.

use std::marker::PhantomData;

/// A scalar port storage type.
pub trait Word: Copy + 'static {
    fn from_u64(v: u64) -> Self;
    fn to_u64(self) -> u64;
}

macro_rules! word {
    ($($t:ty),*) => {$(
        impl Word for $t {
            #[inline(always)]
            fn from_u64(v: u64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn to_u64(self) -> u64 {
                u64::from(self)
            }
        }
    )*};
}
word!(u8, u16, u32, u64);

#[inline(always)]
fn mask64(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// Raw pointers make every handle `!Send` and `!Sync`, like the model they point into.
type NotSend = PhantomData<*mut ()>;

/// An input port of at most 64 bits.
pub struct In<T: Word> {
    ptr: *mut T,
    mask: u64,
    _m: NotSend,
}

impl<T: Word> In<T> {
    /// # Safety
    /// `ptr` must point at the port member of a live model that owns this handle.
    pub unsafe fn from_raw(ptr: *mut T, width: u32) -> Self {
        In {
            ptr,
            mask: mask64(width),
            _m: PhantomData,
        }
    }
    #[inline(always)]
    pub fn set(&self, v: T) {
        self.set_u64(v.to_u64());
    }
    #[inline(always)]
    pub fn set_u64(&self, v: u64) {
        // SAFETY: see `from_raw`; the model is single-threaded and not running during the call.
        unsafe { self.ptr.write(T::from_u64(v & self.mask)) }
    }
    #[inline(always)]
    pub fn set_u128(&self, v: u128) {
        self.set_u64(v as u64);
    }
    #[inline(always)]
    pub fn set_bool(&self, v: bool) {
        self.set_u64(u64::from(v));
    }
    /// Little-endian 32-bit words; missing words are zero.
    #[inline(always)]
    pub fn set_words(&self, w: &[u32]) {
        let lo = u64::from(w.first().copied().unwrap_or(0));
        let hi = u64::from(w.get(1).copied().unwrap_or(0));
        self.set_u64(lo | hi << 32);
    }
    #[inline(always)]
    pub fn clear(&self) {
        self.set_u64(0);
    }
    /// The value last driven.
    #[inline(always)]
    pub fn get(&self) -> T {
        unsafe { self.ptr.read() }
    }
    pub fn dynamic(&self) -> DynPort<'_> {
        DynPort::new(
            self.ptr.cast(),
            std::mem::size_of::<T>(),
            self.mask.count_ones(),
            true,
        )
    }
}

/// An output port of at most 64 bits.
pub struct Out<T: Word> {
    ptr: *const T,
    width: u32,
    _m: NotSend,
}

impl<T: Word> Out<T> {
    /// # Safety
    /// `ptr` must point at the port member of a live model that owns this handle.
    pub unsafe fn from_raw(ptr: *mut T, width: u32) -> Self {
        Out {
            ptr,
            width,
            _m: PhantomData,
        }
    }
    #[inline(always)]
    pub fn get(&self) -> T {
        // SAFETY: see `from_raw`.
        unsafe { self.ptr.read() }
    }
    #[inline(always)]
    pub fn get_u64(&self) -> u64 {
        self.get().to_u64()
    }
    #[inline(always)]
    pub fn get_u128(&self) -> u128 {
        u128::from(self.get_u64())
    }
    #[inline(always)]
    pub fn is_high(&self) -> bool {
        self.get_u64() != 0
    }
    /// Fills `out` with little-endian 32-bit words (extra words zero).
    pub fn get_words(&self, out: &mut [u32]) {
        let v = self.get_u64();
        for (i, w) in out.iter_mut().enumerate() {
            *w = match i {
                0 => v as u32,
                1 => (v >> 32) as u32,
                _ => 0,
            };
        }
    }
    pub fn dynamic(&self) -> DynPort<'_> {
        DynPort::new(
            self.ptr.cast_mut().cast(),
            std::mem::size_of::<T>(),
            self.width,
            false,
        )
    }
}

/// An input port wider than 64 bits: `N` 32-bit words.
pub struct InWide<const N: usize> {
    ptr: *mut [u32; N],
    width: u32,
    _m: NotSend,
}

impl<const N: usize> InWide<N> {
    /// # Safety
    /// `ptr` must point at the first word of the port member of a live model that owns
    /// this handle.
    pub unsafe fn from_raw(ptr: *mut u32, width: u32) -> Self {
        InWide {
            ptr: ptr.cast(),
            width,
            _m: PhantomData,
        }
    }
    fn top_mask(&self) -> u32 {
        match self.width % 32 {
            0 => u32::MAX,
            r => (1u32 << r) - 1,
        }
    }
    #[inline]
    pub fn set(&self, v: &[u32; N]) {
        self.set_words(v);
    }
    /// Little-endian 32-bit words; missing words are zero, extra words ignored.
    #[inline]
    pub fn set_words(&self, w: &[u32]) {
        // SAFETY: see `from_raw`.
        let dst = unsafe { &mut *self.ptr };
        let n = w.len().min(N);
        dst[..n].copy_from_slice(&w[..n]);
        dst[n..].fill(0);
        dst[N - 1] &= self.top_mask();
    }
    pub fn set_u64(&self, v: u64) {
        self.set_words(&[v as u32, (v >> 32) as u32]);
    }
    pub fn set_u128(&self, v: u128) {
        self.set_words(&[
            v as u32,
            (v >> 32) as u32,
            (v >> 64) as u32,
            (v >> 96) as u32,
        ]);
    }
    pub fn set_bool(&self, v: bool) {
        self.set_u64(u64::from(v));
    }
    pub fn clear(&self) {
        self.set_words(&[]);
    }
    pub fn get(&self) -> [u32; N] {
        unsafe { *self.ptr }
    }
    pub fn dynamic(&self) -> DynPort<'_> {
        DynPort::new(self.ptr.cast(), 4 * N, self.width, true)
    }
}

/// An output port wider than 64 bits: `N` 32-bit words.
pub struct OutWide<const N: usize> {
    ptr: *const [u32; N],
    width: u32,
    _m: NotSend,
}

impl<const N: usize> OutWide<N> {
    /// # Safety
    /// As [`InWide::from_raw`].
    pub unsafe fn from_raw(ptr: *mut u32, width: u32) -> Self {
        OutWide {
            ptr: ptr.cast(),
            width,
            _m: PhantomData,
        }
    }
    /// A view of the words, valid until the model next evaluates.
    pub fn view(&self) -> &[u32; N] {
        unsafe { &*self.ptr }
    }
    pub fn get(&self) -> [u32; N] {
        *self.view()
    }
    pub fn get_u64(&self) -> u64 {
        let v = self.view();
        u64::from(v[0]) | u64::from(v[1]) << 32
    }
    pub fn get_u128(&self) -> u128 {
        let v = self.view();
        (0..N.min(4)).fold(0u128, |a, i| a | u128::from(v[i]) << (32 * i))
    }
    pub fn is_high(&self) -> bool {
        self.view().iter().any(|w| *w != 0)
    }
    pub fn get_words(&self, out: &mut [u32]) {
        let v = self.view();
        for (i, w) in out.iter_mut().enumerate() {
            *w = v.get(i).copied().unwrap_or(0);
        }
    }
    pub fn dynamic(&self) -> DynPort<'_> {
        DynPort::new(self.ptr.cast_mut().cast(), 4 * N, self.width, false)
    }
}

/// A port reached by name, for code generic over blocks (such as the CSR property tests).
pub struct DynPort<'a> {
    ptr: *mut u8,
    /// Bytes of storage: 1, 2, 4, 8 or 4 × words.
    bytes: usize,
    width: u32,
    input: bool,
    _m: PhantomData<&'a ()>,
}

impl DynPort<'_> {
    /// Drops the borrow of the model, for a testbench that keeps port handles next to the
    /// model it owns.
    ///
    /// # Safety
    /// The returned handle must not be used after the model is dropped.
    pub unsafe fn detach(self) -> RawPort {
        RawPort {
            ptr: self.ptr,
            bytes: self.bytes,
            width: self.width,
            input: self.input,
        }
    }
    fn new(ptr: *mut u8, bytes: usize, width: u32, input: bool) -> Self {
        DynPort {
            ptr,
            bytes,
            width,
            input,
            _m: PhantomData,
        }
    }
    pub fn width(&self) -> u32 {
        self.width
    }
    pub fn is_input(&self) -> bool {
        self.input
    }
    /// Number of 32-bit words of the value.
    pub fn words(&self) -> usize {
        self.width.div_ceil(32) as usize
    }
    /// Reads the value as little-endian 32-bit words into `out` (`out.len()` ≥ [`Self::words`]).
    pub fn read(&self, out: &mut [u32]) {
        // SAFETY: the pointer and size come from the generated table of a live model.
        unsafe {
            match self.bytes {
                1 => out[0] = u32::from(*self.ptr),
                2 => out[0] = u32::from(*self.ptr.cast::<u16>()),
                4 => out[0] = *self.ptr.cast::<u32>(),
                8 => {
                    let v = *self.ptr.cast::<u64>();
                    out[0] = v as u32;
                    if self.width > 32 {
                        out[1] = (v >> 32) as u32;
                    }
                }
                _ => {
                    let n = self.words();
                    out[..n].copy_from_slice(std::slice::from_raw_parts(self.ptr.cast::<u32>(), n));
                }
            }
        }
    }
    /// Drives an input from little-endian words, masked to the width.
    ///
    /// # Panics
    /// On an output port: that is a testbench bug.
    pub fn write(&self, v: &[u32]) {
        assert!(self.input, "write to an output port");
        let n = self.words();
        let word = |i: usize| {
            let w = v.get(i).copied().unwrap_or(0);
            if i + 1 == n && !self.width.is_multiple_of(32) {
                w & ((1u32 << (self.width % 32)) - 1)
            } else {
                w
            }
        };
        unsafe {
            match self.bytes {
                1 => *self.ptr = word(0) as u8,
                2 => *self.ptr.cast::<u16>() = word(0) as u16,
                4 => *self.ptr.cast::<u32>() = word(0),
                8 => {
                    let hi = if n > 1 { u64::from(word(1)) } else { 0 };
                    *self.ptr.cast::<u64>() = u64::from(word(0)) | hi << 32;
                }
                _ => {
                    let dst = std::slice::from_raw_parts_mut(self.ptr.cast::<u32>(), n);
                    for (i, d) in dst.iter_mut().enumerate() {
                        *d = word(i);
                    }
                }
            }
        }
    }
}

/// A [`DynPort`] without the borrow of its model; see [`DynPort::detach`].
#[derive(Clone, Copy)]
pub struct RawPort {
    ptr: *mut u8,
    bytes: usize,
    width: u32,
    input: bool,
}

impl RawPort {
    /// # Safety
    /// The model this port came from must be alive and not evaluating.
    pub unsafe fn get(&self) -> DynPort<'_> {
        DynPort::new(self.ptr, self.bytes, self.width, self.input)
    }
    pub fn width(&self) -> u32 {
        self.width
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_masked_to_their_width() {
        let mut cell = 0u16;
        let p = unsafe { In::from_raw(&mut cell as *mut u16, 9) };
        p.set_u64(0xffff);
        assert_eq!(p.get(), 0x1ff);
        let mut wide = [0u32; 3];
        let w = unsafe { InWide::<3>::from_raw(wide.as_mut_ptr(), 70) };
        w.set_words(&[1, 2, 0xffff_ffff, 9]);
        assert_eq!(w.get(), [1, 2, 0x3f]);
        w.dynamic().write(&[5]);
        assert_eq!(w.get(), [5, 0, 0]);
    }

    #[test]
    fn dynamic_ports_round_trip() {
        let mut q = 0u64;
        let p = unsafe { In::from_raw(&mut q as *mut u64, 40) };
        p.dynamic().write(&[0xdead_beef, 0xfff]);
        let mut out = [0u32; 2];
        p.dynamic().read(&mut out);
        assert_eq!(out, [0xdead_beef, 0xff]);
    }
}
