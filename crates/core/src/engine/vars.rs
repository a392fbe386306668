//! A client's variables and the revisions of objects it has observed.

use crate::json::HValue;
use crate::store::ObjectRef;
use crate::vecmap::VecMap;

/// An object a variable holds, as it came from the server.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Held {
    pub object: ObjectRef,
    /// The resourceVersion of the response it came from: local edits, even of
    /// `metadata.resourceVersion`, do not change it (docs/scenario-language.md, "Lost updates, precisely").
    pub base: u64,
}

/// A client variable.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Var {
    pub value: HValue,
    /// Set when the value is (a copy of) an object a response returned.
    pub held: Option<Held>,
}

/// A client's variables by name (a [`VecMap`] rather than one more `BTreeMap` type in the page:
/// docs/size.md).
pub type Vars = VecMap<String, Var>;

/// A revision per object (a [`VecMap`] rather than one more `BTreeMap` type in the page:
/// docs/size.md).
pub type Revisions = VecMap<ObjectRef, u64>;

pub(super) fn revision_in(revisions: &Revisions, target: &ObjectRef) -> Option<u64> {
    revisions.get(target).copied()
}

pub(super) fn set_revision(revisions: &mut Revisions, target: &ObjectRef, revision: u64) {
    revisions.set(target, revision);
}
