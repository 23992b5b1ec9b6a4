//! Packed bit vectors as little-endian 32-bit words, the way Verilator stores wide ports.

/// `width` bits of `words` starting at bit `lsb` (`width` ≤ 64).
pub fn get(words: &[u32], lsb: u32, width: u32) -> u64 {
    let mut v = 0u64;
    for i in 0..width {
        let b = lsb + i;
        let w = words.get((b / 32) as usize).copied().unwrap_or(0);
        v |= u64::from(w >> (b % 32) & 1) << i;
    }
    v
}

/// Sets `width` bits of `words` at `lsb` to `value` (`width` ≤ 64).
pub fn set(words: &mut [u32], lsb: u32, width: u32, value: u64) {
    for i in 0..width {
        let b = lsb + i;
        if let Some(w) = words.get_mut((b / 32) as usize) {
            let m = 1u32 << (b % 32);
            if value >> i & 1 == 1 {
                *w |= m;
            } else {
                *w &= !m;
            }
        }
    }
}

/// All ones in the low `width` bits.
pub fn ones(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// Number of 32-bit words for `width` bits.
pub fn words(width: u32) -> usize {
    width.div_ceil(32) as usize
}

#[cfg(test)]
mod tests {
    #[test]
    fn fields_straddle_words() {
        let mut w = [0u32; 3];
        super::set(&mut w, 28, 40, 0xab_cdef_0123);
        assert_eq!(super::get(&w, 28, 40), 0xab_cdef_0123);
        assert_eq!(w[0] >> 28, 0x3);
        assert_eq!(super::get(&w, 0, 28), 0);
    }
}
