//! Strategic merge patch *creation*, as `kubectl apply` (client side) computes its patches: a
//! port of apimachinery's `CreateTwoWayMergePatch` and `CreateThreeWayMergePatch`
//! (k8s.io/apimachinery v0.32.5 `pkg/util/strategicpatch/patch.go`), on the schema facts of
//! [`super::schema::At`].
//!
//! - [`two_way`]`(original, modified, at)`: the patch that turns `original` into `modified`
//!   (`CreateTwoWayMergePatch`, `$setElementOrder` lists on): what kubectl commands that change
//!   a live object in place send (e.g. `kubectl set image`: the object before and after);
//! - [`three_way`]`(original, modified, current, at, overwrite)`: what `kubectl apply` sends:
//!   `original` is the last-applied configuration (the annotation), `modified` the new
//!   configuration, `current` the live object. The patch is the change from `current` to
//!   `modified` without deletions, plus the deletions from `original` to `modified`, merged
//!   (`mergeMap` without merging the parallel lists). kubectl passes `overwrite=true` (its
//!   `--overwrite` default); `overwrite=false` adds Go's conflict check
//!   (`MergingMapsHaveConflicts` against the change from `original` to `current`):
//!   [`CreateError::Conflict`].
//! - [`json_merge_three_way`]`(original, modified, current, preconditions)`: what
//!   `kubectl apply` sends for a kind it has no Go type for (custom resources), a port of
//!   `jsonmergepatch.CreateThreeWayJSONMergePatch` (on evanphx/json-patch v4.12.0's
//!   `CreateMergePatch` and `MergePatch`); kubectl passes [`KUBECTL_PRECONDITIONS`].
//!
//! All take the documents as JSON values (an absent document is `{}`, as Go reads an empty
//! or `null` one) and answer the patch object with its keys sorted, as Go's `json.Marshal`
//! writes it. Directives produced: `$setElementOrder/F`, `$deleteFromPrimitiveList/F`,
//! `$retainKeys`, `{"$patch": "delete", KEY: V}` items. The strategic functions take no
//! preconditions (kubectl apply passes none to `CreateThreeWayMergePatch`).
//!
//! kubectl apply's three documents (k8s.io/kubectl `pkg/cmd/apply`, `pkg/util`), for the
//! caller to build: `original` = the live object's `kubectl.kubernetes.io/last-applied-configuration`
//! annotation parsed (none: `{}`); `modified` = the manifest with that annotation set to the
//! manifest's own JSON (as `GetModifiedConfiguration` writes it, without the annotation
//! itself); `current` = the live object. The patch goes out as
//! `application/strategic-merge-patch+json` (built-in kinds) or
//! `application/merge-patch+json` (the JSON merge patch, other kinds).
//!
//! Faithful details kept on purpose (each as in patch.go): list items are matched and sorted by
//! the `%v` text of their merge key (so `10` sorts before `2`); Go's `sort.Sort` with its `<=`
//! comparison (equal keys end up reversed, for lists up to 12 items: Go's insertion sort); the
//! scalar list diff compares the *sorted* original with the modified list when deciding on
//! `$setElementOrder`; a `replace` field is sent whole even when unchanged. A field the schema
//! does not name has no facts (see `lookup`): its objects merge key by key, its lists are
//! replaced, as everywhere with [`super::schema::At::deduced`] (no schema at all).
//!
//! The ported test vectors are data in `crates/core/testdata/strategicpatch/` (README there).

use super::schema::At;
use super::strategic::{self, go_value, ty as tag};
use crate::json::sorted;
use serde_json::{Map, Value};

/// Why a patch could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CreateError {
    /// `mergepatch.ErrConflict` (only with `overwrite=false`): Go's message.
    Conflict(String),
    /// Any other error, with Go's message.
    Invalid(String),
}

impl std::fmt::Display for CreateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CreateError::Conflict(m) | CreateError::Invalid(m) => f.write_str(m),
        }
    }
}

type R<T> = Result<T, String>;

const DIRECTIVE: &str = "$patch";
const RETAIN_KEYS: &str = "$retainKeys";
const DELETE_PRIMITIVE: &str = "$deleteFromPrimitiveList";
const SET_ORDER: &str = "$setElementOrder";

/// `CreateTwoWayMergePatch(original, modified)`.
pub fn two_way(original: &Value, modified: &Value, at: At) -> Result<Value, CreateError> {
    let d = Diff {
        set_order: true,
        ..Diff::default()
    };
    diff_maps(&obj(original), &obj(modified), at, d)
        .map(|p| sorted(&Value::Object(p)))
        .map_err(CreateError::Invalid)
}

/// `CreateThreeWayMergePatch(original, modified, current, overwrite)`.
pub fn three_way(
    original: &Value,
    modified: &Value,
    current: &Value,
    at: At,
    overwrite: bool,
) -> Result<Value, CreateError> {
    let (original, modified, current) = (obj(original), obj(modified), obj(current));
    let inv = CreateError::Invalid;
    let delta = Diff {
        ignore_deletions: true,
        set_order: true,
        ..Diff::default()
    };
    let delta = diff_maps(&current, &modified, at, delta).map_err(inv)?;
    let deletions = Diff {
        set_order: true,
        ignore_changes: true,
        ..Diff::default()
    };
    let deletions = diff_maps(&original, &modified, at, deletions).map_err(inv)?;
    let patch = merge(deletions, delta, at).map_err(inv)?;
    if !overwrite {
        let changed = diff_maps(&original, &current, at, Diff::default()).map_err(inv)?;
        let (p, c) = (Value::Object(patch.clone()), Value::Object(changed));
        if conflicts(&p, &c, at, false, false, "").map_err(inv)? {
            return Err(CreateError::Conflict(format!(
                "patch:\n{}\nconflicts with changes made from original to current:\n{}\n",
                to_yaml(&sorted(&p)),
                to_yaml(&sorted(&c))
            )));
        }
    }
    Ok(sorted(&Value::Object(patch)))
}

/// The document as an object (Go unmarshals into an empty map; `null` leaves it empty).
fn obj(v: &Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

/// `mergepatch.ToYAMLOrError` approximated by JSON (the conflict message's bodies).
// Go prints YAML here; the message is only shown to a user of `overwrite=false`.
fn to_yaml(v: &Value) -> String {
    v.to_string()
}

// ---------------------------------------------------------------- Go's view of JSON values
// (`%v` as `go_value`, the dynamic type as `tag` and two error texts: the apply's, `strategic`)

/// Go's `==` on two `interface{}` scalars (maps and slices are not comparable in Go: false).
fn go_eq(a: &Value, b: &Value) -> bool {
    tag(a) == tag(b) && tag(a) < 5 && a == b
}

/// `mergepatch.ErrNoMergeKey`.
fn no_merge_key(m: &Map<String, Value>, key: &str) -> String {
    strategic::no_merge_key(m, key).message()
}

/// `mergepatch.ErrBadArgType(map[string]interface{}(nil), actual)`.
fn bad_arg(actual: &Value) -> String {
    strategic::bad_arg(false, actual).message()
}

/// `sort.Sort` with `Less(i, j) = sort.StringsAreSorted([key(i), key(j)])`, i.e. `<=`: for up
/// to 12 items Go's pdqsort is this insertion sort (equal keys reversed). Longer lists: a
/// stable sort by key (the same order unless keys repeat, where Go's order is its pdqsort's).
fn go_insertion_order(v: &mut [Value], key: impl Fn(&Value) -> String) {
    if v.len() > 12 {
        crate::sort::sort_by_key(v, |x| key(x));
        return;
    }
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && key(&v[j]) <= key(&v[j - 1]) {
            v.swap(j, j - 1);
            j -= 1;
        }
    }
}

/// `sortScalars`.
fn scalars_in_order(mut v: Vec<Value>) -> Vec<Value> {
    go_insertion_order(&mut v, go_value);
    v
}

/// `deduplicateScalars` (its swap-with-the-last order).
fn dedup_scalars(mut s: Vec<Value>) -> Vec<Value> {
    let mut len = s.len() as isize - 1;
    let mut i = 0;
    while i < len {
        let mut j = i + 1;
        while j <= len {
            if go_eq(&s[i as usize], &s[j as usize]) {
                s[j as usize] = s[len as usize].clone();
                s.truncate(len as usize);
                len -= 1;
                j -= 1;
            }
            j += 1;
        }
        i += 1;
    }
    s
}

/// The element kind of lists (`sliceElementType`): 6 for maps, 5 is an error, else a scalar.
fn element_tag(lists: &[&[Value]]) -> R<u8> {
    let mut prev = None;
    for v in lists.iter().flat_map(|l| l.iter()) {
        let t = tag(v);
        match prev {
            None if t == 5 => return Err("lists of lists are not supported".into()),
            None => prev = Some(t),
            Some(p) if p != t => {
                let all: Vec<String> = lists
                    .iter()
                    .map(|l| go_value(&Value::Array(l.to_vec())))
                    .collect();
                return Err(format!(
                    "list element types are not identical: [{}]",
                    all.join(" ")
                ));
            }
            Some(_) => {}
        }
    }
    prev.ok_or_else(|| "no elements in any of the given slices".into())
}

// ---------------------------------------------------------------- the schema's answers

/// A field's patch metadata (`PatchMeta` through `extractRetainKeysPatchStrategy`).
#[derive(Clone, Copy, Default)]
struct Meta<'a> {
    merge: bool,
    replace: bool,
    retain: bool,
    key: &'a str,
}

/// `LookupPatchMetadataForStruct(key)`: the field's position and facts.
///
/// Go's lookup fails for a field the type does not declare (`unable to find api field`), and a
/// changed map or list there is then an error. Here a field the data does not name is a
/// declared field without facts (the built-in data is cut to fields with facts: schema.rs), so
/// the lookup never fails: such a field merges its objects key by key and replaces its lists.
/// (kubectl validates fields before it makes a patch; TestUnknownField "diff" is skipped.)
fn lookup<'a>(at: At<'a>, key: &str) -> R<(At<'a>, Meta<'a>)> {
    let sub = at.field(key);
    let f = sub.facts();
    let meta = Meta {
        merge: f.is_some_and(|f| f.merge),
        replace: f.is_some_and(|f| f.replace),
        retain: f.is_some_and(|f| f.retain_keys),
        key: sub.merge_key().unwrap_or(""),
    };
    Ok((sub, meta))
}

/// `LookupPatchMetadataForSlice(key)`: the list items' position and the field's facts.
fn lookup_list<'a>(at: At<'a>, key: &str) -> R<(At<'a>, Meta<'a>)> {
    lookup(at, key).map(|(sub, m)| (sub.item(), m))
}

// ---------------------------------------------------------------- diff (patch.go diffMaps …)

#[derive(Clone, Copy, Default)]
struct Diff {
    set_order: bool,
    ignore_changes: bool,
    ignore_deletions: bool,
    build_retain_keys: bool,
}

fn diff_maps(
    original: &Map<String, Value>,
    modified: &Map<String, Value>,
    at: At,
    d: Diff,
) -> R<Map<String, Value>> {
    let mut patch = Map::new();
    let mut retain = Vec::new();
    for (key, mv) in modified {
        if d.build_retain_keys && !mv.is_null() {
            retain.push(Value::String(key.clone()));
        }
        let Some(ov) = original.get(key) else {
            if !d.ignore_changes {
                patch.insert(key.clone(), mv.clone());
            }
            continue;
        };
        if key == DIRECTIVE {
            let (Some(o), Some(m)) = (ov.as_str(), mv.as_str()) else {
                return Err(format!("invalid value for special key: {DIRECTIVE}"));
            };
            if o != m {
                patch.insert(key.clone(), mv.clone());
            }
            continue;
        }
        if tag(ov) != tag(mv) {
            if !d.ignore_changes {
                patch.insert(key.clone(), mv.clone());
            }
            continue;
        }
        match (ov, mv) {
            (Value::Object(o), Value::Object(m)) => {
                let (sub, meta) = match lookup(at, key) {
                    Ok(x) => x,
                    Err(_) if o == m => continue,
                    Err(e) => return Err(e),
                };
                if meta.replace {
                    if !d.ignore_changes {
                        patch.insert(key.clone(), mv.clone());
                    }
                    continue;
                }
                let d = Diff {
                    build_retain_keys: meta.retain,
                    ..d
                };
                let p = diff_maps(o, m, sub, d)?;
                if !p.is_empty() {
                    patch.insert(key.clone(), Value::Object(p));
                }
            }
            (Value::Array(o), Value::Array(m)) => {
                let (item, meta) = match lookup_list(at, key) {
                    Ok(x) => x,
                    Err(_) if o == m => continue,
                    Err(e) => return Err(e),
                };
                if !meta.merge {
                    replace_if_not_equal(key, ov, mv, &mut patch, d);
                    continue;
                }
                let d = Diff {
                    build_retain_keys: meta.retain,
                    ..d
                };
                let (add, delete, order) = diff_lists(o, m, item, meta.key, d)?;
                if !add.is_empty() {
                    patch.insert(key.clone(), Value::Array(add));
                }
                if !delete.is_empty() {
                    patch.insert(format!("{DELETE_PRIMITIVE}/{key}"), Value::Array(delete));
                }
                if !order.is_empty() {
                    patch.insert(format!("{SET_ORDER}/{key}"), Value::Array(order));
                }
            }
            _ => replace_if_not_equal(key, ov, mv, &mut patch, d),
        }
    }
    if !d.ignore_deletions {
        for key in original.keys() {
            if !modified.contains_key(key) {
                patch.insert(key.clone(), Value::Null);
            }
        }
    }
    // hasAdditionalNewField: original has a non-null key that modified lacks.
    let additional = original
        .iter()
        .any(|(k, v)| !v.is_null() && !modified.contains_key(k));
    if !retain.is_empty() && (!patch.is_empty() || additional) {
        patch.insert(RETAIN_KEYS.into(), Value::Array(scalars_in_order(retain)));
    }
    Ok(patch)
}

fn replace_if_not_equal(key: &str, o: &Value, m: &Value, patch: &mut Map<String, Value>, d: Diff) {
    if !d.ignore_changes && o != m {
        patch.insert(key.into(), m.clone());
    }
}

/// `diffLists`: the patch list, the parallel deletion list and the `$setElementOrder` list.
fn diff_lists(
    original: &[Value],
    modified: &[Value],
    item: At,
    key: &str,
    d: Diff,
) -> R<(Vec<Value>, Vec<Value>, Vec<Value>)> {
    if original.is_empty() {
        if modified.is_empty() || d.ignore_changes {
            return Ok((vec![], vec![], vec![]));
        }
        return Ok((modified.to_vec(), vec![], vec![]));
    }
    match element_tag(&[original, modified])? {
        6 => {
            let (patch, delete) = diff_lists_of_maps(original, modified, item, key, d)?;
            let mut patch = normalize_slice_order(patch, modified, key, true)?;
            let same = is_order_same(original, modified, key)?;
            patch.extend(delete);
            let mut order = vec![];
            if d.set_order
                && ((!d.ignore_changes && (!patch.is_empty() || !same))
                    || (!d.ignore_deletions && !patch.is_empty()))
            {
                order = modified
                    .iter()
                    .map(|v| {
                        let kv = v.get(key).cloned().unwrap_or(Value::Null);
                        Value::Object(Map::from_iter([(key.to_string(), kv)]))
                    })
                    .collect();
            }
            Ok((patch, vec![], order))
        }
        _ => {
            let sorted_original = scalars_in_order(original.to_vec());
            let (add, delete) = diff_lists_of_scalars(&sorted_original, modified, d);
            let add = normalize_slice_order(add, modified, key, false)?;
            let mut order = vec![];
            // Go sorts `original` in place first, so it compares the sorted original here.
            if d.set_order
                && ((!d.ignore_deletions && !delete.is_empty())
                    || (!d.ignore_changes && sorted_original != modified))
            {
                order = modified.to_vec();
            }
            Ok((add, delete, order))
        }
    }
}

fn is_order_same(original: &[Value], modified: &[Value], key: &str) -> R<bool> {
    if original.len() != modified.len() {
        return Ok(false);
    }
    for (o, m) in original.iter().zip(modified) {
        if !merge_key_value_equal(o, m, key)? {
            return Ok(false);
        }
    }
    Ok(true)
}

fn merge_key_value_equal(left: &Value, right: &Value, key: &str) -> R<bool> {
    if key.is_empty() {
        return Ok(go_eq(left, right));
    }
    let l = left.as_object().ok_or_else(|| bad_arg(left))?;
    let r = right.as_object().ok_or_else(|| bad_arg(right))?;
    let lk = l.get(key).ok_or_else(|| no_merge_key(l, key))?;
    let rk = r.get(key).ok_or_else(|| no_merge_key(r, key))?;
    Ok(go_eq(lk, rk))
}

/// `diffListsOfScalars` on the already sorted original: additions and deletions.
fn diff_lists_of_scalars(
    original: &[Value],
    modified: &[Value],
    d: Diff,
) -> (Vec<Value>, Vec<Value>) {
    let modified = scalars_in_order(modified.to_vec());
    let (mut oi, mut mi) = (0, 0);
    let (mut add, mut delete) = (vec![], vec![]);
    while oi < original.len() || mi < modified.len() {
        let o = original.get(oi).map(go_value);
        let m = modified.get(mi).map(go_value);
        match (o, m) {
            (Some(o), Some(m)) if o == m => {
                oi += 1;
                mi += 1;
            }
            (None, _) => {
                if !d.ignore_changes {
                    add.push(modified[mi].clone());
                }
                mi += 1;
            }
            (Some(o), Some(m)) if o > m => {
                if !d.ignore_changes {
                    add.push(modified[mi].clone());
                }
                mi += 1;
            }
            _ => {
                if !d.ignore_deletions {
                    delete.push(original[oi].clone());
                }
                oi += 1;
            }
        }
    }
    (add, dedup_scalars(delete))
}

/// `sortMergeListsByNameArray(…, recurse=false)` on a list of maps: by the merge key's `%v`.
fn by_merge_key_order(list: &[Value], key: &str) -> Vec<Value> {
    let mut v = list.to_vec();
    go_insertion_order(&mut v, |x| go_value(x.get(key).unwrap_or(&Value::Null)));
    v
}

/// `diffListsOfMaps`: changed and added items, and `$patch: delete` items for removed ones.
fn diff_lists_of_maps(
    original: &[Value],
    modified: &[Value],
    item: At,
    key: &str,
    d: Diff,
) -> R<(Vec<Value>, Vec<Value>)> {
    let original = by_merge_key_order(original, key);
    let modified = by_merge_key_order(modified, key);
    let get = |v: &Value| -> R<(Map<String, Value>, Value)> {
        let m = v.as_object().ok_or_else(|| bad_arg(v))?;
        let kv = m.get(key).ok_or_else(|| no_merge_key(m, key))?;
        Ok((m.clone(), kv.clone()))
    };
    let (mut oi, mut mi) = (0, 0);
    let (mut patch, mut delete) = (vec![], vec![]);
    while oi < original.len() || mi < modified.len() {
        let o = original.get(oi).map(get).transpose()?;
        let m = modified.get(mi).map(get).transpose()?;
        let os = o.as_ref().map(|x| go_value(&x.1));
        let ms = m.as_ref().map(|x| go_value(&x.1));
        match (o, m) {
            (Some((oe, _)), Some((me, mk))) if os == ms => {
                let mut p = diff_maps(&oe, &me, item, d)?;
                if !p.is_empty() {
                    p.insert(key.to_string(), mk);
                    patch.push(Value::Object(p));
                }
                oi += 1;
                mi += 1;
            }
            (Some((_, ok)), m) if m.is_none() || os < ms => {
                if !d.ignore_deletions {
                    delete.push(Value::Object(Map::from_iter([
                        (key.to_string(), ok),
                        (DIRECTIVE.to_string(), Value::String("delete".into())),
                    ])));
                }
                oi += 1;
            }
            (_, Some((me, _))) => {
                if !d.ignore_changes {
                    patch.push(Value::Object(me));
                }
                mi += 1;
            }
            (_, None) => break,
        }
    }
    Ok((patch, delete))
}

/// `index`: where `v` is in `list` (by merge key value for maps), by Go's `==`.
fn index(list: &[Value], v: &Value, key: &str, maps: bool) -> Option<usize> {
    let val = |x: &Value| -> Value {
        if maps {
            x.get(key).cloned().unwrap_or(Value::Null)
        } else {
            x.clone()
        }
    };
    let want = val(v);
    list.iter().position(|x| go_eq(&val(x), &want))
}

/// `normalizeSliceOrder`: `to_sort` in the order of `order` (stable), `$patch: delete` items
/// last.
fn normalize_slice_order(
    to_sort: Vec<Value>,
    order: &[Value],
    key: &str,
    maps: bool,
) -> R<Vec<Value>> {
    let (mut keep, mut delete) = (to_sort, vec![]);
    if maps {
        for l in [&keep[..], order] {
            for x in l {
                let m = x.as_object().ok_or_else(|| bad_arg(x))?;
                if !m.contains_key(key) {
                    return Err(no_merge_key(m, key));
                }
            }
        }
        (keep, delete) = keep
            .into_iter()
            .partition(|x| x.get(DIRECTIVE) != Some(&Value::String("delete".into())));
    }
    // Go's sort.SliceStable with a Less that is true when either item is missing from
    // `order`; every caller's items are in `order`, where this is a stable sort by position.
    crate::sort::sort_by_key(&mut keep, |x| {
        index(order, x, key, maps).unwrap_or(usize::MAX)
    });
    keep.extend(delete);
    Ok(keep)
}

// ---------------------------------------------------------------- merge (patch.go mergeMap …)

/// `mergeMap(deletionsMap, deltaMap, schema, MergeOptions{})`: the server's port
/// ([`strategic::merge_map`]) with both options off, so the parallel lists
/// (`$deleteFromPrimitiveList`, `$setElementOrder`, `$retainKeys`) are carried into the result,
/// not applied, and `null`s are kept.
fn merge(
    deletions: Map<String, Value>,
    mut delta: Map<String, Value>,
    at: At,
) -> R<Map<String, Value>> {
    let opts = strategic::MergeOptions {
        merge_parallel_list: false,
        ignore_unmatched_nulls: false,
    };
    strategic::merge_map(deletions, &mut delta, at, opts).map_err(|e| match e {
        // Where Go panics (kubectl crashes: no error text to copy); `Error::Panic`'s own text
        // is the apiserver's, so this one is ours.
        strategic::Error::Panic => "mergeMap panics in Go on these patches".into(),
        e => e.message(),
    })
}

// ---------------------------------------------------------------- JSON merge patch

/// A `mergepatch.PreconditionFunc` kubectl uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precondition {
    /// `RequireKeyUnchanged(key)`: the patch has no top-level `key`.
    KeyUnchanged(&'static str),
    /// `RequireMetadataKeyUnchanged(key)`: the patch's `metadata` has no `key`.
    MetadataKeyUnchanged(&'static str),
}

/// What `kubectl apply` passes to `CreateThreeWayJSONMergePatch` (apply.go, `patcher.patchSimple`).
pub const KUBECTL_PRECONDITIONS: &[Precondition] = &[
    Precondition::KeyUnchanged("apiVersion"),
    Precondition::KeyUnchanged("kind"),
    Precondition::MetadataKeyUnchanged("name"),
];

/// `jsonmergepatch.CreateThreeWayJSONMergePatch(original, modified, current, preconditions…)`:
/// the additions and changes from `current` to `modified` (nulls dropped) merged onto the
/// deletions from `original` to `modified` (nulls only). A failed precondition is
/// `Invalid("precondition failed for: map[…]")`: Go returns a plain error there, so kubectl's
/// `IsPreconditionFailed` check (and its "At least one of apiVersion, kind and name was
/// changed") does not see it and kubectl reports it as a patch-creation error.
pub fn json_merge_three_way(
    original: &Value,
    modified: &Value,
    current: &Value,
    preconditions: &[Precondition],
) -> Result<Value, CreateError> {
    let (original, modified, current) = (obj(original), obj(modified), obj(current));
    let add = keep_or_delete_null(&json_diff(&current, &modified), false);
    let delete = keep_or_delete_null(&json_diff(&original, &modified), true);
    let (a, d) = (Value::Object(add.clone()), Value::Object(delete.clone()));
    if json_conflicts(&a, &d) {
        return Err(CreateError::Conflict(format!(
            "patch:\n{}\nconflicts with changes made from original to current:\n{}\n",
            to_yaml(&sorted(&a)),
            to_yaml(&sorted(&d))
        )));
    }
    let mut patch = delete;
    merge_docs(&mut patch, add);
    for p in preconditions {
        let changed = match p {
            Precondition::KeyUnchanged(k) => patch.contains_key(*k),
            Precondition::MetadataKeyUnchanged(k) => patch
                .get("metadata")
                .and_then(Value::as_object)
                .is_some_and(|m| m.contains_key(*k)),
        };
        if changed {
            return Err(CreateError::Invalid(format!(
                "precondition failed for: {}",
                go_value(&Value::Object(patch))
            )));
        }
    }
    Ok(sorted(&Value::Object(patch)))
}

/// evanphx `CreateMergePatch(original, modified)` of two objects (what `kubectl label`,
/// `annotate` and `edit` of a custom resource send), keys sorted.
pub fn json_merge_two_way(original: &Value, modified: &Value) -> Value {
    sorted(&Value::Object(json_diff(&obj(original), &obj(modified))))
}

/// evanphx `matchesValue`: JSON equality with every number a float64.
fn json_matches(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| json_matches(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && y.iter()
                    .all(|(k, v)| x.get(k).is_some_and(|w| json_matches(w, v)))
        }
        _ => a == b,
    }
}

/// evanphx `getDiff` (`CreateMergePatch` of two objects): changed and added keys, removed ones
/// as null, objects recursively.
fn json_diff(a: &Map<String, Value>, b: &Map<String, Value>) -> Map<String, Value> {
    let mut into = Map::new();
    for (k, bv) in b {
        match (a.get(k), bv) {
            (Some(Value::Object(x)), Value::Object(y)) => {
                let d = json_diff(x, y);
                if !d.is_empty() {
                    into.insert(k.clone(), Value::Object(d));
                }
            }
            (Some(av), bv) if json_matches(av, bv) => {}
            _ => {
                into.insert(k.clone(), bv.clone());
            }
        }
    }
    for k in a.keys() {
        if !b.contains_key(k) {
            into.insert(k.clone(), Value::Null);
        }
    }
    into
}

/// `keepOrDeleteNullInObj`: only the nulls (`keep_null`) or everything but them; an explicitly
/// empty object is a value (kept without nulls only), an object left empty by the filter goes.
fn keep_or_delete_null(m: &Map<String, Value>, keep_null: bool) -> Map<String, Value> {
    let mut out = Map::new();
    for (k, v) in m {
        match v {
            Value::Null if keep_null => {
                out.insert(k.clone(), Value::Null);
            }
            Value::Null => {}
            Value::Object(o) if o.is_empty() && !keep_null => {
                out.insert(k.clone(), v.clone());
            }
            Value::Object(o) if o.is_empty() => {}
            Value::Object(o) => {
                let sub = keep_or_delete_null(o, keep_null);
                if !sub.is_empty() {
                    out.insert(k.clone(), Value::Object(sub));
                }
            }
            _ if !keep_null => {
                out.insert(k.clone(), v.clone());
            }
            _ => {}
        }
    }
    out
}

/// `mergepatch.HasConflicts`.
fn json_conflicts(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Object(l), Value::Object(r)) => l
            .iter()
            .any(|(k, lv)| r.get(k).is_some_and(|rv| json_conflicts(lv, rv))),
        (Value::Object(_) | Value::Array(_), _) if tag(left) != tag(right) => true,
        (Value::Array(l), Value::Array(r)) => {
            l.len() != r.len() || l.iter().zip(r).any(|(l, r)| json_conflicts(l, r))
        }
        _ => left != right,
    }
}

/// evanphx `mergeDocs` (`MergePatch`, not merging merge patches).
fn merge_docs(doc: &mut Map<String, Value>, patch: Map<String, Value>) {
    for (k, v) in patch {
        if v.is_null() {
            doc.remove(&k);
            continue;
        }
        let merged = match (doc.remove(&k), v) {
            (Some(Value::Object(mut cur)), Value::Object(p)) => {
                merge_docs(&mut cur, p);
                Value::Object(cur)
            }
            (Some(cur), v) if !cur.is_null() && !cur.is_object() => pruned(v),
            (Some(Value::Object(_)), v) => v,
            (_, v) => pruned(v),
        };
        doc.insert(k, merged);
    }
}

/// `v` without its `null` members, at any depth.
fn pruned(mut v: Value) -> Value {
    crate::json::prune_nulls(&mut v);
    v
}

// ---------------------------------------------------------------- conflicts

/// `mergingMapFieldsHaveConflicts(left, right, schema, strategy, mergeKey)`.
fn conflicts(
    left: &Value,
    right: &Value,
    at: At,
    merge: bool,
    replace: bool,
    key: &str,
) -> R<bool> {
    match left {
        Value::Object(l) => {
            let Value::Object(r) = right else {
                return Ok(true);
            };
            let (lm, rm) = (l.get(DIRECTIVE), r.get(DIRECTIVE));
            if (lm.is_some() || rm.is_some()) && lm != rm {
                return Ok(true);
            }
            if replace {
                return Ok(false);
            }
            for (k, lv) in l {
                if k == DIRECTIVE || k == RETAIN_KEYS {
                    continue;
                }
                let Some(rv) = r.get(k) else { continue };
                let (sub, meta) = match lv {
                    Value::Array(_) => lookup_list(at, k)?,
                    Value::Object(_) => lookup(at, k)?,
                    _ => (At::deduced(), Meta::default()),
                };
                if conflicts(lv, rv, sub, meta.merge, meta.replace, meta.key)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        Value::Array(l) => {
            let Value::Array(r) = right else {
                return Ok(true);
            };
            let maps = element_tag(&[l, r])? == 6;
            if merge {
                if !maps {
                    return Ok(false);
                }
                let (lm, rm) = (by_merge_key(l, key)?, by_merge_key(r, key)?);
                for (k, lv) in &lm {
                    if let Some((_, rv)) = rm.iter().find(|(rk, _)| rk == k) {
                        if conflicts(lv, rv, at, false, false, "")? {
                            return Ok(true);
                        }
                    }
                }
                return Ok(false);
            }
            if l.len() != r.len() {
                return Ok(true);
            }
            let (l, r) = if maps {
                (l.clone(), r.clone())
            } else {
                (
                    scalars_in_order(dedup_scalars(l.clone())),
                    scalars_in_order(dedup_scalars(r.clone())),
                )
            };
            for (lv, rv) in l.iter().zip(&r) {
                if conflicts(lv, rv, at, false, false, "")? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        _ => Ok(left != right),
    }
}

/// `sliceOfMapsToMapOfMaps` (a later item with the same key replaces an earlier one).
fn by_merge_key(list: &[Value], key: &str) -> R<Vec<(String, Value)>> {
    let mut out: Vec<(String, Value)> = vec![];
    for v in list {
        let m = v.as_object().ok_or_else(|| {
            format!(
                "invalid element type in merging list:{}",
                go_value(&Value::Array(list.to_vec()))
            )
        })?;
        let kv = m.get(key).ok_or_else(|| {
            format!(
                "cannot find merge key `{key}` in merging list element:{}",
                go_value(v)
            )
        })?;
        let k = kv.to_string();
        match out.iter_mut().find(|(x, _)| *x == k) {
            Some(e) => e.1 = v.clone(),
            None => out.push((k, v.clone())),
        }
    }
    Ok(out)
}

#[cfg(test)]
pub(crate) mod testdata {
    //! The ported apimachinery cases (`crates/core/testdata/strategicpatch/`), for the runners
    //! of both directions (creation here, application in `strategic`).
    use super::super::schema::Schema;
    use serde_json::Value;

    pub const TWO_WAY: &str = include_str!("../../testdata/strategicpatch/two-way.json");
    pub const THREE_WAY: &str = include_str!("../../testdata/strategicpatch/three-way.json");
    pub const APPLY: &str = include_str!("../../testdata/strategicpatch/apply.json");
    pub const ERRORS: &str = include_str!("../../testdata/strategicpatch/errors.json");
    pub const SORT: &str = include_str!("../../testdata/strategicpatch/sort.json");
    const MERGE_ITEM: &str = include_str!("../../testdata/strategicpatch/merge-item.schema");
    const PRECISION_ITEM: &str =
        include_str!("../../testdata/strategicpatch/precision-item.schema");

    /// The cases of one file.
    pub fn cases(file: &str) -> Vec<Value> {
        let v: Value = serde_json::from_str(file).expect("testdata is JSON");
        v["cases"].as_array().expect("a cases list").clone()
    }

    /// A case's schema (its `schema` field names the file) and the root's name.
    pub fn schema(case: &Value) -> (Schema, &'static str) {
        match case["schema"].as_str() {
            Some("merge-item.schema") => (Schema::parse(MERGE_ITEM).unwrap(), "mergeItem"),
            Some("precision-item.schema") => {
                (Schema::parse(PRECISION_ITEM).unwrap(), "precisionItem")
            }
            s => panic!("unknown schema {s:?}"),
        }
    }

    /// A document of a case: absent or `null` is the empty object (as Go reads them).
    pub fn doc(case: &Value, field: &str) -> Value {
        match &case[field] {
            Value::Null => Value::Object(Default::default()),
            v => v.clone(),
        }
    }

    #[test]
    fn the_ported_cases_are_all_there_and_name_their_source() {
        for (file, n) in [
            (TWO_WAY, 136),
            (THREE_WAY, 129),
            (APPLY, 25),
            (ERRORS, 9),
            (SORT, 8),
        ] {
            let cs = cases(file);
            assert_eq!(cs.len(), n);
            for c in &cs {
                let src = c["source"].as_str().unwrap();
                assert!(src.starts_with("kubernetes/apimachinery v0.32.5 "), "{src}");
                let (s, root) = schema(c);
                assert_eq!(s.root(root).type_name(), Some(root));
                for f in ["original", "modified", "current", "result"] {
                    if c.get("skip").is_none() && c["op"] != "applyText" {
                        assert!(doc(c, f).is_object(), "{src}: {f}");
                    }
                }
            }
        }
        let conflicts = cases(THREE_WAY)
            .iter()
            .filter(|c| c["conflict"] == true)
            .count();
        assert_eq!(conflicts, 30);
    }
}

#[cfg(test)]
mod tests {
    use super::testdata::{cases, doc, schema, ERRORS, THREE_WAY, TWO_WAY};
    use super::*;

    /// `StrategicMergePatch`: the store's (`super::super::strategic`).
    fn apply(original: &Value, patch: &Value, at: At) -> Result<Value, String> {
        super::super::strategic::apply(original, &obj(patch), at).map_err(|e| e.message())
    }

    /// Runs every case of a suite; the failures, as text; `(ported, passed, skipped)`.
    fn run(
        file: &str,
        want: &[&str],
        f: impl Fn(&Value, At) -> Result<(), String>,
    ) -> (usize, usize, usize, Vec<String>) {
        let (mut pass, mut skip, mut fails) = (0, 0, vec![]);
        let cs = cases(file);
        for c in &cs {
            if c.get("skip").is_some()
                || !want
                    .iter()
                    .any(|w| c.get("op").map_or(w.is_empty(), |o| o == w))
            {
                skip += usize::from(c.get("skip").is_some());
                continue;
            }
            let (s, root) = schema(c);
            match f(c, s.root(root)) {
                Ok(()) => pass += 1,
                Err(e) => fails.push(format!("{}\n  {e}", c["source"].as_str().unwrap_or(""))),
            }
        }
        (cs.len(), pass, skip, fails)
    }

    fn same(what: &str, got: &Value, want: &Value) -> Result<(), String> {
        if got == want {
            Ok(())
        } else {
            Err(format!("{what}\n  got  {got}\n  want {want}"))
        }
    }

    /// `testTwoWayPatch`: the created patch, then applied to `original`.
    fn two_way_case(c: &Value, at: At) -> Result<(), String> {
        let p = two_way(&doc(c, "original"), &doc(c, "modified"), at)
            .map_err(|e| format!("cannot create two way patch: {e}"))?;
        same("two-way patch", &p, &c["twoWay"])?;
        let r = apply(&doc(c, "original"), &p, at).map_err(|e| format!("cannot apply: {e}"))?;
        same("two-way result", &r, &c["result"])
    }

    /// `testThreeWayPatch`: overwrite=false first (a conflict exactly when the description
    /// says so), then overwrite=true for the conflicting ones; the patch applied to `current`.
    fn three_way_case(c: &Value, at: At) -> Result<(), String> {
        let (o, m, cur) = (doc(c, "original"), doc(c, "modified"), doc(c, "current"));
        let conflict = c["conflict"] == true;
        let p = match three_way(&o, &m, &cur, at, false) {
            Err(CreateError::Conflict(_)) if conflict => three_way(&o, &m, &cur, at, true)
                .map_err(|e| format!("cannot force three way patch: {e}"))?,
            Err(e) => return Err(format!("cannot create three way patch: {e}")),
            Ok(_) if conflict => return Err("expected conflict did not occur".into()),
            Ok(p) => p,
        };
        same("three-way patch", &p, &c["threeWay"])?;
        let r = apply(&cur, &p, at).map_err(|e| format!("cannot apply: {e}"))?;
        same("three-way result", &r, &c["result"])
    }

    fn report(name: &str, (ported, pass, skip, fails): (usize, usize, usize, Vec<String>)) {
        eprintln!(
            "{name}: {ported} ported, {pass} pass, {skip} skipped, {} fail",
            fails.len()
        );
        assert!(
            fails.is_empty(),
            "{name}: {} failures:\n{}",
            fails.len(),
            fails.join("\n")
        );
    }

    #[test]
    fn ported_two_way_patches_are_created_as_go_creates_them() {
        report(
            "two-way (creation, then strategic::apply)",
            run(TWO_WAY, &[""], two_way_case),
        );
    }

    #[test]
    fn ported_three_way_patches_are_created_as_go_creates_them() {
        report(
            "three-way (creation, then strategic::apply)",
            run(THREE_WAY, &[""], three_way_case),
        );
    }

    const JSON_THREE_WAY: &str =
        include_str!("../../testdata/strategicpatch/json-merge-three-way.json");
    const JSON_FILTER_NULL: &str =
        include_str!("../../testdata/strategicpatch/json-merge-filter-null.json");

    /// TestUnknownField "diff" (Go: `unable to find api field`) is skipped in the data, why
    /// stated there (see `lookup`).
    #[test]
    fn the_creation_error_cases_are_skipped_with_why() {
        let cs = cases(ERRORS);
        let create: Vec<_> = cs
            .iter()
            .filter(|c| c["op"].as_str().is_some_and(|o| o.starts_with("create")))
            .collect();
        assert_eq!(create.len(), 2);
        assert!(create
            .iter()
            .all(|c| c["skip"].as_str().is_some_and(|s| s.contains("cut"))));
    }

    #[test]
    fn ported_json_merge_patches_are_created_as_go_creates_them() {
        let cs = cases(JSON_THREE_WAY);
        let mut fails = vec![];
        for c in &cs {
            let (o, m, cur) = (doc(c, "original"), doc(c, "modified"), doc(c, "current"));
            let r = json_merge_three_way(&o, &m, &cur, &[]).map_err(|e| e.to_string());
            let r = r.and_then(|p| {
                same("patch", &p, &doc(c, "threeWay"))?;
                let mut res = obj(&cur);
                merge_docs(&mut res, obj(&p));
                same("result", &Value::Object(res), &doc(c, "result"))
            });
            if let Err(e) = r {
                fails.push(format!("{}\n  {e}", c["source"]));
            }
        }
        eprintln!(
            "json-merge-three-way: {} ported, {} pass",
            cs.len(),
            cs.len() - fails.len()
        );
        assert_eq!(cs.len(), 23);
        assert!(fails.is_empty(), "{}", fails.join("\n"));
    }

    /// jsonmergepatch's TestKeepOrDeleteNullInObj.
    #[test]
    fn ported_null_filters_are_go_filters() {
        let cs = cases(JSON_FILTER_NULL);
        assert_eq!(cs.len(), 15);
        for c in &cs {
            let o = obj(&c["originalObj"]);
            let with = Value::Object(keep_or_delete_null(&o, true));
            let without = Value::Object(keep_or_delete_null(&o, false));
            assert_eq!(with, c["expectedWithNull"], "{}", c["source"]);
            assert_eq!(without, c["expectedWithoutNull"], "{}", c["source"]);
        }
    }

    #[test]
    fn kubectl_preconditions_refuse_a_changed_name() {
        let o = serde_json::json!({"apiVersion": "x/v1", "kind": "K", "metadata": {"name": "a"}});
        let mut m = o.clone();
        m["metadata"]["name"] = "b".into();
        let e = json_merge_three_way(&o, &m, &o, KUBECTL_PRECONDITIONS).unwrap_err();
        assert_eq!(
            e,
            CreateError::Invalid("precondition failed for: map[metadata:map[name:b]]".into())
        );
        m["metadata"]["name"] = "a".into();
        m["spec"] = serde_json::json!({"n": 1});
        let p = json_merge_three_way(&o, &m, &o, KUBECTL_PRECONDITIONS).unwrap();
        assert_eq!(p, serde_json::json!({"spec": {"n": 1}}));
    }

    /// `kubectl apply` of a Deployment on the built-in schema: the image changed, env `B`
    /// removed from the configuration, the strategy changed (a `retainKeys` field). What others
    /// did on the live object stays: env `C` (someone's `kubectl set env`), the server's
    /// defaulted `rollingUpdate` is cleared by `$retainKeys`, `status` untouched; `replicas`
    /// (scaled to 5 by someone) is set back to the configuration's 2, as kubectl does.
    #[test]
    fn kubectl_apply_of_a_deployment_keeps_others_changes() {
        use serde_json::json;
        let at = super::super::schema::builtin().root("Deployment");
        let container =
            |image: &str, env: Value| json!({"name": "app", "image": image, "env": env});
        let dep = |replicas: u32, strategy: Value, c: Value| {
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                "spec": {"replicas": replicas, "strategy": strategy,
                    "template": {"spec": {"containers": [c]}}}})
        };
        let (a, b, c) = (
            json!({"name": "A", "value": "1"}),
            json!({"name": "B", "value": "2"}),
            json!({"name": "C", "value": "3"}),
        );
        let original = dep(
            2,
            json!({"type": "RollingUpdate"}),
            container("v1", json!([a, b])),
        );
        let modified = dep(2, json!({"type": "Recreate"}), container("v2", json!([a])));
        let mut current = dep(
            5,
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%"}}),
            container("v1", json!([a, b, c])),
        );
        current["status"] = json!({"replicas": 5});
        let p = three_way(&original, &modified, &current, at, true).unwrap();
        let want = json!({"spec": {"replicas": 2,
            "strategy": {"$retainKeys": ["type"], "type": "Recreate"},
            "template": {"spec": {"$setElementOrder/containers": [{"name": "app"}],
                "containers": [{"$setElementOrder/env": [{"name": "A"}],
                    "env": [{"$patch": "delete", "name": "B"}], "image": "v2", "name": "app"}]}}}});
        assert_eq!(p, want);
        assert_eq!(
            p.to_string(),
            want.to_string(),
            "keys sorted as Go writes them"
        );
        // overwrite=false: a conflict for Go (replicas: 2 in the patch, changed to 5 from
        // original to current).
        assert!(matches!(
            three_way(&original, &modified, &current, at, false),
            Err(CreateError::Conflict(_))
        ));
        let two = two_way(&original, &modified, at).unwrap();
        assert_eq!(
            two,
            json!({"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"},
                "template": {"spec": {"$setElementOrder/containers": [{"name": "app"}],
                    "containers": [{"$setElementOrder/env": [{"name": "A"}],
                        "env": [{"$patch": "delete", "name": "B"}], "image": "v2", "name": "app"}]}}}})
        );
    }

    #[test]
    fn go_formats_values_as_fmt_does() {
        let v = |s: &str| go_value(&serde_json::from_str(s).unwrap());
        assert_eq!(v("1"), "1");
        assert_eq!(v("1.5"), "1.5");
        assert_eq!(v("1000000.5"), "1.0000005e+06");
        assert_eq!(v("123456.5"), "123456.5");
        assert_eq!(v("0.00001"), "1e-05");
        assert_eq!(v(r#"{"b":[1,"x"],"a":null}"#), "map[a:<nil> b:[1 x]]");
        // Go's `<=` insertion sort: equal keys end up reversed.
        let mut l: Vec<Value> =
            serde_json::from_str(r#"[{"k":2,"i":0},{"k":1},{"k":2,"i":1}]"#).unwrap();
        go_insertion_order(&mut l, |x| go_value(&x["k"]));
        assert_eq!(
            Value::Array(l).to_string(),
            r#"[{"k":1},{"k":2,"i":1},{"k":2,"i":0}]"#
        );
    }

    mod properties {
        //! Go's contract for the created patches, on random Deployments of the built-in
        //! schema: applying the two-way patch to `original` gives `modified`; applying the
        //! three-way patch to a `current` equal to `original` gives `modified` too.
        use super::*;
        use proptest::prelude::*;
        use serde_json::json;

        /// Items with distinct keys from `keys`, in a random order, each built by `item`.
        fn keyed(
            keys: &'static [&'static str],
            item: BoxedStrategy<Value>,
            key: &'static str,
        ) -> BoxedStrategy<Value> {
            proptest::sample::subsequence(keys, 0..=keys.len())
                .prop_shuffle()
                .prop_flat_map(move |ks| {
                    let n = ks.len();
                    (Just(ks), proptest::collection::vec(item.clone(), n))
                })
                .prop_map(move |(ks, items)| {
                    Value::Array(
                        ks.iter()
                            .zip(items)
                            .map(|(k, mut v)| {
                                v[key] = json!(k);
                                v
                            })
                            .collect(),
                    )
                })
                .boxed()
        }

        fn maybe(v: impl Strategy<Value = Value> + 'static) -> BoxedStrategy<Option<Value>> {
            proptest::option::of(v).boxed()
        }

        fn deployment() -> impl Strategy<Value = Value> {
            let env = keyed(
                &["A", "B", "C"],
                prop_oneof![Just("1"), Just("2")]
                    .prop_map(|v| json!({ "value": v }))
                    .boxed(),
                "name",
            );
            let ports = keyed(
                &["80", "81"],
                Just(json!({"protocol": "TCP"})).boxed(),
                "containerPort",
            );
            let container = (
                maybe(prop_oneof![Just(json!("v1")), Just(json!("v2"))]),
                maybe(env),
                maybe(ports),
                maybe(prop_oneof![Just(json!(["x"])), Just(json!(["y", "x"]))]),
            )
                .prop_map(|(image, env, ports, args)| {
                    let mut c = json!({});
                    for (k, v) in [
                        ("image", image),
                        ("env", env),
                        ("ports", ports),
                        ("args", args),
                    ] {
                        if let Some(v) = v {
                            c[k] = v;
                        }
                    }
                    c
                })
                .boxed();
            let containers = keyed(&["a", "b", "c"], container, "name");
            let labels = proptest::collection::btree_map(
                prop_oneof![Just("a"), Just("b"), Just("c")],
                prop_oneof![Just("1"), Just("2")],
                0..3,
            );
            let finalizers =
                proptest::sample::subsequence(&["x", "y", "z"][..], 0..=3).prop_shuffle();
            let strategy = prop_oneof![
                Just(json!({"type": "Recreate"})),
                Just(json!({"type": "RollingUpdate"})),
                Just(json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}})),
            ];
            (
                maybe(containers),
                labels,
                maybe(finalizers.prop_map(|f| json!(f))),
                maybe(strategy),
                maybe((0..3u32).prop_map(|r| json!(r))),
            )
                .prop_map(|(containers, labels, finalizers, strategy, replicas)| {
                    let mut d = json!({"metadata": {"name": "d"}, "spec": {}});
                    if !labels.is_empty() {
                        d["metadata"]["labels"] = json!(labels);
                    }
                    if let Some(f) = finalizers {
                        d["metadata"]["finalizers"] = f;
                    }
                    if let Some(s) = strategy {
                        d["spec"]["strategy"] = s;
                    }
                    if let Some(r) = replicas {
                        d["spec"]["replicas"] = r;
                    }
                    if let Some(c) = containers {
                        d["spec"]["template"] = json!({"spec": {"containers": c}});
                    }
                    d
                })
        }

        /// The finalizers sorted: Go loses a reordering of a merging list of scalars into
        /// sorted order (see `go_loses_a_reorder_into_sorted_order`).
        fn finalizers_sorted(mut v: Value) -> Value {
            if let Some(Value::Array(f)) = v.pointer_mut("/metadata/finalizers") {
                go_insertion_order(f, go_value);
            }
            v
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(512))]
            #[test]
            fn created_patches_turn_original_into_modified(o in deployment(), m in deployment()) {
                let at = crate::store::schema::builtin().root("Deployment");
                let want = finalizers_sorted(m.clone());
                let two = two_way(&o, &m, at).unwrap();
                let r = crate::store::strategic::apply(&o, &obj(&two), at).unwrap();
                prop_assert_eq!(finalizers_sorted(r), want.clone(), "two-way patch {}", two);
                let three = three_way(&o, &m, &o, at, false).unwrap();
                let r = crate::store::strategic::apply(&o, &obj(&three), at).unwrap();
                prop_assert_eq!(finalizers_sorted(r), want, "three-way patch {}", three);
            }
        }

        /// Any JSON, directives and `null`s included, where the schema has facts.
        fn any_doc() -> impl Strategy<Value = Value> {
            let leaf = prop_oneof![
                Just(Value::Null),
                any::<bool>().prop_map(Value::from),
                (-2i64..3).prop_map(Value::from),
                Just(json!(1.5)),
                prop_oneof![
                    Just("delete"),
                    Just("replace"),
                    Just("merge"),
                    Just("a"),
                    Just("b")
                ]
                .prop_map(Value::from),
            ];
            let keys = prop_oneof![
                Just("metadata"),
                Just("spec"),
                Just("template"),
                Just("containers"),
                Just("name"),
                Just("env"),
                Just("finalizers"),
                Just("strategy"),
                Just("labels"),
                Just("$patch"),
                Just("$retainKeys"),
                Just("$setElementOrder/containers"),
                Just("$setElementOrder/finalizers"),
                Just("$deleteFromPrimitiveList/finalizers"),
            ];
            let object = |keys: BoxedStrategy<&'static str>, inner: BoxedStrategy<Value>| {
                proptest::collection::vec((keys, inner), 0..4).prop_map(|kv| {
                    Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
                })
            };
            let keys = keys.boxed();
            let k2 = keys.clone();
            let tree = leaf.prop_recursive(5, 48, 4, move |inner| {
                prop_oneof![
                    proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                    object(k2.clone(), inner.boxed()),
                ]
            });
            object(keys, tree.boxed())
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(1024))]
            #[test]
            fn creation_never_panics(o in any_doc(), m in any_doc(), c in any_doc(), w in any::<bool>()) {
                let at = crate::store::schema::builtin().root("Deployment");
                let _ = two_way(&o, &m, at);
                let _ = three_way(&o, &m, &c, at, w);
                let _ = three_way(&o, &m, &c, At::deduced(), w);
                let _ = json_merge_three_way(&o, &m, &c, KUBECTL_PRECONDITIONS);
            }
        }

        /// `diffListsOfScalars` sorts the original list in place, and `diffLists` then compares
        /// that sorted list with the modified one to decide on `$setElementOrder`: a merging
        /// list of scalars reordered into sorted order gets no patch at all.
        #[test]
        fn go_loses_a_reorder_into_sorted_order() {
            let at = crate::store::schema::builtin().root("Deployment");
            let d = |f: Value| json!({"metadata": {"finalizers": f}});
            let p = two_way(&d(json!(["x", "z", "y"])), &d(json!(["x", "y", "z"])), at).unwrap();
            assert_eq!(p, json!({}));
            let p = two_way(&d(json!(["x", "y", "z"])), &d(json!(["x", "z", "y"])), at).unwrap();
            assert_eq!(
                p,
                json!({"metadata": {"$setElementOrder/finalizers": ["x", "z", "y"]}})
            );
        }
    }
}
