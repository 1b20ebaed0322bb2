//! How pg_settings describes each setting: its category, descriptions, context, type, unit,
//! range and choices. PostgreSQL's own settings have PostgreSQL 15's rows, kept as psql
//! printed them in `pg_settings.tsv` (its header says how they were made).

use std::sync::LazyLock;

/// The columns of pg_settings that do not depend on the setting's value.
#[derive(Debug)]
pub struct Listing {
    pub name: &'static str,
    /// The base unit a number is in (`ms`, `s`, `kB`, `8kB`, `MB`).
    pub unit: Option<&'static str>,
    pub category: &'static str,
    /// `None`: KestrelDB's own setting, described by its definition.
    pub short_desc: Option<&'static str>,
    pub extra_desc: Option<&'static str>,
    pub context: &'static str,
    /// bool, integer, real, string or enum.
    pub vartype: &'static str,
    pub min_val: Option<&'static str>,
    pub max_val: Option<&'static str>,
    /// An enum's choices.
    pub enumvals: Option<Vec<&'static str>>,
}

static LISTINGS: LazyLock<Vec<Listing>> = LazyLock::new(|| {
    let text = include_str!("pg_settings.tsv");
    let null = |field: &'static str| (field != "\\N").then_some(field);
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| {
            let fields: Vec<&'static str> = line.split('\t').collect();
            let [name, unit, category, short_desc, extra_desc, context, vartype, min_val, max_val, enumvals] =
                fields[..]
            else {
                return None;
            };
            Some(Listing {
                name,
                unit: null(unit),
                category,
                short_desc: null(short_desc),
                extra_desc: null(extra_desc),
                context,
                vartype,
                min_val: null(min_val),
                max_val: null(max_val),
                enumvals: null(enumvals).map(|choices| choices.split('|').collect()),
            })
        })
        .collect()
});

/// How pg_settings lists setting `name`; `None` for one it does not list.
pub(super) fn listing(name: &str) -> Option<&'static Listing> {
    LISTINGS.iter().find(|listing| listing.name == name)
}
