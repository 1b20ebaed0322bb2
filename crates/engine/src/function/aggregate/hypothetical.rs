//! The hypothetical-set aggregates rank, dense_rank, percent_rank and cume_dist
//! (`rank(args) WITHIN GROUP (ORDER BY keys)`): where a hypothetical row of the direct
//! arguments would fall among the group's rows in the WITHIN GROUP order, as PostgreSQL's
//! hypothetical_*_final compute it. Each row is compared with the hypothetical one as it
//! arrives; rows come sorted within their group (the call's ORDER BY is its keys), so
//! dense_rank counts the distinct rows before it by comparing each with the previous one.

use std::cmp::Ordering;

use crate::error::{Error, Result};
use crate::function::compare::compare_rows;
use crate::types::ScalarValue;
use crate::vector::Vector;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HypotheticalKind {
    Rank,
    DenseRank,
    PercentRank,
    CumeDist,
}

impl HypotheticalKind {
    pub fn by_name(name: &str) -> Option<HypotheticalKind> {
        Some(match name {
            "rank" => HypotheticalKind::Rank,
            "dense_rank" => HypotheticalKind::DenseRank,
            "percent_rank" => HypotheticalKind::PercentRank,
            "cume_dist" => HypotheticalKind::CumeDist,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            HypotheticalKind::Rank => "rank",
            HypotheticalKind::DenseRank => "dense_rank",
            HypotheticalKind::PercentRank => "percent_rank",
            HypotheticalKind::CumeDist => "cume_dist",
        }
    }
}

/// One group's counts.
#[derive(Debug, Clone, Default)]
struct Counts {
    rows: i64,
    /// Rows sorting before the hypothetical row.
    before: i64,
    /// Rows sorting with it (its peers).
    peers: i64,
    /// Distinct rows before it, and the last of them (dense_rank).
    distinct_before: i64,
    last_before: Option<Vec<ScalarValue>>,
}

#[derive(Debug)]
pub struct Hypothetical {
    kind: HypotheticalKind,
    /// The direct arguments, one row each, of the keys' types.
    row: Vec<Vector>,
    /// Per key: (descending, nulls first).
    order: Vec<(bool, bool)>,
    groups: Vec<Counts>,
}

impl Hypothetical {
    pub fn new(kind: HypotheticalKind) -> Hypothetical {
        Hypothetical {
            kind,
            row: Vec::new(),
            order: Vec::new(),
            groups: Vec::new(),
        }
    }

    /// The hypothetical row and the WITHIN GROUP order, before any input.
    pub fn set_row(&mut self, row: Vec<Vector>, order: Vec<(bool, bool)>) -> Result<()> {
        if row.len() != order.len() || row.iter().any(|v| v.len() != 1) {
            return Err(Error::internal(
                "a hypothetical row needs one value per WITHIN GROUP key",
            ));
        }
        (self.row, self.order) = (row, order);
        Ok(())
    }

    pub fn resize(&mut self, groups: usize) {
        self.groups.resize(groups, Counts::default());
    }

    pub fn len(&self) -> usize {
        self.groups.len()
    }

    /// Where row `row` of `keys` sorts against the hypothetical row.
    fn against_hypothetical(&self, keys: &[&Vector], row: usize) -> Ordering {
        for ((key, value), &(descending, nulls_first)) in
            keys.iter().zip(&self.row).zip(&self.order)
        {
            let ordering = match (key.is_valid(row), value.is_valid(0)) {
                (true, true) => {
                    let ordering = compare_rows(key, row, value, 0);
                    if descending {
                        ordering.reverse()
                    } else {
                        ordering
                    }
                }
                (false, false) => Ordering::Equal,
                (false, true) if nulls_first => Ordering::Less,
                (false, true) => Ordering::Greater,
                (true, false) if nulls_first => Ordering::Greater,
                (true, false) => Ordering::Less,
            };
            if ordering != Ordering::Equal {
                return ordering;
            }
        }
        Ordering::Equal
    }

    /// `args` are the keys (then the direct arguments, read once by [`Self::set_row`]).
    pub fn update(&mut self, groups: &[u32], args: &[&Vector]) -> Result<()> {
        let keys = args
            .get(..self.row.len())
            .ok_or_else(|| Error::internal("a hypothetical-set aggregate without its keys"))?;
        let dense = self.kind == HypotheticalKind::DenseRank;
        for (row, &g) in groups.iter().enumerate() {
            let ordering = self.against_hypothetical(keys, row);
            let counts = &mut self.groups[g as usize];
            counts.rows += 1;
            match ordering {
                Ordering::Less => {
                    counts.before += 1;
                    if dense {
                        let values: Vec<ScalarValue> =
                            keys.iter().map(|k| k.get_scalar(row)).collect();
                        if !counts
                            .last_before
                            .as_ref()
                            .is_some_and(|last| same_row(last, &values))
                        {
                            counts.distinct_before += 1;
                            counts.last_before = Some(values);
                        }
                    }
                }
                Ordering::Equal => counts.peers += 1,
                Ordering::Greater => {}
            }
        }
        Ok(())
    }

    /// The result type's physical type.
    pub fn physical(&self) -> crate::types::PhysicalType {
        match self.kind {
            HypotheticalKind::Rank | HypotheticalKind::DenseRank => {
                crate::types::PhysicalType::Int64
            }
            HypotheticalKind::PercentRank | HypotheticalKind::CumeDist => {
                crate::types::PhysicalType::Float64
            }
        }
    }

    pub fn value(&self, group: usize) -> ScalarValue {
        let counts = &self.groups[group];
        match self.kind {
            HypotheticalKind::Rank => ScalarValue::Int64(counts.before + 1),
            HypotheticalKind::DenseRank => ScalarValue::Int64(counts.distinct_before + 1),
            // hypothetical_percent_rank_final: 0 over no rows.
            HypotheticalKind::PercentRank if counts.rows == 0 => ScalarValue::Float64(0.0),
            HypotheticalKind::PercentRank => {
                ScalarValue::Float64(counts.before as f64 / counts.rows as f64)
            }
            HypotheticalKind::CumeDist => ScalarValue::Float64(
                (counts.before + counts.peers + 1) as f64 / (counts.rows + 1) as f64,
            ),
        }
    }
}

/// Whether two rows are peers in the sort (NULLs with NULLs, 1.0 with 1.00).
fn same_row(a: &[ScalarValue], b: &[ScalarValue]) -> bool {
    a.iter()
        .zip(b)
        .all(|(x, y)| match (x.is_null(), y.is_null()) {
            (true, true) => true,
            (false, false) => x.compare(y) == Some(Ordering::Equal),
            _ => false,
        })
}
