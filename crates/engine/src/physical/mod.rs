//! Lowers a logical plan to running operators, choosing an operator for each node.

use crate::exec::{
    AggregateExec, BoxedOperator, DistinctExec, FilterExec, LimitExec, ProjectExec, ScanExec,
    SortExec, ValuesExec,
};
use crate::plan::LogicalPlan;

pub fn create_operator(plan: &LogicalPlan) -> BoxedOperator {
    match plan {
        LogicalPlan::Scan {
            table_oid,
            table_name,
            columns,
            ..
        } => Box::new(ScanExec::new(
            *table_oid,
            table_name.clone(),
            columns.clone(),
        )),
        LogicalPlan::Values { rows, types } => {
            Box::new(ValuesExec::new(rows.clone(), types.clone()))
        }
        LogicalPlan::Filter { input, predicate } => {
            Box::new(FilterExec::new(create_operator(input), predicate.clone()))
        }
        LogicalPlan::Project { input, exprs } => {
            Box::new(ProjectExec::new(create_operator(input), exprs.clone()))
        }
        LogicalPlan::Aggregate {
            input,
            group_by,
            aggregates,
        } => Box::new(AggregateExec::new(
            create_operator(input),
            group_by.clone(),
            aggregates.clone(),
        )),
        LogicalPlan::Sort { input, keys } => {
            let physical = input.output_types().iter().map(|t| t.physical()).collect();
            Box::new(SortExec::new(
                create_operator(input),
                keys.clone(),
                physical,
            ))
        }
        LogicalPlan::Limit {
            input,
            limit,
            offset,
        } => Box::new(LimitExec::new(
            create_operator(input),
            limit.clone(),
            offset.clone(),
        )),
        LogicalPlan::Distinct { input } => Box::new(DistinctExec::new(create_operator(input))),
    }
}
