//! Expressions and paths of the scenario language (docs/scenario-language.md, "Client statements"):
//! evaluation against a client's variables, reading and writing paths inside JSON values.

use super::Vars;
use crate::lang::ast::{BinOp, Expr, ExprKind};
use serde_json::{Map, Number, Value};

pub use crate::fieldpath::{path_text, read_path, type_name, var_path_text, write_path};

/// Evaluates an expression against a client's variables.
pub fn eval(expr: &Expr, vars: &Vars) -> Result<Value, String> {
    match &expr.kind {
        ExprKind::Literal(v) => Ok(v.clone()),
        ExprKind::Var { name, path } => {
            let var = vars
                .get(name)
                .ok_or_else(|| format!("{name} is not defined (nothing was assigned to it yet)"))?;
            read_path(&var.value.0, name, path).cloned()
        }
        ExprKind::Object(fields) => {
            let mut m = Map::new();
            for (k, e) in fields {
                m.insert(k.clone(), eval(e, vars)?);
            }
            Ok(Value::Object(m))
        }
        ExprKind::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for e in items {
                out.push(eval(e, vars)?);
            }
            Ok(Value::Array(out))
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let l = eval(lhs, vars)?;
            let r = eval(rhs, vars)?;
            binary(*op, &l, &r)
        }
    }
}

/// An integer held by a number or by a string of digits (`"3"`).
fn as_int(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s
            .trim()
            .parse::<i64>()
            .ok()
            .filter(|_| !s.trim().is_empty()),
        _ => None,
    }
}

/// `+` and `-` (docs/scenario-language.md, "Client statements"): numbers add, strings concatenate,
/// and a number added to a string that holds an integer gives a string (`"3" + 1` is `"4"`).
pub fn binary(op: BinOp, l: &Value, r: &Value) -> Result<Value, String> {
    let sym = match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
    };
    let overflow = || format!("{l} {sym} {r} overflows");
    match (l, r) {
        (Value::Number(a), Value::Number(b)) => {
            if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
                let v = match op {
                    BinOp::Add => x.checked_add(y),
                    BinOp::Sub => x.checked_sub(y),
                }
                .ok_or_else(overflow)?;
                return Ok(Value::Number(v.into()));
            }
            let (x, y) = (a.as_f64().unwrap_or(0.0), b.as_f64().unwrap_or(0.0));
            let v = match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
            };
            Number::from_f64(v).map(Value::Number).ok_or_else(overflow)
        }
        (Value::String(a), Value::String(b)) if op == BinOp::Add => {
            Ok(Value::String(format!("{a}{b}")))
        }
        (Value::String(_), Value::Number(_)) | (Value::Number(_), Value::String(_)) => {
            match (as_int(l), as_int(r)) {
                (Some(x), Some(y)) => {
                    let v = match op {
                        BinOp::Add => x.checked_add(y),
                        BinOp::Sub => x.checked_sub(y),
                    }
                    .ok_or_else(overflow)?;
                    Ok(Value::String(v.to_string()))
                }
                _ => Err(format!(
                    "cannot compute {l} {sym} {r}: the string does not hold an integer"
                )),
            }
        }
        _ => Err(format!(
            "cannot {} {} {} {}",
            match op {
                BinOp::Add => "add",
                BinOp::Sub => "subtract",
            },
            type_name(r),
            match op {
                BinOp::Add => "to",
                BinOp::Sub => "from",
            },
            type_name(l)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plus_and_minus_follow_the_language_rules() {
        assert_eq!(binary(BinOp::Add, &json!("3"), &json!(1)), Ok(json!("4")));
        assert_eq!(binary(BinOp::Sub, &json!("3"), &json!(1)), Ok(json!("2")));
        assert_eq!(binary(BinOp::Add, &json!(2), &json!(1)), Ok(json!(3)));
        assert_eq!(binary(BinOp::Add, &json!(1.5), &json!(1)), Ok(json!(2.5)));
        assert_eq!(
            binary(BinOp::Add, &json!("a"), &json!("b")),
            Ok(json!("ab"))
        );
        assert!(binary(BinOp::Add, &json!("x"), &json!(1)).is_err());
        assert!(binary(BinOp::Add, &json!({}), &json!("s")).is_err());
        assert!(binary(BinOp::Add, &json!(i64::MAX), &json!(1)).is_err());
    }

    use crate::lang::ast::PathSeg;

    #[test]
    fn paths_read_write_and_explain_missing_steps() {
        let mut v = json!({"data": {"key": "v"}});
        let p = vec![PathSeg::Key("data".into()), PathSeg::Key("nope".into())];
        let err = read_path(&v, "obj", &p).unwrap_err();
        assert!(err.contains("obj.data.nope does not exist"), "{err}");
        let p2 = vec![
            PathSeg::Key("metadata".into()),
            PathSeg::Key("annotations".into()),
            PathSeg::Key("example.com/owner".into()),
        ];
        write_path(&mut v, "obj", &p2, json!("me")).unwrap();
        assert_eq!(
            v["metadata"]["annotations"]["example.com/owner"],
            json!("me")
        );
        assert_eq!(
            path_text(&p2),
            "metadata.annotations[\"example.com/owner\"]"
        );
        let bad = vec![
            PathSeg::Key("data".into()),
            PathSeg::Key("key".into()),
            PathSeg::Key("x".into()),
        ];
        assert!(write_path(&mut v, "obj", &bad, json!(1)).is_err());
    }
}
