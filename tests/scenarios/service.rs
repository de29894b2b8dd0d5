//! The service-time model and the deterministic arithmetic it draws with:
//! a seeded splitmix64 and `ln`/`exp` from IEEE-754 basic operations only,
//! so the same scenario gives the same numbers on every machine.

/// Unqueued service time distributions (before the slowdown factor).
#[derive(Clone, Copy, Debug)]
pub enum Service {
    /// `mean_us × (1 ± spread_pct %)`, uniform.
    Uniform {
        /// Mean in µs.
        mean_us: u64,
        /// Half-width in % of the mean.
        spread_pct: u32,
    },
    /// Exponential with the given mean.
    Exponential {
        /// Mean in µs.
        mean_us: u64,
    },
    /// `miss_pct` % misses of `miss_us`, the rest hits of `hit_us`, each ± 10 %.
    Bimodal {
        /// Hit time in µs.
        hit_us: u64,
        /// Miss time in µs.
        miss_us: u64,
        /// Share of misses in %.
        miss_pct: u32,
    },
    /// Lognormal: `median_us × e^(sigma · Z)`, `sigma` in 1/100.
    LogNormal {
        /// Median in µs.
        median_us: u64,
        /// σ of the underlying normal, in hundredths.
        sigma_centi: u32,
    },
    /// `mean_us ± 10 %`, except `hung_permille` ‰ that take `hung_us`.
    Hung {
        /// Mean of the normal requests in µs.
        mean_us: u64,
        /// Time of a hung request in µs.
        hung_us: u64,
        /// Share of hung requests in ‰.
        hung_permille: u32,
    },
}

impl Service {
    /// Mean service time in µs (for capacity).
    pub fn mean_us(&self) -> f64 {
        match *self {
            Service::Uniform { mean_us, .. } | Service::Exponential { mean_us } => mean_us as f64,
            Service::Bimodal {
                hit_us,
                miss_us,
                miss_pct,
            } => {
                (hit_us as f64 * (100 - miss_pct) as f64 + miss_us as f64 * miss_pct as f64) / 100.0
            }
            Service::LogNormal {
                median_us,
                sigma_centi,
            } => {
                let s = sigma_centi as f64 / 100.0;
                median_us as f64 * exp(s * s / 2.0)
            }
            Service::Hung {
                mean_us,
                hung_us,
                hung_permille,
            } => {
                (mean_us as f64 * (1000 - hung_permille) as f64
                    + hung_us as f64 * hung_permille as f64)
                    / 1000.0
            }
        }
    }

    pub(super) fn draw(&self, rng: &mut Rng) -> f64 {
        match *self {
            Service::Uniform {
                mean_us,
                spread_pct,
            } => mean_us as f64 * (1.0 + spread_pct as f64 / 100.0 * (2.0 * rng.unit() - 1.0)),
            Service::Exponential { mean_us } => -(mean_us as f64) * ln(rng.unit()),
            Service::Bimodal {
                hit_us,
                miss_us,
                miss_pct,
            } => {
                let base = if rng.below(100) < miss_pct as u64 {
                    miss_us
                } else {
                    hit_us
                };
                base as f64 * (1.0 + 0.1 * (2.0 * rng.unit() - 1.0))
            }
            Service::LogNormal {
                median_us,
                sigma_centi,
            } => median_us as f64 * exp(sigma_centi as f64 / 100.0 * rng.normal()),
            Service::Hung {
                mean_us,
                hung_us,
                hung_permille,
            } => {
                if rng.below(1000) < hung_permille as u64 {
                    hung_us as f64
                } else {
                    mean_us as f64 * (1.0 + 0.1 * (2.0 * rng.unit() - 1.0))
                }
            }
        }
    }
}

#[path = "../common/splitmix.rs"]
mod splitmix;
pub use splitmix::Rng;

impl Rng {
    /// Uniform in the open interval (0, 1).
    pub fn unit(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Standard normal (Marsaglia's polar method: `ln` and `sqrt` only).
    pub fn normal(&mut self) -> f64 {
        loop {
            let u = 2.0 * self.unit() - 1.0;
            let v = 2.0 * self.unit() - 1.0;
            let s = u * u + v * v;
            if s > 0.0 && s < 1.0 {
                return u * (-2.0 * ln(s) / s).sqrt();
            }
        }
    }
}

const LN2: f64 = std::f64::consts::LN_2;

/// Natural logarithm of `x > 0` from basic operations only (identical on
/// every platform): `x = m · 2^e`, `ln m = 2 atanh((m − 1)/(m + 1))`.
pub fn ln(x: f64) -> f64 {
    assert!(x > 0.0 && x.is_finite());
    let bits = x.to_bits();
    let mut e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if e == -1023 {
        // Subnormal: normalise by hand.
        return ln(x * (1u64 << 60) as f64) - 60.0 * LN2;
    }
    if m > std::f64::consts::SQRT_2 {
        m /= 2.0;
        e += 1;
    }
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut term = s;
    let mut sum = 0.0;
    let mut k = 1.0;
    while k < 60.0 {
        sum += term / k;
        term *= s2;
        k += 2.0;
    }
    2.0 * sum + e as f64 * LN2
}

/// `e^x` from basic operations only: `x = k ln 2 + r`, Taylor series of `e^r`.
pub fn exp(x: f64) -> f64 {
    if x < -700.0 {
        return 0.0;
    }
    assert!(x < 700.0);
    let k = (x / LN2 + if x >= 0.0 { 0.5 } else { -0.5 }) as i64;
    let r = x - k as f64 * LN2;
    let mut term = 1.0;
    let mut sum = 1.0;
    for i in 1..30 {
        term *= r / i as f64;
        sum += term;
    }
    sum * f64::from_bits(((k + 1023) as u64) << 52)
}
