//! Match statistics: Elo difference with a 95% interval, likelihood of superiority, and the
//! sequential probability ratio test (the GSPRT approximation used by chess testing
//! frameworks), all from wins, draws and losses.

/// Wins, draws and losses of the first engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcomes {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

/// Expected score for an Elo difference.
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Elo difference for an expected score in (0, 1).
pub fn elo_of_score(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

fn erf(x: f64) -> f64 {
    // Abramowitz and Stegun 7.1.26, absolute error below 1.5e-7.
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let value = 1.0 - poly * (-x * x).exp();
    if x >= 0.0 {
        value
    } else {
        -value
    }
}

impl Outcomes {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The mean score per game (win 1, draw 1/2).
    pub fn score(&self) -> f64 {
        (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(self.games().max(1))
    }

    /// Variance of the per-game score.
    fn variance(&self) -> f64 {
        let n = f64::from(self.games().max(1));
        let m = self.score();
        (f64::from(self.wins) * (1.0 - m).powi(2)
            + f64::from(self.draws) * (0.5 - m).powi(2)
            + f64::from(self.losses) * m.powi(2))
            / n
    }

    /// The Elo difference and its 95% interval, or `None` while the score is 0 or 1.
    pub fn elo(&self) -> Option<(f64, f64, f64)> {
        let m = self.score();
        if self.games() == 0 || m <= 0.0 || m >= 1.0 {
            return None;
        }
        let margin = 1.959_964 * (self.variance() / f64::from(self.games())).sqrt();
        let clamp = |s: f64| s.clamp(1e-6, 1.0 - 1e-6);
        Some((
            elo_of_score(m),
            elo_of_score(clamp(m - margin)),
            elo_of_score(clamp(m + margin)),
        ))
    }

    /// Likelihood of superiority: the probability that the first engine is the stronger.
    pub fn likelihood_of_superiority(&self) -> f64 {
        let decisive = f64::from(self.wins + self.losses);
        if decisive == 0.0 {
            return 0.5;
        }
        0.5 * (1.0 + erf((f64::from(self.wins) - f64::from(self.losses)) / (2.0 * decisive).sqrt()))
    }
}

/// A sequential probability ratio test of H0: elo = elo0 against H1: elo = elo1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

/// What the test says so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtVerdict {
    /// H1 accepted: the first engine is at least `elo1` stronger.
    AcceptH1,
    /// H0 accepted: the first engine is not `elo1` stronger.
    AcceptH0,
    Continue,
}

/// The SPRT's error rates when none are given.
const DEFAULT_ERROR_RATE: f64 = 0.05;

impl Sprt {
    /// Parses `elo0=0 elo1=10 alpha=0.05 beta=0.05` (any order; alpha and beta default to
    /// 0.05, the usual error rates).
    pub fn parse(text: &str) -> Result<Sprt, String> {
        let mut values = [None; 4];
        for pair in text
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|p| !p.is_empty())
        {
            let (key, value) = pair
                .split_once('=')
                .ok_or_else(|| format!("'{pair}' is not key=value"))?;
            let value: f64 = value
                .parse()
                .map_err(|_| format!("'{value}' is not a number"))?;
            let slot = match key {
                "elo0" => 0,
                "elo1" => 1,
                "alpha" => 2,
                "beta" => 3,
                _ => return Err(format!("unknown SPRT parameter '{key}'")),
            };
            values[slot] = Some(value);
        }
        let [Some(elo0), Some(elo1), alpha, beta] = values else {
            return Err("SPRT needs elo0 and elo1".to_string());
        };
        let (alpha, beta) = (
            alpha.unwrap_or(DEFAULT_ERROR_RATE),
            beta.unwrap_or(DEFAULT_ERROR_RATE),
        );
        if elo1 <= elo0
            || !(0.0..0.5).contains(&alpha)
            || !(0.0..0.5).contains(&beta)
            || alpha == 0.0
            || beta == 0.0
        {
            return Err("SPRT needs elo0 < elo1 and 0 < alpha, beta < 0.5".to_string());
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// The log-likelihood ratio bounds: (lower, upper).
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of the outcomes (normal approximation of the trinomial). Until
    /// each engine has won a game, one win and one loss are added: the variance of so few
    /// scores says nothing (a single draw has none at all, which would end the test at once).
    pub fn llr(&self, outcomes: &Outcomes) -> f64 {
        if outcomes.games() == 0 {
            return 0.0;
        }
        let mut outcomes = *outcomes;
        if outcomes.wins == 0 || outcomes.losses == 0 {
            outcomes.wins += 1;
            outcomes.losses += 1;
        }
        let variance = outcomes.variance();
        let (s0, s1) = (score_of_elo(self.elo0), score_of_elo(self.elo1));
        let n = f64::from(outcomes.games());
        n * (s1 - s0) * (2.0 * outcomes.score() - s0 - s1) / (2.0 * variance)
    }

    pub fn verdict(&self, outcomes: &Outcomes) -> SprtVerdict {
        let llr = self.llr(outcomes);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtVerdict::AcceptH1
        } else if llr <= lower {
            SprtVerdict::AcceptH0
        } else {
            SprtVerdict::Continue
        }
    }
}
