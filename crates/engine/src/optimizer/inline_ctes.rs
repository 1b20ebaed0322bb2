//! Inlines a WITH query referenced once, as PostgreSQL 12+ does: `SharedCte` materializes a
//! CTE so that several references see one result, which a single reference does not need;
//! inlined, its rows stream into the query and later rules optimize across the boundary
//! (filters move into it, joins reorder over it). A CTE with a volatile function or a
//! sequence call keeps its one evaluation, as in PostgreSQL.

use std::collections::HashMap;

use super::{map_inputs, Rule};
use crate::error::Result;
use crate::plan::LogicalPlan;
use crate::storage::DbState;

pub struct InlineCtes;

impl Rule for InlineCtes {
    fn name(&self) -> &'static str {
        "inline_ctes"
    }

    fn apply(&self, plan: LogicalPlan, _state: &DbState) -> Result<LogicalPlan> {
        let mut references: HashMap<usize, usize> = HashMap::new();
        plan.visit_all(&mut |p| {
            if let LogicalPlan::SharedCte { id, .. } = p {
                *references.entry(*id).or_default() += 1;
            }
        });
        inline(plan, &references)
    }
}

#[recursive::recursive]
fn inline(plan: LogicalPlan, references: &HashMap<usize, usize>) -> Result<LogicalPlan> {
    let plan = match plan {
        // Inputs that run again and again (per outer row, per iteration) keep their CTEs
        // materialized: inlined, the CTE would be computed each time.
        LogicalPlan::LateralJoin {
            left,
            right,
            kind,
            condition,
        } => LogicalPlan::LateralJoin {
            left: Box::new(inline(*left, references)?),
            right,
            kind,
            condition,
        },
        LogicalPlan::RecursiveCte {
            id,
            base,
            recursive,
            all,
        } => LogicalPlan::RecursiveCte {
            id,
            base: Box::new(inline(*base, references)?),
            recursive,
            all,
        },
        other => map_inputs(other, &mut |p| inline(p, references))?,
    };
    Ok(match plan {
        LogicalPlan::SharedCte { id, input }
            if references.get(&id) == Some(&1) && input.is_deterministic() =>
        {
            *input
        }
        other => other,
    })
}
