//! Paths into JSON values, as the scenario language writes them (`data.key`,
//! `data["app.properties"]`, `spec.containers[0]`): the path itself, its text, and reading and
//! writing a value at a path (docs/scenario-language.md, "Expressions"). The language's
//! expressions and kubectl's `edit` model share them.

use serde_json::{Map, Value};

/// A path into an object: `data.key`, `data["app.properties"]`, `spec.containers[0]`.
pub type Path = Vec<PathSeg>;

/// One step of a [`Path`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PathSeg {
    /// A map key (`.key` or `["key"]`).
    Key(String),
    /// An array index (`[0]`).
    Index(u32),
}

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

/// Writes `value` at `path` inside `root`, creating missing maps on the way. A `null`
/// intermediate is replaced by a map; list indexes must exist.
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
