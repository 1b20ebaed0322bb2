//! Bound scalar expressions: every node typed, every column an index into the input row.

use std::sync::Arc;

use super::LogicalPlan;
use crate::catalog::system::CatalogFunction;
use crate::catalog::AclMode;
use crate::function::cast::CastContext;
use crate::function::{DateTimeFunction, ScalarFunction};
use crate::types::{DataType, ScalarValue};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithmeticOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareOp {
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
}

impl CompareOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CompareOp::Eq => "=",
            CompareOp::NotEq => "<>",
            CompareOp::Lt => "<",
            CompareOp::LtEq => "<=",
            CompareOp::Gt => ">",
            CompareOp::GtEq => ">=",
        }
    }
}

/// `IS [NOT] TRUE | FALSE | UNKNOWN`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoolTest {
    IsTrue,
    IsNotTrue,
    IsFalse,
    IsNotFalse,
    IsUnknown,
    IsNotUnknown,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ScalarExpr {
    Column {
        index: usize,
        ty: DataType,
    },
    Literal {
        value: ScalarValue,
        ty: DataType,
    },
    /// `$n` (0-based index here).
    Param {
        index: usize,
        ty: DataType,
    },
    Cast {
        input: Box<ScalarExpr>,
        to: DataType,
        context: CastContext,
    },
    Negate(Box<ScalarExpr>),
    Not(Box<ScalarExpr>),
    /// Both operands already coerced to `ty`.
    Arithmetic {
        op: ArithmeticOp,
        left: Box<ScalarExpr>,
        right: Box<ScalarExpr>,
        ty: DataType,
    },
    /// Both operands already coerced to one common type.
    Compare {
        op: CompareOp,
        left: Box<ScalarExpr>,
        right: Box<ScalarExpr>,
    },
    /// `||` on text.
    Concat(Box<ScalarExpr>, Box<ScalarExpr>),
    And(Box<ScalarExpr>, Box<ScalarExpr>),
    Or(Box<ScalarExpr>, Box<ScalarExpr>),
    IsNull {
        input: Box<ScalarExpr>,
        negated: bool,
    },
    BoolTest {
        input: Box<ScalarExpr>,
        test: BoolTest,
    },
    IsDistinctFrom {
        left: Box<ScalarExpr>,
        right: Box<ScalarExpr>,
        negated: bool,
    },
    Like {
        input: Box<ScalarExpr>,
        pattern: Box<ScalarExpr>,
        negated: bool,
        case_insensitive: bool,
    },
    /// The list items are coerced to the input's type.
    InList {
        input: Box<ScalarExpr>,
        list: Vec<ScalarExpr>,
        negated: bool,
    },
    /// Searched CASE; a simple CASE is bound into this form.
    Case {
        whens: Vec<(ScalarExpr, ScalarExpr)>,
        else_result: Option<Box<ScalarExpr>>,
        ty: DataType,
    },
    Coalesce {
        args: Vec<ScalarExpr>,
        ty: DataType,
    },
    Function {
        func: ScalarFunction,
        args: Vec<ScalarExpr>,
        ty: DataType,
    },
    /// A date/time function or operator; apart from `Function` because some read the
    /// statement's clock (`now()`), which the executor passes in.
    DateTimeFunction {
        func: DateTimeFunction,
        args: Vec<ScalarExpr>,
        ty: DataType,
    },
    /// A column of an enclosing query's current row: `depth` 1 is the query just outside
    /// the subquery this expression is in.
    OuterColumn {
        depth: usize,
        index: usize,
        ty: DataType,
    },
    Subquery(Box<Subquery>),
    /// nextval / currval / setval / lastval, or a column of a sequence read as a relation;
    /// `sequence` is `None` only for lastval.
    SequenceCall {
        func: SequenceFunction,
        sequence: Option<crate::catalog::QualifiedName>,
        args: Vec<ScalarExpr>,
    },
    /// current_user, current_database() and the like: fixed for a statement but different
    /// between sessions, so never folded into a shared plan nor served from the result cache.
    SessionInfo(SessionInfo),
    /// A function of the system catalog (format_type, pg_get_indexdef, reg* conversions):
    /// it reads the statement's snapshot, so like SessionInfo it is never folded.
    CatalogCall {
        func: CatalogFunction,
        args: Vec<ScalarExpr>,
        ty: DataType,
    },
    /// A value cast to a domain (PostgreSQL's CoerceToDomain): `input`, of the domain's base
    /// type, must pass `checks`, each bound over a one-column row holding the value.
    DomainCheck {
        input: Box<ScalarExpr>,
        checks: Vec<super::RowCheck>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionInfo {
    /// current_user, current_role, user: the role statements run as (SET ROLE's).
    User,
    /// current_database(), current_catalog.
    Database,
    /// version().
    Version,
    /// pg_backend_pid(): the process id the client was given in BackendKeyData.
    BackendPid,
    /// session_user: the role the client connected as.
    SessionUser,
}

impl SessionInfo {
    pub fn ty(self) -> DataType {
        match self {
            SessionInfo::BackendPid => DataType::Int32,
            // `name` in PostgreSQL, whose text form is the same.
            _ => DataType::Text,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            SessionInfo::User => "current_user",
            SessionInfo::Database => "current_database()",
            SessionInfo::Version => "version()",
            SessionInfo::BackendPid => "pg_backend_pid()",
            SessionInfo::SessionUser => "session_user",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SequenceFunction {
    NextVal,
    CurrVal,
    SetVal,
    LastVal,
    /// The columns of `SELECT last_value, log_cnt, is_called FROM seq` (pg_dump reads them):
    /// the counter, read without changing the session's currval.
    ReadLastValue,
    ReadLogCount,
    ReadIsCalled,
}

impl SequenceFunction {
    pub fn result_type(self) -> DataType {
        match self {
            SequenceFunction::ReadIsCalled => DataType::Bool,
            SequenceFunction::NextVal
            | SequenceFunction::CurrVal
            | SequenceFunction::SetVal
            | SequenceFunction::LastVal
            | SequenceFunction::ReadLastValue
            | SequenceFunction::ReadLogCount => DataType::Int64,
        }
    }

    /// The privileges on the sequence of which any one lets the call run (sequence.c).
    pub fn privileges_needed(self) -> AclMode {
        match self {
            SequenceFunction::NextVal => AclMode::USAGE.union(AclMode::UPDATE),
            SequenceFunction::CurrVal | SequenceFunction::LastVal => {
                AclMode::SELECT.union(AclMode::USAGE)
            }
            SequenceFunction::SetVal => AclMode::UPDATE,
            SequenceFunction::ReadLastValue
            | SequenceFunction::ReadLogCount
            | SequenceFunction::ReadIsCalled => AclMode::SELECT,
        }
    }
}

/// A subquery used as an expression.
#[derive(Debug, Clone, PartialEq)]
pub struct Subquery {
    /// Unique within a statement: the key of its cached result when uncorrelated.
    pub id: usize,
    pub plan: Arc<LogicalPlan>,
    /// Whether the plan reads an enclosing query's row (then it runs once per row).
    pub correlated: bool,
    pub kind: SubqueryKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SubqueryKind {
    /// `(SELECT x ...)`: its single value, NULL if no row, 21000 if several.
    Scalar(DataType),
    /// Column `index` of UPDATE's `SET (a, b) = (SELECT x, y ...)`, of type `ty`: as
    /// `Scalar` for that column. The columns' subqueries share one id and plan, so an
    /// uncorrelated one runs once.
    Column { index: usize, ty: DataType },
    /// `EXISTS (...)`.
    Exists,
    /// `ARRAY(SELECT x ...)`: the single column's values as an array of this type, `{}`
    /// if no row.
    Array(DataType),
    /// `input op ANY (...)` (and IN), `input op ALL (...)`, or a row compared with a
    /// subquery's single row. `inputs` are the fields of the left side, one per column of
    /// the subquery and of that column's type: a single value, or a row constructor's
    /// fields (`(a, b) IN (SELECT x, y ...)`), which compare as rows do.
    Quantified {
        inputs: Vec<ScalarExpr>,
        op: CompareOp,
        quantifier: Quantifier,
    },
}

/// Which of a subquery's rows a quantified comparison must hold for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantifier {
    /// ANY (SOME, IN): TRUE if it holds for a row; FALSE for no rows.
    Any,
    /// ALL: TRUE if it holds for every row; TRUE for no rows.
    All,
    /// `(a, b) op (SELECT x, y ...)`: the comparison with the one row; NULL for no rows,
    /// 21000 for several.
    Single,
}

impl ScalarExpr {
    pub fn ty(&self) -> DataType {
        match self {
            ScalarExpr::Column { ty, .. }
            | ScalarExpr::Literal { ty, .. }
            | ScalarExpr::Param { ty, .. }
            | ScalarExpr::Arithmetic { ty, .. }
            | ScalarExpr::Case { ty, .. }
            | ScalarExpr::Coalesce { ty, .. }
            | ScalarExpr::Function { ty, .. }
            | ScalarExpr::DateTimeFunction { ty, .. } => *ty,
            ScalarExpr::Cast { to, .. } => *to,
            ScalarExpr::OuterColumn { ty, .. } => *ty,
            ScalarExpr::SequenceCall { func, .. } => func.result_type(),
            ScalarExpr::CatalogCall { ty, .. } => *ty,
            ScalarExpr::DomainCheck { input, .. } => input.ty(),
            ScalarExpr::SessionInfo(info) => info.ty(),
            ScalarExpr::Subquery(subquery) => match &subquery.kind {
                SubqueryKind::Scalar(ty)
                | SubqueryKind::Array(ty)
                | SubqueryKind::Column { ty, .. } => *ty,
                SubqueryKind::Exists | SubqueryKind::Quantified { .. } => DataType::Bool,
            },
            ScalarExpr::Negate(input) => input.ty(),
            ScalarExpr::Concat(..) => DataType::Text,
            ScalarExpr::Not(_)
            | ScalarExpr::Compare { .. }
            | ScalarExpr::And(..)
            | ScalarExpr::Or(..)
            | ScalarExpr::IsNull { .. }
            | ScalarExpr::BoolTest { .. }
            | ScalarExpr::IsDistinctFrom { .. }
            | ScalarExpr::Like { .. }
            | ScalarExpr::InList { .. } => DataType::Bool,
        }
    }

    pub fn literal(value: ScalarValue, ty: DataType) -> ScalarExpr {
        ScalarExpr::Literal { value, ty }
    }

    pub fn null(ty: DataType) -> ScalarExpr {
        ScalarExpr::Literal {
            value: ScalarValue::Null,
            ty,
        }
    }

    /// Whether the expression reads no column (it is the same for every row).
    pub fn is_constant(&self) -> bool {
        let mut constant = true;
        self.visit(&mut |e| match e {
            ScalarExpr::Column { .. } | ScalarExpr::OuterColumn { .. } => constant = false,
            ScalarExpr::Subquery(s) if s.correlated => constant = false,
            _ => {}
        });
        constant
    }

    /// Calls `f` on this node and every node below it (not inside subquery plans).
    #[recursive::recursive]
    pub fn visit(&self, f: &mut dyn FnMut(&ScalarExpr)) {
        f(self);
        match self {
            ScalarExpr::Column { .. }
            | ScalarExpr::Literal { .. }
            | ScalarExpr::Param { .. }
            | ScalarExpr::SessionInfo(_)
            | ScalarExpr::OuterColumn { .. } => {}
            ScalarExpr::Subquery(subquery) => {
                if let SubqueryKind::Quantified { inputs, .. } = &subquery.kind {
                    for input in inputs {
                        input.visit(f);
                    }
                }
            }
            ScalarExpr::Cast { input, .. }
            | ScalarExpr::Negate(input)
            | ScalarExpr::Not(input)
            | ScalarExpr::IsNull { input, .. }
            | ScalarExpr::BoolTest { input, .. }
            | ScalarExpr::DomainCheck { input, .. } => input.visit(f),
            ScalarExpr::Arithmetic { left, right, .. }
            | ScalarExpr::Compare { left, right, .. }
            | ScalarExpr::IsDistinctFrom { left, right, .. }
            | ScalarExpr::Concat(left, right)
            | ScalarExpr::And(left, right)
            | ScalarExpr::Or(left, right) => {
                left.visit(f);
                right.visit(f);
            }
            ScalarExpr::Like { input, pattern, .. } => {
                input.visit(f);
                pattern.visit(f);
            }
            ScalarExpr::InList { input, list, .. } => {
                input.visit(f);
                list.iter().for_each(|e| e.visit(f));
            }
            ScalarExpr::Case {
                whens, else_result, ..
            } => {
                for (when, then) in whens {
                    when.visit(f);
                    then.visit(f);
                }
                if let Some(e) = else_result {
                    e.visit(f);
                }
            }
            ScalarExpr::Coalesce { args, .. }
            | ScalarExpr::Function { args, .. }
            | ScalarExpr::DateTimeFunction { args, .. }
            | ScalarExpr::SequenceCall { args, .. }
            | ScalarExpr::CatalogCall { args, .. } => args.iter().for_each(|e| e.visit(f)),
        }
    }
}

impl ScalarExpr {
    /// Rebuilds this node with `f` applied to each direct child.
    #[recursive::recursive]
    pub fn try_map_children(
        self,
        f: &mut dyn FnMut(ScalarExpr) -> crate::error::Result<ScalarExpr>,
    ) -> crate::error::Result<ScalarExpr> {
        let mut boxed = |e: Box<ScalarExpr>| f(*e).map(Box::new);
        Ok(match self {
            leaf @ (ScalarExpr::Column { .. }
            | ScalarExpr::Literal { .. }
            | ScalarExpr::Param { .. }
            | ScalarExpr::SessionInfo(_)
            | ScalarExpr::OuterColumn { .. }) => leaf,
            ScalarExpr::Subquery(mut subquery) => {
                if let SubqueryKind::Quantified {
                    inputs,
                    op,
                    quantifier,
                } = subquery.kind
                {
                    subquery.kind = SubqueryKind::Quantified {
                        inputs: inputs
                            .into_iter()
                            .map(&mut *f)
                            .collect::<crate::error::Result<_>>()?,
                        op,
                        quantifier,
                    };
                }
                ScalarExpr::Subquery(subquery)
            }
            ScalarExpr::Cast { input, to, context } => ScalarExpr::Cast {
                input: boxed(input)?,
                to,
                context,
            },
            ScalarExpr::Negate(input) => ScalarExpr::Negate(boxed(input)?),
            ScalarExpr::Not(input) => ScalarExpr::Not(boxed(input)?),
            ScalarExpr::Arithmetic {
                op,
                left,
                right,
                ty,
            } => ScalarExpr::Arithmetic {
                op,
                left: boxed(left)?,
                right: boxed(right)?,
                ty,
            },
            ScalarExpr::Compare { op, left, right } => ScalarExpr::Compare {
                op,
                left: boxed(left)?,
                right: boxed(right)?,
            },
            ScalarExpr::Concat(l, r) => ScalarExpr::Concat(boxed(l)?, boxed(r)?),
            ScalarExpr::And(l, r) => ScalarExpr::And(boxed(l)?, boxed(r)?),
            ScalarExpr::Or(l, r) => ScalarExpr::Or(boxed(l)?, boxed(r)?),
            ScalarExpr::IsNull { input, negated } => ScalarExpr::IsNull {
                input: boxed(input)?,
                negated,
            },
            ScalarExpr::BoolTest { input, test } => ScalarExpr::BoolTest {
                input: boxed(input)?,
                test,
            },
            ScalarExpr::IsDistinctFrom {
                left,
                right,
                negated,
            } => ScalarExpr::IsDistinctFrom {
                left: boxed(left)?,
                right: boxed(right)?,
                negated,
            },
            ScalarExpr::Like {
                input,
                pattern,
                negated,
                case_insensitive,
            } => ScalarExpr::Like {
                input: boxed(input)?,
                pattern: boxed(pattern)?,
                negated,
                case_insensitive,
            },
            ScalarExpr::InList {
                input,
                list,
                negated,
            } => ScalarExpr::InList {
                input: boxed(input)?,
                list: list.into_iter().map(&mut *f).collect::<Result<_, _>>()?,
                negated,
            },
            ScalarExpr::Case {
                whens,
                else_result,
                ty,
            } => {
                let mut mapped = Vec::with_capacity(whens.len());
                for (when, then) in whens {
                    mapped.push((f(when)?, f(then)?));
                }
                ScalarExpr::Case {
                    whens: mapped,
                    else_result: match else_result {
                        Some(e) => Some(Box::new(f(*e)?)),
                        None => None,
                    },
                    ty,
                }
            }
            ScalarExpr::Coalesce { args, ty } => ScalarExpr::Coalesce {
                args: args.into_iter().map(&mut *f).collect::<Result<_, _>>()?,
                ty,
            },
            ScalarExpr::Function { func, args, ty } => ScalarExpr::Function {
                func,
                args: args.into_iter().map(&mut *f).collect::<Result<_, _>>()?,
                ty,
            },
            ScalarExpr::DateTimeFunction { func, args, ty } => ScalarExpr::DateTimeFunction {
                func,
                args: args.into_iter().map(&mut *f).collect::<Result<_, _>>()?,
                ty,
            },
            ScalarExpr::SequenceCall {
                func,
                sequence,
                args,
            } => ScalarExpr::SequenceCall {
                func,
                sequence,
                args: args.into_iter().map(&mut *f).collect::<Result<_, _>>()?,
            },
            ScalarExpr::CatalogCall { func, args, ty } => ScalarExpr::CatalogCall {
                func,
                args: args.into_iter().map(&mut *f).collect::<Result<_, _>>()?,
                ty,
            },
            ScalarExpr::DomainCheck { input, checks } => ScalarExpr::DomainCheck {
                input: Box::new(f(*input)?),
                checks,
            },
        })
    }
}

/// Which part of a row of `left width + right width` columns an expression reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnSide {
    /// No column (a constant for this row).
    Neither,
    Left,
    Right,
    Both,
}

impl ScalarExpr {
    /// `a AND b AND c` as `[a, b, c]`.
    pub fn into_conjuncts(self) -> Vec<ScalarExpr> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(expr) = stack.pop() {
            match expr {
                ScalarExpr::And(l, r) => {
                    stack.push(*r);
                    stack.push(*l);
                }
                other => out.push(other),
            }
        }
        out
    }

    /// `column = value` (either way round) where the value is a constant or a parameter of the
    /// column's own type: the column's index, its type and the value. Index lookups use it.
    pub fn pinned_column(&self) -> Option<(usize, DataType, &ScalarExpr)> {
        let ScalarExpr::Compare {
            op: CompareOp::Eq,
            left,
            right,
        } = self
        else {
            return None;
        };
        match (left.as_ref(), right.as_ref()) {
            (
                ScalarExpr::Column { index, ty },
                v @ (ScalarExpr::Literal { .. } | ScalarExpr::Param { .. }),
            )
            | (
                v @ (ScalarExpr::Literal { .. } | ScalarExpr::Param { .. }),
                ScalarExpr::Column { index, ty },
            ) if v.ty() == *ty => Some((*index, *ty, v)),
            _ => None,
        }
    }

    /// `column = value` or `column IN (values)` with constants or parameters of the column's
    /// type: the column, its type and the values it may hold for the predicate to be true.
    pub fn pinned_values(&self) -> Option<(usize, DataType, &[ScalarExpr])> {
        if let Some((column, ty, value)) = self.pinned_column() {
            return Some((column, ty, std::slice::from_ref(value)));
        }
        let ScalarExpr::InList {
            input,
            list,
            negated: false,
        } = self
        else {
            return None;
        };
        let ScalarExpr::Column { index, ty } = input.as_ref() else {
            return None;
        };
        list.iter()
            .all(|v| {
                matches!(v, ScalarExpr::Literal { .. } | ScalarExpr::Param { .. }) && v.ty() == *ty
            })
            .then_some((*index, *ty, list.as_slice()))
    }

    /// The AND of `parts`, `None` for none.
    pub fn conjunction(parts: Vec<ScalarExpr>) -> Option<ScalarExpr> {
        parts
            .into_iter()
            .reduce(|a, b| ScalarExpr::And(Box::new(a), Box::new(b)))
    }

    /// Which side of a join row split after `left_width` columns this reads. A correlated
    /// subquery reads the whole row.
    pub fn side(&self, left_width: usize) -> ColumnSide {
        let mut side = ColumnSide::Neither;
        self.visit(&mut |e| {
            let this = match e {
                ScalarExpr::Column { index, .. } if *index < left_width => ColumnSide::Left,
                ScalarExpr::Column { .. } => ColumnSide::Right,
                ScalarExpr::Subquery(s) if s.correlated => ColumnSide::Both,
                _ => return,
            };
            side = match (side, this) {
                (ColumnSide::Neither, s) => s,
                (s, t) if s == t => s,
                _ => ColumnSide::Both,
            };
        });
        side
    }

    /// The same expression with every column index moved by `-by` (onto the right input of
    /// a join whose left input has `by` columns).
    pub fn shift_columns_left(self, by: usize) -> ScalarExpr {
        self.map_columns(&|index| index - by)
    }

    /// The same expression with column `i` replaced by column `f(i)`.
    #[recursive::recursive]
    pub fn map_columns(self, f: &dyn Fn(usize) -> usize) -> ScalarExpr {
        match self {
            ScalarExpr::Column { index, ty } => ScalarExpr::Column {
                index: f(index),
                ty,
            },
            other => {
                let fallback = other.clone();
                other
                    .try_map_children(&mut |e| Ok(e.map_columns(f)))
                    .unwrap_or(fallback)
            }
        }
    }

    /// Whether evaluating it twice, or on other rows, could change a result: volatile
    /// functions, sequences and subqueries stay where the query put them.
    pub fn is_volatile(&self) -> bool {
        let mut volatile = false;
        self.visit(&mut |e| match e {
            ScalarExpr::Function { func, .. } if func.is_volatile() => volatile = true,
            // now() and friends: never folded into a (cached) plan.
            ScalarExpr::DateTimeFunction { func, .. } if func.is_volatile() => volatile = true,
            ScalarExpr::SequenceCall { .. }
            | ScalarExpr::Subquery(_)
            | ScalarExpr::SessionInfo(_)
            | ScalarExpr::CatalogCall { .. } => volatile = true,
            _ => {}
        });
        volatile
    }

    /// Whether any thread evaluates it to the same values: nothing volatile (subqueries,
    /// sequences, session state) and no rows of an enclosing query.
    pub fn is_parallel_safe(&self) -> bool {
        let mut outer = false;
        self.visit(&mut |e| outer |= matches!(e, ScalarExpr::OuterColumn { .. }));
        !outer && !self.is_volatile()
    }
}
