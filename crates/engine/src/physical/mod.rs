//! Lowers a logical plan to running operators, choosing an operator for each node: a hash
//! join where the condition has equality keys between the two sides, a nested loop otherwise.

mod join_keys;

use crate::exec::WorkTableExec;
use crate::exec::{
    AggregateExec, BoxedOperator, DistinctExec, FilterExec, GenerateSeriesExec, HashJoinExec,
    HashJoinSpec, LimitExec, NestedLoopJoinExec, ProjectExec, RecursiveCteExec, ScanExec,
    SetOperationExec, SortExec, ValuesExec, WindowExec,
};
use crate::function::TableFunction;
use crate::plan::LogicalPlan;
use crate::types::PhysicalType;

fn physical_types(plan: &LogicalPlan) -> Vec<PhysicalType> {
    plan.output_types().iter().map(|t| t.physical()).collect()
}

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
        LogicalPlan::Sort { input, keys } => Box::new(SortExec::new(
            create_operator(input),
            keys.clone(),
            physical_types(input),
        )),
        LogicalPlan::Limit {
            input,
            limit,
            offset,
        } => Box::new(LimitExec::new(
            create_operator(input),
            limit.clone(),
            offset.clone(),
        )),
        LogicalPlan::TableFunction { func, args, .. } => match func {
            TableFunction::GenerateSeries => Box::new(GenerateSeriesExec::new(args.clone())),
        },
        LogicalPlan::RecursiveCte {
            id,
            base,
            recursive,
            all,
        } => Box::new(RecursiveCteExec::new(
            *id,
            (**base).clone(),
            (**recursive).clone(),
            *all,
        )),
        LogicalPlan::WorkTable { id, .. } => Box::new(WorkTableExec::new(*id)),
        LogicalPlan::Window { input, calls } => Box::new(WindowExec::new(
            create_operator(input),
            calls.clone(),
            physical_types(input),
        )),
        LogicalPlan::Distinct { input } => Box::new(DistinctExec::new(create_operator(input))),
        LogicalPlan::SetOperation {
            left,
            right,
            op,
            all,
        } => Box::new(SetOperationExec::new(
            create_operator(left),
            create_operator(right),
            *op,
            *all,
        )),
        LogicalPlan::Join {
            left,
            right,
            kind,
            condition,
        } => {
            let left_width = left.output_types().len();
            let split = join_keys::split_condition(condition.clone(), left_width);
            let types = (physical_types(left), physical_types(right));
            if split.left_keys.is_empty() {
                Box::new(NestedLoopJoinExec::new(
                    create_operator(left),
                    create_operator(right),
                    types,
                    *kind,
                    condition.clone(),
                ))
            } else {
                Box::new(HashJoinExec::new(
                    create_operator(left),
                    create_operator(right),
                    HashJoinSpec {
                        probe_keys: split.left_keys,
                        build_keys: split.right_keys,
                        probe_types: types.0,
                        build_types: types.1,
                        kind: *kind,
                        residual: split.residual,
                    },
                ))
            }
        }
    }
}
