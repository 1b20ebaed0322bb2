//! Enum types in statements: CREATE TYPE ... AS ENUM, ALTER TYPE, DROP TYPE, the names of
//! enum types as column and cast types, and the conversions between an enum's stored sort
//! orders and its labels, which go through the catalog (`CatalogFunction::EnumIn/EnumOut`)
//! as PostgreSQL's enum_in and enum_out do.

use sqlparser::ast::{self, Ident, ObjectName, UserDefinedTypeRepresentation};

use super::scope::Scope;
use super::{ident_name, Binder};
use crate::catalog::system::CatalogFunction;
use crate::catalog::{LabelPosition, QualifiedName};
use crate::error::{Error, Result, SqlState};
use crate::function::cast::{can_cast, CastContext};
use crate::plan::{AlterEnum, BoundStatement, ScalarExpr, TypeChange};
use crate::types::{DataType, ScalarValue};

impl Binder<'_> {
    pub(super) fn bind_create_type(
        &mut self,
        name: &ObjectName,
        representation: Option<&UserDefinedTypeRepresentation>,
    ) -> Result<BoundStatement> {
        let labels = match representation {
            Some(UserDefinedTypeRepresentation::Enum { labels }) => labels,
            Some(UserDefinedTypeRepresentation::Composite { attributes }) => {
                return self.bind_create_composite(name, attributes)
            }
            _ => {
                return Err(Error::unsupported(
                    "CREATE TYPE other than AS ENUM or AS (...)",
                ))
            }
        };
        let labels = labels.iter().map(label).collect::<Result<Vec<_>>>()?;
        Ok(BoundStatement::ChangeType(TypeChange::CreateEnum {
            name: self.creation_name(name)?,
            labels,
        }))
    }

    pub(super) fn bind_alter_type(&mut self, alter: &ast::AlterType) -> Result<BoundStatement> {
        let ast::AlterType { name, operation } = alter;
        let action = match operation {
            ast::AlterTypeOperation::Rename(ast::AlterTypeRename { new_name }) => {
                AlterEnum::Rename(ident_name(new_name))
            }
            ast::AlterTypeOperation::AddValue(ast::AlterTypeAddValue {
                if_not_exists,
                value,
                position,
            }) => AlterEnum::AddValue {
                label: label(value)?,
                position: match position {
                    None => LabelPosition::Last,
                    Some(ast::AlterTypeAddValuePosition::Before(l)) => {
                        LabelPosition::Before(label(l)?)
                    }
                    Some(ast::AlterTypeAddValuePosition::After(l)) => {
                        LabelPosition::After(label(l)?)
                    }
                },
                if_not_exists: *if_not_exists,
            },
            ast::AlterTypeOperation::RenameValue(ast::AlterTypeRenameValue { from, to }) => {
                AlterEnum::RenameValue {
                    old: label(from)?,
                    new: label(to)?,
                }
            }
        };
        Ok(BoundStatement::ChangeType(TypeChange::Alter {
            name: self.type_name(name)?,
            action,
        }))
    }

    pub(super) fn bind_drop_types(
        &mut self,
        names: &[ObjectName],
        if_exists: bool,
        cascade: bool,
    ) -> Result<BoundStatement> {
        let names = names
            .iter()
            .map(|name| match self.type_name(name) {
                Err(e) if if_exists && e.state == SqlState::InvalidSchemaName => {
                    Ok(QualifiedName::nowhere(self.written_name(name)?.name))
                }
                other => other,
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(BoundStatement::ChangeType(TypeChange::Drop {
            names,
            if_exists,
            cascade,
        }))
    }

    /// The enum or composite type `name` refers to (see [`Binder::type_named`]).
    fn type_name(&self, name: &ObjectName) -> Result<QualifiedName> {
        self.type_named(name, |state, q| {
            state.enum_type_named(q).is_some() || state.composite_type_named(q).is_some()
        })
    }

    /// The enum type `name`, or PostgreSQL's 42704.
    pub(super) fn existing_type_name(&self, name: &ObjectName) -> Result<QualifiedName> {
        let qualified = self.type_name(name)?;
        if self.state.composite_type_named(&qualified).is_some() {
            return Err(Error::unsupported("COMMENT ON TYPE of a composite type"));
        }
        match self.state.enum_type_named(&qualified) {
            Some(_) => Ok(qualified),
            None => Err(Error::new(
                SqlState::UndefinedObject,
                format!("type \"{}\" does not exist", qualified.name),
            )),
        }
    }

    /// A column or cast type: a built-in one, else an enum type, a domain or a table's or
    /// view's row type of the catalog.
    pub(super) fn bind_type(&self, ty: &ast::DataType) -> Result<DataType> {
        self.resolve_type(ty)
            .map_err(|error| self.type_error(error, ty))
    }

    fn resolve_type(&self, ty: &ast::DataType) -> Result<DataType> {
        let builtin = super::bind_data_type(ty);
        if let ast::DataType::Array(ast::ArrayElemTypeDef::SquareBracket(elem, _)) = ty {
            match self.bind_type(elem) {
                Ok(elem @ DataType::Enum(_)) => {
                    return DataType::array_of(elem)
                        .ok_or_else(|| Error::internal("every enum type has an array type"))
                }
                Ok(DataType::Record(_)) => return Err(Error::unsupported("arrays of row types")),
                _ => {}
            }
        }
        let ast::DataType::Custom(name, modifiers) = ty else {
            return builtin;
        };
        match builtin {
            Err(e) if e.state == SqlState::UndefinedObject && modifiers.is_empty() => {
                let qualified = self.type_name(name)?;
                match self.state.enum_type_named(&qualified) {
                    Some(enum_type) => Ok(DataType::Enum(enum_type.oid)),
                    None => match self.domain_of(ty) {
                        // Elsewhere than a column or a cast, a domain is its base type.
                        Some(domain) => Ok(domain.base),
                        None => self.row_type(name).unwrap_or(Err(e)),
                    },
                }
            }
            other => other,
        }
    }

    /// The conversions of `expr` into and out of an enum type or an array of one: a label
    /// written as a constant is looked up now, other text at run time (enum_in), and an
    /// enum value becomes its label (enum_out), element by element in arrays. Gives `expr`
    /// back (`Err`) where the ordinary rules apply.
    pub(super) fn coerce_enum(
        &mut self,
        expr: ScalarExpr,
        to: DataType,
        context: CastContext,
    ) -> std::result::Result<Result<ScalarExpr>, ScalarExpr> {
        let from = expr.ty();
        if matches!(
            expr,
            ScalarExpr::Literal {
                value: ScalarValue::Null,
                ..
            }
        ) {
            return Err(expr);
        }
        let to_strings = to.element().unwrap_or(to).is_string();
        match (from.enum_oid(), to.enum_oid()) {
            (Some(oid), _) if can_cast(from, to, context) && to_strings => {
                let label = ScalarExpr::CatalogCall {
                    func: CatalogFunction::EnumOut(oid),
                    args: vec![expr],
                    ty: labels_type(from),
                };
                Ok(self.coerce(label, to, context))
            }
            (_, Some(oid)) if can_cast(from, to, context) => {
                Ok(self.text_to_enum(expr, oid, to, context))
            }
            (Some(_), _) | (_, Some(_)) => Ok(Err(self.cannot_cast(from, to, context))),
            (None, None) => Err(expr),
        }
    }

    /// Text (or an array of text) converted to enum type `oid` (or `to`, its array).
    fn text_to_enum(
        &mut self,
        expr: ScalarExpr,
        oid: u32,
        to: DataType,
        context: CastContext,
    ) -> Result<ScalarExpr> {
        let enum_type = self
            .state
            .enum_types
            .get(&oid)
            .ok_or_else(|| Error::internal(format!("enum type {oid} vanished")))?;
        match expr {
            ScalarExpr::Literal {
                value: ScalarValue::Text(text),
                ..
            } if to == DataType::Enum(oid) => {
                let sort_order = enum_type.parse(&text)?;
                enum_type.check_committed(sort_order, self.state.committed_enum_type(oid))?;
                Ok(ScalarExpr::literal(ScalarValue::Float32(sort_order), to))
            }
            // An untyped parameter takes the enum type, as in PostgreSQL: clients see it in
            // ParameterDescription and a re-bind finds it; its value is the label's text.
            ScalarExpr::Param {
                index,
                ty: DataType::Unknown,
            } => {
                self.params[index] = to;
                Ok(enum_param(index, oid, to))
            }
            expr => {
                let text = self.coerce(expr, labels_type(to), context)?;
                Ok(ScalarExpr::CatalogCall {
                    func: CatalogFunction::EnumIn(oid),
                    args: vec![text],
                    ty: to,
                })
            }
        }
    }

    /// PostgreSQL's error for a cast that does not exist, naming enum types by name.
    pub(super) fn cannot_cast(&self, from: DataType, to: DataType, context: CastContext) -> Error {
        let state = match context {
            CastContext::Explicit => SqlState::CannotCoerce,
            CastContext::Implicit | CastContext::Assignment => SqlState::DatatypeMismatch,
        };
        Error::new(
            state,
            format!(
                "cannot cast type {} to {}",
                self.type_display(from),
                self.type_display(to)
            ),
        )
    }

    /// A type as PostgreSQL's format_type_be names it, without modifiers: an enum (or an
    /// array of one) or a row type by its name.
    pub(super) fn type_display_be(&self, ty: DataType) -> String {
        match ty {
            DataType::Record(_) => self.type_display(ty),
            ty if ty.enum_oid().is_some() => self.type_display(ty),
            ty => ty.name().to_string(),
        }
    }

    /// A type as PostgreSQL's messages name it: an enum or a row type by its name.
    pub(super) fn type_display(&self, ty: DataType) -> String {
        match ty {
            DataType::Array(elem @ DataType::Enum(_)) => format!("{}[]", self.type_display(*elem)),
            DataType::Enum(oid) => self
                .state
                .enum_types
                .get(&oid)
                .map_or_else(|| ty.to_string(), |t| t.name.name.clone()),
            DataType::Record(record) => self
                .row_type_display(record)
                .unwrap_or_else(|| ty.to_string()),
            other => other.to_string(),
        }
    }
}

impl Binder<'_> {
    /// enum_first, enum_last and enum_range, read from the catalog now: a change to the
    /// type changes the catalog version, which a cached plan is bound again for. `None`
    /// when `name` is none of them.
    pub(super) fn bind_enum_function(
        &mut self,
        name: &str,
        args: &[&ast::Expr],
        scope: &Scope,
    ) -> Option<Result<ScalarExpr>> {
        if !matches!(name, "enum_first" | "enum_last" | "enum_range") {
            return None;
        }
        Some(self.enum_function(name, args, scope))
    }

    fn enum_function(
        &mut self,
        name: &str,
        args: &[&ast::Expr],
        scope: &Scope,
    ) -> Result<ScalarExpr> {
        let args = args
            .iter()
            .map(|arg| self.bind_expr(arg, scope))
            .collect::<Result<Vec<_>>>()?;
        let types: Vec<DataType> = args.iter().map(ScalarExpr::ty).collect();
        let oid = match (name, types.as_slice()) {
            ("enum_first" | "enum_last" | "enum_range", [DataType::Enum(oid)]) => *oid,
            ("enum_range", [DataType::Enum(a), DataType::Enum(b)]) if a == b => *a,
            ("enum_range", [DataType::Enum(oid), DataType::Unknown])
            | ("enum_range", [DataType::Unknown, DataType::Enum(oid)]) => *oid,
            _ => {
                let shown: Vec<String> = types.iter().map(|t| self.type_display(*t)).collect();
                return Err(Error::new(
                    SqlState::UndefinedFunction,
                    format!("function {name}({}) does not exist", shown.join(", ")),
                )
                .with_hint("No function matches the given name and argument types. You might need to add explicit type casts."));
            }
        };
        let enum_type = self
            .state
            .enum_types
            .get(&oid)
            .ok_or_else(|| Error::internal(format!("enum type {oid} vanished")))?;
        let ty = DataType::Enum(oid);
        // Each label returned must be committed (or of a type the transaction created).
        let committed = self.state.committed_enum_type(oid);
        let returned = |label: &crate::catalog::EnumLabel| {
            enum_type.check_committed(label.sort_order, committed)
        };
        let one = |label: Option<&crate::catalog::EnumLabel>| match label {
            None => Ok(ScalarExpr::null(ty)),
            Some(label) => {
                returned(label)?;
                Ok(ScalarExpr::literal(
                    ScalarValue::Float32(label.sort_order),
                    ty,
                ))
            }
        };
        match name {
            "enum_first" => one(enum_type.labels.first()),
            "enum_last" => one(enum_type.labels.last()),
            _ => {
                // The bounds: NULL (or absent) is open.
                let mut bounds = [f32::NEG_INFINITY, f32::INFINITY];
                if args.len() == 2 {
                    for (bound, arg) in bounds.iter_mut().zip(&args) {
                        match arg {
                            ScalarExpr::Literal {
                                value: ScalarValue::Float32(v),
                                ..
                            } => *bound = *v,
                            ScalarExpr::Literal {
                                value: ScalarValue::Null,
                                ..
                            } => {}
                            _ => {
                                return Err(Error::unsupported("enum_range of non-constant bounds"))
                            }
                        }
                    }
                }
                let values = enum_type
                    .labels
                    .iter()
                    .filter(|l| (bounds[0]..=bounds[1]).contains(&l.sort_order))
                    .map(|l| returned(l).map(|()| ScalarValue::Float32(l.sort_order)))
                    .collect::<Result<Vec<_>>>()?;
                let array = DataType::array_of(ty)
                    .ok_or_else(|| Error::internal("every enum type has an array type"))?;
                Ok(ScalarExpr::literal(ScalarValue::Array(values), array))
            }
        }
    }
}

/// An enum label: PostgreSQL's grammar takes only a string constant there.
fn label(ident: &Ident) -> Result<String> {
    match ident.quote_style {
        Some('\'') => Ok(ident.value.clone()),
        _ => Err(Error::syntax(format!(
            "syntax error at or near \"{}\"",
            ident.value
        ))),
    }
}

/// Parameter `index`, declared of enum type `oid` (or `ty`, its array): its labels,
/// converted by enum_in.
pub(super) fn enum_param(index: usize, oid: u32, ty: DataType) -> ScalarExpr {
    ScalarExpr::CatalogCall {
        func: CatalogFunction::EnumIn(oid),
        args: vec![ScalarExpr::Param {
            index,
            ty: ty.param_value_type(),
        }],
        ty,
    }
}

/// The type of the labels of values of `ty`, an enum type or an array of one: text or text[].
pub(super) fn labels_type(ty: DataType) -> DataType {
    match ty {
        DataType::Array(_) => DataType::Array(&DataType::Text),
        _ => DataType::Text,
    }
}
