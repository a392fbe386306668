//! The reference's goldens and their comparison (docs/reference.md, "Goldens"), shared by the
//! replays that check a model against them: the store's (`rvlab-core`'s
//! `tests/it/reference.rs`) and `rvlab serve`'s over HTTP (`rvlab-server`'s
//! `tests/it/reference.rs`). [`check`] reads every golden of `reference/goldens/` (or the
//! directory `RVLAB_GOLDENS` names: `cargo xtask reference diff`), has the caller replay each
//! sequence, normalises both sides the same way ([`normalised`]) and sorts the differences into
//! those `reference/known-differences.json` lists ([`Known`]) and the others.

use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::Path;

/// The capture's User-Agent prefix: the apiserver's default field manager for its writes.
pub const MANAGER: &str = "rvlab-capture";

/// A request's Content-Type by its golden `type` (`None`: JSON).
pub fn content_type(kind: Option<&str>) -> &'static str {
    match kind {
        None => "application/json",
        Some("merge") => "application/merge-patch+json",
        Some("json") => "application/json-patch+json",
        Some("strategic") => "application/strategic-merge-patch+json",
        Some("apply") => "application/apply-patch+yaml",
        Some(other) => panic!("unknown patch type {other} in a golden"),
    }
}

/// `{ns}`, `{rv:N}` and `{uid:N}` replaced in every string of `v`, and `{x:N}` by N times `x`
/// (as capture.py does).
pub fn substitute(v: &Value, ns: &str, answers: &[(u16, Value)]) -> Value {
    match v {
        Value::String(s) => {
            let mut out = String::new();
            let mut rest = s.as_str();
            while let Some(start) = rest.find('{') {
                out.push_str(&rest[..start]);
                let after = &rest[start + 1..];
                let Some(end) = after.find('}') else {
                    out.push_str(&rest[start..]);
                    rest = "";
                    break;
                };
                let token = &after[..end];
                let value = match token.split_once(':') {
                    None if token == "ns" => Some(ns.to_string()),
                    Some(("x", n)) => n.parse::<usize>().ok().map(|n| "x".repeat(n)),
                    Some((kind @ ("rv" | "uid"), n)) => n.parse::<usize>().ok().map(|n| {
                        let key = if kind == "rv" {
                            "resourceVersion"
                        } else {
                            "uid"
                        };
                        answers[n].1["metadata"][key]
                            .as_str()
                            .unwrap_or_default()
                            .to_string()
                    }),
                    _ => None,
                };
                match value {
                    Some(value) => out.push_str(&value),
                    None => out.push_str(&rest[start..start + end + 2]),
                }
                rest = &after[end + 1..];
            }
            out.push_str(rest);
            Value::String(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(|v| substitute(v, ns, answers)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), substitute(v, ns, answers)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The values that differ between runs by nature, named by order of first appearance in one
/// sequence's answers: resourceVersions (the reference's background writes move its counter,
/// so only their order and equality compare), uids, and times.
#[derive(Default)]
struct Names {
    rvs: Vec<String>,
    uids: Vec<String>,
}

impl Names {
    fn collect(&mut self, v: &Value) {
        match v {
            Value::Object(o) => {
                for (k, v) in o {
                    match (k.as_str(), v) {
                        ("resourceVersion", Value::String(s)) if !s.is_empty() => {
                            if !self.rvs.contains(s) {
                                self.rvs.push(s.clone());
                            }
                        }
                        ("uid", Value::String(s)) if !s.is_empty() => {
                            if !self.uids.contains(s) {
                                self.uids.push(s.clone());
                            }
                        }
                        _ => self.collect(v),
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|v| self.collect(v)),
            _ => {}
        }
    }

    fn rename(&self, s: &str) -> String {
        let mut out = s.to_string();
        for (i, uid) in self.uids.iter().enumerate() {
            out = out.replace(uid.as_str(), &format!("uid#{i}"));
        }
        // A resourceVersion inside a message: a whole number in parentheses (a precondition's
        // "(5) does not match … (6)"), after "version: " / "current: " (a too large
        // resourceVersion), "precondition: " / "object meta: " (a Namespace's
        // preconditions) or as a quoted object's `resourceVersion`; other numbers ("Apply failed with 2 conflicts") stay.
        let mut renamed = String::new();
        let mut digits = String::new();
        for c in out.chars().chain(std::iter::once('\0')) {
            if c.is_ascii_digit() {
                digits.push(c);
                continue;
            }
            if !digits.is_empty() {
                let cited = renamed.ends_with('(')
                    || renamed.ends_with("version: ")
                    || renamed.ends_with("current: ")
                    // A Namespace's preconditions: "… in precondition: 5, … in object meta: 6".
                    || renamed.ends_with("precondition: ")
                    || renamed.ends_with("object meta: ")
                    // A patched object quoted in a patch's 422: `\"resourceVersion\":\"5\"`.
                    || renamed.ends_with("\\\"resourceVersion\\\":\\\"");
                match self.rvs.iter().position(|r| *r == digits) {
                    Some(i) if cited => renamed.push_str(&format!("rv#{i}")),
                    _ => renamed.push_str(&digits),
                }
                digits.clear();
            }
            if c != '\0' {
                renamed.push(c);
            }
        }
        renamed
    }

    /// A continue token decoded, its resourceVersion named (the token as it is when it does
    /// not decode: then it differs as it is).
    fn token(&self, token: &str) -> String {
        use base64::Engine;
        let Ok(bytes) = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(token) else {
            return token.to_string();
        };
        let Ok(mut v) = serde_json::from_slice::<Value>(&bytes) else {
            return token.to_string();
        };
        if let Some(rv) = v.get("rv").map(Value::to_string) {
            if let Some(i) = self.rvs.iter().position(|r| *r == rv) {
                v["rv"] = json!(format!("rv#{i}"));
            }
        }
        v.to_string()
    }

    fn normalise(&self, v: &Value, key: &str) -> Value {
        match v {
            // A name made from `generateName` ends in 5 random characters.
            Value::Object(o) if key == "metadata" && o.contains_key("generateName") => {
                let mut o = o.clone();
                if let (Some(Value::String(prefix)), Some(Value::String(name))) =
                    (o.get("generateName").cloned(), o.get("name").cloned())
                {
                    if name.starts_with(prefix.as_str()) && name.len() == prefix.len() + 5 {
                        let generated = format!("{prefix}<random>");
                        // A Namespace's name label carries its name.
                        if let Some(Value::Object(labels)) = o.get_mut("labels") {
                            let label = "kubernetes.io/metadata.name";
                            if labels.get(label).and_then(Value::as_str) == Some(name.as_str()) {
                                labels.insert(label.into(), Value::String(generated.clone()));
                            }
                        }
                        o.insert("name".into(), Value::String(generated));
                    }
                }
                self.normalise(&Value::Object(o), "")
            }
            Value::Object(o) => Value::Object(
                o.iter()
                    .map(|(k, v)| (k.clone(), self.normalise(v, k)))
                    .collect(),
            ),
            Value::Array(a) => Value::Array(a.iter().map(|v| self.normalise(v, key)).collect()),
            Value::String(s) => match key {
                "creationTimestamp" | "deletionTimestamp" | "time" => json!("<time>"),
                "resourceVersion" => match self.rvs.iter().position(|r| r == s) {
                    Some(i) => json!(format!("rv#{i}")),
                    None => v.clone(),
                },
                "uid" => match self.uids.iter().position(|u| u == s) {
                    Some(i) => json!(format!("uid#{i}")),
                    None => v.clone(),
                },
                // A continue token carries a resourceVersion: decoded, it is named as the
                // others are (`{"rv":"rv#1","start":"/a\u0000","v":"meta.k8s.io/v1"}`).
                "continue" if !s.is_empty() => json!(format!("continue:{}", self.token(s))),
                // A Status message names the versions and uids it is about; no other
                // string is renamed (a name or a namespace may contain the same digits).
                "message" => Value::String(self.rename(s)),
                _ => v.clone(),
            },
            other => other.clone(),
        }
    }
}

/// Where `a` (the reference's answer) and `b` (the model's) differ: JSON pointers, each with
/// the side it is on when only one side has it (`"status code"` when the codes differ).
pub fn differences(a: &Value, b: &Value, at: &str, out: &mut Vec<(String, &'static str)>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let at = format!("{at}/{k}");
                match (x.get(k), y.get(k)) {
                    (Some(v), Some(w)) => differences(v, w, &at, out),
                    (Some(_), None) => out.push((at, " (reference only)")),
                    _ => out.push((at, " (model only)")),
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                differences(v, w, &format!("{at}/{i}"), out);
            }
        }
        _ if a != b => out.push((if at.is_empty() { "/".into() } else { at.into() }, "")),
        _ => {}
    }
}

/// A JSON pointer matched against a pattern of `reference/known-differences.json`: segments
/// compared one by one, `*` matching any one segment and `**` any number of them.
pub fn pointer_matches(pattern: &str, pointer: &str) -> bool {
    fn go(p: &[&str], s: &[&str]) -> bool {
        match (p.first(), s.first()) {
            (None, None) => true,
            (Some(&"**"), _) => go(&p[1..], s) || (!s.is_empty() && go(p, &s[1..])),
            (Some(a), Some(b)) => (*a == "*" || a == b) && go(&p[1..], &s[1..]),
            _ => false,
        }
    }
    let p: Vec<&str> = pattern.split('/').collect();
    let s: Vec<&str> = pointer.split('/').collect();
    go(&p, &s)
}

/// One entry of `reference/known-differences.json`: a difference between the model and the
/// reference, reviewed, with its reason. It covers the places (`at`, JSON pointer patterns;
/// `"status code"`) where an answer differs, for the requests it names (every condition given
/// must hold: method, patch type, a substring of the path, the sequence's name (`sequence`, a
/// exactly), the request's index in it (`request`, one or a list), the two status codes). `gap: true` marks a difference the model is still to fix (docs/reference.md).
pub struct Known {
    entry: Value,
    uses: usize,
}

impl Known {
    fn applies(&self, name: &str, index: usize, req: &Value, codes: (u16, u16)) -> bool {
        let e = &self.entry;
        let index = json!(index);
        let listed = |r: &Value| *r == index || r.as_array().is_some_and(|a| a.contains(&index));
        if e.get("request").is_some_and(|r| !listed(r)) {
            return false;
        }
        let text = |k: &str| e.get(k).and_then(Value::as_str);
        text("method").is_none_or(|m| req["method"] == m)
            && text("type").is_none_or(|t| req["type"] == t)
            && text("path").is_none_or(|p| req["path"].as_str().is_some_and(|x| x.contains(p)))
            && text("sequence").is_none_or(|q| name == q)
            && e.get("codes")
                .is_none_or(|c| *c == json!([codes.0, codes.1]))
    }

    fn covers(&self, pointer: &str) -> bool {
        self.entry["at"].as_array().is_some_and(|a| {
            a.iter()
                .any(|p| p.as_str().is_some_and(|p| pointer_matches(p, pointer)))
        })
    }
}

/// Both sides' answers of one sequence normalised: resourceVersions and uids named by order of
/// first appearance, times masked (see [`Names`]).
pub fn normalised(answers: &[(u16, Value)]) -> Vec<(u16, Value)> {
    let mut names = Names::default();
    for (_, body) in answers {
        names.collect(body);
    }
    answers
        .iter()
        .map(|(code, body)| {
            let body = conflicts_as_a_set(names.normalise(body, ""));
            (
                *code,
                namespace_finalizers_as_a_set(generated_in_creation_order(body)),
            )
        })
        .collect()
}

/// A list holding objects named from `generateName` in one order: the list is in etcd key
/// order, the name's random suffix decides where such an object falls, and the two sides drew
/// different suffixes (a live diff saw two generated Secrets listed in opposite orders). Once
/// normalised the names compare equal (`gen-<random>`), so the items are sorted by name, then
/// by uid (named in the order the sequence first saw them, that is creation order), on both
/// sides; a list without a generated name is left as it is.
fn generated_in_creation_order(mut body: Value) -> Value {
    if let Some(items) = body.get_mut("items").and_then(Value::as_array_mut) {
        let text = |v: &Value, k: &str| v["metadata"][k].as_str().unwrap_or_default().to_string();
        if items.iter().any(|i| text(i, "name").ends_with("<random>")) {
            items.sort_by_key(|i| (text(i, "name"), text(i, "uid")));
        }
    }
    body
}

/// A Namespace's `metadata.finalizers` in one order: the first DELETE with a propagation
/// policy rewrites them from a Go map (`REST.Delete` in k8s.io/kubernetes
/// `pkg/registry/core/namespace/storage/storage.go` ranges over `currentFinalizers`), so the
/// reference lists `foregroundDeletion` and the others in any order (seen in a live diff).
/// Sorted on both sides, for a Namespace and a NamespaceList's items.
fn namespace_finalizers_as_a_set(mut body: Value) -> Value {
    fn sort(ns: &mut Value) {
        if let Some(f) = ns["metadata"]
            .get_mut("finalizers")
            .and_then(Value::as_array_mut)
        {
            f.sort_by_key(|v| v.as_str().unwrap_or_default().to_string());
        }
    }
    match body["kind"].as_str() {
        Some("Namespace") => sort(&mut body),
        Some("NamespaceList") => {
            if let Some(items) = body["items"].as_array_mut() {
                items.iter_mut().for_each(sort);
            }
        }
        _ => {}
    }
    body
}

/// An apply conflict's causes in one order: the reference lists them in Go's map order across
/// managers (structured-merge-diff v6 `merge/conflict.go`, `ConflictsFromManagers` ranges over
/// a map; its message sorts the managers, the causes are not), so two runs of the same request
/// can list them differently. Sorted by field, then message, on both sides.
fn conflicts_as_a_set(mut body: Value) -> Value {
    if body["reason"] == "Conflict" {
        if let Some(causes) = body
            .get_mut("details")
            .and_then(|d| d.get_mut("causes"))
            .and_then(Value::as_array_mut)
        {
            let key = |c: &Value| (c["field"].to_string(), c["message"].to_string());
            causes.sort_by_key(key);
        }
    }
    body
}

/// One sequence of a golden, for a replay.
pub struct Sequence<'a> {
    pub name: &'a str,
    /// The namespace the capture made for it (the replay creates it first).
    pub namespace: &'a str,
    /// When the reference created that namespace (Unix seconds).
    pub created_at: Option<u64>,
    /// The requests as written (`{ns}`, `{rv:N}`, `{uid:N}`: [`substitute`]).
    pub requests: &'a [Value],
    /// The second the reference answered each request (Unix seconds).
    pub times: Vec<Option<u64>>,
}

/// What [`check`] found.
pub struct Report {
    pub compared: usize,
    /// Answers that differ only where a known difference says.
    pub explained: usize,
    /// The other differing answers, each with the sequence, the request and both answers.
    pub unexplained: Vec<String>,
    /// Known differences that covered nothing (only for the committed goldens).
    pub stale: Vec<String>,
    /// Each known difference's id and the number of places it covered.
    pub uses: Vec<(String, usize)>,
}

impl Report {
    /// The summary line and each known difference's count.
    pub fn summary(&self, what: &str) -> String {
        let mut s = format!(
            "{what}: {} answers compared, {} differ as reference/known-differences.json says, {} differ otherwise\n",
            self.compared,
            self.explained,
            self.unexplained.len()
        );
        for (id, n) in &self.uses {
            s.push_str(&format!("  {n:>5} places  {id}\n"));
        }
        s
    }

    /// Panics, with every unexplained difference, unless there is none and no stale entry.
    pub fn assert_clean(&self) {
        assert!(
            self.unexplained.is_empty() && self.stale.is_empty(),
            "{} of {} answers differ from the reference without a reason in \
             reference/known-differences.json:\n{}\nlisted there but no longer different: {:?}",
            self.unexplained.len(),
            self.compared,
            self.unexplained.join("\n"),
            self.stale
        );
    }
}

/// Every golden of `reference_dir/goldens` (or of `RVLAB_GOLDENS`) replayed by `replay`, and
/// each answer compared with the reference's.
pub fn check(
    reference_dir: &Path,
    mut replay: impl FnMut(&Sequence) -> Vec<(u16, Value)>,
) -> Report {
    let known: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(reference_dir.join("known-differences.json"))
            .expect("reference/known-differences.json"),
    )
    .expect("known-differences.json is JSON");
    let mut known: Vec<Known> = known
        .into_iter()
        .map(|entry| {
            for field in ["id", "why"] {
                assert!(
                    entry[field].as_str().is_some_and(|w| !w.is_empty()),
                    "a known difference has an {field}: {entry}"
                );
            }
            assert!(
                entry["at"].is_array(),
                "a known difference says where: {entry}"
            );
            Known { entry, uses: 0 }
        })
        .collect();
    // `cargo xtask reference diff` points this at a fresh capture of random sequences.
    let live = std::env::var("RVLAB_GOLDENS").ok();
    let dir = live
        .clone()
        .unwrap_or_else(|| reference_dir.join("goldens").display().to_string());
    let mut goldens: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    goldens.sort();
    assert!(!goldens.is_empty(), "no golden in reference/goldens");
    let mut unexplained = Vec::new();
    let mut compared = 0;
    let mut explained = 0;
    for path in goldens {
        let golden: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("golden")).expect("JSON");
        let version = golden["reference"]["kubernetes"].as_str().unwrap_or("?");
        for seq in golden["sequences"].as_array().expect("sequences") {
            let name = seq["name"].as_str().unwrap_or_default().to_string();
            let requests = seq["requests"].as_array().expect("requests");
            let responses = seq["responses"].as_array().expect("responses");
            let reference: Vec<(u16, Value)> = responses
                .iter()
                .map(|r| (r["code"].as_u64().unwrap_or(0) as u16, r["body"].clone()))
                .collect();
            let model = replay(&Sequence {
                name: &name,
                namespace: seq["namespace"].as_str().expect("namespace"),
                created_at: seq["created_at"].as_u64(),
                requests,
                times: responses.iter().map(|r| r["at"].as_u64()).collect(),
            });
            let (reference, model) = (normalised(&reference), normalised(&model));
            for (i, (want, got)) in reference.iter().zip(&model).enumerate() {
                compared += 1;
                if want == got {
                    continue;
                }
                let mut at = Vec::new();
                if want.0 != got.0 {
                    at.push(("status code".to_string(), ""));
                }
                differences(&want.1, &got.1, "", &mut at);
                let codes = (want.0, got.0);
                let uncovered: Vec<_> = at
                    .iter()
                    .filter(|(pointer, _)| {
                        let mut covered = false;
                        for k in known.iter_mut() {
                            if k.applies(&name, i, &requests[i], codes) && k.covers(pointer) {
                                k.uses += 1;
                                covered = true;
                            }
                        }
                        !covered
                    })
                    .collect();
                if uncovered.is_empty() {
                    explained += 1;
                    continue;
                }
                let at: Vec<String> = uncovered
                    .iter()
                    .map(|(p, side)| format!("{p}{side}"))
                    .collect();
                unexplained.push(format!(
                    "{} / {name} / request {i}: {} {} ({})\n  differ at (not in a known difference): {}\n  kube-apiserver {version}: {} {}\n  model: {} {}",
                    path.file_name().unwrap_or_default().to_string_lossy(),
                    requests[i]["method"].as_str().unwrap_or_default(),
                    requests[i]["path"].as_str().unwrap_or_default(),
                    requests[i]["type"].as_str().unwrap_or("-"),
                    at.join(", "),
                    want.0,
                    want.1,
                    got.0,
                    got.1
                ));
            }
        }
    }
    // Only the committed goldens show that a listed difference is still there.
    let stale = match live {
        Some(_) => Vec::new(),
        None => known
            .iter()
            .filter(|k| k.uses == 0)
            .map(|k| k.entry["id"].as_str().unwrap_or_default().to_string())
            .collect(),
    };
    Report {
        compared,
        explained,
        unexplained,
        stale,
        uses: known
            .iter()
            .map(|k| {
                (
                    k.entry["id"].as_str().unwrap_or_default().to_string(),
                    k.uses,
                )
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_apply_conflicts_causes_compare_as_a_set() {
        let cause =
            |m: &str, f: &str| json!({"reason": "FieldManagerConflict", "message": m, "field": f});
        let status = |causes: Vec<Value>| json!({"kind": "Status", "reason": "Conflict", "code": 409, "details": {"causes": causes}});
        let a = status(vec![
            cause("conflict with \"b\"", ".data.y"),
            cause("conflict with \"a\"", ".data.x"),
        ]);
        let b = status(vec![
            cause("conflict with \"a\"", ".data.x"),
            cause("conflict with \"b\"", ".data.y"),
        ]);
        assert_eq!(normalised(&[(409, a)]), normalised(&[(409, b.clone())]));
        // Another cause is still another answer.
        let c = status(vec![
            cause("conflict with \"a\"", ".data.x"),
            cause("conflict with \"c\"", ".data.y"),
        ]);
        assert_ne!(normalised(&[(409, b)]), normalised(&[(409, c)]));
    }

    #[test]
    fn generated_names_and_a_namespaces_finalizers_compare_in_one_order() {
        // Two objects from `generateName`, created x then y: the reference listed them in the
        // order of its random suffixes, the model in the order of its own.
        let obj = |name: &str, uid: &str, label: &str| json!({"metadata": {"name": name, "generateName": "gen-", "uid": uid, "labels": {"app": label}}});
        // Two creates (x as u1, then y as u2) and the list after them, items as given.
        let answers = |a: &str, b: &str, items: [(&str, &str, &str); 2]| {
            let list = items
                .iter()
                .map(|(n, u, l)| obj(n, u, l))
                .collect::<Vec<_>>();
            vec![
                (201, obj(a, "u1", "x")),
                (201, obj(b, "u2", "y")),
                (200, json!({"kind": "SecretList", "items": list})),
            ]
        };
        let reference = answers(
            "gen-zzzzz",
            "gen-aaaaa",
            [("gen-aaaaa", "u2", "y"), ("gen-zzzzz", "u1", "x")],
        );
        let model = answers(
            "gen-bbbbb",
            "gen-ccccc",
            [("gen-bbbbb", "u1", "x"), ("gen-ccccc", "u2", "y")],
        );
        assert_eq!(normalised(&reference), normalised(&model));
        // The same objects with other contents still differ.
        let other = answers(
            "gen-bbbbb",
            "gen-ccccc",
            [("gen-bbbbb", "u1", "y"), ("gen-ccccc", "u2", "x")],
        );
        assert_ne!(normalised(&reference), normalised(&other));

        let ns =
            |f: Vec<&str>| json!({"kind": "Namespace", "metadata": {"name": "n", "finalizers": f}});
        assert_eq!(
            normalised(&[(200, ns(vec!["foregroundDeletion", "example.com/hold"]))]),
            normalised(&[(200, ns(vec!["example.com/hold", "foregroundDeletion"]))])
        );
        assert_ne!(
            normalised(&[(200, ns(vec!["orphan", "example.com/hold"]))]),
            normalised(&[(200, ns(vec!["example.com/hold", "foregroundDeletion"]))])
        );
        // Another kind's finalizers keep their order.
        let cm =
            |f: Vec<&str>| json!({"kind": "ConfigMap", "metadata": {"name": "c", "finalizers": f}});
        assert_ne!(
            normalised(&[(200, cm(vec!["b/x", "a/x"]))]),
            normalised(&[(200, cm(vec!["a/x", "b/x"]))])
        );
    }

    #[test]
    fn known_difference_patterns_match_pointers_by_segment() {
        assert!(pointer_matches("/spec/strategy", "/spec/strategy"));
        assert!(!pointer_matches("/spec/strategy", "/spec/strategy/type"));
        assert!(pointer_matches("/items/*/spec", "/items/3/spec"));
        assert!(!pointer_matches("/items/*/spec", "/items/3/4/spec"));
        assert!(pointer_matches(
            "**/f:strategy",
            "/metadata/managedFields/0/fieldsV1/f:spec/f:strategy"
        ));
        assert!(pointer_matches("**/f:strategy", "/f:strategy"));
        assert!(!pointer_matches("**/f:strategy", "/f:strategyX"));
        assert!(pointer_matches("status code", "status code"));
    }
}
