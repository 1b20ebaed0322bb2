//! GROUP BY with GROUPING SETS, ROLLUP, CUBE and `()`, and the `grouping(...)` function.
//!
//! The items of a GROUP BY expand, as in PostgreSQL, to a list of grouping sets: each item
//! gives a list of sets (a plain expression one set of itself, ROLLUP its prefixes, CUBE
//! every subset, GROUPING SETS the concatenation of its elements' lists) and the items
//! combine by cross product. The binder keeps each distinct key expression once and each set
//! as the positions of its keys; `grouping(a, b)` becomes a bit mask over key positions that
//! the aggregate operator evaluates per set.

use sqlparser::ast::{self, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, SelectItem};

use super::expr::{AggregateCollector, GROUPING_REF_BASE};
use super::scope::Scope;
use super::select::OutputItem;
use super::{ident_name, Binder};
use crate::error::{Error, Result, SqlState};
use crate::plan::ScalarExpr;
use crate::types::DataType;

/// PostgreSQL's limits: CUBE over at most 12 elements, at most 4096 grouping sets.
const CUBE_ELEMENTS_MAX: usize = 12;
const GROUPING_SETS_MAX: usize = 4096;
/// grouping() returns an int4 bit mask, so it takes at most 31 arguments.
const GROUPING_ARGS_MAX: usize = 31;

/// Grouping sets of AST expressions.
type Sets<'a> = Vec<Vec<&'a Expr>>;

/// A bound GROUP BY: the distinct key expressions and, when grouping sets were written, the
/// key positions of each set (empty for a plain GROUP BY, which is one set of every key).
/// `outputs` says which select-list item each key is, if any: under grouping sets two items
/// with equal expressions are still two keys when GROUP BY names both, as in PostgreSQL
/// (`SELECT a, a … GROUP BY CUBE (1, 2)` nulls each `a` on its own).
pub(super) struct BoundGroupBy {
    pub(super) keys: Vec<ScalarExpr>,
    pub(super) sets: Vec<Vec<usize>>,
    pub(super) outputs: Vec<Option<usize>>,
}

impl Binder<'_> {
    pub(super) fn bind_group_by(
        &mut self,
        items: &[Expr],
        scope: &Scope,
        outputs: &[OutputItem],
        projection: &[SelectItem],
    ) -> Result<BoundGroupBy> {
        let Some(sets) = expand_group_by(items)? else {
            let keys = items
                .iter()
                .map(|e| Ok(self.bind_group_item(e, scope, outputs, projection)?.0))
                .collect::<Result<Vec<_>>>()?;
            for key in &keys {
                super::coerce::require_json_free(key.ty(), false)?;
            }
            return Ok(BoundGroupBy {
                outputs: vec![None; keys.len()],
                keys,
                sets: Vec::new(),
            });
        };
        let mut keys: Vec<ScalarExpr> = Vec::new();
        let mut key_outputs: Vec<Option<usize>> = Vec::new();
        let mut bound_sets = Vec::with_capacity(sets.len());
        for set in sets {
            let mut positions = Vec::with_capacity(set.len());
            for expr in set {
                let (bound, output) = self.bind_group_item(expr, scope, outputs, projection)?;
                // PostgreSQL's sort-group reference: an expression equal to a select-list
                // item is the first such item.
                let output = output.or_else(|| outputs.iter().position(|o| o.expr == bound));
                let same_key = |(k, o): (&ScalarExpr, &Option<usize>)| match output {
                    Some(_) => *o == output,
                    None => *k == bound,
                };
                let position = match keys.iter().zip(&key_outputs).position(same_key) {
                    Some(p) => p,
                    None => {
                        keys.push(bound);
                        key_outputs.push(output);
                        keys.len() - 1
                    }
                };
                if !positions.contains(&position) {
                    positions.push(position);
                }
            }
            bound_sets.push(positions);
        }
        for key in &keys {
            super::coerce::require_json_free(key.ty(), false)?;
        }
        Ok(BoundGroupBy {
            keys,
            sets: bound_sets,
            outputs: key_outputs,
        })
    }

    /// `grouping(args)`: collected like an aggregate; its arguments must turn out to be
    /// group keys, which the select binder checks once GROUP BY is bound.
    pub(super) fn bind_grouping(&mut self, args: &[&Expr], scope: &Scope) -> Result<ScalarExpr> {
        let Some(mut collector) = self.aggregates.take() else {
            return Err(Error::new(
                SqlState::GroupingError,
                match self.aggregate_forbidden_in {
                    Some(clause) => format!("grouping operations are not allowed in {clause}"),
                    None => "aggregate function calls cannot be nested".to_string(),
                },
            ));
        };
        let bound = if args.is_empty() {
            // The grammar requires an argument.
            Err(Error::syntax("syntax error at or near \")\""))
        } else if args.len() > GROUPING_ARGS_MAX {
            Err(Error::new(
                SqlState::TooManyArguments,
                "GROUPING must have fewer than 32 arguments",
            ))
        } else {
            let saved_clause = self.aggregate_forbidden_in.take();
            let bound = args
                .iter()
                .map(|a| self.bind_expr(a, scope))
                .collect::<Result<Vec<_>>>();
            self.aggregate_forbidden_in = saved_clause;
            bound
        };
        let result = bound.map(|bound| {
            collector.groupings.push(bound);
            ScalarExpr::Column {
                index: GROUPING_REF_BASE + collector.groupings.len() - 1,
                ty: DataType::Int32,
            }
        });
        self.aggregates = Some(collector);
        result
    }
}

/// The group key positions each collected grouping() call reports on, most significant bit
/// first; 42803 for an argument that is not a group key.
pub(super) fn grouping_calls(
    collector: &AggregateCollector,
    keys: &[ScalarExpr],
) -> Result<Vec<Vec<usize>>> {
    collector
        .groupings
        .iter()
        .map(|args| {
            args.iter()
                .map(|arg| {
                    keys.iter().position(|k| k == arg).ok_or_else(|| {
                        Error::new(
                            SqlState::GroupingError,
                            "arguments to GROUPING must be grouping expressions of the associated query level",
                        )
                    })
                })
                .collect()
        })
        .collect()
}

/// The grouping sets of GROUP BY `items`, or `None` for a plain list of expressions.
fn expand_group_by(items: &[Expr]) -> Result<Option<Sets<'_>>> {
    if !items.iter().any(is_grouping_construct) {
        return Ok(None);
    }
    cross_product(items).map(Some)
}

fn is_grouping_construct(expr: &Expr) -> bool {
    matches!(
        expr,
        Expr::GroupingSets(_) | Expr::Rollup(_) | Expr::Cube(_) | Expr::Tuple(_)
    )
}

/// The sets of a list of items that combine by cross product (GROUP BY's top level, and
/// one parenthesized element of GROUPING SETS).
fn cross_product(items: &[Expr]) -> Result<Sets<'_>> {
    let mut sets: Sets<'_> = vec![Vec::new()];
    for item in items {
        let item_sets = expand_item(item)?;
        if sets.len().saturating_mul(item_sets.len()) > GROUPING_SETS_MAX {
            return Err(too_many_sets());
        }
        let mut combined = Vec::with_capacity(sets.len() * item_sets.len());
        for left in &sets {
            for right in &item_sets {
                combined.push(left.iter().chain(right).copied().collect());
            }
        }
        sets = combined;
    }
    Ok(sets)
}

fn expand_item(item: &Expr) -> Result<Sets<'_>> {
    match item {
        // `()` is the empty set, `(a, b)` one set of both.
        Expr::Tuple(exprs) => cross_product(exprs),
        Expr::Rollup(lists) => rollup_sets(&lists.iter().map(Vec::as_slice).collect::<Vec<_>>()),
        Expr::Cube(lists) => cube(&lists.iter().map(Vec::as_slice).collect::<Vec<_>>()),
        Expr::GroupingSets(lists) => {
            let mut sets = Vec::new();
            for list in lists {
                sets.extend(cross_product(list)?);
                if sets.len() > GROUPING_SETS_MAX {
                    return Err(too_many_sets());
                }
            }
            Ok(sets)
        }
        // Inside GROUPING SETS, ROLLUP and CUBE arrive as function calls.
        Expr::Function(function) => match nested_construct(function)? {
            Some(sets) => Ok(sets),
            None => Ok(vec![vec![item]]),
        },
        other => Ok(vec![vec![other]]),
    }
}

/// The sets of `rollup(...)` / `cube(...)` written as a function call; `None` for another
/// function.
fn nested_construct(function: &ast::Function) -> Result<Option<Sets<'_>>> {
    let rollup = match function.name.0.as_slice() {
        [ast::ObjectNamePart::Identifier(ident)] => match ident_name(ident).as_str() {
            "rollup" => true,
            "cube" => false,
            _ => return Ok(None),
        },
        _ => return Ok(None),
    };
    let FunctionArguments::List(list) = &function.args else {
        return Ok(None);
    };
    let mut lists = Vec::with_capacity(list.args.len());
    for arg in &list.args {
        match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Tuple(exprs))) => {
                lists.push(exprs.as_slice())
            }
            FunctionArg::Unnamed(FunctionArgExpr::Expr(expr)) => {
                lists.push(std::slice::from_ref(expr))
            }
            other => return Err(Error::unsupported(format!("the grouping element {other}"))),
        }
    }
    if rollup {
        rollup_sets(&lists).map(Some)
    } else {
        cube(&lists).map(Some)
    }
}

/// ROLLUP(e1, ..., en): (e1..en), (e1..en-1), ..., ().
fn rollup_sets<'a>(lists: &[&'a [Expr]]) -> Result<Sets<'a>> {
    Ok((0..=lists.len())
        .rev()
        .map(|n| lists[..n].iter().flat_map(|l| l.iter()).collect())
        .collect())
}

/// CUBE(e1, ..., en): every subset, the full set first.
fn cube<'a>(lists: &[&'a [Expr]]) -> Result<Sets<'a>> {
    if lists.len() > CUBE_ELEMENTS_MAX {
        return Err(Error::new(
            SqlState::TooManyColumns,
            "CUBE is limited to 12 elements",
        ));
    }
    let n = lists.len();
    Ok((0..1usize << n)
        .rev()
        .map(|mask| {
            (0..n)
                .filter(|i| mask & (1 << (n - 1 - i)) != 0)
                .flat_map(|i| lists[i].iter())
                .collect()
        })
        .collect())
}

fn too_many_sets() -> Error {
    Error::new(
        SqlState::StatementTooComplex,
        "too many grouping sets present (maximum 4096)",
    )
}
