//! A client's variables and the revisions of objects it has observed.

use crate::json::HValue;
use crate::store::ObjectRef;

/// An object a variable holds, as it came from the server.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Held {
    pub object: ObjectRef,
    /// The resourceVersion of the response it came from (§6: local edits, even of
    /// `metadata.resourceVersion`, do not change it).
    pub base: u64,
}

/// A client variable.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Var {
    pub value: HValue,
    /// Set when the value is (a copy of) an object a response returned.
    pub held: Option<Held>,
}

/// A client's variables by name, sorted by name (a sorted `Vec` rather than one more `BTreeMap`
/// type in the page: docs/size.md).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Vars(Vec<(String, Var)>);

impl Vars {
    fn find(&self, name: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|v| v.0.as_str().cmp(name))
    }

    /// The variable `name`.
    pub fn get(&self, name: &str) -> Option<&Var> {
        let i = self.find(name).ok()?;
        Some(&self.0[i].1)
    }

    /// The variable `name`, to change it.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut Var> {
        let i = self.find(name).ok()?;
        Some(&mut self.0[i].1)
    }

    /// Sets (or replaces) the variable `name`.
    pub fn insert(&mut self, name: String, var: Var) {
        match self.find(&name) {
            Ok(i) => self.0[i].1 = var,
            Err(i) => self.0.insert(i, (name, var)),
        }
    }

    /// The variables, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Var)> {
        self.0.iter().map(|(n, v)| (n, v))
    }

    /// Forgets every variable.
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

/// A revision per object, sorted by object (a sorted `Vec` rather than one more `BTreeMap` type
/// in the page: docs/size.md).
pub type Revisions = Vec<(ObjectRef, u64)>;

pub(super) fn revision_in(revisions: &[(ObjectRef, u64)], target: &ObjectRef) -> Option<u64> {
    let i = revisions.binary_search_by(|r| r.0.cmp(target)).ok()?;
    Some(revisions[i].1)
}

pub(super) fn set_revision(revisions: &mut Revisions, target: &ObjectRef, revision: u64) {
    match revisions.binary_search_by(|r| r.0.cmp(target)) {
        Ok(i) => revisions[i].1 = revision,
        Err(i) => revisions.insert(i, (target.clone(), revision)),
    }
}
