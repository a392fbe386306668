//! One plain sentence per step, naming versions and causes.

use super::WriteKind;
use crate::decimal::fixed;
use crate::store::{LostUpdate, ObjectRef, Request, Response, Store};
use crate::vecmap::VecMap;
use serde_json::Value;

/// A duration as people read it: `10ms`, `10.4ms`, `1.25s`, `0s`.
pub fn fmt_duration(nanos: u64) -> String {
    fn trim(s: String) -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    }
    if nanos == 0 {
        "0s".into()
    } else if nanos < 1_000 {
        format!("{nanos}ns")
    } else if nanos < 1_000_000 {
        format!("{}µs", trim(fixed(nanos, 3, 1)))
    } else if nanos < 1_000_000_000 {
        format!("{}ms", trim(fixed(nanos, 6, 2)))
    } else {
        format!("{}s", trim(fixed(nanos, 9, 3)))
    }
}

/// A float without needless digits (`0.1`, `5`).
pub fn fmt_float(f: f64) -> String {
    crate::decimal::plain(f)
}

/// The write as a noun: `update`, `merge patch`, `server-side apply`.
pub fn verb_noun(v: WriteKind) -> &'static str {
    match v {
        WriteKind::Setup => "setup",
        WriteKind::Get => "get",
        WriteKind::Create => "create",
        WriteKind::Update => "update",
        WriteKind::MergePatch => "merge patch",
        WriteKind::JsonPatch => "JSON patch",
        WriteKind::StrategicPatch => "strategic merge patch",
        WriteKind::Apply => "server-side apply",
        WriteKind::Delete => "delete",
    }
}

/// Compact JSON, cut after 80 characters.
pub fn short_json(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 80 {
        let cut: String = s.chars().take(77).collect();
        format!("{cut}…")
    } else {
        s
    }
}

/// The timeline mark of a response.
pub fn mark(r: &Response, lost: bool) -> super::Mark {
    use super::Mark;
    match r.code {
        200..=299 if lost => Mark::LostUpdate,
        200..=299 => Mark::Ok,
        409 => Mark::Conflict,
        422 => Mark::Invalid,
        404 => Mark::NotFound,
        _ => Mark::OtherError,
    }
}

/// Everything the sentence about a request needs.
pub struct RequestCtx<'a> {
    pub client: &'a str,
    pub verb: WriteKind,
    pub target: &'a ObjectRef,
    pub request: &'a Request,
    pub response: &'a Response,
    pub revision: Option<u64>,
    /// The object's revision before and after the request (None: absent).
    pub before: Option<u64>,
    pub after: Option<u64>,
    pub lost: &'a [LostUpdate],
    /// The store after the request (its event log says who moved the object).
    pub store: &'a Store,
    /// Which kind of write made each revision (`World::write_verbs`; `Update` when absent).
    pub verbs: &'a VecMap<u64, WriteKind>,
}

/// "alice's update", "alice's update and carol's merge patch", "the scenario's setup": who
/// wrote `target` after revision `since`, from the store's event log.
fn movers(ctx: &RequestCtx<'_>, target: &ObjectRef, since: u64) -> Option<String> {
    let key = target.to_string();
    let verb_of = |r: u64| ctx.verbs.get(&r).copied().unwrap_or(WriteKind::Update);
    let names: Vec<String> = ctx
        .store
        .events()
        .iter()
        .filter(|e| e.object == key && e.revision > since)
        .map(|e| match verb_of(e.revision) {
            // The setup's writes are recorded under the actor `setup`: not "setup's setup".
            WriteKind::Setup => "the scenario's setup".to_string(),
            verb => format!("{}'s {}", e.writer, verb_noun(verb)),
        })
        .collect();
    match names.len() {
        0 => None,
        1 => Some(names[0].clone()),
        n => Some(format!(
            "{} and {}",
            names[..n - 1].join(", "),
            names[n - 1]
        )),
    }
}

fn status_text(r: &Response) -> String {
    let reason = r.body["reason"].as_str().unwrap_or("");
    if reason.is_empty() {
        format!("{}", r.code)
    } else {
        format!("{} {reason}", r.code)
    }
}

fn rv(v: Option<u64>) -> String {
    v.map_or_else(|| "?".into(), |r| r.to_string())
}

/// The resourceVersion a patch or apply body sets, if any (it acts as a precondition).
fn carried_rv(ctx: &RequestCtx<'_>) -> Option<String> {
    let body = ctx.request.body.as_ref()?;
    match ctx.verb {
        WriteKind::MergePatch | WriteKind::StrategicPatch | WriteKind::Apply => body["metadata"]
            ["resourceVersion"]
            .as_str()
            .filter(|s| !s.is_empty())
            .map(str::to_string),
        WriteKind::JsonPatch => body.as_array()?.iter().find_map(|op| {
            let sets = matches!(op["op"].as_str(), Some("replace" | "add"));
            (sets && op["path"] == "/metadata/resourceVersion")
                .then(|| op["value"].as_str().map(str::to_string))
                .flatten()
        }),
        _ => None,
    }
}

/// Which precondition a 409 Conflict says failed, read from the Status message the store sent
/// (k8s.io/apiserver `pkg/registry/rest/update.go`, `pkg/storage/etcd3/store.go`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Failed {
    /// A UID precondition: a PUT body's `metadata.uid` (`pkg/registry/rest/update.go`) or a
    /// delete's `preconditions.uid` (`pkg/registry/rest/delete.go`, `BeforeDelete`).
    Uid,
    /// The resourceVersion the write carried is not the object's (the optimistic lock, or a
    /// delete's `preconditions.resourceVersion`).
    ResourceVersion,
    /// Anything else (server-side apply field conflicts, …).
    Other,
}

fn failed_precondition(r: &Response) -> Failed {
    let message = r.body["message"].as_str().unwrap_or("");
    if message.contains("Precondition failed: UID in precondition")
        || message.contains("the UID in the precondition (")
    {
        Failed::Uid
    } else if message.contains("the object has been modified")
        || message.contains("the ResourceVersion in the precondition (")
    {
        Failed::ResourceVersion
    } else {
        Failed::Other
    }
}

/// "alice's update was rejected with 409 Conflict: the object alice sent carries uid u-1 …":
/// the uid the request carried (the PUT body's, or the delete's precondition) against the
/// object's.
fn uid_conflict(ctx: &RequestCtx<'_>) -> String {
    let (c, t) = (ctx.client, ctx.target);
    let body = ctx.request.body.as_ref();
    let current = ctx
        .store
        .get(t)
        .and_then(|o| o["metadata"]["uid"].as_str())
        .unwrap_or("?");
    if ctx.verb == WriteKind::Delete {
        let sent = body
            .and_then(|b| b["preconditions"]["uid"].as_str())
            .unwrap_or("?");
        format!(
            "{c}'s delete was rejected with 409 Conflict: the precondition says uid {sent}, but {t} has uid {current}"
        )
    } else {
        let sent = body
            .and_then(|b| b["metadata"]["uid"].as_str())
            .unwrap_or("?");
        format!(
            "{c}'s update was rejected with 409 Conflict: the object {c} sent carries uid {sent} (a PUT's metadata.uid is a precondition), but {t} has uid {current}"
        )
    }
}

/// Whether a request went to an object's status subresource (`…/deployments/NAME/status`).
pub fn to_status(req: &Request) -> bool {
    let path = req.path.split('?').next().unwrap_or("");
    let mut segs = path.rsplit('/');
    segs.next() == Some("status") && segs.nth(1) == Some("deployments")
}

/// The sentence for a request step (also `rvlab serve`'s live view: `live`).
pub fn request(ctx: &RequestCtx<'_>) -> String {
    let c = ctx.client;
    let t = ctx.target;
    // What the request addressed: the object, or its status subresource.
    let tw = if to_status(ctx.request) {
        format!("the status of {t}")
    } else {
        t.to_string()
    };
    let r = ctx.response;
    let noun = verb_noun(ctx.verb);
    let ok = (200..300).contains(&r.code);
    let body_rv = r.body["metadata"]["resourceVersion"]
        .as_str()
        .map(str::to_string);
    let mut s = if ok {
        match ctx.verb {
            WriteKind::Get => format!(
                "{c} read {tw} at resourceVersion {}",
                body_rv.unwrap_or_else(|| "?".into())
            ),
            WriteKind::Create => format!("{c} created {t} at resourceVersion {}", rv(ctx.revision)),
            WriteKind::Delete => format!(
                "{c} deleted {t} (the deletion is revision {})",
                rv(ctx.revision)
            ),
            WriteKind::Update => {
                let sent = ctx
                    .request
                    .body
                    .as_ref()
                    .and_then(|b| b["metadata"]["resourceVersion"].as_str())
                    .unwrap_or("")
                    .to_string();
                match ctx.revision {
                    None => format!(
                        "{c}'s update of {tw} changed nothing, so it stays at resourceVersion {}",
                        rv(ctx.after)
                    ),
                    Some(new) if sent.is_empty() || sent == "0" => format!(
                        "{c}'s update of {tw} carried no resourceVersion, so the server accepted it unconditionally (last write wins): resourceVersion {} → {new}",
                        rv(ctx.before)
                    ),
                    Some(new) => format!(
                        "{c}'s update of {tw} was accepted: it carried resourceVersion {sent}, the current one, and moved the object to {new}"
                    ),
                }
            }
            WriteKind::Apply if ctx.before.is_none() => format!(
                "{c}'s server-side apply created {t} at resourceVersion {}",
                rv(ctx.revision)
            ),
            WriteKind::Apply => match ctx.revision {
                None => format!(
                    "{c}'s server-side apply of {tw} changed nothing, so it stays at resourceVersion {}",
                    rv(ctx.after)
                ),
                Some(new) => format!(
                    "{c}'s server-side apply of {tw} was accepted{}: resourceVersion {} → {new}",
                    if ctx.request.path.contains("force=true") {
                        " (with force, taking over any conflicting fields)"
                    } else {
                        ""
                    },
                    rv(ctx.before)
                ),
            },
            _ if carried_rv(ctx).is_some() && ctx.revision.is_some() => format!(
                "{c}'s {noun} of {tw} carried resourceVersion {}, the current one, so it was applied: resourceVersion {} → {}",
                carried_rv(ctx).unwrap_or_default(),
                rv(ctx.before),
                rv(ctx.revision)
            ),
            _ => match ctx.revision {
                None => format!(
                    "{c}'s {noun} of {tw} changed nothing, so it stays at resourceVersion {}",
                    rv(ctx.after)
                ),
                Some(new) => format!(
                    "{c}'s {noun} of {tw} was applied to the current object (no resourceVersion check): resourceVersion {} → {new}",
                    rv(ctx.before)
                ),
            },
        }
    } else {
        let label = status_text(r);
        let message = r.body["message"].as_str().unwrap_or("").to_string();
        let reason = r.body["reason"].as_str().unwrap_or("");
        let failed = failed_precondition(r);
        match (ctx.verb, reason) {
            (WriteKind::Get, _) => format!("{c}'s get of {tw} failed with {label}: {message}"),
            (WriteKind::Update | WriteKind::Delete, "Conflict") if failed == Failed::Uid => {
                uid_conflict(ctx)
            }
            (WriteKind::Update, "Conflict") if failed == Failed::ResourceVersion => {
                let sent = ctx
                    .request
                    .body
                    .as_ref()
                    .and_then(|b| b["metadata"]["resourceVersion"].as_str())
                    .unwrap_or("")
                    .to_string();
                let since = sent.parse::<u64>().unwrap_or(0);
                match movers(ctx, t, since) {
                    Some(m) => format!(
                        "{c}'s update was rejected with 409 Conflict: {c} sent resourceVersion {sent}, but {m} moved {t} to {}",
                        rv(ctx.after)
                    ),
                    None => format!(
                        "{c}'s update was rejected with 409 Conflict: {c} sent resourceVersion {sent}, but {t} is at {}",
                        rv(ctx.after)
                    ),
                }
            }
            (WriteKind::Delete, "Conflict") if failed == Failed::ResourceVersion => {
                let pre = ctx
                    .request
                    .body
                    .as_ref()
                    .and_then(|b| b["preconditions"]["resourceVersion"].as_str())
                    .map(str::to_string);
                match pre {
                    Some(p) => {
                        let since = p.parse::<u64>().unwrap_or(0);
                        let who = movers(ctx, t, since)
                            .map(|m| format!(" ({m} moved it since)"))
                            .unwrap_or_default();
                        format!(
                            "{c}'s delete was rejected with 409 Conflict: the precondition says resourceVersion {p}, but {t} is at {}{who}",
                            rv(ctx.after)
                        )
                    }
                    None => format!("{c}'s delete of {t} was rejected with {label}: {message}"),
                }
            }
            (
                WriteKind::MergePatch
                | WriteKind::StrategicPatch
                | WriteKind::JsonPatch
                | WriteKind::Apply,
                "Conflict",
            ) if failed == Failed::ResourceVersion && carried_rv(ctx).is_some() => {
                let sent = carried_rv(ctx).unwrap_or_default();
                let since = sent.parse::<u64>().unwrap_or(0);
                let what = if ctx.verb == WriteKind::Apply {
                    "the applied object"
                } else {
                    "the patch"
                };
                match movers(ctx, t, since) {
                    Some(m) => format!(
                        "{c}'s {noun} was rejected with 409 Conflict: {what} carried resourceVersion {sent}, but {m} moved {t} to {}",
                        rv(ctx.after)
                    ),
                    None => format!(
                        "{c}'s {noun} was rejected with 409 Conflict: {what} carried resourceVersion {sent}, but {t} is at {}",
                        rv(ctx.after)
                    ),
                }
            }
            _ => format!("{c}'s {noun} of {tw} was rejected with {label}: {message}"),
        }
    };
    for l in ctx.lost {
        s.push_str("; ");
        s.push_str(&lost_sentence(l, ctx.verb));
    }
    s
}

/// "alice's update overwrote data.key, which bob had set at revision 101 after alice read
/// revision 100: bob's change is lost".
pub fn lost_sentence(l: &LostUpdate, verb: WriteKind) -> String {
    let noun = verb_noun(verb);
    if l.path.is_empty() {
        format!(
            "{w}'s {noun} removed {o}, which {ow} had changed at revision {orv} after {w} read revision {b}: {ow}'s change is lost",
            w = l.writer,
            o = l.object,
            ow = l.overwritten_writer,
            orv = l.overwritten_revision,
            b = l.base_revision
        )
    } else {
        format!(
            "{w}'s {noun} overwrote {p}, which {ow} had set at revision {orv} after {w} read revision {b}: {ow}'s change is lost",
            w = l.writer,
            p = l.path,
            ow = l.overwritten_writer,
            orv = l.overwritten_revision,
            b = l.base_revision
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_naturally() {
        assert_eq!(fmt_duration(0), "0s");
        assert_eq!(fmt_duration(10_000_000), "10ms");
        assert_eq!(fmt_duration(10_412_345), "10.41ms");
        assert_eq!(fmt_duration(10_400_000), "10.4ms");
        assert_eq!(fmt_duration(1_250_000_000), "1.25s");
        assert_eq!(fmt_duration(1_500), "1.5µs");
    }
}
