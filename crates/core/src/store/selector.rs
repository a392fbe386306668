//! Label and field selectors, as the apiserver parses and matches them (apimachinery
//! `pkg/labels/selector.go` and `pkg/fields/selector.go` at tag `kubernetes-1.35.0`; the messages
//! are theirs byte for byte, the code is written from their behaviour).
//!
//! Label selectors (`labelSelector=`): `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`,
//! `k` (exists), `!k` (does not exist), `k>1`, `k<1`, joined by `,` (AND). Keys are label keys
//! (`[prefix/]name`), values label values; both are validated with apimachinery's messages, and a
//! parse error is the text the apiserver puts in its 400 (`unable to parse requirement: …`,
//! `found '…', expected: …`). Matching: `!=` and `notin` match an object without the key,
//! `>`/`<` compare integers and never match a non-integer value.
//!
//! Field selectors (`fieldSelector=`): `field=value`, `field==value`, `field!=value`, joined by `,`
//! (backslash escapes `\,`, `\=`, `\\` in values). Which fields exist is per kind (the
//! handler's business); this module parses and matches.

use serde_json::{Map, Value};

/// A label-selector operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operator {
    /// `=` (and `==`).
    Equals,
    /// `!=`.
    NotEquals,
    /// `in (…)`.
    In,
    /// `notin (…)`.
    NotIn,
    /// `key`.
    Exists,
    /// `!key`.
    DoesNotExist,
    /// `>`.
    GreaterThan,
    /// `<`.
    LessThan,
}

/// One requirement of a label selector.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Requirement {
    pub key: String,
    pub operator: Operator,
    /// Sorted and without duplicates (a `sets.String` in Go).
    pub values: Vec<String>,
}

impl Requirement {
    /// Whether labels satisfy this requirement.
    pub fn matches(&self, labels: &Map<String, Value>) -> bool {
        let value = labels.get(&self.key).map(|v| v.as_str().unwrap_or(""));
        let has = |v: &str| self.values.iter().any(|x| x == v);
        match self.operator {
            Operator::Equals | Operator::In => value.is_some_and(has),
            Operator::NotEquals | Operator::NotIn => !value.is_some_and(has),
            Operator::Exists => value.is_some(),
            Operator::DoesNotExist => value.is_none(),
            Operator::GreaterThan | Operator::LessThan => {
                let Some(Ok(l)) = value.map(str::parse::<i64>) else {
                    return false;
                };
                let Some(Ok(r)) = self.values.first().map(|v| v.parse::<i64>()) else {
                    return false;
                };
                if self.operator == Operator::GreaterThan {
                    l > r
                } else {
                    l < r
                }
            }
        }
    }
}

/// A parsed label selector: the AND of its requirements (sorted by key). The empty selector
/// matches everything.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Selector {
    pub requirements: Vec<Requirement>,
}

impl Selector {
    /// True when the selector selects everything.
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// Whether a label map (`metadata.labels`) satisfies every requirement.
    pub fn matches(&self, labels: &Map<String, Value>) -> bool {
        self.requirements.iter().all(|r| r.matches(labels))
    }

    /// Whether an object's `metadata.labels` satisfy the selector (no labels: an empty map).
    pub fn matches_object(&self, obj: &Value) -> bool {
        let empty = Map::new();
        let labels = obj
            .get("metadata")
            .and_then(|m| m.get("labels"))
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        self.matches(labels)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    Error,
    End,
    ClosedPar,
    Comma,
    DoesNotExist,
    DoubleEquals,
    Equals,
    GreaterThan,
    Identifier,
    In,
    LessThan,
    NotEquals,
    NotIn,
    OpenPar,
}

fn literal_token(s: &str) -> Option<Tok> {
    Some(match s {
        ")" => Tok::ClosedPar,
        "," => Tok::Comma,
        "!" => Tok::DoesNotExist,
        "==" => Tok::DoubleEquals,
        "=" => Tok::Equals,
        ">" => Tok::GreaterThan,
        "in" => Tok::In,
        "<" => Tok::LessThan,
        "!=" => Tok::NotEquals,
        "notin" => Tok::NotIn,
        "(" => Tok::OpenPar,
        _ => return None,
    })
}

fn is_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_special(b: u8) -> bool {
    matches!(b, b'=' | b'!' | b'(' | b')' | b',' | b'>' | b'<')
}

/// The lexer: the selector's bytes into `(token, literal)` pairs, ending with `End`. A NUL byte
/// ends the input, as Go's lexer reads `0` for end of string.
fn lex(s: &str) -> Vec<(Tok, String)> {
    let b = s.as_bytes();
    let mut pos = 0;
    let read = |pos: &mut usize| -> u8 {
        let c = b.get(*pos).copied().unwrap_or(0);
        if *pos < b.len() {
            *pos += 1;
        }
        c
    };
    let mut out = Vec::new();
    loop {
        let mut c = read(&mut pos);
        while is_whitespace(c) {
            c = read(&mut pos);
        }
        if c == 0 {
            out.push((Tok::End, String::new()));
            return out;
        }
        pos -= 1;
        if is_special(c) {
            // Longest run of special symbols that is still a token.
            let mut buf = Vec::new();
            let mut last: Option<(Tok, String)> = None;
            loop {
                let c = read(&mut pos);
                if c == 0 {
                    break;
                }
                if is_special(c) {
                    buf.push(c);
                    let text = String::from_utf8_lossy(&buf).into_owned();
                    if let Some(t) = literal_token(&text) {
                        last = Some((t, text));
                    } else if last.is_some() {
                        pos -= 1;
                        break;
                    }
                } else {
                    pos -= 1;
                    break;
                }
            }
            match last {
                Some(t) => out.push(t),
                None => out.push((
                    Tok::Error,
                    format!(
                        "error expected: keyword found '{}'",
                        String::from_utf8_lossy(&buf)
                    ),
                )),
            }
        } else {
            let start = pos;
            while pos < b.len() && b[pos] != 0 && !is_special(b[pos]) && !is_whitespace(b[pos]) {
                pos += 1;
            }
            let text = String::from_utf8_lossy(&b[start..pos]).into_owned();
            let tok = literal_token(&text).unwrap_or(Tok::Identifier);
            out.push((tok, text));
        }
    }
}

/// In a values context `in` and `notin` are plain identifiers.
fn as_value(t: Tok) -> Tok {
    match t {
        Tok::In | Tok::NotIn => Tok::Identifier,
        t => t,
    }
}

struct Parser {
    items: Vec<(Tok, String)>,
    pos: usize,
}

impl Parser {
    fn lookahead(&self, values: bool) -> (Tok, String) {
        let (t, l) = self.items[self.pos.min(self.items.len() - 1)].clone();
        (if values { as_value(t) } else { t }, l)
    }
    fn consume(&mut self, values: bool) -> (Tok, String) {
        let r = self.lookahead(values);
        if self.pos < self.items.len() - 1 {
            self.pos += 1;
        }
        r
    }

    fn parse(&mut self) -> Result<Vec<Requirement>, String> {
        let mut reqs = Vec::new();
        loop {
            let (tok, lit) = self.lookahead(true);
            match tok {
                Tok::Identifier | Tok::DoesNotExist => {
                    let r = self
                        .requirement()
                        .map_err(|e| format!("unable to parse requirement: {e}"))?;
                    reqs.push(r);
                    let (t, l) = self.consume(true);
                    match t {
                        Tok::End => return Ok(reqs),
                        Tok::Comma => {
                            let (t2, l2) = self.lookahead(true);
                            if t2 != Tok::Identifier && t2 != Tok::DoesNotExist {
                                return Err(format!(
                                    "found '{l2}', expected: identifier after ','"
                                ));
                            }
                        }
                        _ => return Err(format!("found '{l}', expected: ',' or 'end of string'")),
                    }
                }
                Tok::End => return Ok(reqs),
                _ => {
                    return Err(format!(
                        "found '{lit}', expected: !, identifier, or 'end of string'"
                    ))
                }
            }
        }
    }

    fn requirement(&mut self) -> Result<Requirement, String> {
        let (key, op) = self.key_and_inferred_operator()?;
        if let Some(op @ (Operator::Exists | Operator::DoesNotExist)) = op {
            return new_requirement(key, op, Vec::new());
        }
        let op = self.operator()?;
        let values = match op {
            Operator::In | Operator::NotIn => self.values()?,
            _ => self.exact_value()?,
        };
        new_requirement(key, op, values)
    }

    fn key_and_inferred_operator(&mut self) -> Result<(String, Option<Operator>), String> {
        let mut op = None;
        let (mut tok, mut lit) = self.consume(true);
        if tok == Tok::DoesNotExist {
            op = Some(Operator::DoesNotExist);
            (tok, lit) = self.consume(true);
        }
        if tok != Tok::Identifier {
            return Err(format!("found '{lit}', expected: identifier"));
        }
        let errs = label_key_errors(&lit);
        if !errs.is_empty() {
            return Err(invalid("<nil>", &quote(&lit), &errs.join("; ")));
        }
        let (t, _) = self.lookahead(true);
        if (t == Tok::End || t == Tok::Comma) && op.is_none() {
            op = Some(Operator::Exists);
        }
        Ok((lit, op))
    }

    fn operator(&mut self) -> Result<Operator, String> {
        let (tok, lit) = self.consume(false);
        Ok(match tok {
            Tok::In => Operator::In,
            Tok::Equals | Tok::DoubleEquals => Operator::Equals,
            Tok::GreaterThan => Operator::GreaterThan,
            Tok::LessThan => Operator::LessThan,
            Tok::NotIn => Operator::NotIn,
            Tok::NotEquals => Operator::NotEquals,
            _ => {
                return Err(format!(
                    "found '{lit}', expected: in, notin, =, ==, !=, gt, lt"
                ))
            }
        })
    }

    fn values(&mut self) -> Result<Vec<String>, String> {
        let (tok, lit) = self.consume(true);
        if tok != Tok::OpenPar {
            return Err(format!("found '{lit}' expected: '('"));
        }
        let (tok, lit) = self.lookahead(true);
        match tok {
            Tok::Identifier | Tok::Comma => {
                let s = self.identifiers()?;
                let (t, _) = self.consume(true);
                if t != Tok::ClosedPar {
                    return Err(format!("found '{lit}', expected: ')'"));
                }
                Ok(s)
            }
            Tok::ClosedPar => {
                self.consume(true);
                Ok(vec![String::new()])
            }
            _ => Err(format!("found '{lit}', expected: ',', ')' or identifier")),
        }
    }

    fn identifiers(&mut self) -> Result<Vec<String>, String> {
        let mut s: Vec<String> = Vec::new();
        let insert = |s: &mut Vec<String>, v: String| {
            if !s.contains(&v) {
                s.push(v);
            }
        };
        loop {
            let (tok, lit) = self.consume(true);
            match tok {
                Tok::Identifier => {
                    insert(&mut s, lit);
                    let (t2, l2) = self.lookahead(true);
                    match t2 {
                        Tok::Comma => continue,
                        Tok::ClosedPar => break,
                        _ => return Err(format!("found '{l2}', expected: ',' or ')'")),
                    }
                }
                Tok::Comma => {
                    if s.is_empty() {
                        insert(&mut s, String::new());
                    }
                    let (t2, _) = self.lookahead(true);
                    if t2 == Tok::ClosedPar {
                        insert(&mut s, String::new());
                        break;
                    }
                    if t2 == Tok::Comma {
                        self.consume(true);
                        insert(&mut s, String::new());
                    }
                }
                _ => return Err(format!("found '{lit}', expected: ',', or identifier")),
            }
        }
        crate::sort::sort(&mut s);
        Ok(s)
    }

    fn exact_value(&mut self) -> Result<Vec<String>, String> {
        let (tok, _) = self.lookahead(true);
        if tok == Tok::End || tok == Tok::Comma {
            return Ok(vec![String::new()]);
        }
        let (tok, lit) = self.consume(true);
        if tok == Tok::Identifier {
            return Ok(vec![lit]);
        }
        Err(format!("found '{lit}', expected: identifier"))
    }
}

/// Go's `%q` for the printable strings a selector holds.
fn quote(s: &str) -> String {
    Value::String(s.into()).to_string()
}

/// `field.Invalid(path, value, detail).Error()`.
fn invalid(path: &str, value: &str, detail: &str) -> String {
    format!("{path}: Invalid value: {value}: {detail}")
}

/// `NewRequirement`: validation of the operator's values (the key was checked by the parser),
/// errors aggregated as `ToAggregate` prints them.
fn new_requirement(key: String, op: Operator, values: Vec<String>) -> Result<Requirement, String> {
    let mut errs: Vec<String> = Vec::new();
    let json = |v: &[String]| Value::from(v.to_vec()).to_string();
    match op {
        Operator::In | Operator::NotIn if values.is_empty() => errs.push(invalid(
            "values",
            &json(&values),
            "for 'in', 'notin' operators, values set can't be empty",
        )),
        Operator::Equals | Operator::NotEquals if values.len() != 1 => errs.push(invalid(
            "values",
            &json(&values),
            "exact-match compatibility requires one single value",
        )),
        Operator::GreaterThan | Operator::LessThan => {
            if values.len() != 1 {
                errs.push(invalid(
                    "values",
                    &json(&values),
                    "for 'Gt', 'Lt' operators, exactly one value is required",
                ));
            }
            for (i, v) in values.iter().enumerate() {
                if v.parse::<i64>().is_err() {
                    errs.push(invalid(
                        &format!("values[{i}]"),
                        &quote(v),
                        "for 'Gt', 'Lt' operators, the value must be an integer",
                    ));
                }
            }
        }
        _ => {}
    }
    for (i, v) in values.iter().enumerate() {
        let e = label_value_errors(v);
        if !e.is_empty() {
            errs.push(invalid(
                &format!("values[{i}][{key}]"),
                &quote(v),
                &e.join("; "),
            ));
        }
    }
    let mut seen: Vec<String> = Vec::new();
    for e in errs {
        if !seen.contains(&e) {
            seen.push(e);
        }
    }
    match seen.len() {
        0 => Ok(Requirement {
            key,
            operator: op,
            values,
        }),
        1 => Err(seen.remove(0)),
        _ => Err(format!("[{}]", seen.join(", "))),
    }
}

const LABEL_KEY_ERR: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_EXAMPLES: &str =
    " (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '";

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`.
fn is_label_key_name(s: &str) -> bool {
    let b = s.as_bytes();
    let ext = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.');
    !b.is_empty()
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter().all(ext)
}

/// `content.IsLabelKey` (1.35; the same in v0.37.2): a selector's keys and, with the `api`
/// feature, an object's label keys (`meta::validate`).
pub(crate) fn label_key_errors(key: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = key.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                // `content.IsDNS1123Subdomain`: the same texts as the object-name check, its
                // length limit counted in bytes (1.35's `content.MaxLenError`).
                for m in crate::names::dns_subdomain_errors(prefix) {
                    let m = m.replace("253 characters", "253 bytes");
                    errs.push(format!("prefix part {m}"));
                }
            }
            name
        }
        _ => {
            errs.push(format!(
                "a valid label key {LABEL_KEY_ERR}{LABEL_KEY_EXAMPLES}{LABEL_KEY_FMT}') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".into());
    } else if name.len() > 63 {
        errs.push("name part must be no more than 63 bytes".into());
    }
    if !is_label_key_name(name) {
        errs.push(format!(
            "name part {LABEL_KEY_ERR}{LABEL_KEY_EXAMPLES}{LABEL_KEY_FMT}')"
        ));
    }
    errs
}

/// `content.IsLabelValue` (1.35; the same in v0.37.2): a selector's values and an object's.
pub(crate) fn label_value_errors(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > 63 {
        errs.push("must be no more than 63 bytes".into());
    }
    if !v.is_empty() && !is_label_key_name(v) {
        errs.push("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')".into());
    }
    errs
}

/// `labels.Parse`: a label selector, or the apiserver's error text.
pub fn parse(selector: &str) -> Result<Selector, String> {
    let mut p = Parser {
        items: lex(selector),
        pos: 0,
    };
    let mut reqs = p.parse()?;
    crate::sort::sort_by(&mut reqs, |a, b| a.key.cmp(&b.key));
    Ok(Selector { requirements: reqs })
}

/// One term of a field selector.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FieldTerm {
    pub field: String,
    /// `=`/`==` (true) or `!=` (false).
    pub equals: bool,
    pub value: String,
}

/// A parsed field selector: the AND of its terms (sorted). Empty selects everything.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct FieldSelector {
    pub terms: Vec<FieldTerm>,
}

impl FieldSelector {
    /// True when the selector selects everything.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Whether every term holds, `get` giving a field's value (`None`: the field is not set,
    /// compared as `""`, as the apiserver's field sets hold every selectable field).
    pub fn matches(&self, get: impl Fn(&str) -> Option<String>) -> bool {
        self.terms.iter().all(|t| {
            let v = get(&t.field).unwrap_or_default();
            (v == t.value) == t.equals
        })
    }
}

/// `fields.UnescapeValue`.
fn unescape_field_value(s: &str) -> Result<String, String> {
    if !s.contains(['\\', ',', '=']) {
        return Ok(s.to_string());
    }
    let mut out = String::new();
    let mut in_slash = false;
    for c in s.chars() {
        if in_slash {
            match c {
                '\\' | ',' | '=' => out.push(c),
                _ => {
                    return Err(format!(
                        "invalid field selector: invalid escape sequence: \\{c}"
                    ))
                }
            }
            in_slash = false;
            continue;
        }
        match c {
            '\\' => in_slash = true,
            ',' | '=' => {
                return Err(format!(
                    "invalid field selector: unescaped character in value: {}",
                    // `%v` of a Go rune prints its code point.
                    u32::from(c)
                ));
            }
            _ => out.push(c),
        }
    }
    if in_slash {
        return Err("invalid field selector: invalid escape sequence: \\".into());
    }
    Ok(out)
}

/// `fields.ParseSelector`: a field selector, or the apiserver's error text.
pub fn parse_fields(selector: &str) -> Result<FieldSelector, String> {
    // splitTerms: `,` separates unless backslash-escaped.
    let mut parts: Vec<String> = Vec::new();
    if !selector.is_empty() {
        let mut cur = String::new();
        let mut in_slash = false;
        for c in selector.chars() {
            if in_slash {
                in_slash = false;
            } else if c == '\\' {
                in_slash = true;
            } else if c == ',' {
                parts.push(std::mem::take(&mut cur));
                continue;
            }
            cur.push(c);
        }
        parts.push(cur);
    }
    crate::sort::sort(&mut parts);
    let mut terms = Vec::new();
    for part in parts.iter().filter(|p| !p.is_empty()) {
        let split = (0..part.len())
            .filter(|i| part.is_char_boundary(*i))
            .find_map(|i| {
                ["!=", "==", "="]
                    .iter()
                    .find(|op| part[i..].starts_with(**op))
                    .map(|op| (&part[..i], *op, &part[i + op.len()..]))
            });
        let Some((lhs, op, rhs)) = split else {
            return Err(format!(
                "invalid selector: '{selector}'; can't understand '{part}'"
            ));
        };
        terms.push(FieldTerm {
            field: lhs.to_string(),
            equals: op != "!=",
            value: unescape_field_value(rhs)?,
        });
    }
    Ok(FieldSelector { terms })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn labels(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn label_selector_operators_match_as_the_apiserver() {
        let l = labels(json!({"app": "web", "tier": "front", "n": "5"}));
        let none = labels(json!({}));
        for (sel, on_l, on_none) in [
            ("", true, true),
            ("app=web", true, false),
            ("app==web", true, false),
            ("app!=web", false, true),
            ("app!=db", true, true),
            ("app in (web,db)", true, false),
            ("app notin (web)", false, true),
            ("app notin (db)", true, true),
            ("app", true, false),
            ("!app", false, true),
            ("app=web,tier=front", true, false),
            ("app=web,tier=back", false, false),
            ("n>4", true, false),
            ("n<5", false, false),
            ("app>1", false, false),
            ("app=", false, false),
            (" app = web ", true, false),
            ("x in (in,notin)", false, false),
        ] {
            let s = parse(sel).unwrap_or_else(|e| panic!("{sel}: {e}"));
            assert_eq!(s.matches(&l), on_l, "{sel} on labels");
            assert_eq!(s.matches(&none), on_none, "{sel} on no labels");
        }
        assert!(parse("").unwrap().is_empty());
        assert_eq!(
            parse("app in (b,a,a)").unwrap().requirements[0].values,
            ["a", "b"]
        );
    }

    #[test]
    fn label_selector_errors_are_the_apiservers_text() {
        for (sel, err) in [
            ("app=web=x", "found '=', expected: ',' or 'end of string'"),
            ("app in web", "unable to parse requirement: found 'web' expected: '('"),
            ("app in (a b)", "unable to parse requirement: found 'b', expected: ',' or ')'"),
            ("=x", "found '=', expected: !, identifier, or 'end of string'"),
            ("a,", "found '', expected: identifier after ','"),
            ("a,,b", "found ',', expected: identifier after ','"),
            ("!", "unable to parse requirement: found '', expected: identifier"),
            ("a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
            ("a=(", "unable to parse requirement: found '(', expected: identifier"),
            ("a<=1", "unable to parse requirement: found '=', expected: identifier"),
            ("a (b)", "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt"),
            (
                "-a=b",
                "unable to parse requirement: <nil>: Invalid value: \"-a\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
            ),
            (
                "a=-b",
                "unable to parse requirement: values[0][a]: Invalid value: \"-b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
            ),
            (
                "a>b",
                "unable to parse requirement: values[0]: Invalid value: \"b\": for 'Gt', 'Lt' operators, the value must be an integer",
            ),
            (
                "/a",
                "unable to parse requirement: <nil>: Invalid value: \"/a\": prefix part must be non-empty",
            ),
        ] {
            assert_eq!(parse(sel).unwrap_err(), err, "{sel}");
        }
    }

    #[test]
    fn field_selectors_parse_and_match() {
        let s = parse_fields("metadata.name=a,metadata.namespace!=kube-system").unwrap();
        assert_eq!(s.terms.len(), 2);
        let get = |ns: &'static str| {
            move |f: &str| match f {
                "metadata.name" => Some("a".to_string()),
                "metadata.namespace" => Some(ns.to_string()),
                _ => None,
            }
        };
        assert!(s.matches(get("default")));
        assert!(!s.matches(get("kube-system")));
        assert!(parse_fields("").unwrap().is_empty());
        assert_eq!(parse_fields("a==b").unwrap().terms[0].value, "b");
        assert_eq!(parse_fields(r"a=x\,y").unwrap().terms[0].value, "x,y");
        assert_eq!(
            parse_fields("metadata.name").unwrap_err(),
            "invalid selector: 'metadata.name'; can't understand 'metadata.name'"
        );
        assert_eq!(
            parse_fields(r"a=b\c").unwrap_err(),
            r"invalid field selector: invalid escape sequence: \c"
        );
        assert_eq!(
            parse_fields("a=b=c").unwrap_err(),
            "invalid field selector: unescaped character in value: 61"
        );
    }
}
