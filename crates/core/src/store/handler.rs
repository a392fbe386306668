//! `Store::handle`: the request handlers, with the apiserver's order of checks.
//!
//! Decoding defaults the object (a Deployment's defaults, module `defaults`): a create's, an
//! update's and a non-apply patch's before the field manager sees it (the writer owns what
//! defaulting filled), a server-side apply's merged object after it (nobody does).
//!
//! - **POST**: CreateOptions `dryRun` (422) → decode (400) → namespace (400) → strict namespaces
//!   (404, `namespace`) → system fields → validation (422) →
//!   resourceVersion on create (numeric non-zero: raw 500; unparseable: cleared) → existing
//!   name (409 AlreadyExists) → write (201).
//! - **PUT**: UpdateOptions `dryRun` (422) → decode (400) → namespace, name (400) → missing (404) → UID precondition of a body
//!   `metadata.uid` (409, k8s.io/apiserver `pkg/registry/rest/update.go`) → the update closure below.
//! - **PATCH**: media type (415) → PatchOptions (`force`, `fieldManager`, `dryRun`: 422) → missing (404; apply creates, 201) →
//!   patch (400/422) or apply (409 conflicts) → decode, `checkName` (400) → the update closure.
//! - **update closure** (`Store.Update`, k8s.io/apiserver `pkg/registry/generic/registry/store.go`):
//!   resourceVersion parse (raw 500) → `0`/empty: unconditional for ConfigMap and Deployment, 422 for
//!   custom resources → mismatch 409 → `BeforeUpdate` (uid, creationTimestamp, generation, a Deployment's
//!   status kept) → validation (422) → generation → ownership → no-op check (200, nothing written) → write (200).
//! - **DELETE**: DeleteOptions (400 decode, 422 validation; module `options`) → missing (404)
//!   → preconditions UID then resourceVersion (409, Kind-named) → the garbage collector's
//!   finalizers (`propagationPolicy`) → with finalizers left: marked as being deleted
//!   (`deletionTimestamp`, `deletionGracePeriodSeconds: 0`, `generation` + 1; 200 with the
//!   object; nothing written when already marked) → else deleted (200 Status Success).
//! - **Deletion through an update**: an update keeps the deletion fields, refuses a new
//!   finalizer on an object being deleted (422), and deletes the object when it leaves it no
//!   finalizer (answered as written, at its old resourceVersion).
//! - **dryRun=All** on any write: the write runs on a copy of the store (module `options`).
//! - **GET** an object (200 / 404); GET of a collection returns a list. Other method/path
//!   combinations (POST to a name, PUT to a collection, …) are 405 MethodNotAllowed.
//! - **A Deployment's `status` subresource** (`…/deployments/NAME/status`): GET (the whole
//!   object, as the main resource), PUT and PATCH (every patch type and apply) through the same
//!   checks, with the status strategy (kubernetes `pkg/registry/apps/deployment/strategy.go`,
//!   `deploymentStatusStrategy.PrepareForUpdate`): the written object keeps the old `spec` and
//!   `metadata.labels` and takes everything else from the request (its `status`, and the
//!   metadata `BeforeUpdate` lets through: annotations, finalizers, owner references);
//!   `generation` is never bumped; managedFields entries carry `"subresource": "status"`; no
//!   create through it (an apply to a missing object is 404, `forceAllowCreate` is false for
//!   status); POST and DELETE are 405. `ValidateDeploymentStatusUpdate` (non-negative replica
//!   counts, …) is not modelled.
//!
//! Bodies are given already parsed; a missing body where one is needed is a 400. When the
//! request carries no `fieldManager`, the actor's name manages the write.

use super::defaults;
use super::fields::{self, Manager};
use super::meta::{self, meta_str, set_meta};
use super::namespace;
use super::options;
use super::patch::{self, PatchType};
use super::path::{self, RequestTarget};
use super::status::{self, FieldError};
use super::strict;
use super::{
    provenance, Actor, Entry, Env, EventType, Method, ObjectRef, Outcome, Request, Resource,
    Response, Store, Undo, WatchEvent, API,
};
use super::{schema, strategic};
use serde_json::{Map, Value};

/// How a namespace mismatch is worded.
#[derive(Clone, Copy, PartialEq, Eq)]
enum NsCheck {
    /// `EnsureObjectNamespaceMatchesRequestNamespace` (create, update).
    Request,
    /// `checkName` (patch).
    CheckName,
}

/// Who owns the fields after an update.
enum Ownership {
    /// A non-apply write by the request's manager.
    Update,
    /// Computed by server-side apply.
    Set(Vec<Manager>),
}

/// Per-request context.
struct Ctx<'a> {
    actor: &'a Actor,
    manager: String,
    now: String,
    /// The managedFields subresource of the write: `""` (the main resource) or `"status"`.
    sub: &'static str,
}

fn ok(code: u16, body: Value) -> Outcome {
    Outcome {
        response: Response { code, body },
        revision: None,
        lost_updates: Vec::new(),
        warnings: Vec::new(),
    }
}

/// `fieldValidation` of a POST / PUT body (after its type check, which wins).
fn strict_body(res: &Resource, req: &Request) -> Result<Vec<String>, Response> {
    match req.body.as_ref() {
        Some(b) if meta::decode_check(res, b).is_ok() => {
            strict::check_body(res, b, strict::directive(&req.path))
        }
        _ => Ok(Vec::new()),
    }
}

fn with_warnings(mut o: Outcome, warnings: Vec<String>) -> Outcome {
    o.warnings = warnings;
    o
}

fn without_managed_fields(v: &Value) -> Value {
    let mut v = v.clone();
    set_meta(&mut v, "managedFields", Value::Null);
    v
}

/// Checks and completes a body: Go types (400), `apiVersion`/`kind`, namespace and name.
fn prepare(
    res: &Resource,
    body: Option<&Value>,
    namespace: &str,
    name: Option<&str>,
    ns_check: NsCheck,
) -> Result<Value, Response> {
    let Some(body) = body else {
        return Err(status::bad_request("the body of the request was empty"));
    };
    meta::decode_check(res, body)?;
    let mut obj = body.clone();
    let Some(o) = obj.as_object_mut() else {
        return Err(status::bad_request("the body of the request was empty"));
    };
    let expected_av = res.api_version();
    match o.get("apiVersion").and_then(Value::as_str) {
        Some(av) if !av.is_empty() && av != expected_av => {
            return Err(status::bad_request(&format!(
                "the API version in the data ({av}) does not match the expected API version ({expected_av})"
            )))
        }
        _ => {}
    }
    let expected_kind = res.kind();
    match o.get("kind").and_then(Value::as_str) {
        Some(k) if !k.is_empty() && k != expected_kind => {
            return Err(status::bad_request(&format!(
                "the kind in the data ({k}) does not match the expected kind ({expected_kind})"
            )))
        }
        _ => {}
    }
    o.insert("apiVersion".into(), expected_av.into());
    o.insert("kind".into(), expected_kind.into());
    if !matches!(o.get("metadata"), Some(Value::Object(_))) {
        o.insert("metadata".into(), Value::Object(Map::new()));
    }
    if API && res == &Resource::Secret {
        meta::merge_string_data(&mut obj);
    }
    let ns = meta_str(&obj, "namespace").to_string();
    if res.is_cluster_scoped() {
        // `EnsureObjectNamespaceMatchesRequestNamespace`: cleared for a cluster-scoped kind.
        set_meta(&mut obj, "namespace", Value::Null);
    } else if ns.is_empty() {
        set_meta(&mut obj, "namespace", namespace.into());
    } else if ns != namespace {
        return Err(status::bad_request(&match ns_check {
            NsCheck::Request => {
                "the namespace of the provided object does not match the namespace sent on the request"
                    .to_string()
            }
            NsCheck::CheckName => format!(
                "the namespace of the object ({ns}) does not match the namespace on the request ({namespace})"
            ),
        }));
    }
    if let Some(url_name) = name {
        let n = meta_str(&obj, "name").to_string();
        if n.is_empty() {
            set_meta(&mut obj, "name", url_name.into());
        } else if n != url_name {
            return Err(status::bad_request(&format!(
                "the name of the object ({n}) does not match the name on the URL ({url_name})"
            )));
        }
    }
    Ok(obj)
}

/// The etcd key of an object, as `StorageError` prints it.
fn storage_key(r: &ObjectRef) -> String {
    let prefix = match &r.resource {
        Resource::Custom { plural, group } => format!("{group}/{plural}"),
        other => other.plural().to_string(),
    };
    if r.resource.is_cluster_scoped() {
        return format!("/registry/{prefix}/{}", r.name);
    }
    format!("/registry/{prefix}/{}/{}", r.namespace, r.name)
}

/// Fills the system fields of an object about to be created (`FillObjectMetaSystemFields`,
/// `PrepareForCreate`).
fn fill_create_fields(res: &Resource, obj: &mut Value, env: &mut Env, now: &str) {
    // `WipeObjectMetaSystemFields` (k8s.io/apiserver `pkg/registry/rest/meta.go`, from the
    // create handler): the deletion fields and `selfLink` are the server's.
    if API {
        for key in [
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "selfLink",
        ] {
            set_meta(obj, key, Value::Null);
        }
    }
    set_meta(obj, "uid", env.rng.uuid().into());
    set_meta(obj, "creationTimestamp", now.into());
    // Only the kinds whose strategy sets one (a Deployment, a custom resource) start at 1: a
    // ConfigMap's, a Secret's or a Namespace's is kept as sent (the reference's answers).
    let keeps_sent = API
        && matches!(
            res,
            Resource::ConfigMap | Resource::Secret | Resource::Namespace
        );
    if !keeps_sent {
        set_meta(obj, "generation", meta::generation_on_create(res));
    }
    set_meta(obj, "managedFields", Value::Null);
    if *res == Resource::Deployment {
        if let Some(o) = obj.as_object_mut() {
            o.insert("status".into(), Value::Object(Map::new()));
        }
    }
}

/// The name an admission plugin reports for a create (`extractResourceName` in k8s.io/apiserver
/// `pkg/admission/errors.go`): the object's name, else its `generateName`, else `Unknown`.
fn admission_name(obj: &Value) -> String {
    match (meta_str(obj, "name"), meta_str(obj, "generateName")) {
        ("", "") => "Unknown".into(),
        ("", g) => g.into(),
        (n, _) => n.into(),
    }
}

/// `generateName` + 5 characters of apimachinery's `utilrand` alphabet.
fn generated_name(prefix: &str, env: &mut Env) -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut s = prefix.to_string();
    for _ in 0..5 {
        let i = env.rng.below(ALPHABET.len() as u32) as usize;
        s.push(char::from(ALPHABET[i]));
    }
    s
}

impl Store {
    /// Serves one request. Never panics; every failure is a Status body with its code, and only
    /// an accepted, effective write changes the store (and takes a revision).
    pub fn handle(&mut self, req: &Request, actor: &Actor, env: &mut Env) -> Outcome {
        let t = match path::parse(&req.path) {
            Ok(t) => t,
            Err(resp) => return Outcome::failed(resp),
        };
        let ctx = Ctx {
            actor,
            manager: t
                .field_manager
                .clone()
                .unwrap_or_else(|| actor.name.clone()),
            now: meta::timestamp(env.now_ms),
            sub: t.sub,
        };
        let dry = match (req.method, &req.body) {
            (Method::Get, _) => false,
            (Method::Delete, Some(Value::Object(o))) => o
                .get("dryRun")
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty()),
            (Method::Delete, Some(b)) if !b.is_null() => false,
            _ => !t.query.dry_run.is_empty(),
        };
        if API && dry {
            return self.dry_run(&t, req, &ctx, env);
        }
        self.dispatch(&t, req, &ctx, env)
    }

    /// A dry run: the write made and then undone ([`Store::undo_point`]), answered as the
    /// dry-run storage answers it: a dry run costs what its write costs, not a copy of the
    /// store (issue #37).
    fn dry_run(&mut self, t: &RequestTarget, req: &Request, ctx: &Ctx, env: &mut Env) -> Outcome {
        let mut undo = self.undo_point_of(t);
        let events = self.events.len();
        let mut out = self.dispatch(t, req, ctx, env);
        undo.completed(&out);
        self.undo(&undo);
        self.events.truncate(events);
        let body = &mut out.response.body;
        if body.get("kind").and_then(Value::as_str) != Some("Status") {
            let stored = t
                .name
                .as_deref()
                .and_then(|n| self.objects.get(&objref(t, n)))
                .map(|e| meta_str(&e.object, "resourceVersion").to_string());
            let rv = match (out.response.code, stored) {
                (200, Some(rv)) => Value::String(rv),
                _ => Value::Null,
            };
            set_meta(body, "resourceVersion", rv);
        }
        out.revision = None;
        out.lost_updates.clear();
        out
    }

    /// Routes a parsed request to its handler.
    fn dispatch(&mut self, t: &RequestTarget, req: &Request, ctx: &Ctx, env: &mut Env) -> Outcome {
        let cluster = t.resource.is_cluster_scoped();
        let namespace = API && t.resource == Resource::Namespace;
        // A namespace that exists without a write is stored for a write of it, and taken out
        // again when nothing was written (module `namespace`).
        let stored_now = match (req.method, t.name.as_deref()) {
            (Method::Put | Method::Patch | Method::Delete, Some(n)) if namespace => {
                self.store_implicit_namespace(n)
            }
            _ => false,
        };
        let result = match (req.method, t.name.as_deref()) {
            // The status subresource serves GET, PUT and PATCH (its REST storage has no
            // create or delete); a Namespace's `finalize` only PUT (an Updater without a
            // Getter, so no PATCH either).
            (Method::Post | Method::Delete, _) if !t.sub.is_empty() => {
                Err(status::method_not_allowed())
            }
            (Method::Get | Method::Patch, _) if API && t.sub == "finalize" => {
                Err(status::method_not_allowed())
            }
            (Method::Get, Some(name)) => self.do_get(t, name),
            (Method::Get, None) if API => self.do_list(t).map(|r| ok(r.code, r.body)),
            (Method::Get, None) => {
                let r = self.do_list_plain(t);
                Ok(ok(r.code, r.body))
            }
            // The every-namespace paths serve only LIST (and WATCH).
            (Method::Post, None) if cluster || !t.namespace.is_empty() => {
                self.do_create(t, req, ctx, env)
            }
            _ if cluster && !namespace => Err(status::method_not_allowed()),
            (Method::Put, Some(name)) => self.do_update(t, name, req, ctx),
            (Method::Patch, Some(name)) => self.do_patch(t, name, req, ctx, env),
            (Method::Delete, Some(name)) => self.do_delete(t, name, req, ctx),
            _ => Err(status::method_not_allowed()),
        };
        let out = result.unwrap_or_else(Outcome::failed);
        if stored_now && out.revision.is_none() {
            if let Some(n) = t.name.as_deref() {
                self.unstore_namespace(n);
            }
        }
        out
    }

    /// NamespaceLifecycle admission of a create of `name` (or `generateName`) in `ns`: a
    /// missing namespace (strict namespaces only) is 404, a `Terminating` one 403.
    fn admit_namespace(&self, res: &Resource, name: &str, ns: &str) -> Result<(), Response> {
        if API && self.strict_namespaces && !ns.is_empty() && !self.namespace_exists(ns) {
            return Err(status::not_found(&Resource::Namespace, ns));
        }
        #[cfg(feature = "api")]
        if !ns.is_empty() && self.namespace_terminating(ns) {
            return Err(status::forbidden(
                res,
                name,
                &format!(
                    "unable to create new content in namespace {ns} because it is being terminated"
                ),
                Some((
                    "NamespaceTerminating",
                    format!("namespace {ns} is being terminated"),
                    "metadata.namespace",
                )),
            ));
        }
        let _ = (res, name);
        Ok(())
    }

    fn do_get(&self, t: &RequestTarget, name: &str) -> Result<Outcome, Response> {
        // GetOptions.resourceVersion (k8s.io/apimachinery `pkg/apis/meta/v1/types.go`): unset/`0`/
        // not older than N; the store serves its current state, which is never older than an N it
        // has reached. The watch cache (k8s.io/apiserver `pkg/storage/cacher`) answers a parse error
        // raw (500) and an N ahead of it with 504 (after waiting, here at once), both before any lookup.
        if let Some(rv) = t
            .query
            .resource_version
            .as_deref()
            .filter(|r| API && !r.is_empty())
        {
            let n = meta::parse_rv(rv).map_err(|e| {
                status::raw_internal(&format!(
                    "resourceVersion: Invalid value: {}: {e}",
                    status::quote(rv)
                ))
            })?;
            if n > self.revision {
                return Err(status::too_large_resource_version(n, self.revision));
            }
        }
        if API && t.resource == Resource::Namespace {
            return match self.namespace_object(name) {
                Some(o) => Ok(ok(200, o)),
                None => Err(status::not_found(&t.resource, name)),
            };
        }
        let r = objref(t, name);
        match self.objects.get(&r) {
            Some(e) => Ok(ok(200, e.object.clone())),
            None => Err(status::not_found(&t.resource, name)),
        }
    }

    fn do_create(
        &mut self,
        t: &RequestTarget,
        req: &Request,
        ctx: &Ctx,
        env: &mut Env,
    ) -> Result<Outcome, Response> {
        let res = &t.resource;
        let mut errs = if API {
            options::dry_run_errors(&t.query.dry_run)
        } else {
            Vec::new()
        };
        errs.extend(strict::directive_errors(&req.path));
        options::check("CreateOptions", &errs)?;
        let warnings = strict_body(res, req)?;
        let mut obj = prepare(res, req.body.as_ref(), &t.namespace, None, NsCheck::Request)?;
        strict::strip_unknown(res, &mut obj);
        defaults::default_object(res, &mut obj);
        // (The name is for the `api` feature's 403 only.)
        let name = if API {
            admission_name(&obj)
        } else {
            String::new()
        };
        self.admit_namespace(res, &name, &t.namespace)?;
        if meta_str(&obj, "name").is_empty() {
            let prefix = meta_str(&obj, "generateName").to_string();
            if !prefix.is_empty() {
                let name = generated_name(&prefix, env);
                set_meta(&mut obj, "name", name.into());
            }
        }
        fill_create_fields(res, &mut obj, env, &ctx.now);
        let name = meta_str(&obj, "name").to_string();
        let errs = meta::validate(res, &obj, None);
        if !errs.is_empty() {
            return Err(status::invalid_object(res, &name, &errs));
        }
        match meta::parse_rv(meta_str(&obj, "resourceVersion")) {
            Ok(0) | Err(_) => {}
            Ok(_) => {
                return Err(status::raw_internal(
                    "resourceVersion should not be set on objects to be created",
                ))
            }
        }
        set_meta(&mut obj, "resourceVersion", Value::Null);
        let r = objref(t, &name);
        let exists = match res {
            Resource::Namespace if API => self.namespace_exists(&name),
            _ => self.objects.contains_key(&r),
        };
        if exists {
            let mut err = status::already_exists(res, &name);
            // `Store.Create` (k8s.io/apiserver `pkg/registry/generic/registry/store.go`) says
            // why when the object is on its way out.
            let deleting = API
                && self.objects.get(&r).is_some_and(|e| {
                    e.object
                        .get("metadata")
                        .and_then(|m| m.get("deletionTimestamp"))
                        .is_some()
                });
            if deleting {
                if let Some(Value::String(m)) = err.body.get_mut("message") {
                    *m = format!("object is being deleted: {m}");
                }
            }
            return Err(err);
        }
        let mut obj = meta::canonicalize(res, &obj);
        let managers = fields::after_update(res, &[], None, &obj, &ctx.manager, &ctx.now);
        if API && *res == Resource::Namespace {
            // `PrepareForCreate` before the field manager in the apiserver, but what it sets
            // is the strategy's, not the creator's (module `namespace`); `Canonicalize` (after
            // it) gives a generated name its label, which nobody owns either.
            namespace::prepare_for_create(&mut obj);
            namespace::default_labels(&mut obj);
        }
        Ok(with_warnings(
            self.commit(r, obj, managers, ctx.actor, 201),
            warnings,
        ))
    }

    fn do_update(
        &mut self,
        t: &RequestTarget,
        name: &str,
        req: &Request,
        ctx: &Ctx,
    ) -> Result<Outcome, Response> {
        let res = &t.resource;
        let mut errs = if API {
            options::dry_run_errors(&t.query.dry_run)
        } else {
            Vec::new()
        };
        errs.extend(strict::directive_errors(&req.path));
        options::check("UpdateOptions", &errs)?;
        let warnings = strict_body(res, req)?;
        let mut obj = prepare(
            res,
            req.body.as_ref(),
            &t.namespace,
            Some(name),
            NsCheck::Request,
        )?;
        strict::strip_unknown(res, &mut obj);
        defaults::default_object(res, &mut obj);
        let r = objref(t, name);
        let Some(entry) = self.objects.get(&r) else {
            return Err(status::not_found(res, name));
        };
        let (body_uid, cur_uid) = (meta_str(&obj, "uid"), meta_str(&entry.object, "uid"));
        if !body_uid.is_empty() && body_uid != cur_uid {
            let err = format!(
                "StorageError: invalid object, Code: 4, Key: {}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: {body_uid}, UID in object meta: {cur_uid}",
                storage_key(&r)
            );
            return Err(status::conflict(res, name, &err));
        }
        self.finish_update(r, obj, Ownership::Update, ctx)
            .map(|o| with_warnings(o, warnings))
    }

    fn do_patch(
        &mut self,
        t: &RequestTarget,
        name: &str,
        req: &Request,
        ctx: &Ctx,
        env: &mut Env,
    ) -> Result<Outcome, Response> {
        let res = &t.resource;
        let ty = match PatchType::from_content_type(req.content_type.as_deref()) {
            Some(PatchType::Strategic) if matches!(res, Resource::Custom { .. }) => None,
            other => other,
        };
        let Some(ty) = ty else {
            return Err(status::unsupported_media_type(patch::accepted(res)));
        };
        // ValidatePatchOptions: force or fieldManager by patch type, then dryRun.
        let mut errs = Vec::new();
        if ty != PatchType::Apply && t.force.is_some() {
            errs.push(FieldError::forbidden(
                "force",
                "may not be specified for non-apply patch",
            ));
        }
        if ty == PatchType::Apply && t.field_manager.is_none() {
            errs.push(FieldError::required(
                "fieldManager",
                "is required for apply patch",
            ));
        }
        if API {
            errs.extend(options::dry_run_errors(&t.query.dry_run));
        }
        errs.extend(strict::directive_errors(&req.path));
        options::check("PatchOptions", &errs)?;
        let Some(body) = req.body.as_ref() else {
            return Err(status::bad_request("the body of the request was empty"));
        };
        let r = objref(t, name);
        if ty == PatchType::Apply {
            return self.do_apply(t, r, body, ctx, env);
        }
        let Some(entry) = self.objects.get(&r) else {
            return Err(status::not_found(res, name));
        };
        let (patched, smp) = patch::apply_patch(res, ty, &entry.object, body)?;
        let warnings = if meta::decode_check(res, &patched).is_ok() {
            strict::check_patched(res, smp.as_ref(), &patched, strict::directive(&req.path))?
        } else {
            #[cfg(feature = "api")]
            if let Some(e) = strict::patched_decode_error(res, ty, body, &patched) {
                return Err(e);
            }
            Vec::new()
        };
        // `checkName` (k8s.io/apiserver `pkg/endpoints/handlers/rest.go`) on the patched
        // object: a patch that removes `metadata` or its name is refused, not filled in from
        // the URL as a PUT's body is.
        if API && meta_str(&patched, "name").is_empty() {
            return Err(status::bad_request(&format!(
                "the name of the object ({name} based on URL) was undeterminable: name must be provided"
            )));
        }
        let mut obj = prepare(
            res,
            Some(&patched),
            &t.namespace,
            Some(name),
            NsCheck::CheckName,
        )?;
        strict::strip_unknown(res, &mut obj);
        if ty == PatchType::Strategic {
            strategic::drop_directive_keys(&mut obj, schema::builtin().root(&res.kind()));
        }
        defaults::default_object(res, &mut obj);
        self.finish_update(r, obj, Ownership::Update, ctx)
            .map(|o| with_warnings(o, warnings))
    }

    fn do_apply(
        &mut self,
        t: &RequestTarget,
        r: ObjectRef,
        body: &Value,
        ctx: &Ctx,
        env: &mut Env,
    ) -> Result<Outcome, Response> {
        let res = &t.resource;
        #[allow(unused_mut, reason = "changed with the api feature only")]
        let mut cfg = prepare(
            res,
            Some(body),
            &t.namespace,
            Some(&r.name),
            NsCheck::CheckName,
        )?;
        // A Secret's applied `stringData` is owned as applied (`f:stringData`: the field
        // manager computes the set from the applied configuration, before the conversion
        // merges `stringData` into `data`; the reference's answers), so the configuration keeps
        // it and the merged object has it merged into `data` afterwards. Updates own `f:data`
        // (they are converted first). With the `api` feature, as Secrets are.
        #[cfg(feature = "api")]
        let string_data = match body.get("stringData") {
            Some(Value::Object(sd)) if *res == Resource::Secret && !sd.is_empty() => {
                let mut plain = body.clone();
                if let Some(o) = plain.as_object_mut() {
                    o.shift_remove("stringData");
                }
                cfg = prepare(
                    res,
                    Some(&plain),
                    &t.namespace,
                    Some(&r.name),
                    NsCheck::CheckName,
                )?;
                if let Some(o) = cfg.as_object_mut() {
                    o.insert("stringData".into(), Value::Object(sd.clone()));
                }
                true
            }
            _ => false,
        };
        #[cfg(not(feature = "api"))]
        let string_data = false;
        let force = t.force == Some(true);
        match self.objects.get(&r) {
            // The status storage updates with `forceAllowCreate` false: nothing to create.
            None if !t.sub.is_empty() => Err(status::not_found(res, &r.name)),
            None => {
                self.admit_namespace(res, &r.name, &t.namespace)?;
                // Create through apply (`forceAllowCreate`): system fields wiped and filled; an
                // applied resourceVersion is dropped like any stored RV.
                let mut obj = fields::merge(res, &Value::Object(Map::new()), &cfg);
                if string_data {
                    meta::merge_string_data(&mut obj);
                }
                // Defaulted after the field manager's merge: the applier owns only `cfg`.
                defaults::default_object(res, &mut obj);
                fill_create_fields(res, &mut obj, env, &ctx.now);
                set_meta(&mut obj, "resourceVersion", Value::Null);
                let errs = meta::validate(res, &obj, None);
                if !errs.is_empty() {
                    return Err(status::invalid_object(res, &r.name, &errs));
                }
                let mut obj = meta::canonicalize(res, &obj);
                let managers = fields::created_by_apply(res, &obj, &cfg, &ctx.manager, &ctx.now);
                if API && *res == Resource::Namespace {
                    namespace::prepare_for_create(&mut obj);
                }
                Ok(self.commit(r, obj, managers, ctx.actor, 201))
            }
            Some(entry) => {
                let live = without_managed_fields(&entry.object);
                // `skipNonAppliedManager.Apply` (k8s.io/apimachinery `pkg/util/managedfields/
                // internal/skipnonapplied.go`): the first apply to an untracked object first
                // records the object as an update from nothing by `before-first-apply`, which
                // then owns every field the applier does not take (the reference's answers).
                // (With the `api` feature, as the untracked update it follows.)
                #[cfg(feature = "api")]
                let first = entry.managers.is_empty().then(|| {
                    fields::after_update_to(
                        res,
                        ctx.sub,
                        &[],
                        None,
                        &live,
                        "before-first-apply",
                        &ctx.now,
                    )
                });
                #[cfg(not(feature = "api"))]
                let first: Option<Vec<Manager>> = None;
                let mut applied = fields::apply_to(
                    res,
                    ctx.sub,
                    &live,
                    first.as_deref().unwrap_or(&entry.managers),
                    &cfg,
                    &ctx.manager,
                    force,
                    &ctx.now,
                )?;
                if string_data {
                    meta::merge_string_data(&mut applied.object);
                }
                // `structuredMergeManager.Apply` defaults the merged object after computing
                // ownership: nobody takes the defaults.
                defaults::default_object(res, &mut applied.object);
                self.finish_update(r, applied.object, Ownership::Set(applied.managers), ctx)
            }
        }
    }

    /// The registry's update closure (`Store.Update`, `pkg/registry/generic/registry/store.go`) and the write.
    fn finish_update(
        &mut self,
        r: ObjectRef,
        mut obj: Value,
        own: Ownership,
        ctx: &Ctx,
    ) -> Result<Outcome, Response> {
        let res = r.resource.clone();
        let Some(entry) = self.objects.get(&r) else {
            return Err(status::not_found(&res, &r.name));
        };
        let old = without_managed_fields(&entry.object);
        let cur_rv = meta_str(&old, "resourceVersion").to_string();
        let rv = meta::parse_rv(meta_str(&obj, "resourceVersion"))
            .map_err(|e| status::raw_internal(&e))?;
        if rv == 0 {
            if matches!(res, Resource::Custom { .. }) {
                return Err(status::invalid(
                    res.group(),
                    res.plural(),
                    &r.name,
                    &[FieldError::invalid(
                        "metadata.resourceVersion",
                        0.into(),
                        "must be specified for an update",
                    )],
                ));
            }
        } else if meta::parse_rv(&cur_rv) != Ok(rv) {
            return Err(status::optimistic_lock(&res, &r.name));
        }
        set_meta(&mut obj, "resourceVersion", cur_rv.into());
        // BeforeUpdate.
        if meta_str(&obj, "uid").is_empty() {
            set_meta(&mut obj, "uid", meta_str(&old, "uid").into());
        }
        for key in ["creationTimestamp", "generation"] {
            let v = old
                .get("metadata")
                .and_then(|m| m.get(key))
                .cloned()
                .unwrap_or(Value::Null);
            set_meta(&mut obj, key, v);
        }
        // The ownership of an update comes from the object as sent, before the registry's
        // `BeforeUpdate` and the strategy's `PrepareForUpdate` below (the field manager runs
        // first): a PUT without the deletion fields removes them from their owners although
        // `BeforeUpdate` puts them back, and a Namespace's writer owns the `spec.finalizers`
        // it sent although its strategy puts the old ones back (only `status` is a reset
        // field). Both are the reference's answers (`reference/goldens/apply-prune.json`,
        // `namespaces.json`). (With the `api` feature: the page's store takes it after them,
        // docs/size.md.)
        #[cfg(feature = "api")]
        let as_sent = Some(meta::canonicalize(&res, &obj));
        #[cfg(not(feature = "api"))]
        let as_sent: Option<Value> = None;
        // BeforeUpdate (k8s.io/apiserver `pkg/registry/rest/update.go`): "an update can never
        // remove/change a deletion timestamp", nor remove its grace period.
        #[cfg(feature = "api")]
        let old_meta = old.get("metadata");
        // `PrepareObjectForStorage` (k8s.io/apiserver `pkg/storage/api_object_versioner.go`):
        // no `selfLink` is stored.
        #[cfg(feature = "api")]
        set_meta(&mut obj, "selfLink", Value::Null);
        #[cfg(feature = "api")]
        if let Some(ts) = old_meta.and_then(|m| m.get("deletionTimestamp")) {
            set_meta(&mut obj, "deletionTimestamp", ts.clone());
        }
        #[cfg(feature = "api")]
        if let Some(g) = old_meta.and_then(|m| m.get("deletionGracePeriodSeconds")) {
            if obj
                .get("metadata")
                .and_then(|m| m.get("deletionGracePeriodSeconds"))
                .is_none()
            {
                set_meta(&mut obj, "deletionGracePeriodSeconds", g.clone());
            }
        }
        // `decodeLiveOrNew` (k8s.io/apimachinery `pkg/util/managedfields/internal/
        // fieldmanager.go`): an update of the main resource whose body carries managedFields
        // that decode starts from those, not the live ones (a client that PUTs back what it
        // read sends the entries of then); `[{}]` resets them. (With the `api` feature: the
        // page's store keeps the live ones, docs/size.md.)
        #[cfg(feature = "api")]
        let sent = match obj.get("metadata").and_then(|m| m.get("managedFields")) {
            Some(m) if ctx.sub.is_empty() && matches!(own, Ownership::Update) => {
                if m.as_array()
                    .is_some_and(|a| a.len() == 1 && a[0].as_object().is_some_and(|o| o.is_empty()))
                {
                    Some(Vec::new())
                } else {
                    fields::parse_managed(m)
                        .filter(|m| !m.is_empty())
                        .map(|m| fields::in_live_order(m, &entry.managers))
                }
            }
            _ => None,
        };
        #[cfg(not(feature = "api"))]
        let sent: Option<Vec<Manager>> = None;
        set_meta(&mut obj, "managedFields", Value::Null);
        // PrepareForUpdate: the main resource keeps the old status; the status subresource
        // keeps the old spec and labels.
        if res == Resource::Deployment {
            let key = if ctx.sub == "status" {
                "spec"
            } else {
                "status"
            };
            let v = old.get(key).cloned().unwrap_or(Value::Null);
            if let Some(o) = obj.as_object_mut() {
                o.insert(key.into(), v);
            }
            if ctx.sub == "status" {
                let labels = old.get("metadata").and_then(|m| m.get("labels")).cloned();
                set_meta(&mut obj, "labels", labels.unwrap_or(Value::Null));
            }
        }
        #[allow(unused_mut, reason = "extended with the api feature only")]
        let mut errs = meta::validate(&res, &obj, Some(&old));
        #[cfg(feature = "api")]
        if res == Resource::Namespace {
            namespace::prepare_for_update(ctx.sub, &old, &mut obj);
            errs.extend(namespace::validate_update(ctx.sub, &obj));
        }
        if !errs.is_empty() {
            return Err(status::invalid_object(&res, &r.name, &errs));
        }
        let mut obj = meta::canonicalize(&res, &obj);
        if ctx.sub.is_empty() {
            // The status strategy bumps no generation (BeforeUpdate kept the old one).
            let generation = meta::generation_after_update(&res, &old, &obj);
            set_meta(&mut obj, "generation", generation);
        }
        let managers = match own {
            Ownership::Update => fields::after_update_to(
                &res,
                ctx.sub,
                sent.as_deref().unwrap_or(&entry.managers),
                Some(&old),
                as_sent.as_ref().unwrap_or(&obj),
                &ctx.manager,
                &ctx.now,
            ),
            Ownership::Set(m) => m,
        };
        #[cfg(feature = "api")]
        if deleted_by_update(&res, &obj) {
            // The object is deleted as it would have been written (`deleteWithoutFinalizers`):
            // the answer is that object, at the resourceVersion it had.
            let mut answer = obj;
            if !managers.is_empty() {
                set_meta(&mut answer, "managedFields", fields::render(&managers));
            }
            let answer = meta::canonicalize(&res, &answer);
            let writers = entry.writers.clone();
            return Ok(self.remove(r, writers, ctx.actor, answer));
        }
        Ok(self.commit(r, obj, managers, ctx.actor, 200))
    }

    /// Writes an object (or, for an update that changes nothing, answers the stored one).
    fn commit(
        &mut self,
        r: ObjectRef,
        obj: Value,
        managers: Vec<Manager>,
        actor: &Actor,
        code: u16,
    ) -> Outcome {
        let mut obj = meta::canonicalize(&r.resource, &without_managed_fields(&obj));
        let old = self.objects.get(&r);
        if let Some(e) = old {
            if without_managed_fields(&e.object) == obj
                && fields::same_ignoring_time(&e.managers, &managers)
            {
                return ok(200, e.object.clone());
            }
        }
        let (old_prov, old_obj, mut writers) = match old {
            Some(e) => (
                e.provenance.clone(),
                Some(e.object.clone()),
                e.writers.clone(),
            ),
            None => Default::default(),
        };
        let rev = self.take_revision();
        set_meta(&mut obj, "resourceVersion", rev.to_string().into());
        if !managers.is_empty() {
            set_meta(&mut obj, "managedFields", fields::render(&managers));
        }
        let obj = meta::canonicalize(&r.resource, &obj);
        let label = r.to_string();
        let (provenance, lost_updates) =
            provenance::track(&old_prov, old_obj.as_ref(), &obj, actor, rev, &label);
        writers.set(actor.name.as_str(), rev);
        self.events.push(WatchEvent {
            kind: if old_obj.is_some() {
                EventType::Modified
            } else {
                EventType::Added
            },
            object: label,
            revision: rev,
            writer: actor.name.clone(),
        });
        self.objects.insert(
            r,
            Entry {
                object: obj.clone(),
                managers,
                provenance,
                writers,
            },
        );
        Outcome {
            response: Response { code, body: obj },
            revision: Some(rev),
            lost_updates,
            warnings: Vec::new(),
        }
    }

    fn do_delete(
        &mut self,
        t: &RequestTarget,
        name: &str,
        req: &Request,
        ctx: &Ctx,
    ) -> Result<Outcome, Response> {
        let actor = ctx.actor;
        let res = &t.resource;
        let r = objref(t, name);
        let opts = if API {
            options::delete_options(req.body.as_ref(), t)?
        } else {
            options::delete_preconditions(req.body.as_ref())?
        };
        // The NamespaceLifecycle admission, before the registry.
        #[cfg(feature = "api")]
        if *res == Resource::Namespace && namespace::IMMORTAL.contains(&name) {
            return Err(status::forbidden(
                res,
                name,
                "this namespace may not be deleted",
                None,
            ));
        }
        #[cfg(feature = "api")]
        if *res == Resource::Namespace {
            if let Some(out) = self.delete_namespace(&r, &opts, ctx)? {
                return Ok(out);
            }
        }
        let Some(entry) = self.objects.get(&r) else {
            return Err(status::not_found(res, name));
        };
        let uid = meta_str(&entry.object, "uid").to_string();
        let rv = meta_str(&entry.object, "resourceVersion").to_string();
        let pre = |k: &str| {
            if k == "uid" {
                opts.uid.clone()
            } else {
                opts.resource_version.clone()
            }
        };
        if let Some(u) = pre("uid") {
            if u != uid {
                return Err(status::delete_precondition_conflict(
                    res,
                    name,
                    &format!("the UID in the precondition ({u}) does not match the UID in record ({uid}). The object might have been deleted and then recreated"),
                ));
            }
        }
        if let Some(v) = pre("resourceVersion") {
            if v != rv {
                return Err(status::delete_precondition_conflict(
                    res,
                    name,
                    &format!("the ResourceVersion in the precondition ({v}) does not match the ResourceVersion in record ({rv}). The object might have been modified"),
                ));
            }
        }
        // `updateForGracefulDeletionAndFinalizers` (k8s.io/apiserver
        // `pkg/registry/generic/registry/store.go`): none of the kinds served deletes gracefully
        // (only Pods do), so an object with finalizers, after the garbage collector's own
        // (`deletionFinalizersForGarbageCollection`), is marked as being deleted and kept;
        // one without is deleted now. With the `api` feature only: the page's store (no
        // lesson of it deletes an object with finalizers) deletes at once, as before; its wasm
        // is at its size budget until issue #38 makes room (docs/size.md).
        #[cfg(feature = "api")]
        {
            let old_finalizers = finalizers(&entry.object);
            let new_finalizers = gc_finalizers(&old_finalizers, &opts);
            if !new_finalizers.is_empty() {
                let mut obj = entry.object.clone();
                // The same set (`sets.String.Equal`): each list holds the other's names.
                let within = |a: &[String], b: &[String]| a.iter().all(|f| b.contains(f));
                let same = within(&old_finalizers, &new_finalizers)
                    && within(&new_finalizers, &old_finalizers);
                if !same {
                    set_meta(&mut obj, "finalizers", new_finalizers.into());
                }
                mark_as_deleting(&mut obj, &ctx.now);
                let managers = entry.managers.clone();
                return Ok(self.commit(r, obj, managers, actor, 200));
            }
        }
        let writers = entry.writers.clone();
        // The Namespace registry returns the deleted object (`ReturnDeletedObject`), at the
        // revision of its deletion; the others a Status.
        #[cfg(feature = "api")]
        let deleted = (*res == Resource::Namespace).then(|| entry.object.clone());
        #[cfg(not(feature = "api"))]
        let deleted: Option<Value> = None;
        let rev = self.take_revision();
        self.objects.remove(&r);
        let label = r.to_string();
        let lost = provenance::lost_on_delete(&writers, actor, rev, &label);
        self.events.push(WatchEvent {
            kind: EventType::Deleted,
            object: label,
            revision: rev,
            writer: actor.name.clone(),
        });
        let body = match deleted {
            Some(mut obj) => {
                set_meta(&mut obj, "resourceVersion", rev.to_string().into());
                obj
            }
            None => status::delete_success(res, name, &uid),
        };
        Ok(Outcome {
            response: Response { code: 200, body },
            revision: Some(rev),
            lost_updates: lost.into_iter().collect(),
            warnings: Vec::new(),
        })
    }

    /// A Namespace's DELETE (`REST.Delete`, k8s.io/kubernetes
    /// `pkg/registry/core/namespace/storage/storage.go`): the preconditions with its own texts,
    /// then the first delete marks it `Terminating` (with the garbage collector's finalizers
    /// the options ask for) and answers it; while `spec.finalizers` is not empty a later one
    /// answers it unchanged. `None`: the generic delete goes on (no `spec.finalizers` left).
    #[cfg(feature = "api")]
    fn delete_namespace(
        &mut self,
        r: &ObjectRef,
        opts: &options::DeleteOptions,
        ctx: &Ctx,
    ) -> Result<Option<Outcome>, Response> {
        let Some(entry) = self.objects.get(r) else {
            return Err(status::not_found(&r.resource, &r.name));
        };
        let ns = &entry.object;
        let uid = meta_str(ns, "uid");
        let rv = meta_str(ns, "resourceVersion");
        let failed = |what: &str, given: &str, held: &str| {
            status::conflict(
                &r.resource,
                &r.name,
                &format!("Precondition failed: {what} in precondition: {given}, {what} in object meta: {held}"),
            )
        };
        if let Some(u) = opts.uid.as_deref().filter(|u| *u != uid) {
            return Err(failed("UID", u, uid));
        }
        if let Some(v) = opts.resource_version.as_deref().filter(|v| *v != rv) {
            return Err(failed("ResourceVersion", v, rv));
        }
        if ns.pointer("/metadata/deletionTimestamp").is_none() {
            let mut obj = ns.clone();
            set_meta(&mut obj, "deletionTimestamp", ctx.now.as_str().into());
            if let Some(o) = obj.as_object_mut() {
                let status = o
                    .entry("status")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Some(s) = status.as_object_mut() {
                    s.insert("phase".into(), "Terminating".into());
                }
            }
            let old_finalizers = finalizers(ns);
            let new_finalizers = gc_finalizers(&old_finalizers, opts);
            if new_finalizers != old_finalizers {
                set_meta(&mut obj, "finalizers", new_finalizers.into());
            }
            let managers = entry.managers.clone();
            return Ok(Some(self.commit(r.clone(), obj, managers, ctx.actor, 200)));
        }
        if !namespace::spec_finalizers(ns).is_empty() {
            return Ok(Some(ok(200, ns.clone())));
        }
        Ok(None)
    }

    /// Deletes an object from the store: its DELETED event, the updates it loses, and `body`
    /// as the answer (the delete of an update that removed the last finalizer; `do_delete`
    /// keeps its own copy, which the page's wasm is smaller with, docs/size.md).
    #[cfg(feature = "api")]
    fn remove(
        &mut self,
        r: ObjectRef,
        writers: crate::vecmap::VecMap<String, u64>,
        actor: &Actor,
        body: Value,
    ) -> Outcome {
        let rev = self.take_revision();
        self.objects.remove(&r);
        let label = r.to_string();
        let lost = provenance::lost_on_delete(&writers, actor, rev, &label);
        self.events.push(WatchEvent {
            kind: EventType::Deleted,
            object: label,
            revision: rev,
            writer: actor.name.clone(),
        });
        Outcome {
            response: Response { code: 200, body },
            revision: Some(rev),
            lost_updates: lost.into_iter().collect(),
            warnings: Vec::new(),
        }
    }
}

/// `metadata.finalizers` of an object.
#[cfg(feature = "api")]
fn finalizers(obj: &Value) -> Vec<String> {
    namespace::strings_at(obj, "/metadata/finalizers")
}

/// The garbage collector's finalizers for a DELETE (`deletionFinalizersForGarbageCollection`,
/// `shouldOrphanDependents` and `shouldDeleteDependents` in k8s.io/apiserver
/// `pkg/registry/generic/registry/store.go`): `orphan` and `foregroundDeletion` taken out and
/// put back at the end as the options (then the object's own finalizers) ask. Every kind served
/// defaults to deleting dependents in the background; no garbage collector runs here, so a
/// `foregroundDeletion` or `orphan` finalizer stays until a client removes it.
#[cfg(feature = "api")]
fn gc_finalizers(old: &[String], opts: &options::DeleteOptions) -> Vec<String> {
    const ORPHAN: &str = "orphan";
    const FOREGROUND: &str = "foregroundDeletion";
    let policy = opts.propagation_policy.as_deref();
    let has = |f: &str| old.iter().any(|x| x == f);
    let orphan = match (opts.orphan_dependents, policy) {
        (Some(b), _) => b,
        (None, Some(p)) => p == "Orphan",
        // A finalizer already on the object decides (the first of the two found).
        (None, None) => old
            .iter()
            .find(|f| *f == ORPHAN || *f == FOREGROUND)
            .is_some_and(|f| f == ORPHAN),
    };
    let foreground = match (opts.orphan_dependents, policy) {
        (Some(_), _) => false,
        (None, Some(p)) => p == "Foreground",
        (None, None) => has(FOREGROUND),
    };
    let mut out: Vec<String> = old
        .iter()
        .filter(|f| *f != ORPHAN && *f != FOREGROUND)
        .cloned()
        .collect();
    if orphan {
        out.push(ORPHAN.into());
    }
    if foreground {
        out.push(FOREGROUND.into());
    }
    out
}

/// `markAsDeleting` (k8s.io/apiserver `pkg/registry/generic/registry/store.go`): the first
/// time, `generation` + 1 (when the kind has one) and `deletionTimestamp` now; always
/// `deletionGracePeriodSeconds` 0.
#[cfg(feature = "api")]
fn mark_as_deleting(obj: &mut Value, now: &str) {
    let meta = obj.get("metadata");
    if meta.and_then(|m| m.get("deletionTimestamp")).is_none() {
        let generation = meta
            .and_then(|m| m.get("generation"))
            .and_then(Value::as_i64)
            .unwrap_or(0);
        if generation > 0 {
            set_meta(obj, "generation", (generation + 1).into());
        }
        set_meta(obj, "deletionTimestamp", now.into());
    }
    set_meta(obj, "deletionGracePeriodSeconds", 0.into());
}

/// `shouldDeleteDuringUpdate` (k8s.io/apiserver `pkg/registry/generic/registry/store.go`):
/// an update of an object being deleted that leaves it no finalizer deletes it.
#[cfg(feature = "api")]
fn deleted_by_update(res: &Resource, obj: &Value) -> bool {
    let meta = obj.get("metadata");
    let grace = meta
        .and_then(|m| m.get("deletionGracePeriodSeconds"))
        .filter(|g| !g.is_null());
    meta.and_then(|m| m.get("deletionTimestamp")).is_some()
        && finalizers(obj).is_empty()
        // No grace period, or 0.
        && grace.is_none_or(|g| g.as_i64() == Some(0))
        // `ShouldDeleteNamespaceDuringUpdate`: a Namespace also needs no `spec.finalizers`.
        && (*res != Resource::Namespace || namespace::spec_finalizers(obj).is_empty())
}

impl Store {
    /// For `crate::watch`: the resource a request addresses and, when it names an object, that
    /// object as it is now (before the request runs). `None` for a path the store does not serve.
    pub(crate) fn addressed(&self, req: &Request) -> Option<(Resource, Option<Value>)> {
        let t = path::parse(&req.path).ok()?;
        let current = t
            .name
            .as_deref()
            .and_then(|name| self.objects.get(&objref(&t, name)))
            .map(|e| e.object.clone());
        Some((t.resource, current))
    }

    /// What undoes `req` once it is served ([`Undo::completed`], then [`Store::undo`]): the
    /// revision and the one entry a request can write, its target (for a Namespace, its
    /// object; for a POST, the object it creates, named by its answer). `rvlab serve`'s stale
    /// reads keep these instead of a copy of the store per write; a dry run is a write undone.
    pub fn undo_point(&self, req: &Request) -> Undo {
        match path::parse(&req.path) {
            Ok(t) => self.undo_point_of(&t),
            Err(_) => Undo {
                revision: self.revision,
                next_floor: self.next_floor,
                target: None,
                collection: None,
            },
        }
    }

    fn undo_point_of(&self, t: &RequestTarget) -> Undo {
        let named = t.name.as_deref().map(|n| objref(t, n));
        Undo {
            revision: self.revision,
            next_floor: self.next_floor,
            target: named.map(|r| {
                let entry = self.objects.get(&r).cloned();
                (r, entry)
            }),
            collection: t.name.is_none().then(|| objref(t, "")),
        }
    }

    /// Puts back what [`Store::undo_point`] saved: the revision and the target's entry (the
    /// event log stays: it is history, and a dry run trims it itself).
    pub fn undo(&mut self, undo: &Undo) {
        match &undo.target {
            Some((r, Some(entry))) => self.objects.insert(r.clone(), entry.clone()),
            Some((r, None)) => {
                self.objects.remove(r);
            }
            None => {}
        }
        (self.revision, self.next_floor) = (undo.revision, undo.next_floor);
    }

    /// For `crate::watch`: whether the object a request names is in the store now (after the
    /// request: a write that left none deleted it). No copy of it, unlike [`Store::addressed`].
    pub(crate) fn holds(&self, req: &Request) -> bool {
        path::parse(&req.path).is_ok_and(|t| {
            t.name
                .as_deref()
                .is_some_and(|name| self.objects.get(&objref(&t, name)).is_some())
        })
    }

    /// For `crate::watch`: the objects a watch of `resource` in `namespace` (`""`: every
    /// namespace) starts from, as stored, in the list's (etcd key) order.
    pub(crate) fn watch_state(&self, resource: &Resource, namespace: &str) -> Vec<Value> {
        let t = RequestTarget {
            resource: resource.clone(),
            namespace: namespace.to_string(),
            name: None,
            sub: "",
            field_manager: None,
            force: None,
            query: Default::default(),
        };
        self.list_candidates(&t)
            .into_iter()
            .map(|(_, o)| o)
            .collect()
    }
}

fn objref(t: &RequestTarget, name: &str) -> ObjectRef {
    ObjectRef {
        resource: t.resource.clone(),
        namespace: t.namespace.clone(),
        name: name.to_string(),
    }
}
