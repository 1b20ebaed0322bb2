//! `x [NOT] IN (items)`, a batch at a time. A list of constants (literals and parameters) is
//! a hash set of row keys, built once per execution and probed once per row, so a long list
//! costs no more per row than a short one; any other list is compared item by item. Both
//! keep PostgreSQL's three-valued logic: a NULL `x`, or no match where an item is NULL, is
//! NULL, so `NOT IN` with a NULL item is never true.

use std::cell::RefCell;
use std::sync::Arc;

use hashbrown::HashSet;

use super::expression::{bools, evaluate, evaluate_constant};
use super::ExecContext;
use crate::error::Result;
use crate::function::compare::compare;
use crate::plan::{CompareOp, ScalarExpr};
use crate::vector::{encode_row_key, Batch, Bitmap, Vector, VectorData};

/// The values of a constant list as row keys (which are equal exactly when `=` holds), and
/// whether an item was NULL.
#[derive(Debug)]
pub struct ConstantSet {
    keys: HashSet<Box<[u8]>>,
    has_null: bool,
}

/// The sets built in one execution, by the items they were built from: a statement usually
/// holds one list, and keying by content (not by the expression's address) stays right when
/// plans are cloned or rebuilt per row, as correlated subqueries are.
#[derive(Debug, Default)]
pub struct InListSets(RefCell<Vec<(Vec<ScalarExpr>, Arc<ConstantSet>)>>);

impl ConstantSet {
    /// The set of `items`' values, each evaluated once.
    pub fn build(items: &[ScalarExpr], ctx: &ExecContext) -> Result<ConstantSet> {
        let mut set = ConstantSet {
            keys: HashSet::with_capacity(items.len()),
            has_null: false,
        };
        for item in items {
            let value = evaluate_constant(item, ctx)?;
            if value.is_null() {
                set.has_null = true;
                continue;
            }
            let vector = Vector::from_scalar(&value, item.ty(), 1)?;
            let mut key = Vec::new();
            encode_row_key(&[&vector], 0, &mut key);
            set.keys.insert(key.into_boxed_slice());
        }
        Ok(set)
    }

    /// The distinct non-NULL values' keys.
    pub fn keys(&self) -> impl Iterator<Item = &[u8]> {
        self.keys.iter().map(|k| &**k)
    }
}

impl InListSets {
    fn get_or_build(&self, items: &[ScalarExpr], ctx: &ExecContext) -> Result<Arc<ConstantSet>> {
        if let Some((_, set)) = self.0.borrow().iter().find(|(built, _)| built == items) {
            return Ok(set.clone());
        }
        let set = Arc::new(ConstantSet::build(items, ctx)?);
        self.0.borrow_mut().push((items.to_vec(), set.clone()));
        Ok(set)
    }
}

/// Whether `items` can be a [`ConstantSet`] probed with values of `input`'s layout.
fn is_constant_list(input: &ScalarExpr, items: &[ScalarExpr]) -> bool {
    let physical = input.ty().physical();
    items.iter().all(|item| {
        matches!(item, ScalarExpr::Literal { .. } | ScalarExpr::Param { .. })
            && item.ty().physical() == physical
    })
}

pub(super) fn in_list(
    input: &ScalarExpr,
    list: &[ScalarExpr],
    negated: bool,
    batch: &Batch,
    ctx: &ExecContext,
) -> Result<Vector> {
    let value = evaluate(input, batch, ctx)?;
    let (found, unknown) = if is_constant_list(input, list) {
        let set = ctx.in_list_sets.get_or_build(list, ctx)?;
        probe_set(&value, &set, batch.len())
    } else {
        compare_each(&value, list, batch, ctx)?
    };
    let len = batch.len();
    let mut validity = Bitmap::new(len, true);
    let out = (0..len)
        .map(|row| {
            if !found[row] && unknown[row] {
                validity.set(row, false);
            }
            found[row] != negated
        })
        .collect();
    let validity = (!validity.all_set()).then_some(validity);
    Ok(Vector::new(VectorData::Bool(out), validity))
}

/// Per row: whether `value` is in `set`, and whether the answer is unknown without a match.
fn probe_set(value: &Vector, set: &ConstantSet, len: usize) -> (Vec<bool>, Vec<bool>) {
    let mut found = vec![false; len];
    let mut unknown = vec![set.has_null; len];
    let mut key = Vec::new();
    for row in 0..len {
        key.clear();
        if encode_row_key(&[value], row, &mut key) {
            unknown[row] = true;
        } else {
            found[row] = set.keys.contains(key.as_slice());
        }
    }
    (found, unknown)
}

/// Per row: whether `value` equals an item, and whether a comparison was NULL.
fn compare_each(
    value: &Vector,
    list: &[ScalarExpr],
    batch: &Batch,
    ctx: &ExecContext,
) -> Result<(Vec<bool>, Vec<bool>)> {
    let len = batch.len();
    let mut found = vec![false; len];
    let mut unknown: Vec<bool> = (0..len).map(|r| !value.is_valid(r)).collect();
    for item in list {
        let item_value = evaluate(item, batch, ctx)?;
        let eq = compare(CompareOp::Eq, value, &item_value)?;
        let eq_values = bools(&eq)?;
        for row in 0..len {
            if eq.is_valid(row) {
                found[row] |= eq_values[row];
            } else {
                unknown[row] = true;
            }
        }
    }
    Ok((found, unknown))
}
