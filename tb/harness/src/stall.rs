//! Random idle and backpressure for the bus drivers.
//!
//! A [`Stall`] answers, once per cycle, whether a driver holds back: a source keeps `valid`
//! low before a transfer, a sink keeps `ready` low. Stalls come in runs of random length, as
//! real congestion does, and every decision comes from a seed so a failing case replays
//! exactly.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// How often and how long a driver stalls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Profile {
    /// Chance, in percent, that a run of stall cycles starts in a given cycle.
    pub percent: u8,
    /// Longest run of consecutive stall cycles (at least 1 when `percent` > 0).
    pub max_run: u8,
}

impl Profile {
    pub const NONE: Profile = Profile {
        percent: 0,
        max_run: 0,
    };
    pub fn new(percent: u8, max_run: u8) -> Profile {
        Profile {
            percent: percent.min(100),
            max_run: max_run.max(1),
        }
    }
}

pub struct Stall {
    rng: SmallRng,
    profile: Profile,
    run_left: u32,
}

impl Stall {
    pub fn new(seed: u64, profile: Profile) -> Stall {
        Stall {
            rng: SmallRng::seed_from_u64(seed),
            profile,
            run_left: 0,
        }
    }
    /// Never stalls.
    pub fn never() -> Stall {
        Stall::new(0, Profile::NONE)
    }
    /// `true`: stall this cycle.
    #[inline]
    pub fn hold(&mut self) -> bool {
        if self.run_left > 0 {
            self.run_left -= 1;
            return true;
        }
        if self.profile.percent == 0 {
            return false;
        }
        if self.rng.random_range(0..100u32) < u32::from(self.profile.percent) {
            self.run_left = self
                .rng
                .random_range(0..u32::from(self.profile.max_run.max(1)));
            true
        } else {
            false
        }
    }
}

/// Derives independent seeds for a driver's channels from one case seed.
pub fn split_seed(seed: u64, channel: u64) -> u64 {
    // SplitMix64 finaliser: nearby inputs give unrelated outputs.
    let mut z = seed ^ channel.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_stalls_without_a_profile() {
        let mut s = Stall::never();
        assert!((0..1000).all(|_| !s.hold()));
    }

    #[test]
    fn stall_rate_follows_the_profile() {
        let mut s = Stall::new(7, Profile::new(30, 1));
        let n = (0..100_000).filter(|_| s.hold()).count();
        assert!((27_000..33_000).contains(&n), "{n}");
        let mut a = Stall::new(9, Profile::new(50, 4));
        let mut b = Stall::new(9, Profile::new(50, 4));
        assert!(
            (0..1000).all(|_| a.hold() == b.hold()),
            "same seed, same decisions"
        );
    }
}
