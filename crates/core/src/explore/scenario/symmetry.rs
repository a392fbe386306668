//! Symmetric clients (the `symmetry` feature): which clients are interchangeable, the action of
//! a permutation on a packed world, and the representative the search keeps ("Symmetric
//! clients" in [`super`]'s docs). The page leaves the feature out (docs/size.md).

use super::super::pair;
use super::{recorded, ClientState, Interned, Packed, ScenarioModel, Tables};
use crate::lang::ast::{ExpectKind, Scenario, Stmt, StmtKind};
use std::collections::BTreeMap;

/// Symmetry's part of the model's tables.
pub(super) struct SymTables {
    /// By client-state number, the number of its signature (the state with every permuted
    /// client's name erased).
    sigs: Vec<Option<u32>>,
    sig_ids: BTreeMap<Box<[u8]>, u32>,
    /// The permutations met, numbered.
    perms: Interned<Box<[u8]>>,
    /// Renamed stores and client states by [`pair`] (number, permutation number).
    renamed_stores: BTreeMap<Box<[u8]>, u32>,
    renamed_clients: BTreeMap<Box<[u8]>, u32>,
}

impl SymTables {
    pub(super) fn new() -> Self {
        SymTables {
            sigs: Vec::new(),
            sig_ids: BTreeMap::new(),
            perms: Interned::new(),
            renamed_stores: BTreeMap::new(),
            renamed_clients: BTreeMap::new(),
        }
    }
}

/// The groups of clients that symmetry reduction may swap ("Symmetric clients" in the module
/// docs): clients with the same program (the same statement texts, block by block) that no
/// expectation names (`expect NAME …` pins a client) and that are not named like the setup's
/// actor or field manager, in a scenario without kubectl, `apply` or `file` statements (their
/// texts and managers carry names the renaming does not reach), whose statements and
/// expectations never mention `managedFields` (the only place a program can read a name
/// from), and whose clients' sleeps together stay under a second. Other strings need no
/// check: a literal is the same in every copy of a program, so it is the same whichever client
/// wrote it.
pub(super) fn groups(s: &Scenario) -> Vec<Vec<u32>> {
    /// Whether the program rules symmetry out.
    fn excluded(stmts: &[Stmt]) -> bool {
        stmts.iter().any(|st| {
            st.text.contains("managedFields")
                || match &st.kind {
                    StmtKind::Kubectl { .. } | StmtKind::Apply { .. } | StmtKind::File { .. } => {
                        true
                    }
                    StmtKind::Retry { body, .. } => excluded(body),
                    _ => false,
                }
        })
    }
    /// The same statement texts, block by block.
    fn same(a: &[Stmt], b: &[Stmt]) -> bool {
        a.len() == b.len()
            && a.iter().zip(b).all(|(x, y)| {
                x.text == y.text
                    && match (&x.kind, &y.kind) {
                        (StmtKind::Retry { body: p, .. }, StmtKind::Retry { body: q, .. }) => {
                            same(p, q)
                        }
                        (StmtKind::Retry { .. }, _) | (_, StmtKind::Retry { .. }) => false,
                        _ => true,
                    }
            })
    }
    let mut pinned: Vec<&str> = vec![crate::engine::SETUP_ACTOR, crate::engine::SETUP_MANAGER];
    for e in &s.expectations {
        if e.text.contains("managedFields") {
            return Vec::new();
        }
        match &e.kind {
            ExpectKind::Succeeds(c)
            | ExpectKind::FailsWith { client: c, .. }
            | ExpectKind::Prints { client: c, .. }
            | ExpectKind::Exits { client: c, .. } => pinned.push(c),
            _ => {}
        }
    }
    if s.clients.iter().any(|c| excluded(&c.body)) {
        return Vec::new();
    }
    // Every write of every schedule is stamped within the first second (the clock starts at 0
    // and all the sleeps together stay under a second). An outcome class leaves out the
    // `managedFields` times, and the entries are ordered by time before manager name; with a
    // single time, the order after a renaming follows from what the class keeps, so mapping a
    // class through a permutation is well defined (two final worlds of one class could
    // otherwise order their renamed entries differently).
    let sleeps = s
        .clients
        .iter()
        .fold(0u64, |acc, c| acc.saturating_add(super::max_sleep(&c.body)));
    if sleeps >= super::SECOND {
        return Vec::new();
    }
    let mut groups: Vec<Vec<u32>> = Vec::new();
    for (i, c) in s.clients.iter().enumerate() {
        if pinned.contains(&c.name.as_str()) {
            continue;
        }
        let body = |g: &Vec<u32>| &s.clients[g[0] as usize].body;
        match groups.iter_mut().find(|g| same(body(g), &c.body)) {
            Some(g) => g.push(i as u32),
            None => groups.push(vec![i as u32]),
        }
    }
    groups.retain(|g| g.len() > 1);
    groups
}

/// Renames the field managers in every object a client's variables hold.
fn rename_vars(state: &mut ClientState, rename: &dyn Fn(&str) -> Option<String>) {
    for v in state.vars.values_mut() {
        crate::store::rename_managed(&mut v.value.0, rename);
    }
}

/// The inverse of a permutation of slots.
fn inverse(perm: &[u8]) -> Vec<u8> {
    let mut inv = vec![0u8; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inv[usize::from(p)] = i as u8;
    }
    inv
}

impl ScenarioModel {
    /// The renaming of client names by a permutation of slots: client `i`'s name becomes
    /// client `perm[i]`'s (only permuted clients are named in `perm`'s moves).
    fn renaming<'a>(&'a self, perm: &'a [u8]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name: &str| {
            let clients = &self.scenario.clients;
            let i = clients.iter().position(|c| c.name == name)?;
            let to = usize::from(*perm.get(i)?);
            (to != i).then(|| clients[to].name.clone())
        }
    }

    /// Client state `id` with the names renamed by `perm` (wherever it holds an object's
    /// `managedFields`), interned.
    fn renamed_client(&self, t: &mut Tables, id: u32, perm: &[u8], pid: u32) -> u32 {
        if let Some(&r) = t.sym.renamed_clients.get(&pair(id, pid)[..]) {
            return r;
        }
        let rename = self.renaming(perm);
        let mut state = t.clients.values[id as usize].clone();
        rename_vars(&mut state, &rename);
        let r = t.client(state);
        t.sym.renamed_clients.insert(pair(id, pid).into(), r);
        r
    }

    /// The signature of client state `id`: the state with every permuted client's name
    /// erased, as a number (equal numbers, equal signatures).
    fn signature(&self, t: &mut Tables, id: u32) -> u32 {
        if let Some(Some(sig)) = t.sym.sigs.get(id as usize) {
            return *sig;
        }
        let permuted = |name: &str| {
            self.groups
                .iter()
                .flatten()
                .any(|&c| self.scenario.clients[c as usize].name == name)
                .then(String::new)
        };
        let mut state = t.clients.values[id as usize].clone();
        rename_vars(&mut state, &permuted);
        let bytes: Box<[u8]> = recorded(&state).into();
        let next = t.sym.sig_ids.len() as u32;
        let sig = *t.sym.sig_ids.entry(bytes).or_insert(next);
        if t.sym.sigs.len() <= id as usize {
            t.sym.sigs.resize(id as usize + 1, None);
        }
        t.sym.sigs[id as usize] = Some(sig);
        sig
    }

    /// `perm·w`: client `i` moved to slot `perm[i]`, and every name renamed accordingly in
    /// the store and in the client states.
    pub(super) fn apply(&self, t: &mut Tables, w: &Packed, perm: &[u8]) -> Packed {
        let pid = t.sym.perms.intern(perm.into()).0;
        let mut clients = vec![0u32; w.clients.len()];
        for (i, &id) in w.clients.iter().enumerate() {
            clients[usize::from(perm[i])] = self.renamed_client(t, id, perm, pid);
        }
        let store = match t.sym.renamed_stores.get(&pair(w.store, pid)[..]) {
            Some(&s) => s,
            None => {
                let renamed = t.stores.values[w.store as usize].renamed(&self.renaming(perm));
                let s = t.stores.intern(renamed).0;
                t.sym.renamed_stores.insert(pair(w.store, pid).into(), s);
                s
            }
        };
        Packed {
            store,
            clients: clients.into(),
            clock_nanos: w.clock_nanos,
            rng: w.rng.clone(),
            lost: w.lost,
        }
    }

    /// `world = perm·rep`: the slots of each group sorted by their states' signatures (ties
    /// by slot), the names renamed to match.
    pub(super) fn representative(&self, w: Packed) -> (Packed, Option<Box<[u8]>>) {
        if self.groups.is_empty() {
            return (w, None);
        }
        let mut t = self.tables.borrow_mut();
        let mut perm: Vec<u8> = (0..w.clients.len() as u8).collect();
        for g in &self.groups {
            let mut slots: Vec<(u32, u32)> = g
                .iter()
                .map(|&c| (self.signature(&mut t, w.clients[c as usize]), c))
                .collect();
            crate::sort::sort(&mut slots);
            for (k, &(_, c)) in slots.iter().enumerate() {
                perm[g[k] as usize] = c as u8;
            }
        }
        if perm.iter().enumerate().all(|(i, &p)| usize::from(p) == i) {
            return (w, None);
        }
        let rep = self.apply(&mut t, &w, &inverse(&perm));
        #[cfg(feature = "verify")]
        if self.verify {
            assert!(
                self.apply(&mut t, &rep, &perm) == w,
                "a world and its representative permuted back differ"
            );
        }
        (rep, Some(perm.into()))
    }

    #[cfg(feature = "verify")]
    /// [`ScenarioModel::verifying`]: the step of `client` from `w` (`next`, `letters`)
    /// commutes with a rotation of each group of symmetric clients: the rotated client's step
    /// from the rotated world is the rotated step.
    pub(super) fn check_commutes(&self, w: &Packed, client: u32, next: &Packed, letters: &[u8]) {
        for g in &self.groups {
            let mut perm: Vec<u8> = (0..w.clients.len() as u8).collect();
            for (k, &c) in g.iter().enumerate() {
                perm[c as usize] = g[(k + 1) % g.len()] as u8;
            }
            let (moved, expected) = {
                let mut t = self.tables.borrow_mut();
                (
                    self.apply(&mut t, w, &perm),
                    self.apply(&mut t, next, &perm),
                )
            };
            let (got, got_letters) = self.step(&moved, u32::from(perm[client as usize]));
            let mapped: Vec<u8> = letters
                .iter()
                .map(|l| b'a' + perm[usize::from(l - b'a')])
                .collect();
            assert!(
                got == expected && got_letters == mapped,
                "a step of client {client} does not commute with the permutation {perm:?}"
            );
        }
    }
}
