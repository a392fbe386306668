//! Request statements: building the HTTP request a statement sends, sending it to the store,
//! and recording what came back in the client and the step's record.

use super::expr;
use super::narrate;
use super::records::{Failure, StepKind, StepRecord, WriteKind};
use super::vars::{set_revision, Held, Var};
use super::world::World;
use crate::json::HValue;
use crate::lang::ast::{PatchType, Scenario, Stmt, StmtKind};
use crate::store::{Actor, Env, Method, ObjectRef, Outcome, Request, Resource, Store};
use serde_json::{Map, Value};

/// Fills `apiVersion`, `kind`, `metadata.name` and `metadata.namespace` from a reference, in
/// that order at the front of the object.
pub(super) fn with_identity(target: &ObjectRef, body: Value) -> Result<Value, String> {
    let Value::Object(fields) = body else {
        return Err(format!(
            "the body for {target} must be an object, not {}",
            expr::type_name(&body)
        ));
    };
    let mut out = Map::new();
    out.insert("apiVersion".into(), target.resource.api_version().into());
    out.insert("kind".into(), target.resource.kind().into());
    let mut meta = match fields.get("metadata") {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    let mut m2 = Map::new();
    m2.insert("name".into(), target.name.clone().into());
    m2.insert("namespace".into(), target.namespace.clone().into());
    for (k, v) in std::mem::take(&mut meta) {
        if k != "name" && k != "namespace" {
            m2.insert(k, v);
        }
    }
    out.insert("metadata".into(), Value::Object(m2));
    for (k, v) in fields {
        if k != "apiVersion" && k != "kind" && k != "metadata" {
            out.insert(k, v);
        }
    }
    Ok(Value::Object(out))
}

/// Where a world's requests go: [`Store::handle`] on the world's own store ([`Direct`], every
/// run, the page and the explorer), or a server's path to the same store (`rvlab serve
/// --interfere scenario FILE`: through its watch cache, so watchers see a scripted client's
/// write; [`World::take_step_via`]). A transport only carries the request: the rules are the
/// store's.
pub trait Transport {
    /// Serves one request on `store` (the world's store) as `actor`.
    fn handle(
        &mut self,
        store: &mut Store,
        request: &Request,
        actor: &Actor,
        env: &mut Env<'_>,
    ) -> Outcome;
}

/// The world's own store, directly.
#[derive(Debug, Clone, Copy, Default)]
pub struct Direct;

impl Transport for Direct {
    fn handle(
        &mut self,
        store: &mut Store,
        request: &Request,
        actor: &Actor,
        env: &mut Env<'_>,
    ) -> Outcome {
        store.handle(request, actor, env)
    }
}

/// What one request did ([`World::send`]).
pub(super) struct Sent {
    pub response: crate::store::Response,
    /// The revision it wrote, when it changed the store.
    pub revision: Option<u64>,
    pub lost_updates: Vec<crate::store::LostUpdate>,
    /// The apiserver's warnings (`Warning:` headers).
    pub warnings: Vec<String>,
    /// The target's revision in the store before and after.
    pub before: Option<u64>,
    pub after: Option<u64>,
}

/// The revision in an object body's `metadata.resourceVersion`.
pub(super) fn body_revision(v: &Value) -> Option<u64> {
    v.get("metadata")?
        .get("resourceVersion")?
        .as_str()?
        .parse()
        .ok()
}

/// The resource a body's `apiVersion`/`kind` names (the store's registry of kinds).
fn resource_of(body: &Value) -> Option<Resource> {
    let api = body.get("apiVersion")?.as_str()?;
    let kind = body.get("kind")?.as_str()?;
    Resource::for_type(api, kind)
}

/// The object's path, or its status subresource's (`…/NAME/status`).
fn object_path(target: &ObjectRef, status: bool) -> String {
    if status {
        format!("{}/status", target.path())
    } else {
        target.path()
    }
}

pub(super) fn query(path: String, manager: &str, force: bool) -> String {
    let mut p = format!("{path}?fieldManager={manager}");
    if force {
        p.push_str("&force=true");
    }
    p
}

/// The resourceVersion a request carried in its body, as sent (`"100"`): an object body's
/// `metadata.resourceVersion`, or else the value of the first JSON patch operation on
/// `/metadata/resourceVersion` (a `test` guard or a `replace`); a value that is not a string
/// as JSON text. A delete's preconditions are not in it.
pub fn sent_resource_version(request: &Request) -> Option<String> {
    let body = request.body.as_ref()?;
    let rv = body.pointer("/metadata/resourceVersion").or_else(|| {
        body.as_array()?.iter().find_map(|op| {
            (op.get("path")?.as_str()? == "/metadata/resourceVersion").then(|| op.get("value"))?
        })
    })?;
    Some(rv.as_str().map_or_else(|| rv.to_string(), str::to_owned))
}

/// What a request statement sends, built before anything is sent.
struct Built {
    verb: WriteKind,
    target: ObjectRef,
    request: Request,
    /// The revision the write is based on (docs/scenario-language.md, "Lost updates, precisely"): the held object's base
    /// for an update, else the latest revision the client observed of the target.
    base: u64,
    /// The variable the response is bound to, if any.
    var: Option<String>,
}

impl World {
    /// The request a statement sends, or the runtime error that stops the client before
    /// anything is sent.
    fn build_request(&self, name: &str, client: u32, stmt: &Stmt) -> Result<Built, String> {
        let vars = &self.clients[client as usize].vars;
        Ok(match &stmt.kind {
            StmtKind::Get {
                var,
                target,
                status,
            } => Built {
                verb: WriteKind::Get,
                target: target.clone(),
                request: Request {
                    method: Method::Get,
                    path: object_path(target, *status),
                    content_type: None,
                    body: None,
                },
                base: self.observed_revision(client, target),
                var: Some(var.clone()),
            },
            StmtKind::Update { var, status } => {
                let v = vars.get(var).ok_or_else(|| {
                    format!("{var} is not defined (nothing was assigned to it yet)")
                })?;
                let body = v.value.0.clone();
                if !body.is_object() {
                    return Err(format!(
                        "update {var}: {var} is {}, not an object",
                        expr::type_name(&body)
                    ));
                }
                let resource = match &v.held {
                    Some(h) => h.object.resource.clone(),
                    None => resource_of(&body).ok_or_else(|| {
                        format!("update {var}: {var} has no apiVersion and kind to send it to")
                    })?,
                };
                let meta = &body["metadata"];
                let name_ = meta["name"]
                    .as_str()
                    .map(str::to_string)
                    .or_else(|| v.held.as_ref().map(|h| h.object.name.clone()))
                    .ok_or_else(|| format!("update {var}: {var} has no metadata.name"))?;
                let namespace = meta["namespace"]
                    .as_str()
                    .map(str::to_string)
                    .or_else(|| v.held.as_ref().map(|h| h.object.namespace.clone()))
                    .unwrap_or_else(|| "default".into());
                let target = ObjectRef {
                    resource,
                    namespace,
                    name: name_,
                };
                let base = match &v.held {
                    Some(h) if h.object == target => h.base,
                    _ => self.observed_revision(client, &target),
                };
                Built {
                    verb: WriteKind::Update,
                    target: target.clone(),
                    request: Request {
                        method: Method::Put,
                        path: query(object_path(&target, *status), name, false),
                        content_type: Some("application/json".into()),
                        body: Some(body),
                    },
                    base,
                    var: Some(var.clone()),
                }
            }
            StmtKind::Create { var, target, body } => {
                let b = match body {
                    Some(e) => expr::eval(e, vars)?,
                    None => Value::Object(Map::new()),
                };
                let b = with_identity(target, b)?;
                Built {
                    verb: WriteKind::Create,
                    target: target.clone(),
                    request: Request {
                        method: Method::Post,
                        path: query(target.collection_path(), name, false),
                        content_type: Some("application/json".into()),
                        body: Some(b),
                    },
                    base: self.observed_revision(client, target),
                    var: var.clone(),
                }
            }
            StmtKind::Patch {
                var,
                target,
                status,
                patch_type,
                body,
            } => {
                let b = expr::eval(body, vars)?;
                let verb = match patch_type {
                    PatchType::Merge => WriteKind::MergePatch,
                    PatchType::Json => WriteKind::JsonPatch,
                    PatchType::Strategic => WriteKind::StrategicPatch,
                    // The parser gives a `patch` statement no apply type (`apply` is its own).
                    PatchType::Apply => WriteKind::Apply,
                };
                Built {
                    verb,
                    target: target.clone(),
                    request: Request {
                        method: Method::Patch,
                        path: query(object_path(target, *status), name, false),
                        content_type: Some(patch_type.content_type().into()),
                        body: Some(b),
                    },
                    base: self.observed_revision(client, target),
                    var: var.clone(),
                }
            }
            StmtKind::Apply {
                var,
                target,
                status,
                body,
                manager,
                force,
            } => {
                let b = with_identity(target, expr::eval(body, vars)?)?;
                Built {
                    verb: WriteKind::Apply,
                    target: target.clone(),
                    request: Request {
                        method: Method::Patch,
                        path: query(object_path(target, *status), manager, *force),
                        content_type: Some("application/apply-patch+yaml".into()),
                        body: Some(b),
                    },
                    base: self.observed_revision(client, target),
                    var: var.clone(),
                }
            }
            StmtKind::Delete {
                target,
                resource_version,
                uid,
            } => {
                let as_text = |v: Value| match v {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                let mut pre = Map::new();
                if let Some(e) = uid {
                    pre.insert("uid".into(), as_text(expr::eval(e, vars)?).into());
                }
                if let Some(e) = resource_version {
                    pre.insert(
                        "resourceVersion".into(),
                        as_text(expr::eval(e, vars)?).into(),
                    );
                }
                // Built by hand: `json!` would serialise `pre` through serde (docs/size.md).
                let body = (!pre.is_empty()).then(|| {
                    let mut o = Map::new();
                    o.insert("kind".into(), "DeleteOptions".into());
                    o.insert("apiVersion".into(), "v1".into());
                    o.insert("preconditions".into(), Value::Object(pre));
                    Value::Object(o)
                });
                Built {
                    verb: WriteKind::Delete,
                    target: target.clone(),
                    request: Request {
                        method: Method::Delete,
                        path: target.path(),
                        content_type: body.as_ref().map(|_| "application/json".to_string()),
                        body,
                    },
                    base: self.observed_revision(client, target),
                    var: None,
                }
            }
            _ => return Err("internal: not a request statement".into()),
        })
    }

    /// Sends one request of `client` (`name`), writing on top of revision `base` of `target`:
    /// the one way a request statement and a kubectl step reach the store, so both keep the
    /// same books. The store answers; a write's revision is recorded with its verb (for the
    /// provenance of lost updates); lost updates are kept; and the client observes the
    /// target's revision the response carries (or the write's, when it succeeded).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn send(
        &mut self,
        via: &mut dyn Transport,
        client: u32,
        name: &str,
        request: &Request,
        target: Option<&ObjectRef>,
        base: u64,
        verb: WriteKind,
    ) -> Sent {
        // What the store held before and after (for the narration of conflicts and no-ops).
        let revision_of = |w: &World| target.and_then(|t| w.store.get(t)).and_then(body_revision);
        let before = revision_of(self);
        let actor = Actor {
            name: name.to_string(),
            base_revision: base,
        };
        let mut env = Env {
            now_ms: self.clock_nanos / 1_000_000,
            rng: &mut self.rng,
        };
        let Outcome {
            response,
            revision,
            lost_updates,
            warnings,
        } = via.handle(&mut self.store, request, &actor, &mut env);
        let ok = (200..300).contains(&response.code);
        if let Some(r) = revision {
            self.record_write(r, verb);
        }
        self.lost_updates.extend(lost_updates.iter().cloned());
        let after = revision_of(self);
        if let Some(t) = target {
            let observed = body_revision(&response.body).or(if ok { revision } else { None });
            if let Some(r) = observed {
                set_revision(&mut self.clients[client as usize].observed, t, r);
            }
        }
        Sent {
            response,
            revision,
            lost_updates,
            warnings,
            before,
            after,
        }
    }

    /// Runs a request statement: builds the request, sends it, records what came back in the
    /// client (its observed revision, the bound variable) and in the step's record.
    pub(super) fn request_stmt(
        &mut self,
        via: &mut dyn Transport,
        scenario: &Scenario,
        client: u32,
        stmt: &Stmt,
        mut rec: StepRecord,
    ) -> StepRecord {
        let name = scenario.clients[client as usize].name.clone();
        let Built {
            verb,
            target,
            request,
            base,
            var,
        } = match self.build_request(&name, client, stmt) {
            Ok(x) => x,
            Err(e) => return self.runtime_error(scenario, client, rec, e),
        };
        rec.action = StepKind::Request;
        rec.verb = Some(verb);
        rec.target = Some(target.clone());
        let Sent {
            response,
            revision,
            lost_updates,
            before,
            after,
            ..
        } = self.send(via, client, &name, &request, Some(&target), base, verb);
        let ok = (200..300).contains(&response.code);
        {
            let c = &mut self.clients[client as usize];
            if ok {
                if let (Some(var), true) = (&var, response.body.is_object()) {
                    let held = body_revision(&response.body).map(|b| Held {
                        object: target.clone(),
                        base: b,
                    });
                    c.vars.insert(
                        var.clone(),
                        Var {
                            value: HValue(response.body.clone()),
                            held,
                        },
                    );
                }
            }
        }
        let ctx = narrate::RequestCtx {
            client: &name,
            verb,
            target: &target,
            request: &request,
            response: &response,
            revision,
            before,
            after,
            lost: &lost_updates,
            store: &self.store,
            verbs: &self.write_verbs,
        };
        let mut sentence = narrate::request(&ctx);
        rec.mark = narrate::mark(&response, !lost_updates.is_empty());
        rec.sent_resource_version = sent_resource_version(&request);
        rec.stored_revision = before;
        rec.request = Some(request);
        rec.revision = revision;
        rec.lost_updates = lost_updates;
        if ok {
            self.advance(client);
        } else {
            let failure = Failure::from_response(&response);
            if let (StmtKind::Update { var, .. }, true) = (&stmt.kind, failure.is_conflict()) {
                if let Some(hint) = self.no_reread_hint(scenario, client, var) {
                    sentence = format!("{sentence} ({hint})");
                }
            }
            let note = self.fail(scenario, client, failure);
            sentence = format!("{sentence}; {note}");
        }
        rec.response = Some(response);
        rec.narration = sentence;
        rec
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_of_a_custom_kind_is_its_ascii_plural_and_other_kinds_name_none() {
        let body = |api: &str, kind: &str| serde_json::json!({"apiVersion": api, "kind": kind});
        let plural = |r: Option<Resource>| match r {
            Some(Resource::Custom { plural, .. }) => Some(plural),
            _ => None,
        };
        assert_eq!(
            plural(resource_of(&body("example.com/v1", "Widget"))).as_deref(),
            Some("widgets")
        );
        assert_eq!(
            plural(resource_of(&body("example.com/v1", "Policy"))).as_deref(),
            Some("policies")
        );
        assert!(resource_of(&body("example.com/v1", "Wídget")).is_none());
        assert!(matches!(
            resource_of(&body("v1", "ConfigMap")),
            Some(Resource::ConfigMap)
        ));
    }
}
