//! Hashing that is the same on every platform and in every build: FNV-1a ([`Fnv64`]) and a
//! `Hasher` that keeps the bytes ([`Recorder`]), the explorer's encoding of a world.

use std::hash::Hasher;

/// FNV-1a, 64 bit: small, fixed, the same on every platform.
#[derive(Debug, Clone, Copy)]
pub struct Fnv64(u64);

impl Default for Fnv64 {
    fn default() -> Self {
        Fnv64(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv64 {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// A `Hasher` that keeps every byte written to it (see [`Model::encode`]).
#[derive(Debug, Default)]
pub struct Recorder(pub Vec<u8>);

impl Hasher for Recorder {
    fn finish(&self) -> u64 {
        let mut h = Fnv64::default();
        h.write(&self.0);
        h.finish()
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
}
