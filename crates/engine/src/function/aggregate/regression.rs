//! The two-variable statistics of SQL: covar_pop, covar_samp, corr and the regr_*
//! aggregates, each `f(Y, X)` over double precision. PostgreSQL accumulates (N, Σx, Sxx, Σy,
//! Syy, Sxy) with the Youngs-Cramer updates of float8_regr_accum and computes each result
//! from them in its final function (float.c); these are the same steps in the same order, so
//! the digits are PostgreSQL's. A row where either argument is NULL is skipped (the
//! transition function is strict). regr_count counts those rows as bigint.

use crate::error::{Error, Result};
use crate::types::ScalarValue;
use crate::vector::{Vector, VectorData};

/// Which statistic a call produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RegressionKind {
    CovarPop,
    CovarSamp,
    Corr,
    Count,
    Sxx,
    Syy,
    Sxy,
    AvgX,
    AvgY,
    R2,
    Slope,
    Intercept,
}

impl RegressionKind {
    pub fn by_name(name: &str) -> Option<RegressionKind> {
        use RegressionKind as K;
        Some(match name {
            "covar_pop" => K::CovarPop,
            "covar_samp" => K::CovarSamp,
            "corr" => K::Corr,
            "regr_count" => K::Count,
            "regr_sxx" => K::Sxx,
            "regr_syy" => K::Syy,
            "regr_sxy" => K::Sxy,
            "regr_avgx" => K::AvgX,
            "regr_avgy" => K::AvgY,
            "regr_r2" => K::R2,
            "regr_slope" => K::Slope,
            "regr_intercept" => K::Intercept,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        use RegressionKind as K;
        match self {
            K::CovarPop => "covar_pop",
            K::CovarSamp => "covar_samp",
            K::Corr => "corr",
            K::Count => "regr_count",
            K::Sxx => "regr_sxx",
            K::Syy => "regr_syy",
            K::Sxy => "regr_sxy",
            K::AvgX => "regr_avgx",
            K::AvgY => "regr_avgy",
            K::R2 => "regr_r2",
            K::Slope => "regr_slope",
            K::Intercept => "regr_intercept",
        }
    }
}

/// float8_regr_accum's transition values of one group.
#[derive(Debug, Clone, Copy, Default)]
struct Sums {
    n: f64,
    sx: f64,
    sxx: f64,
    sy: f64,
    syy: f64,
    sxy: f64,
}

impl Sums {
    /// float8_regr_accum: one Youngs-Cramer step; 22003 when finite inputs overflow.
    fn add(&mut self, y: f64, x: f64) -> Result<()> {
        let old = *self;
        let n = old.n + 1.0;
        let sx = old.sx + x;
        let sy = old.sy + y;
        let (mut sxx, mut syy, mut sxy) = (old.sxx, old.syy, old.sxy);
        if old.n > 0.0 {
            let tmp_x = x * n - sx;
            let tmp_y = y * n - sy;
            let scale = 1.0 / (n * old.n);
            sxx += tmp_x * tmp_x * scale;
            syy += tmp_y * tmp_y * scale;
            sxy += tmp_x * tmp_y * scale;
            let inf = f64::is_infinite;
            if inf(sx) || inf(sxx) || inf(sy) || inf(syy) || inf(sxy) {
                if ((inf(sx) || inf(sxx)) && !inf(old.sx) && !inf(x))
                    || ((inf(sy) || inf(syy)) && !inf(old.sy) && !inf(y))
                    || (inf(sxy) && !inf(old.sx) && !inf(x) && !inf(old.sy) && !inf(y))
                {
                    return Err(Error::out_of_range("value out of range: overflow"));
                }
                for sum in [&mut sxx, &mut syy, &mut sxy] {
                    if inf(*sum) {
                        *sum = f64::NAN;
                    }
                }
            }
        } else {
            // A first input that is infinite or NaN must not report zero spreads later.
            if x.is_nan() || x.is_infinite() {
                (sxx, sxy) = (f64::NAN, f64::NAN);
            }
            if y.is_nan() || y.is_infinite() {
                (syy, sxy) = (f64::NAN, f64::NAN);
            }
        }
        *self = Sums {
            n,
            sx,
            sxx,
            sy,
            syy,
            sxy,
        };
        Ok(())
    }

    /// The final functions of float.c; `None` is SQL NULL.
    fn result(&self, kind: RegressionKind) -> Option<f64> {
        use RegressionKind as K;
        let Sums {
            n,
            sx,
            sxx,
            sy,
            syy,
            sxy,
        } = *self;
        if n < 1.0 {
            return None;
        }
        // Per the SQL standard, NULL for a vertical line (and for corr a horizontal one).
        let vertical = sxx == 0.0;
        Some(match kind {
            K::Count => n,
            K::Sxx => sxx,
            K::Syy => syy,
            K::Sxy => sxy,
            K::AvgX => sx / n,
            K::AvgY => sy / n,
            K::CovarPop => sxy / n,
            K::CovarSamp if n < 2.0 => return None,
            K::CovarSamp => sxy / (n - 1.0),
            K::Corr if vertical || syy == 0.0 => return None,
            K::Corr => sxy / (sxx * syy).sqrt(),
            K::R2 | K::Slope | K::Intercept if vertical => return None,
            K::R2 if syy == 0.0 => 1.0,
            K::R2 => (sxy * sxy) / (sxx * syy),
            K::Slope => sxy / sxx,
            K::Intercept => (sy - sx * sxy / sxx) / n,
        })
    }
}

/// Per-group regression sums.
#[derive(Debug, Default)]
pub struct RegressionMoments {
    state: Vec<Sums>,
}

impl RegressionMoments {
    pub fn resize(&mut self, groups: usize) {
        self.state.resize(groups, Sums::default());
    }

    pub fn len(&self) -> usize {
        self.state.len()
    }

    /// Adds row i of (Y, X) to group `groups[i]`, skipping rows with a NULL.
    pub fn update(&mut self, groups: &[u32], args: &[&Vector]) -> Result<()> {
        let (Some(&y), Some(&x)) = (args.first(), args.get(1)) else {
            return Err(Error::internal(
                "a regression aggregate takes two arguments",
            ));
        };
        let (VectorData::Float64(ys), VectorData::Float64(xs)) = (&y.data, &x.data) else {
            return Err(Error::internal(
                "regression aggregate arguments are double precision",
            ));
        };
        for (row, &g) in groups.iter().enumerate() {
            if y.is_valid(row) && x.is_valid(row) {
                self.state[g as usize].add(ys[row], xs[row])?;
            }
        }
        Ok(())
    }

    pub fn value(&self, group: usize, kind: RegressionKind) -> ScalarValue {
        let sums = &self.state[group];
        match kind {
            // int8inc_float8_float8: a count from zero, never NULL.
            RegressionKind::Count => ScalarValue::Int64(sums.n as i64),
            kind => sums
                .result(kind)
                .map_or(ScalarValue::Null, ScalarValue::Float64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sums(points: &[(f64, f64)]) -> Sums {
        let mut sums = Sums::default();
        for &(y, x) in points {
            sums.add(y, x).expect("finite");
        }
        sums
    }

    #[test]
    fn lines_follow_the_standard() {
        let vertical = sums(&[(1.0, 2.0), (3.0, 2.0)]);
        assert_eq!(vertical.result(RegressionKind::Slope), None);
        assert_eq!(vertical.result(RegressionKind::Corr), None);
        let horizontal = sums(&[(1.0, 2.0), (1.0, 3.0)]);
        assert_eq!(horizontal.result(RegressionKind::R2), Some(1.0));
        assert_eq!(horizontal.result(RegressionKind::Corr), None);
        let line = sums(&[(1.0, 0.0), (3.0, 1.0), (5.0, 2.0)]);
        assert_eq!(line.result(RegressionKind::Slope), Some(2.0));
        assert_eq!(line.result(RegressionKind::Intercept), Some(1.0));
        assert_eq!(sums(&[]).result(RegressionKind::Sxx), None);
        assert_eq!(sums(&[(1.0, 1.0)]).result(RegressionKind::CovarSamp), None);
    }

    #[test]
    fn finite_overflow_is_an_error() {
        let mut s = sums(&[(1e308, 1.0)]);
        assert!(s.add(-1e308, 1.0).is_err());
        let mut s = sums(&[(f64::INFINITY, 1.0)]);
        assert!(s.add(1.0, 1.0).is_ok());
        assert!(s.result(RegressionKind::Syy).is_some_and(f64::is_nan));
    }
}
