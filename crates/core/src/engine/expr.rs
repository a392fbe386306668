//! Expressions and paths of the scenario language (scenario-language.md §4, "Expressions"):
//! evaluation against a client's variables, reading and writing paths inside JSON values.

use super::Vars;
use crate::lang::ast::{BinOp, Expr, ExprKind, PathSeg};
use serde_json::{Map, Number, Value};

/// Formats a path in scenario syntax: `data.key`, `data["app.properties"]`, `items[0]`.
pub fn path_text(path: &[PathSeg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            PathSeg::Key(k) if is_ident(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            PathSeg::Key(k) => {
                out.push('[');
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(']');
            }
            PathSeg::Index(i) => {
                out.push_str(&format!("[{i}]"));
            }
        }
    }
    out
}

/// `VAR` followed by its path (`obj.data.key`).
pub fn var_path_text(var: &str, path: &[PathSeg]) -> String {
    let p = path_text(path);
    if p.is_empty() {
        var.to_string()
    } else if p.starts_with('[') {
        format!("{var}{p}")
    } else {
        format!("{var}.{p}")
    }
}

fn is_ident(s: &str) -> bool {
    let mut cs = s.chars();
    match cs.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// What kind of JSON value this is, in words (for error messages).
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Reads `path` inside `root`; the error names the first missing step. `root_name` is how the
/// root is called in messages (`obj`, `configmap/my-config`).
pub fn read_path<'v>(
    root: &'v Value,
    root_name: &str,
    path: &[PathSeg],
) -> Result<&'v Value, String> {
    let mut cur = root;
    for (i, seg) in path.iter().enumerate() {
        let here = var_path_text(root_name, &path[..i]);
        cur = match (seg, cur) {
            (PathSeg::Key(k), Value::Object(m)) => match m.get(k) {
                Some(v) => v,
                None => {
                    return Err(format!(
                        "{} does not exist ({here} has no key {})",
                        var_path_text(root_name, &path[..=i]),
                        Value::String(k.clone())
                    ))
                }
            },
            (PathSeg::Index(ix), Value::Array(a)) => match a.get(*ix as usize) {
                Some(v) => v,
                None => {
                    return Err(format!(
                        "{} does not exist ({here} has {} element(s))",
                        var_path_text(root_name, &path[..=i]),
                        a.len()
                    ))
                }
            },
            (PathSeg::Key(_), other) => {
                return Err(format!(
                    "cannot read {}: {here} is {}, not an object",
                    var_path_text(root_name, &path[..=i]),
                    type_name(other)
                ))
            }
            (PathSeg::Index(_), other) => {
                return Err(format!(
                    "cannot read {}: {here} is {}, not a list",
                    var_path_text(root_name, &path[..=i]),
                    type_name(other)
                ))
            }
        };
    }
    Ok(cur)
}

/// Writes `value` at `path` inside `root`, creating missing maps on the way (§4: "missing maps
/// are created"). A `null` intermediate is replaced by a map; list indexes must exist.
pub fn write_path(
    root: &mut Value,
    root_name: &str,
    path: &[PathSeg],
    value: Value,
) -> Result<(), String> {
    let Some((last, init)) = path.split_last() else {
        *root = value;
        return Ok(());
    };
    let mut cur = root;
    for (i, seg) in init.iter().enumerate() {
        let here = var_path_text(root_name, &path[..i]);
        cur = step_mut(
            cur,
            seg,
            &here,
            &var_path_text(root_name, &path[..=i]),
            true,
        )?;
    }
    let here = var_path_text(root_name, init);
    let full = var_path_text(root_name, path);
    match (last, cur) {
        (PathSeg::Key(k), v) => {
            if v.is_null() {
                *v = Value::Object(Map::new());
            }
            match v {
                Value::Object(m) => {
                    m.insert(k.clone(), value);
                    Ok(())
                }
                other => Err(format!(
                    "cannot set {full}: {here} is {}, not an object",
                    type_name(other)
                )),
            }
        }
        (PathSeg::Index(ix), Value::Array(a)) => {
            let n = a.len();
            match a.get_mut(*ix as usize) {
                Some(slot) => {
                    *slot = value;
                    Ok(())
                }
                None if *ix as usize == n => {
                    a.push(value);
                    Ok(())
                }
                None => Err(format!("cannot set {full}: {here} has {n} element(s)")),
            }
        }
        (PathSeg::Index(_), other) => Err(format!(
            "cannot set {full}: {here} is {}, not a list",
            type_name(other)
        )),
    }
}

fn step_mut<'v>(
    cur: &'v mut Value,
    seg: &PathSeg,
    here: &str,
    next: &str,
    create: bool,
) -> Result<&'v mut Value, String> {
    match seg {
        PathSeg::Key(k) => {
            if cur.is_null() && create {
                *cur = Value::Object(Map::new());
            }
            let tn = type_name(cur);
            match cur {
                Value::Object(m) => Ok(m
                    .entry(k.clone())
                    .or_insert_with(|| Value::Object(Map::new()))),
                _ => Err(format!("cannot set {next}: {here} is {tn}, not an object")),
            }
        }
        PathSeg::Index(ix) => {
            let tn = type_name(cur);
            match cur {
                Value::Array(a) => {
                    let n = a.len();
                    a.get_mut(*ix as usize)
                        .ok_or_else(|| format!("cannot set {next}: {here} has {n} element(s)"))
                }
                _ => Err(format!("cannot set {next}: {here} is {tn}, not a list")),
            }
        }
    }
}

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

/// `+` and `-` (§4): numbers add, strings concatenate, and a number added to a string that
/// holds an integer gives a string (`"3" + 1` is `"4"`).
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
