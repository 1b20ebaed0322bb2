//! jsonpath_out: a path as PostgreSQL prints it (`printJsonPathItem`): keys quoted,
//! `strict` kept and `lax` dropped, operators spaced, parentheses where an operand binds
//! less tightly than its operator (and around a whole operation at the top).

use super::{Accessor, ArithOp, CmpOp, Expr, JsonPath};
use crate::types::json;

impl JsonPath {
    /// The normalised text of the path.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if self.strict {
            out.push_str("strict ");
        }
        print(&self.expr, true, &mut out);
        out
    }
}

/// operationPriority: how tightly an operation binds.
fn priority(expr: &Expr) -> u8 {
    match expr {
        Expr::Or(..) => 0,
        Expr::And(..) => 1,
        Expr::Compare(..) | Expr::StartsWith(..) => 2,
        Expr::Arith(ArithOp::Add | ArithOp::Sub, ..) => 3,
        Expr::Arith(ArithOp::Mul | ArithOp::Div | ArithOp::Mod, ..) => 4,
        Expr::Negate(..) => 5,
        Expr::Root
        | Expr::Current
        | Expr::Last
        | Expr::Variable(_)
        | Expr::Literal(_)
        | Expr::Access(..)
        | Expr::Not(..)
        | Expr::Exists(..)
        | Expr::IsUnknown(..)
        | Expr::LikeRegex(..) => 6,
    }
}

fn print(expr: &Expr, brackets: bool, out: &mut String) {
    let open = |out: &mut String| {
        if brackets {
            out.push('(');
        }
    };
    let close = |out: &mut String| {
        if brackets {
            out.push(')');
        }
    };
    let binary = |symbol: &str, left: &Expr, right: &Expr, out: &mut String| {
        open(out);
        print(left, priority(left) <= priority(expr), out);
        out.push(' ');
        out.push_str(symbol);
        out.push(' ');
        print(right, priority(right) <= priority(expr), out);
        close(out);
    };
    match expr {
        Expr::Root => out.push('$'),
        Expr::Current => out.push('@'),
        Expr::Last => out.push_str("last"),
        Expr::Variable(name) => {
            out.push('$');
            json::write_string(name, out);
        }
        Expr::Literal(value) => out.push_str(&value.to_text()),
        Expr::Access(base, accessor) => {
            print(base, true, out);
            print_accessor(accessor, out);
        }
        Expr::Negate(operand, minus) => {
            open(out);
            out.push(if *minus { '-' } else { '+' });
            print(operand, priority(operand) <= priority(expr), out);
            close(out);
        }
        Expr::Arith(op, left, right) => {
            let symbol = match op {
                ArithOp::Add => "+",
                ArithOp::Sub => "-",
                ArithOp::Mul => "*",
                ArithOp::Div => "/",
                ArithOp::Mod => "%",
            };
            binary(symbol, left, right, out)
        }
        Expr::Compare(op, left, right) => {
            let symbol = match op {
                CmpOp::Eq => "==",
                CmpOp::Ne => "!=",
                CmpOp::Lt => "<",
                CmpOp::Le => "<=",
                CmpOp::Gt => ">",
                CmpOp::Ge => ">=",
            };
            binary(symbol, left, right, out)
        }
        Expr::And(left, right) => binary("&&", left, right, out),
        Expr::Or(left, right) => binary("||", left, right, out),
        Expr::StartsWith(left, right) => binary("starts with", left, right, out),
        Expr::Not(inner) => {
            out.push_str("!(");
            print(inner, false, out);
            out.push(')');
        }
        Expr::IsUnknown(inner) => {
            out.push('(');
            print(inner, false, out);
            out.push_str(") is unknown");
        }
        Expr::Exists(inner) => {
            out.push_str("exists (");
            print(inner, false, out);
            out.push(')');
        }
        Expr::LikeRegex(text, regex) => {
            open(out);
            print(text, priority(text) <= priority(expr), out);
            out.push_str(" like_regex ");
            json::write_string(&regex.pattern, out);
            if !regex.flags.is_empty() {
                out.push_str(" flag ");
                json::write_string(&regex.flags, out);
            }
            close(out);
        }
    }
}

fn print_accessor(accessor: &Accessor, out: &mut String) {
    match accessor {
        Accessor::Key(key) => {
            out.push('.');
            json::write_string(key, out);
        }
        Accessor::AnyKey => out.push_str(".*"),
        Accessor::AnyElement => out.push_str("[*]"),
        Accessor::Subscripts(subscripts) => {
            out.push('[');
            for (i, (from, to)) in subscripts.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                print(from, false, out);
                if let Some(to) = to {
                    out.push_str(" to ");
                    print(to, false, out);
                }
            }
            out.push(']');
        }
        Accessor::Descendants { from, to } => {
            let level = |l: u32| match l {
                u32::MAX => "last".to_string(),
                l => l.to_string(),
            };
            out.push_str(".**");
            match (*from, *to) {
                (0, u32::MAX) => {}
                (from, to) if from == to => out.push_str(&format!("{{{}}}", level(from))),
                (from, to) => out.push_str(&format!("{{{} to {}}}", level(from), level(to))),
            }
        }
        Accessor::Filter(predicate) => {
            out.push_str("?(");
            print(predicate, false, out);
            out.push(')');
        }
        Accessor::Method(method) => {
            out.push('.');
            out.push_str(method.name());
            out.push_str("()");
        }
    }
}
