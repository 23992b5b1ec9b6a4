//! A fast non-cryptographic hasher for the name and value sets of the checks (the FxHash
//! mixing step: multiply by a constant, rotate). SipHash, the std default, was a tenth of
//! `rdmagen check` on NIC-scale maps; map files are the user's own input, so resistance to
//! crafted collisions buys nothing here.

use std::hash::{BuildHasherDefault, Hasher};

#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

pub type FastMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<FxHasher>>;
pub type FastSet<K> = std::collections::HashSet<K, BuildHasherDefault<FxHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_and_maps_work() {
        let mut s: FastSet<String> = FastSet::default();
        for i in 0..1000 {
            assert!(s.insert(format!("vf{i}_ctrl_enable_o")));
        }
        assert!(!s.insert("vf7_ctrl_enable_o".into()));
        let mut m: FastMap<u64, usize> = FastMap::default();
        m.insert(3, 1);
        assert_eq!(m.get(&3), Some(&1));
        assert_eq!(m.get(&4), None);
    }
}
