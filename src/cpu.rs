//! The instruction-set levels the search's hot code is built for, so that one binary runs on
//! every x86-64 and at full speed on the CPUs that have the newer instructions.
//!
//! A function's instructions are fixed when it is compiled, and a function compiled without
//! AVX2, BMI or POPCNT cannot inline one that uses them. So the recursive functions of the
//! search are each compiled once per level by [`per_level!`]: a clone marked with the level's
//! `#[target_feature]`, into which the body and everything it inlines (moves, flips, counts,
//! the evaluation) are compiled with those instructions, and a small dispatcher that calls
//! the clone of the level this CPU has. The moves and flips pick their SIMD versions by the
//! same level, so that a clone inlines the versions its instructions allow. A build that
//! targets a level (`target-cpu`) compiles every clone with at least its instructions.

use std::sync::atomic::{AtomicU8, Ordering};

/// An instruction-set level, in increasing order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Any CPU of the architecture (x86-64: SSE2).
    Baseline,
    /// x86-64-v3: AVX2, BMI1, BMI2, FMA, LZCNT, MOVBE, POPCNT.
    V3,
    /// x86-64-v3 with AVX-512 F, CD, VL, BW and DQ (x86-64-v4).
    V4,
}

impl Level {
    /// The level's name, as `bench` and the logs print it.
    pub fn name(self) -> &'static str {
        match self {
            Level::Baseline => "baseline",
            Level::V3 => "x86-64-v3",
            Level::V4 => "x86-64-v4",
        }
    }

    /// The level of a name as [`Level::name`] gives it.
    pub fn from_name(name: &str) -> Option<Level> {
        [Level::Baseline, Level::V3, Level::V4]
            .into_iter()
            .find(|level| level.name() == name)
    }
}

/// Whether the build targets every instruction of x86-64-v3.
const BUILT_FOR_V3: bool = cfg!(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "bmi1",
    target_feature = "bmi2",
    target_feature = "fma",
    target_feature = "lzcnt",
    target_feature = "movbe",
    target_feature = "popcnt"
));

/// Whether the build targets every instruction of x86-64-v4 (x86-64-v3 and AVX-512).
const BUILT_FOR_V4: bool = BUILT_FOR_V3
    && cfg!(all(
        target_feature = "avx512f",
        target_feature = "avx512cd",
        target_feature = "avx512vl",
        target_feature = "avx512bw",
        target_feature = "avx512dq"
    ));

/// The level the build targets, when it targets one above the baseline: then every function
/// is compiled with its instructions and there is nothing to choose at run time.
pub const BUILD_LEVEL: Option<Level> = if BUILT_FOR_V4 {
    Some(Level::V4)
} else if BUILT_FOR_V3 {
    Some(Level::V3)
} else {
    None
};

/// The level in use (0 = not yet detected, else 1 + the level).
static DETECTED: AtomicU8 = AtomicU8::new(0);

/// The environment variable that caps the level, for tests and for comparing the levels on
/// one machine: `baseline`, `x86-64-v3` or `x86-64-v4`.
pub const LEVEL_VARIABLE: &str = "OXELLO_CPU";

/// The level the search uses: the one the build targets if it targets x86-64-v3 or more
/// (`-C target-cpu`), else the highest this CPU has, or lower if [`LEVEL_VARIABLE`] asks for
/// it, detected once and cached.
#[inline(always)]
pub fn level() -> Level {
    if let Some(level) = BUILD_LEVEL {
        return level;
    }
    match DETECTED.load(Ordering::Relaxed) {
        1 => Level::Baseline,
        2 => Level::V3,
        3 => Level::V4,
        _ => detect(),
    }
}

/// Detects and caches the level.
#[cold]
fn detect() -> Level {
    let highest = detect_uncached();
    let level = match std::env::var(LEVEL_VARIABLE) {
        Ok(name) => match Level::from_name(&name) {
            Some(asked) => asked.min(highest),
            None => {
                log::warn!("{LEVEL_VARIABLE}={name} is not baseline, x86-64-v3 or x86-64-v4");
                highest
            }
        },
        Err(_) => highest,
    };
    DETECTED.store(level as u8 + 1, Ordering::Relaxed);
    log::debug!(
        "instruction set: {} (the CPU has {})",
        level.name(),
        highest.name()
    );
    level
}

#[cfg(target_arch = "x86_64")]
fn detect_uncached() -> Level {
    use std::arch::is_x86_feature_detected as has;
    let v3 = has!("avx2")
        && has!("bmi1")
        && has!("bmi2")
        && has!("fma")
        && has!("lzcnt")
        && has!("movbe")
        && has!("popcnt");
    let v4 = v3
        && has!("avx512f")
        && has!("avx512cd")
        && has!("avx512vl")
        && has!("avx512bw")
        && has!("avx512dq");
    if v4 {
        Level::V4
    } else if v3 {
        Level::V3
    } else {
        Level::Baseline
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn detect_uncached() -> Level {
    Level::Baseline
}

/// Compiles a method once per [`Level`] and dispatches to the CPU's.
///
/// `per_level! { fn name[v4, v3, baseline](&mut self, args..) -> Ret => body; }` defines
/// `name`, a dispatcher inlined into its callers, and the clones `v4`, `v3` (x86-64 only)
/// and `baseline`, each the method `body` (which should be `#[inline(always)]`) compiled with
/// its level's instructions. Recursion through `name` stays within one level after the first
/// call, the dispatch costing a cached load and a predicted branch.
macro_rules! per_level {
    ($(
        $(#[$attr:meta])*
        $vis:vis fn $name:ident[$v4:ident, $v3:ident, $baseline:ident]
            (&mut self $(, $arg:ident: $ty:ty)* $(,)?) -> $ret:ty => $body:ident;
    )*) => {$(
        $(#[$attr])*
        #[inline(always)]
        $vis fn $name(&mut self $(, $arg: $ty)*) -> $ret {
            match $crate::cpu::level() {
                // SAFETY: the CPU has the level's instructions.
                #[cfg(target_arch = "x86_64")]
                $crate::cpu::Level::V4 => unsafe { self.$v4($($arg),*) },
                // SAFETY: the CPU has the level's instructions.
                #[cfg(target_arch = "x86_64")]
                $crate::cpu::Level::V3 => unsafe { self.$v3($($arg),*) },
                _ => self.$baseline($($arg),*),
            }
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(
            enable = "avx2,bmi1,bmi2,fma,lzcnt,movbe,popcnt,avx512f,avx512cd,avx512vl,avx512bw,avx512dq"
        )]
        unsafe fn $v4(&mut self $(, $arg: $ty)*) -> $ret {
            self.$body($($arg),*)
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,bmi1,bmi2,fma,lzcnt,movbe,popcnt")]
        unsafe fn $v3(&mut self $(, $arg: $ty)*) -> $ret {
            self.$body($($arg),*)
        }

        fn $baseline(&mut self $(, $arg: $ty)*) -> $ret {
            self.$body($($arg),*)
        }
    )*};
}
pub(crate) use per_level;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_level_is_at_most_the_detected_one_and_stays() {
        assert!(level() <= detect_uncached());
        assert!(BUILD_LEVEL.is_none_or(|built| level() == built));
        assert_eq!(level(), level());
    }

    #[test]
    fn level_names_round_trip() {
        for level in [Level::Baseline, Level::V3, Level::V4] {
            assert_eq!(Level::from_name(level.name()), Some(level));
        }
        assert_eq!(Level::from_name("v3"), None);
    }
}
