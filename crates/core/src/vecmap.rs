//! Small ordered maps and sets as sorted `Vec`s with binary search.
//!
//! Every `BTreeMap`/`BTreeSet` key and value type costs the page its own insert, remove, clone,
//! drop and set-operation code (~3 kB of wasm each, docs/size.md), while the collections of a
//! world hold a scenario's handful of objects, fields and variables. [`VecMap`] and [`VecSet`]
//! keep their entries in a `Vec` sorted by key, with the few methods the core uses, and behave
//! like the standard types in everything observable (a property test checks them against
//! `BTreeMap`/`BTreeSet`):
//! - iteration is in ascending key order;
//! - inserting a key that is present replaces its value (the later entry wins), also when a
//!   map is built from an unsorted list ([`VecMap::from_vec`]);
//! - `Hash` writes exactly what the standard types write (the length, then each entry: key,
//!   then value), and `Eq` compares entry by entry, so a world that switches between them keeps
//!   its hash, its encoding in the explorer's memo and its equality.
//!
//! Lookups and inserts are O(log n) searches plus an O(n) shift, which for these sizes is
//! cheaper than a tree. The explorer's memo and interner, which can hold millions of entries,
//! stay `BTreeMap`s.

use std::borrow::Borrow;
use std::cmp::Ordering;

/// The binary search behind every map and set: the index of the element `cmp` finds equal, or
/// where it would be inserted, as `slice::binary_search_by` (keys are unique, so the answer
/// is too). One compiled loop, the comparison behind `dyn`: a `binary_search_by` per key type
/// would cost the page a copy each (docs/size.md).
fn search(len: usize, cmp: &mut dyn FnMut(usize) -> Ordering) -> Result<usize, usize> {
    let (mut lo, mut hi) = (0, len);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match cmp(mid) {
            Ordering::Less => lo = mid + 1,
            Ordering::Greater => hi = mid,
            Ordering::Equal => return Ok(mid),
        }
    }
    Err(lo)
}

/// A map kept as a `Vec` of `(key, value)` sorted by key, each key once.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct VecMap<K, V>(Vec<(K, V)>);

impl<K, V> Default for VecMap<K, V> {
    fn default() -> Self {
        VecMap(Vec::new())
    }
}

impl<K: Ord, V> VecMap<K, V> {
    /// An empty map.
    pub const fn new() -> Self {
        VecMap(Vec::new())
    }

    /// The map of `entries`, in any order; of entries with equal keys the later one wins (as
    /// inserting them one by one would do).
    pub fn from_vec(mut entries: Vec<(K, V)>) -> Self {
        // A stable sort keeps equal keys in their order, so the last of a run is the latest.
        crate::sort::sort_by(&mut entries, |a, b| a.0.cmp(&b.0));
        entries.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                std::mem::swap(later, kept);
            }
            same
        });
        VecMap(entries)
    }

    fn find<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        let entries = &self.0;
        search(entries.len(), &mut |i| entries[i].0.borrow().cmp(key))
    }

    /// The value of `key`.
    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        let i = self.find(key).ok()?;
        Some(&self.0[i].1)
    }

    /// The value of `key`, to change it.
    pub fn get_mut<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        let i = self.find(key).ok()?;
        Some(&mut self.0[i].1)
    }

    /// Whether `key` has a value.
    pub fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.find(key).is_ok()
    }

    /// Sets the value of `key`, replacing the value it had (the key itself is kept).
    pub fn insert(&mut self, key: K, value: V) {
        match self.find(&key) {
            Ok(i) => self.0[i].1 = value,
            Err(i) => self.0.insert(i, (key, value)),
        }
    }

    /// [`VecMap::insert`] by reference: the key is cloned only when it is new.
    pub fn set<Q: Ord + ?Sized + ToOwned<Owned = K>>(&mut self, key: &Q, value: V)
    where
        K: Borrow<Q>,
    {
        match self.find(key) {
            Ok(i) => self.0[i].1 = value,
            Err(i) => self.0.insert(i, (key.to_owned(), value)),
        }
    }

    /// The value of `key`, inserting `make()` first when there is none.
    pub fn get_or_insert_with<Q: Ord + ?Sized + ToOwned<Owned = K>>(
        &mut self,
        key: &Q,
        make: impl FnOnce() -> V,
    ) -> &mut V
    where
        K: Borrow<Q>,
    {
        let i = match self.find(key) {
            Ok(i) => i,
            Err(i) => {
                self.0.insert(i, (key.to_owned(), make()));
                i
            }
        };
        &mut self.0[i].1
    }

    /// Removes `key`, returning its value.
    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        let i = self.find(key).ok()?;
        Some(self.0.remove(i).1)
    }
}

impl<K, V> VecMap<K, V> {
    /// The entries, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    /// The values, in key order, to change in place (the keys stay as they are).
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.0.iter_mut().map(|(_, v)| v)
    }

    /// The entries as a slice of `(key, value)`, in key order.
    pub fn as_slice(&self) -> &[(K, V)] {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

impl<K, V> IntoIterator for VecMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;
    /// The entries, in key order.
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

/// A set kept as a sorted `Vec` without repeats.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct VecSet<T>(Vec<T>);

impl<T> Default for VecSet<T> {
    fn default() -> Self {
        VecSet(Vec::new())
    }
}

impl<T: Ord> VecSet<T> {
    /// An empty set.
    pub const fn new() -> Self {
        VecSet(Vec::new())
    }

    fn find(&self, x: &T) -> Result<usize, usize> {
        let items = &self.0;
        search(items.len(), &mut |i| items[i].cmp(x))
    }

    /// Adds `x` (nothing changes when it is there).
    pub fn insert(&mut self, x: T) {
        if let Err(i) = self.find(&x) {
            self.0.insert(i, x);
        }
    }

    pub fn contains(&self, x: &T) -> bool {
        self.find(x).is_ok()
    }

    /// Adds every element of `other` (the union).
    pub fn extend(&mut self, other: VecSet<T>) {
        for x in other.0 {
            self.insert(x);
        }
    }

    /// The elements of `self` not in `other`, in order.
    pub fn difference<'a>(&'a self, other: &'a VecSet<T>) -> impl Iterator<Item = &'a T> {
        self.iter().filter(|x| !other.contains(x))
    }

    /// The elements in both, in order.
    pub fn intersection<'a>(&'a self, other: &'a VecSet<T>) -> impl Iterator<Item = &'a T> {
        self.iter().filter(|x| other.contains(x))
    }
}

impl<T> VecSet<T> {
    /// The elements, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.0.iter()
    }

    /// Keeps the elements for which `keep` holds.
    pub fn retain(&mut self, keep: impl FnMut(&T) -> bool) {
        self.0.retain(keep);
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::Recorder;
    use proptest::prelude::*;
    use std::collections::{BTreeMap, BTreeSet};
    use std::hash::Hash;

    /// The exact byte stream `Hash` writes (the explorer's encoding of a world).
    fn encoding(x: &impl Hash) -> Vec<u8> {
        let mut r = Recorder(Vec::new());
        x.hash(&mut r);
        r.0
    }

    #[derive(Debug, Clone)]
    enum Op {
        Insert(String, u8),
        Set(String, u8),
        GetOrInsert(String, u8),
        GetMut(String, u8),
        Remove(String),
        Clear,
    }

    fn key() -> impl Strategy<Value = String> {
        "[a-c]{0,2}"
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (key(), any::<u8>()).prop_map(|(k, v)| Op::Insert(k, v)),
            2 => (key(), any::<u8>()).prop_map(|(k, v)| Op::Set(k, v)),
            2 => (key(), any::<u8>()).prop_map(|(k, v)| Op::GetOrInsert(k, v)),
            1 => (key(), any::<u8>()).prop_map(|(k, v)| Op::GetMut(k, v)),
            2 => key().prop_map(Op::Remove),
            1 => Just(Op::Clear),
        ]
    }

    /// Every key the strategies can produce, to probe lookups of absent keys too.
    fn all_keys() -> Vec<String> {
        let mut out = vec![String::new()];
        for a in ["a", "b", "c"] {
            out.push(a.to_string());
            for b in ["a", "b", "c"] {
                out.push(format!("{a}{b}"));
            }
        }
        out
    }

    fn same_map(m: &VecMap<String, u8>, b: &BTreeMap<String, u8>) -> Result<(), TestCaseError> {
        prop_assert!(m.iter().eq(b.iter()), "iteration in key order");
        prop_assert_eq!(m.len(), b.len());
        prop_assert_eq!(m.is_empty(), b.is_empty());
        for k in all_keys() {
            prop_assert_eq!(m.get(k.as_str()), b.get(&k));
            prop_assert_eq!(m.contains_key(k.as_str()), b.contains_key(&k));
        }
        prop_assert_eq!(encoding(m), encoding(b), "the same hash stream as BTreeMap");
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn vec_maps_behave_like_btree_maps(ops in proptest::collection::vec(op(), 0..24)) {
            let mut m = VecMap::new();
            let mut b = BTreeMap::new();
            for op in ops {
                match op {
                    Op::Insert(k, v) => {
                        m.insert(k.clone(), v);
                        b.insert(k, v);
                    }
                    Op::Set(k, v) => {
                        m.set(k.as_str(), v);
                        b.insert(k, v);
                    }
                    Op::GetOrInsert(k, v) => {
                        let got = *m.get_or_insert_with(k.as_str(), || v);
                        prop_assert_eq!(got, *b.entry(k).or_insert(v));
                    }
                    Op::GetMut(k, v) => {
                        if let Some(x) = m.get_mut(k.as_str()) {
                            *x = v;
                        }
                        if let Some(x) = b.get_mut(&k) {
                            *x = v;
                        }
                    }
                    Op::Remove(k) => prop_assert_eq!(m.remove(k.as_str()), b.remove(&k)),
                    Op::Clear => {
                        m.clear();
                        b.clear();
                    }
                }
                same_map(&m, &b)?;
            }
            prop_assert!(m.as_slice().iter().map(|(k, v)| (k, v)).eq(b.iter()));
            prop_assert!(m.clone().into_iter().eq(b.clone()));
        }

        #[test]
        fn a_map_from_a_list_keeps_the_later_of_equal_keys(
            entries in proptest::collection::vec((key(), any::<u8>()), 0..24),
        ) {
            let m = VecMap::from_vec(entries.clone());
            let mut b = BTreeMap::new();
            for (k, v) in entries {
                b.insert(k, v);
            }
            same_map(&m, &b)?;
        }

        #[test]
        fn maps_are_equal_exactly_when_btree_maps_are(
            x in proptest::collection::vec((key(), 0..3u8), 0..6),
            y in proptest::collection::vec((key(), 0..3u8), 0..6),
        ) {
            let (mx, my) = (VecMap::from_vec(x.clone()), VecMap::from_vec(y.clone()));
            let bx: BTreeMap<String, u8> = x.into_iter().collect();
            let by: BTreeMap<String, u8> = y.into_iter().collect();
            prop_assert_eq!(mx == my, bx == by);
        }

        #[test]
        fn vec_sets_behave_like_btree_sets(
            a in proptest::collection::vec(key(), 0..10),
            b in proptest::collection::vec(key(), 0..10),
        ) {
            let (mut sa, mut sb) = (VecSet::new(), VecSet::new());
            a.iter().for_each(|x| sa.insert(x.clone()));
            b.iter().for_each(|x| sb.insert(x.clone()));
            let ba: BTreeSet<String> = a.into_iter().collect();
            let bb: BTreeSet<String> = b.into_iter().collect();
            prop_assert!(sa.iter().eq(ba.iter()));
            prop_assert_eq!(sa.len(), ba.len());
            prop_assert_eq!(sa.is_empty(), ba.is_empty());
            prop_assert_eq!(encoding(&sa), encoding(&ba), "the same hash stream as BTreeSet");
            prop_assert_eq!(sa == sb, ba == bb);
            prop_assert!(sa.difference(&sb).eq(ba.difference(&bb)));
            prop_assert!(sa.intersection(&sb).eq(ba.intersection(&bb)));
            for x in all_keys() {
                prop_assert_eq!(sa.contains(&x), ba.contains(&x));
            }
            let mut su = sa.clone();
            su.extend(sb);
            prop_assert!(su.iter().eq(ba.union(&bb)));
            let mut sr = sa.clone();
            sr.retain(|x| x.len() != 1);
            let mut br = ba.clone();
            br.retain(|x| x.len() != 1);
            prop_assert!(sr.iter().eq(br.iter()));
        }
    }
}
