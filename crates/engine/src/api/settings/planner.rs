//! PostgreSQL's planner and resource settings (`work_mem`, `enable_hashjoin`,
//! `random_page_cost`, ...), accepted with PostgreSQL's defaults, ranges and messages so that
//! applications, ORMs and tools that tune them keep working. In PostgreSQL they change which
//! plan is picked or how much memory it may use before spilling, never a query's result;
//! KestrelDB's planner does not read them, so accepting them changes no answer.

use super::units::{blocks, kilobytes, UnitSetting};
use crate::error::{Error, Result, SqlState};

/// pg_settings' description of each of them.
pub(super) const DESCRIPTION: &str =
    "Accepted as PostgreSQL's planner setting; KestrelDB's planner does not read it.";

/// How a planner setting's value is checked.
pub(super) enum Kind {
    /// A Boolean (`enable_*`).
    Switch,
    Real {
        min: f64,
        max: f64,
    },
    Integer {
        min: i64,
        max: i64,
    },
    Memory(UnitSetting),
    OneOf(&'static [&'static str]),
}

pub(super) struct PlannerSetting {
    pub name: &'static str,
    pub default: &'static str,
    pub kind: Kind,
}

const fn setting(name: &'static str, default: &'static str, kind: Kind) -> PlannerSetting {
    PlannerSetting {
        name,
        default,
        kind,
    }
}

const fn switch(name: &'static str, default: &'static str) -> PlannerSetting {
    setting(name, default, Kind::Switch)
}

const fn cost(name: &'static str, default: &'static str) -> PlannerSetting {
    setting(
        name,
        default,
        Kind::Real {
            min: 0.0,
            max: f64::MAX,
        },
    )
}

const INT_MAX: i64 = i32::MAX as i64;

/// PostgreSQL 15's, with its defaults and ranges (guc.c).
pub(super) const SETTINGS: &[PlannerSetting] = &[
    switch("enable_seqscan", "on"),
    switch("enable_indexscan", "on"),
    switch("enable_indexonlyscan", "on"),
    switch("enable_bitmapscan", "on"),
    switch("enable_tidscan", "on"),
    switch("enable_sort", "on"),
    switch("enable_incremental_sort", "on"),
    switch("enable_hashagg", "on"),
    switch("enable_material", "on"),
    switch("enable_memoize", "on"),
    switch("enable_nestloop", "on"),
    switch("enable_mergejoin", "on"),
    switch("enable_hashjoin", "on"),
    switch("enable_gathermerge", "on"),
    switch("enable_partitionwise_join", "off"),
    switch("enable_partitionwise_aggregate", "off"),
    switch("enable_parallel_append", "on"),
    switch("enable_parallel_hash", "on"),
    switch("enable_partition_pruning", "on"),
    switch("enable_async_append", "on"),
    switch("geqo", "on"),
    cost("seq_page_cost", "1"),
    cost("random_page_cost", "4"),
    cost("cpu_tuple_cost", "0.01"),
    cost("cpu_index_tuple_cost", "0.005"),
    cost("cpu_operator_cost", "0.0025"),
    cost("parallel_tuple_cost", "0.1"),
    cost("parallel_setup_cost", "1000"),
    setting(
        "jit_above_cost",
        "100000",
        Kind::Real {
            min: -1.0,
            max: f64::MAX,
        },
    ),
    setting(
        "jit_inline_above_cost",
        "500000",
        Kind::Real {
            min: -1.0,
            max: f64::MAX,
        },
    ),
    setting(
        "jit_optimize_above_cost",
        "500000",
        Kind::Real {
            min: -1.0,
            max: f64::MAX,
        },
    ),
    setting(
        "cursor_tuple_fraction",
        "0.1",
        Kind::Real { min: 0.0, max: 1.0 },
    ),
    setting(
        "hash_mem_multiplier",
        "2",
        Kind::Real {
            min: 1.0,
            max: 1000.0,
        },
    ),
    setting(
        "default_statistics_target",
        "100",
        Kind::Integer {
            min: 1,
            max: 10_000,
        },
    ),
    setting(
        "from_collapse_limit",
        "8",
        Kind::Integer {
            min: 1,
            max: INT_MAX,
        },
    ),
    setting(
        "join_collapse_limit",
        "8",
        Kind::Integer {
            min: 1,
            max: INT_MAX,
        },
    ),
    setting(
        "geqo_threshold",
        "12",
        Kind::Integer {
            min: 2,
            max: INT_MAX,
        },
    ),
    setting(
        "effective_io_concurrency",
        "1",
        Kind::Integer { min: 0, max: 1000 },
    ),
    setting(
        "max_parallel_workers",
        "8",
        Kind::Integer { min: 0, max: 1024 },
    ),
    setting(
        "max_parallel_maintenance_workers",
        "2",
        Kind::Integer { min: 0, max: 1024 },
    ),
    setting(
        "work_mem",
        "4MB",
        Kind::Memory(kilobytes("work_mem", 64, INT_MAX)),
    ),
    setting(
        "maintenance_work_mem",
        "64MB",
        Kind::Memory(kilobytes("maintenance_work_mem", 1024, INT_MAX)),
    ),
    setting(
        "temp_buffers",
        "8MB",
        Kind::Memory(blocks("temp_buffers", 100, INT_MAX / 2)),
    ),
    setting(
        "effective_cache_size",
        "4GB",
        Kind::Memory(blocks("effective_cache_size", 1, INT_MAX)),
    ),
    setting(
        "min_parallel_table_scan_size",
        "8MB",
        Kind::Memory(blocks("min_parallel_table_scan_size", 0, INT_MAX / 3)),
    ),
    setting(
        "min_parallel_index_scan_size",
        "512kB",
        Kind::Memory(blocks("min_parallel_index_scan_size", 0, INT_MAX / 3)),
    ),
    setting(
        "plan_cache_mode",
        "auto",
        Kind::OneOf(&["auto", "force_generic_plan", "force_custom_plan"]),
    ),
    setting(
        "constraint_exclusion",
        "partition",
        Kind::OneOf(&["partition", "on", "off"]),
    ),
];

impl Kind {
    /// `value` as SHOW spells it, or PostgreSQL's error for it.
    pub(super) fn check(&self, name: &str, value: &str) -> Result<String> {
        let invalid = || {
            Error::new(
                SqlState::InvalidParameterValue,
                format!("invalid value for parameter \"{name}\": \"{value}\""),
            )
        };
        match self {
            Kind::Switch => super::checks::on_off(value).map_err(|_| {
                Error::new(
                    SqlState::InvalidParameterValue,
                    format!("parameter \"{name}\" requires a Boolean value"),
                )
            }),
            Kind::Real { min, max } => {
                let real: f64 = value.trim().parse().map_err(|_| invalid())?;
                if !real.is_finite() {
                    return Err(invalid());
                }
                if real < *min || real > *max {
                    return Err(Error::new(
                        SqlState::InvalidParameterValue,
                        format!(
                            "{} is outside the valid range for parameter \"{name}\" ({} .. {})",
                            general(real),
                            general(*min),
                            general(*max)
                        ),
                    ));
                }
                Ok(general(real))
            }
            Kind::Integer { min, max } => {
                let integer: i64 = value.trim().parse().map_err(|_| invalid())?;
                if integer < *min || integer > *max {
                    return Err(Error::new(
                        SqlState::InvalidParameterValue,
                        format!(
                            "{integer} is outside the valid range for parameter \"{name}\" ({min} .. {max})"
                        ),
                    ));
                }
                Ok(integer.to_string())
            }
            Kind::Memory(units) => units.canonical(value),
            Kind::OneOf(choices) => {
                let lower = value.trim().to_ascii_lowercase();
                match choices.iter().find(|c| **c == lower) {
                    Some(choice) => Ok(choice.to_string()),
                    None => {
                        Err(invalid()
                            .with_hint(format!("Available values: {}.", choices.join(", "))))
                    }
                }
            }
        }
    }
}

/// A real as C's `%g` prints it (six significant digits), as PostgreSQL shows real settings.
fn general(value: f64) -> String {
    if value == 0.0 {
        return "0".to_string();
    }
    if value == f64::MAX {
        return "1.79769e+308".to_string();
    }
    let exponent = value.abs().log10().floor() as i32;
    let trim = |digits: String| -> String {
        match digits.contains('.') {
            true => digits
                .trim_end_matches('0')
                .trim_end_matches('.')
                .to_string(),
            false => digits,
        }
    };
    if !(-4..6).contains(&exponent) {
        let formatted = format!("{value:.5e}");
        let (mantissa, power) = formatted.split_once('e').unwrap_or((&formatted, "0"));
        let power: i32 = power.parse().unwrap_or(0);
        let sign = if power < 0 { '-' } else { '+' };
        return format!("{}e{sign}{:02}", trim(mantissa.to_string()), power.abs());
    }
    let decimals = usize::try_from(5 - exponent).unwrap_or(0);
    trim(format!("{value:.decimals$}"))
}

#[cfg(test)]
mod tests {
    use super::general;

    #[test]
    fn reals_print_as_percent_g() {
        assert_eq!(general(4.0), "4");
        assert_eq!(general(0.0025), "0.0025");
        assert_eq!(general(100_000.0), "100000");
        assert_eq!(general(1_000_000.0), "1e+06");
        assert_eq!(general(1.1), "1.1");
        assert_eq!(general(-1.0), "-1");
        assert_eq!(general(0.00001234567), "1.23457e-05");
        assert_eq!(general(123.4567891), "123.457");
    }
}
