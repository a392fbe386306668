//! `kubectl apply`: client-side (KC `pkg/cmd/apply/apply.go`, `patcher.go`, `pkg/util/apply.go`)
//! and server-side with its `kubectl-last-applied` apply and managed-fields migration
//! (`saveLastApplyAnnotationIfNecessary`, `migrateToSSAIfNecessary`, client-go
//! `util/csaupgrade`).

use super::go::{self, Error};
use super::{
    get, info_string, kind_name, meta_str, name_of, query, req, set_meta, source, Machine, Phase,
    Step, LAST_APPLIED,
};
use crate::json::HValue;
use crate::kubectl::{Command, Verb};
use crate::store::strategic_create as sc;
use crate::store::PatchType;
use crate::store::{Method, Request, Resource};
use serde_json::{Map, Value};

/// kubectl's retries of a conflicting patch (`maxPatchRetry`).
const MAX_PATCH_RETRY: u8 = 5;

/// The annotations of an object with the last-applied one removed (an empty map when none:
/// `SetAnnotations` of an empty map keeps `annotations: {}`).
fn with_annotation(obj: &Value, value: Option<String>) -> Value {
    let mut o = obj.clone();
    let mut a = go::meta(obj)
        .get("annotations")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    a.remove(LAST_APPLIED);
    if let Some(v) = value {
        a.insert(LAST_APPLIED.into(), v.into());
    }
    set_meta(&mut o, "annotations", Some(Value::Object(a)));
    o
}

/// `GetModifiedConfiguration(obj, annotate=true)`: the manifest with the annotation set to the
/// manifest's own JSON (without the annotation), as Go's encoder writes it.
pub(super) fn modified(obj: &Value) -> String {
    let bare = format!(
        "{}\n",
        crate::kubectl::print::go_json(&with_annotation(obj, None))
    );
    crate::kubectl::print::go_json(&with_annotation(obj, Some(bare)))
}

fn manager<'a>(cmd: &'a Command, default: &'a str) -> &'a str {
    cmd.field_manager.as_deref().unwrap_or(default)
}

/// The final error of a failed client-side apply patch:
/// `error when applying patch:\nPATCH\nto:\nINFO\nfor: "F": …`.
pub(super) fn patch_error(m: &Machine, cmd: &Command, patch: &str, e: Error) -> Error {
    e.with_source(
        &format!(
            "applying patch:\n{patch}\nto:\n{}\nfor:",
            info_string(&m.at)
        ),
        source(cmd),
    )
}

impl Machine {
    /// The object is absent: create it with the annotation (`CreateApplyAnnotation`, nulls
    /// pruned, `Helper.Create` clearing the resourceVersion).
    pub(super) fn csa_create(&mut self, cmd: &Command) -> Step {
        let bare = format!(
            "{}\n",
            crate::kubectl::print::go_json(&with_annotation(&self.obj.0, None))
        );
        let mut body = with_annotation(&self.obj.0, Some(bare));
        crate::json::prune_nulls(&mut body);
        set_meta(&mut body, "resourceVersion", None);
        self.phase = Phase::ApplyCreate;
        Step::Send(req(
            Method::Post,
            query(
                self.at.collection_path(),
                manager(cmd, "kubectl-client-side-apply"),
                true,
                None,
            ),
            Some("application/json"),
            Some(go::sorted(&body)),
        ))
    }

    /// `Patcher.patchSimple` on the live object: the three-way patch, nothing sent when it is
    /// `{}` (`unchanged`).
    pub(super) fn csa_patch(&mut self, cmd: &Command, live: Value) -> Step {
        let original = live
            .pointer("/metadata/annotations")
            .and_then(|a| a.get(LAST_APPLIED))
            .and_then(Value::as_str)
            .and_then(|s| serde_json::from_str::<Value>(s).ok())
            .unwrap_or(Value::Null);
        let modified: Value = serde_json::from_str(&self.text).unwrap_or_default();
        let custom = matches!(self.at.resource, Resource::Custom { .. });
        let patch = if custom {
            sc::json_merge_three_way(&original, &modified, &live, sc::KUBECTL_PRECONDITIONS)
        } else {
            let at = crate::store::schema::builtin().root(&self.at.resource.kind());
            sc::three_way(&original, &modified, &live, at, true)
        };
        let patch = match patch {
            Ok(p) => p,
            Err(e) => {
                let text = format!(
                    "creating patch with:\noriginal:\n{}\nmodified:\n{}\ncurrent:\n{}\nfor: {e}",
                    crate::kubectl::print::go_json(&original),
                    self.text,
                    crate::kubectl::print::go_json(&live)
                );
                let e = Error::Plain { text, status: None };
                return Step::Fail(patch_error(self, cmd, "", e));
            }
        };
        let text = crate::kubectl::print::go_json(&patch);
        if text == "{}" {
            let line = format!(
                "{}/{} unchanged\n",
                kind_name(&self.at.resource),
                name_of(&live, &self.at)
            );
            self.out(&line);
            return Step::Done;
        }
        self.patch = text;
        let ct = if custom {
            PatchType::Merge
        } else {
            PatchType::Strategic
        };
        self.phase = Phase::ApplyPatch;
        Step::Send(req(
            Method::Patch,
            query(
                self.at.path(),
                manager(cmd, "kubectl-client-side-apply"),
                true,
                None,
            ),
            Some(ct.content_type()),
            Some(patch),
        ))
    }

    /// The client-side apply PATCH answered: `configured`, or on a conflict a re-GET and
    /// re-patch (`Patcher.Patch`: up to `maxPatchRetry` times, 1 s apart after the first).
    pub(super) fn csa_patched(&mut self, cmd: &Command, result: Result<Value, Error>) -> Step {
        match result {
            Ok(b) => {
                let line = format!(
                    "{}/{} configured\n",
                    kind_name(&self.at.resource),
                    name_of(&b, &self.at)
                );
                self.out(&line);
                Step::Done
            }
            Err(e) if e.status().is_some_and(go::is_conflict) && self.tries < MAX_PATCH_RETRY => {
                self.tries += 1;
                self.phase = Phase::ApplyRetryGet;
                let r = get(self.at.path());
                if self.tries > 1 {
                    Step::Wait(r)
                } else {
                    Step::Send(r)
                }
            }
            Err(e) => {
                let e = e.with_source("patching", source(cmd));
                let patch = std::mem::take(&mut self.patch);
                Step::Fail(patch_error(self, cmd, &patch, e))
            }
        }
    }

    /// The server-side apply PATCH (also the re-apply after a migration).
    pub(super) fn ssa(&self, cmd: &Command) -> Request {
        let force = matches!(
            cmd.verb,
            Verb::Apply {
                force_conflicts: true,
                ..
            }
        );
        req(
            Method::Patch,
            query(self.at.path(), manager(cmd, "kubectl"), true, Some(force)),
            Some("application/apply-patch+yaml"),
            Some(go::sorted(&self.obj.0)),
        )
    }

    /// The server-side apply answered: the conflict wrapper, or the `kubectl-last-applied`
    /// apply when the live object carries a last-applied annotation no Apply manager owns.
    pub(super) fn ssa_applied(&mut self, cmd: &Command, result: Result<Value, Error>) -> Step {
        let b = match result {
            Ok(b) => b,
            Err(e) if e.status().is_some_and(go::is_conflict) => {
                return Step::Fail(Error::Plain {
                    text: format!("{}\n{SSA_HINT}", e.text()),
                    status: e.status().cloned(),
                })
            }
            Err(e) => return Step::Fail(e),
        };
        self.live = HValue(b.clone());
        let annotation = b
            .pointer("/metadata/annotations")
            .and_then(|a| a.get(LAST_APPLIED))
            .cloned();
        let owned = owners(&b, "Apply").next().is_some();
        match annotation {
            Some(a) if manager(cmd, "kubectl") == "kubectl" && !owned => {
                let mut ann = Map::new();
                ann.insert(LAST_APPLIED.into(), a);
                let mut meta = Map::new();
                meta.insert("annotations".into(), Value::Object(ann));
                meta.insert("name".into(), meta_str(&b, "name").into());
                if !self.at.namespace.is_empty() {
                    meta.insert("namespace".into(), self.at.namespace.clone().into());
                }
                let mut body = Map::new();
                body.insert("apiVersion".into(), self.at.resource.api_version().into());
                body.insert("kind".into(), self.at.resource.kind().into());
                body.insert("metadata".into(), Value::Object(meta));
                self.phase = Phase::SsaLastApplied;
                Step::Send(req(
                    Method::Patch,
                    query(self.at.path(), "kubectl-last-applied", true, None),
                    Some("application/apply-patch+yaml"),
                    Some(Value::Object(body)),
                ))
            }
            _ => self.ssa_migrate(cmd),
        }
    }

    /// The `kubectl-last-applied` apply answered (a failure is a warning).
    pub(super) fn ssa_last_applied(&mut self, cmd: &Command, result: Result<Value, Error>) -> Step {
        match result {
            Ok(b) => {
                self.live = HValue(b);
                self.ssa_migrate(cmd)
            }
            Err(e) => {
                self.terminal.write(true, &format!("Warning: failed to migrate {LAST_APPLIED} for Server-Side Apply. This is non-fatal and will be retried next time you apply. Error: {}\n", e.text()));
                self.ssa_done()
            }
        }
    }

    /// `migrateToSSAIfNecessary`: the Update managers that own the annotation become the
    /// Apply manager, sent as a JSON patch guarded by the resourceVersion.
    fn ssa_migrate(&mut self, cmd: &Command) -> Step {
        let b = &self.live.0;
        let mut names: Vec<String> = owners(b, "Update")
            .map(|e| go::str_at(e, "manager").to_string())
            .collect();
        crate::sort::sort(&mut names);
        names.dedup();
        if names.is_empty() {
            return self.ssa_done();
        }
        let ssa = manager(cmd, "kubectl");
        let mut entries: Vec<Value> = b
            .pointer("/metadata/managedFields")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for csa in &names {
            entries = upgraded(entries, csa, ssa);
        }
        let mut ops = Vec::new();
        for (path, value) in [
            ("/metadata/managedFields", Value::Array(entries)),
            (
                "/metadata/resourceVersion",
                meta_str(b, "resourceVersion").into(),
            ),
        ] {
            let mut op = Map::new();
            op.insert("op".into(), "replace".into());
            op.insert("path".into(), path.into());
            op.insert("value".into(), value);
            ops.push(Value::Object(op));
        }
        self.phase = Phase::SsaMigrate;
        Step::Send(req(
            Method::Patch,
            query(self.at.path(), ssa, true, None),
            Some(PatchType::Json.content_type()),
            Some(Value::Array(ops)),
        ))
    }

    /// The migration patch answered: the apply is sent again; a conflict re-reads the object
    /// and retries (`maxPatchRetry` patches in all); another failure is a warning.
    pub(super) fn ssa_migrated(&mut self, cmd: &Command, result: Result<Value, Error>) -> Step {
        match result {
            Ok(b) => {
                self.live = HValue(b);
                self.phase = Phase::SsaReapply;
                Step::Send(self.ssa(cmd))
            }
            Err(e) if e.status().is_some_and(go::is_conflict) => {
                self.tries += 1;
                self.patch = e.text().to_string();
                self.phase = Phase::SsaMigrateGet;
                Step::Send(get(self.at.path()))
            }
            Err(e) => self.migration_failed(e.text().to_string()),
        }
    }

    fn migration_failed(&mut self, text: String) -> Step {
        self.terminal.write(true, &format!("Warning: server rejected managed fields migration to Server-Side Apply. This is non-fatal and will be retried next time you apply. Error: {text}\n"));
        self.ssa_done()
    }

    /// The migration's re-read answered (after the last conflict too, as kubectl's loop does).
    pub(super) fn ssa_migrate_get(&mut self, cmd: &Command, result: Result<Value, Error>) -> Step {
        match result {
            Ok(_) if self.tries >= MAX_PATCH_RETRY => {
                let text = std::mem::take(&mut self.patch);
                self.migration_failed(text)
            }
            Ok(b) => {
                self.live = HValue(b);
                self.ssa_migrate(cmd)
            }
            Err(e) => self.migration_failed(e.text().to_string()),
        }
    }

    /// `serverside-applied` (with `WarnIfDeleting`).
    pub(super) fn ssa_done(&mut self) -> Step {
        let b = self.live.0.clone();
        if !meta_str(&b, "deletionTimestamp").is_empty() {
            let w = format!(
                "Warning: Detected changes to resource {} which is currently being deleted.\n",
                meta_str(&b, "name")
            );
            self.terminal.write(true, &w);
        }
        let line = format!(
            "{}/{} serverside-applied\n",
            kind_name(&self.at.resource),
            name_of(&b, &self.at)
        );
        self.out(&line);
        Step::Done
    }
}

/// The hint kubectl appends to a server-side apply conflict (apply.go).
pub(super) const SSA_HINT: &str =
    "Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the `--force-conflicts` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts";

/// The managedFields entries of `operation` that own the last-applied annotation
/// (`csaupgrade.FindFieldsOwners`).
fn owners<'a>(obj: &'a Value, operation: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
    obj.pointer("/metadata/managedFields")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .filter(move |e| {
            go::str_at(e, "operation") == operation
                && e.get("fieldsV1")
                    .and_then(|f| f.get("f:metadata"))
                    .and_then(|f| f.get("f:annotations"))
                    .and_then(|f| f.get(format!("f:{LAST_APPLIED}")))
                    .is_some()
        })
}

/// Whether a managedFields entry is `name` with `operation` on the main resource.
fn is(e: &Value, name: &str, operation: &str) -> bool {
    go::str_at(e, "manager") == name
        && go::str_at(e, "operation") == operation
        && go::str_at(e, "subresource").is_empty()
}

/// `upgradedManagedFields`: the Apply manager `ssa` (or, without one, the first Update entry of
/// `csa` turned into it) takes the union of its fields and those of `csa`'s Update entry of
/// the same apiVersion; `csa`'s Update entries are dropped.
fn upgraded(mut entries: Vec<Value>, csa: &str, ssa: &str) -> Vec<Value> {
    let target = match entries.iter().position(|e| is(e, ssa, "Apply")) {
        Some(i) => i,
        None => match entries.iter().position(|e| is(e, csa, "Update")) {
            Some(i) => {
                if let Value::Object(o) = &mut entries[i] {
                    o.insert("manager".into(), ssa.into());
                    o.insert("operation".into(), "Apply".into());
                }
                i
            }
            None => return entries,
        },
    };
    let version = go::str_at(&entries[target], "apiVersion").to_string();
    let from = entries
        .iter()
        .find(|e| is(e, csa, "Update") && go::str_at(e, "apiVersion") == version)
        .and_then(|e| e.get("fieldsV1").cloned());
    if let (Some(f), Value::Object(o)) = (from, &mut entries[target]) {
        let mine = o
            .get("fieldsV1")
            .cloned()
            .unwrap_or(Value::Object(Map::new()));
        o.insert("fieldsV1".into(), union(&mine, &f));
    }
    entries.retain(|e| !is(e, csa, "Update"));
    entries
}

/// The union of two FieldsV1 tries (`{}` is a member without children; `"."` marks a node
/// with children that is a member too).
fn union(a: &Value, b: &Value) -> Value {
    let (Some(x), Some(y)) = (a.as_object(), b.as_object()) else {
        return a.clone();
    };
    let member = x.is_empty() || y.is_empty() || x.contains_key(".") || y.contains_key(".");
    let mut children = Map::new();
    for (k, v) in x.iter().chain(y.iter()) {
        if k == "." {
            continue;
        }
        let merged = match children.get(k) {
            Some(c) => union(c, v),
            None => v.clone(),
        };
        children.insert(k.clone(), merged);
    }
    let mut out = Map::new();
    if member && !children.is_empty() {
        out.insert(".".into(), Value::Object(Map::new()));
    }
    let mut keys: Vec<(String, Value)> = children.into_iter().collect();
    crate::sort::sort_by(&mut keys, |p, q| p.0.cmp(&q.0));
    out.extend(keys);
    Value::Object(out)
}
