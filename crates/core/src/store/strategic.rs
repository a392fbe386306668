//! Strategic merge patch, applied as the apiserver applies it: a port of apimachinery's
//! `StrategicMergeMapPatch` (k8s.io/apimachinery v0.32.5 `pkg/util/strategicpatch/patch.go`:
//! `mergeMap` and what it calls, with `MergeParallelList` and `IgnoreUnmatchedNulls` on, as on
//! the server; [`merge_map`] takes Go's [`MergeOptions`], both off being how
//! `CreateThreeWayMergePatch` merges its two patches in `super::strategic_create`) over the
//! schema facts of [`super::schema`], its errors word for word
//! (`strategicpatch` and `pkg/util/mergepatch/errors.go`) and the apiserver's Status for each
//! (k8s.io/apiserver v0.32.5 `pkg/endpoints/handlers/patch.go`,
//! `interpretStrategicMergePatchError`): [`Error::response`].
//!
//! In short: maps merge key by key and `null` deletes; a list merges only when its field says
//! `patchStrategy: merge` (a list of scalars as a set union, a list of maps by its
//! `patchMergeKey`), any other list is replaced; `$patch: replace | delete` on a map, `$patch:
//! delete | replace` on an element of a merging list of maps (`merge` there and on a map is an
//! error, as in Go), `$retainKeys`, `$deleteFromPrimitiveList/F` and `$setElementOrder/F`.
//!
//! The schema: the apiserver looks fields up in the Go struct of the kind
//! (`PatchMetaFromStruct`). A field missing from the struct is an error there only when the
//! stored object has it too, as a map or a list, which a typed object never has, or for a
//! `$setElementOrder/F` naming it (or naming a field that is not a list or pointer: `expected
//! slice or array type, but got: struct`, a 500); here a field the schema data does not name
//! has no facts (its maps merge, its lists are replaced) and is never an error, since the data
//! is cut to the fields that carry facts (so those two 500s are not modelled).
//!
//! Go behaviours kept on purpose: what `mergeMap` stores unchanged (a replaced list, a map of a
//! `patchStrategy: replace` field, a new element of a merging list keep their directives and
//! `null`s: the apiserver's typed decoding drops them later, [`drop_directive_keys`] does that
//! here for the `$` keys); the order of merged lists (`normalizeElementOrder`, including how
//! Go's shared slice arrays make `$setElementOrder` see the live list after deletions and
//! appends); what makes Go panic (comparing two maps, a map as a set element, a list whose
//! first element is `null`) is [`Error::Panic`]. Go walks a patch's keys in random order; this
//! walks them in the patch's order.

use super::schema::{At, Kind};
use super::{status, Response};
use serde_json::{Map, Value};

type Obj = Map<String, Value>;
type R<T> = Result<T, Error>;

const MARKER: &str = "$patch";
const DELETE_PREFIX: &str = "$deleteFromPrimitiveList";
const ORDER_PREFIX: &str = "$setElementOrder";
const RETAIN: &str = "$retainKeys";
/// `mergepatch.ErrBadPatchFormatForPrimitiveList`.
pub(crate) const BAD_PRIMITIVE: &str = "invalid patch format of primitive list";
/// `mergepatch.ErrBadPatchFormatForRetainKeys`.
pub(crate) const BAD_RETAIN: &str = "invalid patch format of retainKeys";
/// `mergepatch.ErrBadPatchFormatForSetElementOrderList`.
pub(crate) const BAD_ORDER: &str = "invalid patch format of setElementOrder list";
/// `http.Error`'s text in the apiserver's panic recovery (`pkg/server/filters/wrap.go`).
const PANIC: &str = "This request caused apiserver to panic. Look in the logs for details.";

/// Why a strategic merge patch failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Error {
    /// A `mergepatch` error the apiserver answers 400 with.
    BadRequest(&'static str),
    /// `mergepatch.ErrNoListOfLists`: the generic 422.
    NoListOfLists,
    /// Any other error: a plain Go error, 500 with its text.
    Other(String),
    /// Where Go panics: the apiserver's panic recovery answers 500 (in plain text there).
    Panic,
}

impl Error {
    /// The Go error's text.
    pub fn message(&self) -> String {
        match self {
            Error::BadRequest(m) => m.to_string(),
            Error::NoListOfLists => "lists of lists are not supported".into(),
            Error::Other(m) => m.clone(),
            Error::Panic => PANIC.into(),
        }
    }

    /// The apiserver's answer (`interpretStrategicMergePatchError`, then `ErrorToAPIStatus`).
    pub fn response(&self) -> Response {
        match self {
            Error::BadRequest(m) => status::bad_request(m),
            Error::NoListOfLists => status::patch_apply_error(),
            e => status::raw_internal(&e.message()),
        }
    }
}

/// `StrategicMergeMapPatch(original, patch)` with the kind's schema (for tests: the store
/// uses [`apply_mut`]).
#[cfg(test)]
pub(crate) fn apply(original: &Value, patch: &Obj, at: At) -> R<Value> {
    apply_mut(original, &mut patch.clone(), at)
}

/// [`apply`], leaving `patch` as Go leaves its map (the function mutates it: directives it
/// used deleted, `null`s and directive maps of new fields dropped), which the apiserver then
/// prints in a strict decoding error.
pub(crate) fn apply_mut(original: &Value, patch: &mut Obj, at: At) -> R<Value> {
    let o = original.as_object().cloned().unwrap_or_default();
    merge_map(o, patch, at, SERVER).map(Value::Object)
}

/// Go's `MergeOptions`: both on for the server's apply ([`SERVER`]), both off where
/// `CreateThreeWayMergePatch` merges its two patches (`super::strategic_create`).
#[derive(Clone, Copy)]
pub(crate) struct MergeOptions {
    /// `MergeParallelList`: `$deleteFromPrimitiveList`, `$setElementOrder` and `$retainKeys`
    /// are applied (off: carried into the result, the last two checked equal to what it has).
    pub merge_parallel_list: bool,
    /// `IgnoreUnmatchedNulls`: a `null` only deletes, and a new value's `null`s are dropped
    /// (off: a `null` is also kept, as a value).
    pub ignore_unmatched_nulls: bool,
}

/// `StrategicMergeMapPatch`'s options.
const SERVER: MergeOptions = MergeOptions {
    merge_parallel_list: true,
    ignore_unmatched_nulls: true,
};

/// Drops the `$` keys of every object but the schema's maps: what the apiserver's decoding into
/// the typed object does to directives `mergeMap` left in place (no Kubernetes field starts
/// with `$`).
pub(crate) fn drop_directive_keys(v: &mut Value, at: At) {
    match v {
        Value::Object(m) => {
            if at.kind() != Kind::Map {
                m.retain(|k, _| !k.starts_with('$'));
            }
            for (k, x) in m.iter_mut() {
                drop_directive_keys(x, at.field(k));
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| drop_directive_keys(x, at.item())),
        _ => {}
    }
}

// ---- Go's view of decoded JSON: types, `==`, `%v` / `%s` ----

/// The dynamic type (`int64` and `float64` differ, as `UnmarshalCaseSensitivePreserveInts`
/// decodes them).
pub(crate) fn ty(v: &Value) -> u8 {
    match v {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Number(n) if n.as_i64().is_some() => 2,
        Value::Number(_) => 3,
        Value::String(_) => 4,
        Value::Array(_) => 5,
        Value::Object(_) => 6,
    }
}

/// `reflect.TypeOf(v)` printed with `%s`.
fn type_name(v: &Value) -> &'static str {
    [
        "%!s(<nil>)",
        "bool",
        "int64",
        "float64",
        "string",
        "[]interface {}",
        "map[string]interface {}",
    ][ty(v) as usize]
}

/// Go's `==` on two `interface{}`: two maps or two slices panic.
fn eq(a: &Value, b: &Value) -> R<bool> {
    match ty(a) {
        5 | 6 if ty(a) == ty(b) => Err(Error::Panic),
        _ => Ok(a == b),
    }
}

/// A map or slice as a Go map key panics.
fn hashable(v: &Value) -> R<()> {
    if matches!(v, Value::Array(_) | Value::Object(_)) {
        return Err(Error::Panic);
    }
    Ok(())
}

/// Go's `%v` of a float64 (`strconv.FormatFloat(f, 'g', -1, 64)`: exponent from 1e+06 and
/// below 1e-04, two exponent digits at least).
pub(crate) fn go_float(f: f64) -> String {
    go_float_in(f, -4, 6, true)
}

/// Go's `encoding/json` text of a float64: `'f'` from 1e-6 up to 1e21, else `'e'` with the
/// exponent's leading zero dropped (`1e-7`, `1e+21`).
pub fn go_json_float(f: f64) -> String {
    go_float_in(f, -6, 21, false)
}

/// Go's shortest float text: decimal when the decimal exponent of the first significant digit
/// is in `lo..hi`, else `d.ddde±XX` (`pad`: at least two exponent digits).
/// Built on serde_json's shortest float text (ryu, already in the page) instead of `{:e}`:
/// std's float formatter is 9.5 kB of wasm (docs/size.md).
fn go_float_in(f: f64, lo: i32, hi: i32, pad: bool) -> String {
    let text = serde_json::Number::from_f64(f).map_or_else(|| "0".to_string(), |n| n.to_string());
    let (neg, text) = match text.strip_prefix('-') {
        Some(t) => ("-", t),
        None => ("", text.as_str()),
    };
    let (mantissa, exp) = text.split_once(['e', 'E']).unwrap_or((text, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = format!("{int}{frac}");
    let lead = all.len() - all.trim_start_matches('0').len();
    let digits = all.trim_matches('0');
    if digits.is_empty() {
        return format!("{neg}0");
    }
    // The decimal exponent of the first significant digit.
    let x = int.len() as i32 - 1 - lead as i32 + exp;
    if (lo..hi).contains(&x) {
        let point = x + 1;
        let s = if point <= 0 {
            format!("0.{}{digits}", "0".repeat((-point) as usize))
        } else if point as usize >= digits.len() {
            format!("{digits}{}", "0".repeat(point as usize - digits.len()))
        } else {
            format!(
                "{}.{}",
                &digits[..point as usize],
                &digits[point as usize..]
            )
        };
        format!("{neg}{s}")
    } else {
        let (d, rest) = digits.split_at(1);
        let dot = if rest.is_empty() { "" } else { "." };
        let sign = if x < 0 { '-' } else { '+' };
        let width = if pad { 2 } else { 1 };
        format!("{neg}{d}{dot}{rest}e{sign}{:0width$}", x.abs())
    }
}

/// Go's `%v` (or `%s` when `s`) of a decoded value: `map[k:v]` with sorted keys, `[a b]`.
fn go_fmt(v: &Value, s: bool, out: &mut String) {
    let scalar = match v {
        Value::Null => "<nil>".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.to_string(),
            None => go_float(n.as_f64().unwrap_or(0.0)),
        },
        Value::String(x) => {
            out.push_str(x);
            return;
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                go_fmt(x, s, out);
            }
            out.push(']');
            return;
        }
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            crate::sort::sort(&mut keys);
            out.push_str("map[");
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(k);
                out.push(':');
                go_fmt(&m[k.as_str()], s, out);
            }
            out.push(']');
            return;
        }
    };
    match (s, v) {
        (false, _) => out.push_str(&scalar),
        (true, Value::Null) => out.push_str("%!s(<nil>)"),
        (true, _) => out.push_str(&format!("%!s({}={scalar})", type_name(v))),
    }
}

/// Go's `%v` of a decoded JSON value (`map[k:v]` with sorted keys, `[a b]`, `<nil>`); also the
/// patch `fieldValidation=Strict` prints (`store/strict.rs`).
pub fn go_value(x: &Value) -> String {
    let mut s = String::new();
    go_fmt(x, false, &mut s);
    s
}

fn obj_v(m: &Obj) -> String {
    go_value(&Value::Object(m.clone()))
}

/// `mergepatch.ErrBadArgType(expected, actual)`: a list expected, or a map.
pub(crate) fn bad_arg(list: bool, actual: &Value) -> Error {
    let want = if list {
        "[]interface {}"
    } else {
        "map[string]interface {}"
    };
    Error::Other(format!(
        "expected a {want}, but received a {}",
        type_name(actual)
    ))
}

/// `mergepatch.ErrNoMergeKey(m, k)`.
pub(crate) fn no_merge_key(m: &Obj, k: &str) -> Error {
    Error::Other(format!(
        "map: {} does not contain declared merge key: {k}",
        obj_v(m)
    ))
}

// ---- the schema's facts, as `LookupPatchMetadataFor{Struct,Slice}` give them ----

/// `PatchMetaFromStruct.Name()` of a list's element type (Go's reflect kind).
fn kind_name(item: &At) -> &'static str {
    match item.kind() {
        Kind::Map => "map",
        Kind::List => "slice",
        // The scalars with a merge strategy are strings (finalizers and the like).
        Kind::Scalar => "string",
        _ => "struct",
    }
}

// ---- mergeMap ----

/// `mergeMap(original, patch, schema, opts)`.
pub(crate) fn merge_map(mut original: Obj, patch: &mut Obj, at: At, opts: MergeOptions) -> R<Obj> {
    if let Some(d) = patch.get(MARKER) {
        // handleDirectiveInMergeMap
        return match d.as_str() {
            Some("replace") => {
                patch.shift_remove(MARKER);
                Ok(patch.clone())
            }
            Some("delete") => Ok(Obj::new()),
            _ => {
                let mut s = String::new();
                go_fmt(d, true, &mut s);
                Err(Error::Other(format!(
                    "unknown patch type: {s} in map: {}",
                    obj_v(patch)
                )))
            }
        };
    }
    retain_keys(&mut original, patch, opts)?;
    merge_order_lists(&mut original, patch, &at, opts)?;
    let keys: Vec<String> = patch.keys().cloned().collect();
    for k in keys {
        let Some(pv) = patch.get_mut(&k) else {
            continue;
        };
        // preprocessDeletionListForMerging
        let (k, delete_list) = if k.starts_with(DELETE_PREFIX) {
            if !opts.merge_parallel_list {
                original.insert(k, pv.clone());
                continue;
            }
            let key = extract_key(&k, DELETE_PREFIX, BAD_PRIMITIVE)?;
            (if key.is_empty() { k } else { key }, true)
        } else {
            (k, false)
        };
        if pv.is_null() {
            original.shift_remove(&k);
            if opts.ignore_unmatched_nulls {
                continue;
            }
        }
        let Some(ov) = original.get_mut(&k).map(std::mem::take) else {
            if !delete_list {
                discard_nulls(pv, opts);
                if let Some(x) = remove_directives(pv) {
                    original.insert(k, x);
                }
            }
            continue;
        };
        let new = match (ov, pv) {
            (Value::Object(o), Value::Object(p)) => {
                let sub = at.field(&k);
                Some(Value::Object(if sub.patch_replace() {
                    p.clone()
                } else {
                    merge_map(o, p, sub, opts)?
                }))
            }
            (Value::Array(o), Value::Array(p)) => Some(Value::Array(
                slice_handler(o, p, &at.field(&k), delete_list, opts)?.0,
            )),
            (o, p) if ty(&o) == ty(p) => remove_directives(p),
            (o, _) if delete_list => Some(o),
            (_, p) => {
                discard_nulls(p, opts);
                remove_directives(p)
            }
        };
        match new {
            Some(x) => {
                original.insert(k, x);
            }
            None => {
                original.shift_remove(&k);
            }
        }
    }
    Ok(original)
}

/// `extractKey`: the field after `PREFIX/`.
fn extract_key(s: &str, prefix: &str, err: &'static str) -> R<String> {
    match s.split_once('/') {
        Some((p, rest)) if p == prefix => Ok(rest.to_string()),
        _ => Err(Error::BadRequest(err)),
    }
}

/// `discardNullValuesFromPatch` (with `IgnoreUnmatchedNulls` only).
fn discard_nulls(v: &mut Value, opts: MergeOptions) {
    if !opts.ignore_unmatched_nulls {
        return;
    }
    match v {
        Value::Object(m) => {
            m.retain(|_, x| !x.is_null());
            m.values_mut().for_each(|x| discard_nulls(x, opts));
        }
        Value::Array(a) => a.iter_mut().for_each(|x| discard_nulls(x, opts)),
        _ => {}
    }
}

/// `removeDirectives`: what to store (`None`: a map with `$patch`, dropped where it stands).
/// Like Go, it cleans the maps of `v` in place, but a list `v` itself keeps its elements.
fn remove_directives(v: &mut Value) -> Option<Value> {
    match v {
        Value::Array(a) => Some(Value::Array(
            a.iter_mut()
                .filter_map(|x| clean(x).then(|| x.clone()))
                .collect(),
        )),
        x => clean(x).then(|| x.clone()),
    }
}

/// `removeDirectives` in place: false for a map with `$patch`.
fn clean(v: &mut Value) -> bool {
    match v {
        Value::Object(m) if m.contains_key(MARKER) => false,
        Value::Object(m) => {
            m.retain(|_, x| clean(x));
            true
        }
        Value::Array(a) => {
            a.retain_mut(clean);
            true
        }
        _ => true,
    }
}

/// `applyRetainKeysDirective`.
fn retain_keys(original: &mut Obj, patch: &mut Obj, opts: MergeOptions) -> R<()> {
    let Some(list) = patch.shift_remove(RETAIN) else {
        return Ok(());
    };
    if !opts.merge_parallel_list {
        return match original.get(RETAIN) {
            Some(x) if *x != list => Err(Error::Other(format!(
                "{} and {} are not deep equal: this may happen when calculating the 3-way diff patch",
                go_value(x),
                go_value(&list)
            ))),
            Some(_) => Ok(()),
            None => {
                original.insert(RETAIN.into(), list);
                Ok(())
            }
        };
    }
    let Value::Array(list) = list else {
        return Err(Error::BadRequest(BAD_RETAIN));
    };
    list.iter().try_for_each(hashable)?;
    let kept = |k: &str| list.iter().any(|x| x.as_str() == Some(k));
    for (k, x) in patch.iter() {
        if x.is_null() || k.starts_with(DELETE_PREFIX) || k.starts_with(ORDER_PREFIX) {
            continue;
        }
        if !kept(k) {
            return Err(Error::BadRequest(BAD_RETAIN));
        }
    }
    original.retain(|k, _| kept(k));
    Ok(())
}

/// `mergePatchIntoOriginal`: each `$setElementOrder/F` with its list `F`.
fn merge_order_lists(original: &mut Obj, patch: &mut Obj, at: &At, opts: MergeOptions) -> R<()> {
    let keys: Vec<String> = patch
        .keys()
        .filter(|k| k.starts_with(ORDER_PREFIX))
        .cloned()
        .collect();
    for key in keys {
        let Some(order) = patch.shift_remove(&key) else {
            continue;
        };
        if !opts.merge_parallel_list {
            match original.get(&key) {
                Some(x) if *x != order => return Err(Error::BadRequest(BAD_ORDER)),
                Some(_) => {}
                None => {
                    original.insert(key.clone(), order.clone());
                }
            }
        }
        let Value::Array(order) = order else {
            return Err(bad_arg(true, &order));
        };
        let field = extract_key(&key, ORDER_PREFIX, BAD_ORDER)?;
        let list = |v: Option<&Value>| match v {
            None => Ok(None),
            Some(Value::Array(a)) => Ok(Some(a.clone())),
            Some(x) => Err(bad_arg(true, x)),
        };
        let (o, p) = (list(original.get(&field))?, list(patch.get(&field))?);
        let sub = at.field(&field);
        let mkey = sub.merge_key().unwrap_or("");
        validate_order(p.as_deref().unwrap_or(&[]), &order, mkey)?;
        // `view` is the original list as Go still sees it (its array, its length).
        let (merged, view) = match (&o, &p) {
            (Some(o), None) => (o.clone(), o.clone()),
            (None, Some(p)) => match remove_directives(&mut Value::Array(p.clone())) {
                Some(Value::Array(a)) => (a, Vec::new()),
                _ => continue,
            },
            (Some(o), Some(p)) => slice_handler(o.clone(), &mut p.clone(), &sub, false, opts)?,
            (None, None) => continue,
        };
        let (items, server) = partition(merged, &order, mkey)?;
        let kind = elem_type(&[&view, p.as_deref().unwrap_or(&[])])?;
        let both = normalize(items, server, &order, &view, mkey, kind)?;
        original.insert(field.clone(), Value::Array(both));
        patch.shift_remove(&field);
    }
    Ok(())
}

/// `validatePatchWithSetOrderList`.
fn validate_order(patch: &[Value], order: &[Value], key: &str) -> R<()> {
    if order.is_empty() || patch.is_empty() {
        return Ok(());
    }
    let kept = if key.is_empty() {
        patch.to_vec()
    } else {
        split_deletes(patch.to_vec())?.0
    };
    let (mut pi, mut si) = (0, 0);
    while pi < kept.len() && si < order.len() {
        if kept[pi].get(MARKER).is_some() {
            pi += 1;
            continue;
        }
        if key_eq(&kept[pi], &order[si], key)? {
            pi += 1;
        }
        si += 1;
    }
    if pi < kept.len() && si >= order.len() {
        return Err(Error::Other(format!(
            "The order in patch list:\n{}\n doesn't match {ORDER_PREFIX} list:\n{}\n",
            go_value(&Value::Array(patch.to_vec())),
            go_value(&Value::Array(order.to_vec()))
        )));
    }
    Ok(())
}

/// `mergeKeyValueEqual`.
fn key_eq(l: &Value, r: &Value, key: &str) -> R<bool> {
    if key.is_empty() {
        return eq(l, r);
    }
    let get = |x: &Value| match x {
        Value::Object(m) => m.get(key).cloned().ok_or_else(|| no_merge_key(m, key)),
        _ => Err(bad_arg(false, x)),
    };
    let (a, b) = (get(l)?, get(r)?);
    eq(&a, &b)
}

/// `extractToDeleteItems`: (kept, `$patch: delete` items).
fn split_deletes(l: Vec<Value>) -> R<(Vec<Value>, Vec<Value>)> {
    let (mut keep, mut del) = (Vec::new(), Vec::new());
    for x in l {
        let Value::Object(m) = &x else {
            return Err(bad_arg(false, &x));
        };
        if m.get(MARKER).and_then(Value::as_str) == Some("delete") {
            del.push(x);
        } else {
            keep.push(x);
        }
    }
    Ok((keep, del))
}

// ---- lists ----

/// `mergeSliceHandler`: the merged list and the original's array as Go then sees it.
fn slice_handler(
    o: Vec<Value>,
    p: &mut [Value],
    at: &At,
    delete_list: bool,
    opts: MergeOptions,
) -> R<(Vec<Value>, Vec<Value>)> {
    if at.patch_merge() || delete_list {
        let key = at.merge_key().unwrap_or("");
        merge_slice(o, p, &at.item(), key, delete_list, opts)
    } else {
        Ok((p.to_vec(), o))
    }
}

/// `sliceElementType`: the type of every element (6 for maps).
fn elem_type(slices: &[&[Value]]) -> R<u8> {
    let mut prev = None;
    for x in slices.iter().flat_map(|s| s.iter()) {
        match prev {
            // `reflect.TypeOf(nil).Kind()` panics.
            None if x.is_null() => return Err(Error::Panic),
            None if x.is_array() => return Err(Error::NoListOfLists),
            None => prev = Some(ty(x)),
            Some(t) if t != ty(x) => {
                let all: Vec<Value> = slices.iter().map(|s| Value::Array(s.to_vec())).collect();
                return Err(Error::Other(format!(
                    "list element types are not identical: {}",
                    go_value(&Value::Array(all))
                )));
            }
            _ => {}
        }
    }
    prev.ok_or_else(|| Error::Other("no elements in any of the given slices".into()))
}

/// A Go slice over the original list's array: deletions shift the array in place and appends
/// fill the room they free, while the caller's header (the old length) still reads it.
struct Shared {
    cur: Vec<Value>,
    arr: Vec<Value>,
    aliased: bool,
}

impl Shared {
    fn remove(&mut self, i: usize) {
        self.cur.remove(i);
        if self.aliased {
            self.arr[..self.cur.len()].clone_from_slice(&self.cur);
        }
    }
    fn push(&mut self, x: Value) {
        match self.arr.get_mut(self.cur.len()) {
            Some(slot) if self.aliased => *slot = x.clone(),
            _ => self.aliased = false,
        }
        self.cur.push(x);
    }
}

/// `mergeSlice`.
fn merge_slice(
    original: Vec<Value>,
    patch: &mut [Value],
    item: &At,
    key: &str,
    delete_list: bool,
    opts: MergeOptions,
) -> R<(Vec<Value>, Vec<Value>)> {
    if original.is_empty() && patch.is_empty() {
        return Ok((original, Vec::new()));
    }
    let kind = elem_type(&[&original, patch])?;
    if kind != 6 {
        // (A delete list only exists with `MergeParallelList`.)
        if delete_list {
            // deleteFromSlice
            let kept = original
                .iter()
                .filter(|x| !patch.contains(x))
                .cloned()
                .collect();
            return Ok((kept, original));
        }
        let mut both = original.clone();
        both.extend(patch.iter().cloned());
        let merged = dedupe(both);
        let (items, server) = partition(merged, patch, key)?;
        let out = normalize(items, server, patch, &original, key, kind)?;
        return Ok((out, original));
    }
    if key.is_empty() {
        return Err(Error::Other(format!(
            "cannot merge lists without merge key for {}",
            kind_name(item)
        )));
    }
    // mergeSliceWithSpecialElements
    let mut s = Shared {
        cur: original.clone(),
        arr: original,
        aliased: true,
    };
    // The patch's other elements, by index: merging one into a live item mutates it, as in Go.
    let mut rest = Vec::new();
    let mut replace = false;
    for (i, x) in patch.iter().enumerate() {
        let Value::Object(m) = x else {
            return Err(Error::Panic);
        };
        let Some(d) = m.get(MARKER) else {
            rest.push(i);
            continue;
        };
        match d.as_str() {
            Some("delete") => {
                let Some(mv) = m.get(key) else {
                    return Err(no_merge_key(m, key));
                };
                while let Some(i) = find(&s.cur, key, mv)? {
                    s.remove(i);
                }
            }
            Some("replace") => replace = true,
            Some("merge") => {
                return Err(Error::Other(
                    "merging lists cannot yet be specified in the patch".into(),
                ))
            }
            _ => {
                let mut t = String::new();
                go_fmt(d, true, &mut t);
                return Err(Error::Other(format!(
                    "unknown patch type: {t} in map: {}",
                    obj_v(m)
                )));
            }
        }
    }
    if replace {
        s.cur = rest.drain(..).map(|i| patch[i].clone()).collect();
        s.aliased = false;
    }
    let order = s.cur.clone();
    // mergeSliceWithoutSpecialElements
    for &j in &rest {
        let Value::Object(m) = &mut patch[j] else {
            return Err(Error::Panic);
        };
        let Some(mv) = m.get(key) else {
            return Err(no_merge_key(m, key));
        };
        match find(&s.cur, key, mv)? {
            Some(i) => {
                let Value::Object(o) = std::mem::take(&mut s.cur[i]) else {
                    return Err(Error::Panic);
                };
                s.cur[i] = Value::Object(merge_map(o, m, *item, opts)?);
            }
            None => s.push(Value::Object(m.clone())),
        }
    }
    let rest: Vec<Value> = rest.iter().map(|&i| patch[i].clone()).collect();
    let (items, server) = partition(std::mem::take(&mut s.cur), &rest, key)?;
    let out = normalize(items, server, &rest, &order, key, kind)?;
    Ok((out, s.arr))
}

/// `findMapInSliceBasedOnKeyValue`: the index of the map whose `key` is `value`.
fn find(l: &[Value], key: &str, value: &Value) -> R<Option<usize>> {
    for (i, x) in l.iter().enumerate() {
        let Value::Object(m) = x else {
            return Err(Error::Other(format!("value for key {i} is not a map")));
        };
        if let Some(y) = m.get(key) {
            if eq(y, value)? {
                return Ok(Some(i));
            }
        }
    }
    Ok(None)
}

/// `deduplicateScalars`, its order included.
fn dedupe(mut s: Vec<Value>) -> Vec<Value> {
    let mut len = s.len();
    let mut i = 0;
    while i + 1 < len {
        let mut j = i + 1;
        while j < len {
            if s[i] == s[j] {
                s.swap(j, len - 1);
                len -= 1;
            } else {
                j += 1;
            }
        }
        i += 1;
    }
    s.truncate(len);
    s
}

/// `partitionPrimitivesByPresentInList` (no key) or `partitionMapsByPresentInList`: (in `by`,
/// not in `by`).
fn partition(l: Vec<Value>, by: &[Value], key: &str) -> R<(Vec<Value>, Vec<Value>)> {
    let (mut yes, mut no) = (Vec::new(), Vec::new());
    if key.is_empty() {
        by.iter().try_for_each(hashable)?;
    }
    for x in l {
        let found = if key.is_empty() {
            hashable(&x)?;
            by.contains(&x)
        } else {
            let Value::Object(m) = &x else {
                return Err(bad_arg(false, &x));
            };
            let Some(mv) = m.get(key) else {
                return Err(no_merge_key(m, key));
            };
            find(by, key, mv)?.is_some()
        };
        if found {
            yes.push(x)
        } else {
            no.push(x)
        }
    }
    Ok((yes, no))
}

/// `index`: where `x` (its merge key for maps) is in `l`.
fn index(l: &[Value], x: &Value, key: &str, kind: u8) -> R<Option<usize>> {
    fn get<'a>(y: &'a Value, key: &str, kind: u8) -> &'a Value {
        match kind {
            6 => y.get(key).unwrap_or(&Value::Null),
            _ => y,
        }
    }
    let want = get(x, key, kind);
    for (i, y) in l.iter().enumerate() {
        if eq(want, get(y, key, kind))? {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

/// `normalizeElementOrder`: the patch's items in `patch_order`, the server's in `server_order`,
/// then interleaved as `mergeSortedSlice` does.
fn normalize(
    items: Vec<Value>,
    server: Vec<Value>,
    patch_order: &[Value],
    server_order: &[Value],
    key: &str,
    kind: u8,
) -> R<Vec<Value>> {
    let right = order_like(items, patch_order, key, kind)?;
    let left = order_like(server, server_order, key, kind)?;
    let pos = |l: &[Value]| -> R<Vec<Option<usize>>> {
        l.iter()
            .map(|x| index(server_order, x, key, kind))
            .collect()
    };
    let (li, ri) = (pos(&left)?, pos(&right)?);
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(left.len() + right.len());
    while i < left.len() || j < right.len() {
        let take_left = if j >= right.len() {
            true
        } else if i >= left.len() {
            false
        } else {
            matches!((li[i], ri[j]), (Some(a), Some(b)) if a < b)
        };
        if take_left {
            out.push(left[i].clone());
            i += 1;
        } else {
            out.push(right[j].clone());
            j += 1;
        }
    }
    Ok(out)
}

/// `normalizeSliceOrder`: stable, by position in `order`; `$patch: delete` maps last. (Go's
/// comparator is not an order when an item is missing from `order`; every caller passes
/// items that are in it, and missing ones go last here.)
fn order_like(l: Vec<Value>, order: &[Value], key: &str, kind: u8) -> R<Vec<Value>> {
    let (l, del) = if kind == 6 {
        for x in l.iter().chain(order) {
            match x {
                Value::Object(m) if !m.contains_key(key) => return Err(no_merge_key(m, key)),
                Value::Object(_) => {}
                _ => return Err(bad_arg(false, x)),
            }
        }
        split_deletes(l)?
    } else {
        (l, Vec::new())
    };
    let mut keyed = l
        .into_iter()
        .map(|x| Ok((index(order, &x, key, kind)?.unwrap_or(usize::MAX), x)))
        .collect::<R<Vec<_>>>()?;
    crate::sort::sort_by_key(&mut keyed, |(i, _)| *i);
    Ok(keyed.into_iter().map(|(_, x)| x).chain(del).collect())
}

#[cfg(test)]
mod tests;
