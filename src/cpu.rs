//! The instruction-set levels the search's hot code is built for, so that one binary runs on
//! every x86-64 and at full speed on the CPUs that have the newer instructions.
//!
//! A function's instructions are fixed when it is compiled, and a function compiled without
//! AVX2, BMI or POPCNT cannot inline one that uses them. So the recursive functions of the
//! search are each compiled once per level by `per_level!`: a clone marked with the level's
//! `#[target_feature]`, into which the body and everything it inlines (moves, flips, counts,
//! the evaluation) are compiled with those instructions, and a small dispatcher that calls
//! the clone of the level this CPU has. The moves and flips pick their SIMD versions by the
//! same level, so that a clone inlines the versions its instructions allow. A build that
//! targets a level (`target-cpu`) compiles every clone with at least its instructions.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

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

/// Whether AVX2 gathers are quicker here than the scalar loads they replace in the linear
/// evaluation: on AMD processors from family 26 (Zen 5), where a search took 0.91-0.96x the time
/// with them (docs/experiments.md). Elsewhere they are not measured, and on the Intel
/// processors that carry the Gather Data Sampling mitigation gathers are slow, so the scalar
/// loads stay. Detected once; the evaluation gathers only in code with AVX2.
pub fn fast_gather() -> bool {
    static FAST: OnceLock<bool> = OnceLock::new();
    *FAST.get_or_init(|| amd_family().is_some_and(|family| family >= 26))
}

/// The processor's family if AMD makes it (`cpuid`: the base family, plus the extended one
/// when the base is 15).
fn amd_family() -> Option<u32> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::__cpuid;
        let vendor = __cpuid(0);
        let amd = [vendor.ebx, vendor.edx, vendor.ecx] == [0x6874_7541, 0x6974_6e65, 0x444d_4163];
        let signature = __cpuid(1).eax;
        let base = (signature >> 8) & 0xf;
        let family = if base == 0xf {
            base + ((signature >> 20) & 0xff)
        } else {
            base
        };
        amd.then_some(family)
    }
    #[cfg(not(target_arch = "x86_64"))]
    None
}

/// An instruction-set level fixed at compile time, as a token: the code a level's clone
/// (`per_level!`) inlines takes the token of its level, so that the moves, the flips and the
/// evaluation pick their versions with no test at run time, and the search's recursion calls
/// the clones of the same level directly. [`IsaDetected`] is for code outside the clones,
/// which asks [`level`] at each call.
///
/// # Safety
/// A value of an implementing type proves that the CPU has the instructions of
/// [`Isa::LEVEL`]: only [`IsaDetected`] and [`IsaBaseline`] may be made freely.
pub unsafe trait Isa: Copy + Send + Sync + 'static {
    /// The level the code is compiled for, or `None` when it is detected at run time.
    const LEVEL: Option<Level>;

    /// The level to use: [`Isa::LEVEL`] (or the build's, if higher), else the detected one.
    #[inline(always)]
    fn level(self) -> Level {
        match (Self::LEVEL, BUILD_LEVEL) {
            (Some(known), Some(built)) => known.max(built),
            (Some(known), None) => known,
            (None, _) => level(),
        }
    }
}

/// Code that runs at the detected level ([`level`]).
#[derive(Clone, Copy, Debug)]
pub struct IsaDetected;

/// Code compiled into a baseline clone.
#[derive(Clone, Copy, Debug)]
pub struct IsaBaseline;

/// Code compiled into an x86-64-v3 clone: made only where the CPU has that level.
#[derive(Clone, Copy, Debug)]
pub struct IsaV3(());

/// Code compiled into an x86-64-v4 clone: made only where the CPU has that level.
#[derive(Clone, Copy, Debug)]
pub struct IsaV4(());

impl IsaV3 {
    /// The token of x86-64-v3.
    ///
    /// # Safety
    /// The CPU must have the instructions of x86-64-v3.
    #[inline(always)]
    pub unsafe fn new_unchecked() -> IsaV3 {
        IsaV3(())
    }
}

impl IsaV4 {
    /// The token of x86-64-v4.
    ///
    /// # Safety
    /// The CPU must have the instructions of x86-64-v4.
    #[inline(always)]
    pub unsafe fn new_unchecked() -> IsaV4 {
        IsaV4(())
    }
}

// SAFETY: it asks the detected level at every use.
unsafe impl Isa for IsaDetected {
    const LEVEL: Option<Level> = None;
}
// SAFETY: every CPU has the baseline.
unsafe impl Isa for IsaBaseline {
    const LEVEL: Option<Level> = Some(Level::Baseline);
}
// SAFETY: made only by `new_unchecked`, whose caller vouches for the level.
unsafe impl Isa for IsaV3 {
    const LEVEL: Option<Level> = Some(Level::V3);
}
// SAFETY: made only by `new_unchecked`, whose caller vouches for the level.
unsafe impl Isa for IsaV4 {
    const LEVEL: Option<Level> = Some(Level::V4);
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
/// `per_level! { fn name[name_at, v4, v3, baseline](&mut self, args..) -> Ret => body; }`
/// defines `name`, a dispatcher inlined into its callers, `name_at`, which takes the [`Isa`]
/// token of the caller's level and calls that level's clone directly (the recursion within a
/// clone), and the clones `v4`, `v3` (x86-64 only) and `baseline`, each the method
/// `body(isa, args..)` (which should be `#[inline(always)]`, generic over `I:` [`Isa`])
/// compiled with its level's instructions and called with its level's token.
macro_rules! per_level {
    ($(
        $(#[$attr:meta])*
        $vis:vis fn $name:ident[$name_at:ident, $v4:ident, $v3:ident, $baseline:ident]
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

        $(#[$attr])*
        ///
        /// From code at the level of `_isa`, whose clone it calls.
        #[inline(always)]
        $vis fn $name_at<I: $crate::cpu::Isa>(&mut self, _isa: I $(, $arg: $ty)*) -> $ret {
            match I::LEVEL {
                // SAFETY: a token of the level proves that the CPU has its instructions.
                #[cfg(target_arch = "x86_64")]
                Some($crate::cpu::Level::V4) => unsafe { self.$v4($($arg),*) },
                // SAFETY: as above.
                #[cfg(target_arch = "x86_64")]
                Some($crate::cpu::Level::V3) => unsafe { self.$v3($($arg),*) },
                Some(_) => self.$baseline($($arg),*),
                None => self.$name($($arg),*),
            }
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(
            enable = "avx2,bmi1,bmi2,fma,lzcnt,movbe,popcnt,avx512f,avx512cd,avx512vl,avx512bw,avx512dq"
        )]
        unsafe fn $v4(&mut self $(, $arg: $ty)*) -> $ret {
            // SAFETY: the caller vouches for the level.
            self.$body(unsafe { $crate::cpu::IsaV4::new_unchecked() } $(, $arg)*)
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,bmi1,bmi2,fma,lzcnt,movbe,popcnt")]
        unsafe fn $v3(&mut self $(, $arg: $ty)*) -> $ret {
            // SAFETY: the caller vouches for the level.
            self.$body(unsafe { $crate::cpu::IsaV3::new_unchecked() } $(, $arg)*)
        }

        fn $baseline(&mut self $(, $arg: $ty)*) -> $ret {
            self.$body($crate::cpu::IsaBaseline $(, $arg)*)
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
