//! The explorer: every order of the clients' requests, checked.
//!
//! The search is a depth-first walk over worlds. A *choice* is a client that can send its next
//! request; taking it runs that client up to and including the request, then eagerly through
//! the statements after it that send none (docs/scenario-language.md, "Schedules": statements that send no
//! request never create a choice). So a *schedule* is a complete order of requests.
//!
//! Worlds reached by different orders are merged (memoised by value), and every count is still
//! exact: each memoised world keeps a [`Summary`] of everything below it
//! (how many schedules, how many violate each expectation, the shortest counterexample of each,
//! the outcome classes), and a parent adds its children's summaries. `states` counts the
//! distinct worlds visited; `schedules` the complete request orders, with multiplicity.
//!
//! The memo keeps each world as its *encoding* ([`Model::encode`]: by default the exact byte
//! stream its `Hash` writes, which for derived impls over integers, strings, collections and
//! [`crate::json::hash_value`] determines the value), bucketed by a 64-bit fingerprint of it.
//! Equal encodings are equal worlds, so merging stays exact, and a compact byte string takes a
//! fraction of the memory of the world's own structure. Outcome classes are interned: a
//! summary refers to them by number.
//!
//! The walk is incremental: [`Explorer::run`] does a bounded slice of work and returns
//! [`Progress`], so a Web Worker can report progress and stop on cancel between slices.
//!
//! [`scenario`] is the model of a scenario and its public entry point
//! ([`ScenarioExplorer`], [`ExploreReport`]); [`bench`](mod@bench) lists the benchmark scenarios.

pub mod bench;
pub mod scenario;

pub use scenario::{explore, ExploreReport, ScenarioExplorer, ScenarioModel};

use crate::count::Count;
use crate::vecmap::VecMap;
use std::collections::BTreeMap;
use std::hash::Hash;

pub use crate::hash::{Fnv64, Recorder};

/// What the explorer needs of a model: choices, a transition that reports the schedule
/// letters it ran, and an evaluation of a finished world.
pub trait Model {
    /// A world: a value, compared and hashed exactly.
    type World: Clone + Eq + Hash;

    /// The clients (by index) that may take the next request in `world`; empty when finished.
    fn choices(&self, world: &Self::World) -> Vec<u32>;

    /// Runs `client`'s next request (and the statements around it that send none), returning
    /// the new world and the steps it ran as schedule letters (`b'a'` + client index each).
    fn advance(&self, world: &Self::World, client: u32) -> (Self::World, Vec<u8>);

    /// Evaluates a finished world: which expectations fail, and its outcome class.
    fn evaluate(&self, world: &Self::World) -> Evaluation;

    /// The world's memo key: two worlds may be merged exactly when their encodings are equal.
    /// The default is the byte stream `Hash` writes, which determines the value when every
    /// `Hash` impl inside writes an injective, prefix-free stream (derived impls over integers,
    /// `bool`, strings, `Vec`, `BTreeMap`, enums and structs do; so does
    /// [`crate::json::hash_value`]).
    fn encode(&self, world: &Self::World) -> Vec<u8> {
        let mut r = Recorder(Vec::new());
        world.hash(&mut r);
        r.0
    }

    /// Whether the model has symmetries ([`Model::canonical`]): when not, the search leaves
    /// out all the work of mapping summaries through permutations, at compile time (the
    /// page's build has none: docs/size.md).
    const SYMMETRIC: bool = false;

    /// A representative of `world` under the model's symmetries (clients that are
    /// interchangeable), and the permutation `σ` of client slots that maps it back:
    /// `world = permute(rep, σ)`, `σ[i]` being the slot in `world` of the representative's
    /// client `i`; `None` for the identity. Worlds with equal representatives are merged, and
    /// the summary of one is the other's with its letters and outcome classes mapped by `σ`.
    /// The default: no symmetry.
    fn canonical(&self, world: Self::World) -> (Self::World, Option<Box<[u8]>>) {
        (world, None)
    }

    /// `σ·world`: client `i` of `world` moved to slot `σ[i]`, renamed to that slot's client
    /// wherever the world records names. Only called with a permutation [`Model::canonical`]
    /// returned (or its inverse); the default, for models without symmetry, is never called.
    fn permute(&self, world: &Self::World, perm: &[u8]) -> Self::World {
        let _ = perm;
        world.clone()
    }
}

impl<M: Model + ?Sized> Model for &M {
    type World = M::World;
    const SYMMETRIC: bool = M::SYMMETRIC;
    fn choices(&self, world: &Self::World) -> Vec<u32> {
        (**self).choices(world)
    }
    fn advance(&self, world: &Self::World, client: u32) -> (Self::World, Vec<u8>) {
        (**self).advance(world, client)
    }
    fn evaluate(&self, world: &Self::World) -> Evaluation {
        (**self).evaluate(world)
    }
    fn encode(&self, world: &Self::World) -> Vec<u8> {
        (**self).encode(world)
    }
    fn canonical(&self, world: Self::World) -> (Self::World, Option<Box<[u8]>>) {
        (**self).canonical(world)
    }
    fn permute(&self, world: &Self::World, perm: &[u8]) -> Self::World {
        (**self).permute(world, perm)
    }
}

/// A finished world as the report sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluation {
    /// One entry per expectation, in order: `true` when it fails in this world.
    pub violated: Vec<bool>,
    /// Identifies the outcome class (equal keys: same final store and client outcomes).
    pub outcome_key: String,
    /// A one-line summary of the outcome, for people.
    pub outcome_summary: String,
}

/// Limits on the search; when one is reached the report says `complete: false`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Stop after this many complete schedules are accounted for (`u64::MAX`, the default:
    /// no limit, even when the count grows past it).
    pub max_schedules: u64,
    /// Stop after this many distinct worlds.
    pub max_states: u64,
    /// Do not follow a schedule longer than this many requests.
    pub max_depth: u32,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            // Counting is cheap (memoised); the number of states is what costs work.
            max_schedules: u64::MAX,
            max_states: 200_000,
            max_depth: 200,
        }
    }
}

/// Everything known about the schedules below one world.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub schedules: Count,
    /// Per expectation: how many schedules violate it.
    pub violations: Vec<Count>,
    /// Per expectation: the shortest violating continuation, as schedule letters.
    pub counterexamples: Vec<Option<Vec<u8>>>,
    /// Outcome classes by number (see [`Report::classes`]), sorted by number: (count, shortest
    /// example continuation).
    pub outcomes: VecMap<u32, (Count, Vec<u8>)>,
}

/// No edge, no world: the end of a path.
const NONE: u32 = u32::MAX;

/// The shortest continuation found below a world, without its letters: its length, its first
/// edge (a number in [`Edges`]) and the summary of the world that edge leads to, whose own path
/// for the same expectation or class goes on from there. The empty continuation of a finished
/// world is `len 0, edge NONE`. Kept this way, a memoised summary holds no letters: on the
/// 6-client counter, 1.18 million summaries with an example for each of up to 36 outcome
/// classes (docs/explorer.md, "Memory").
///
/// Under a symmetry ([`Model::canonical`]) the world the edge leads to is the permutation
/// `perm` of the one `next` summarises: the letters below it are `next`'s mapped by `perm`,
/// and an outcome class's path goes on with the class `key` of `next` (the class before the
/// mapping).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Path {
    len: u32,
    edge: u32,
    next: u32,
    /// A number in the explorer's permutations; 0 is the identity.
    perm: u32,
    /// For an outcome class's path: the class in `next` it continues with.
    key: u32,
}

impl Path {
    const EMPTY: Path = Path {
        len: 0,
        edge: NONE,
        next: NONE,
        perm: 0,
        key: NONE,
    };
}

/// A [`Summary`] as the search keeps it: the continuations as [`Path`]s.
#[derive(Debug, Clone, Default)]
struct Compact {
    schedules: Count,
    violations: Vec<Count>,
    counterexamples: Vec<Option<Path>>,
    outcomes: VecMap<u32, (Count, Path)>,
}

/// Two numbers as one key of a table keyed by bytes (one map type fewer in the page:
/// docs/size.md).
pub(crate) fn pair(a: u32, b: u32) -> [u8; 8] {
    let mut k = [0u8; 8];
    k[..4].copy_from_slice(&a.to_le_bytes());
    k[4..].copy_from_slice(&b.to_le_bytes());
    k
}

/// The distinct edges (the letters of one transition), numbered; also the distinct
/// permutations of client slots ([`Model::canonical`]).
#[derive(Default)]
struct Edges {
    letters: Vec<Box<[u8]>>,
    ids: BTreeMap<Box<[u8]>, u32>,
}

impl Edges {
    fn id(&mut self, edge: &[u8]) -> u32 {
        if let Some(id) = self.ids.get(edge) {
            return *id;
        }
        let id = self.letters.len() as u32;
        self.letters.push(edge.into());
        self.ids.insert(edge.into(), id);
        id
    }
}

impl Compact {
    fn empty(n_expectations: usize) -> Self {
        Compact {
            schedules: Count::zero(),
            violations: vec![Count::zero(); n_expectations],
            counterexamples: vec![None; n_expectations],
            outcomes: VecMap::new(),
        }
    }

    fn terminal(eval: &Evaluation, class: u32) -> Self {
        let n = eval.violated.len();
        let mut s = Compact::empty(n);
        s.schedules = Count::from(1);
        for (i, v) in eval.violated.iter().enumerate() {
            if *v {
                s.violations[i] = Count::from(1);
                s.counterexamples[i] = Some(Path::EMPTY);
            }
        }
        s.outcomes.insert(class, (Count::from(1), Path::EMPTY));
        s
    }

    /// Adds the summary `child` (number `child_id`) reached through the steps `edge`, the
    /// world there being the permutation `perm` of `child`'s, whose outcome classes are then
    /// `keys` (in the order of `child.outcomes`; `None`: the same): the counts add up, and a
    /// continuation through `edge` replaces one only when it is strictly shorter (so of
    /// equally short ones the first found stays).
    fn absorb(
        &mut self,
        edges: &mut Edges,
        edge: &[u8],
        (child_id, perm): (u32, u32),
        child: &Compact,
        keys: Option<&[u32]>,
    ) {
        let mut edge_id = None;
        let mut through = |tail: &Path, key: u32, edges: &mut Edges| Path {
            len: edge.len() as u32 + tail.len,
            edge: *edge_id.get_or_insert_with(|| edges.id(edge)),
            next: child_id,
            perm,
            key,
        };
        self.schedules.add(&child.schedules);
        for (i, v) in child.violations.iter().enumerate() {
            self.violations[i].add(v);
            if let Some(tail) = &child.counterexamples[i] {
                let len = edge.len() as u32 + tail.len;
                let shorter = match &self.counterexamples[i] {
                    None => true,
                    Some(cur) => len < cur.len,
                };
                if shorter {
                    self.counterexamples[i] = Some(through(tail, NONE, edges));
                }
            }
        }
        for (n, (key, (count, example))) in child.outcomes.iter().enumerate() {
            let here = keys.map_or(*key, |k| k[n]);
            match self.outcomes.get_mut(&here) {
                Some(entry) => {
                    entry.0.add(count);
                    if edge.len() as u32 + example.len < entry.1.len {
                        entry.1 = through(example, *key, edges);
                    }
                }
                None => {
                    let path = through(example, *key, edges);
                    self.outcomes.insert(here, (count.clone(), path));
                }
            }
        }
    }
}

/// How far a search has come.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Progress {
    /// Distinct worlds visited so far.
    pub states: u64,
    /// Complete schedules accounted for so far.
    pub schedules: Count,
    /// The search has ended (complete, or stopped by a bound).
    pub done: bool,
}

/// The result of a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Complete request orders covered (with multiplicity).
    pub schedules: Count,
    /// Distinct worlds visited.
    pub states: u64,
    /// True only when the whole space was covered.
    pub complete: bool,
    /// Which bound stopped the search, if one did.
    pub stopped_by: Option<&'static str>,
    /// Steps run before the first choice (the clients' leading statements that send nothing).
    pub prefix: Vec<u8>,
    pub summary: Summary,
    /// The outcome classes by number: (key, summary) as [`Evaluation`] gave them.
    pub classes: Vec<(String, String)>,
}

struct Frame<W> {
    world: W,
    /// The world's encoding ([`Model::encode`]).
    code: Vec<u8>,
    /// The steps that led from the parent to this world.
    edge: Vec<u8>,
    /// The parent's child is this world permuted by this ([`Model::canonical`]; 0: itself).
    perm: u32,
    choices: Vec<u32>,
    next: usize,
    depth: u32,
    acc: Compact,
}

/// An incremental depth-first search over one model (owned; pass `&model` to borrow one).
pub struct Explorer<M: Model> {
    model: M,
    bounds: Bounds,
    n_expectations: usize,
    prefix: Vec<u8>,
    /// Memo of finished worlds by encoding, bucketed by a fingerprint of it: the number of
    /// each one's summary in `summaries`.
    memo: Memo,
    /// The summaries of the finished worlds, by number (memoised or not: paths refer to them).
    summaries: Vec<Compact>,
    /// The edges the paths of those summaries go through.
    edges: Edges,
    /// Outcome classes: (key, summary) by number, and the number of each key.
    classes: Vec<(String, String)>,
    class_ids: VecMap<String, u32>,
    /// A finished world of each class (to map classes under a permutation).
    class_worlds: Vec<M::World>,
    /// The class of each (class, permutation) ([`pair`]), once computed.
    class_map: BTreeMap<Box<[u8]>, u32>,
    /// The permutations of client slots met ([`Model::canonical`]), numbered like edges; 0
    /// is the identity (empty).
    perms: Edges,
    stack: Vec<Frame<M::World>>,
    states: u64,
    covered: Count,
    stopped_by: Option<&'static str>,
    /// A branch deeper than `max_depth` was cut.
    pruned: bool,
    root: Option<Compact>,
}

/// The numbers of the summaries of finished worlds by encoding, bucketed by a fingerprint of
/// the encoding.
type Memo = BTreeMap<u64, Vec<(Box<[u8]>, u32)>>;

/// A fixed, fast fingerprint of an encoding, eight bytes at a time (the bucket key is internal
/// and never observable, but stays the same on every platform).
fn fingerprint(code: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = code.len() as u64;
    let mut chunks = code.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
    }
    for b in chunks.remainder() {
        h = (h.rotate_left(5) ^ u64::from(*b)).wrapping_mul(K);
    }
    h ^ (h >> 29)
}

fn lookup(memo: &Memo, code: &[u8], key: u64) -> Option<u32> {
    memo.get(&key)
        .and_then(|bucket| bucket.iter().find(|(c, _)| **c == *code).map(|(_, s)| *s))
}

impl<M: Model> Explorer<M> {
    /// Starts a search from `root`, a world whose clients have already run their leading
    /// statements that send nothing (`prefix` are those steps, as letters).
    pub fn new(
        model: M,
        root: M::World,
        prefix: Vec<u8>,
        n_expectations: usize,
        bounds: Bounds,
    ) -> Self {
        let choices = model.choices(&root);
        let code = model.encode(&root);
        let frame = Frame {
            world: root,
            code,
            edge: Vec::new(),
            perm: 0,
            choices,
            next: 0,
            depth: 0,
            acc: Compact::empty(n_expectations),
        };
        Explorer {
            model,
            bounds,
            n_expectations,
            prefix,
            memo: BTreeMap::new(),
            summaries: Vec::new(),
            edges: Edges::default(),
            classes: Vec::new(),
            class_ids: VecMap::new(),
            class_worlds: Vec::new(),
            class_map: BTreeMap::new(),
            perms: {
                let mut perms = Edges::default();
                perms.id(&[]);
                perms
            },
            stack: vec![frame],
            states: 1,
            covered: Count::zero(),
            stopped_by: None,
            pruned: false,
            root: None,
        }
    }

    fn class_of(&mut self, eval: &Evaluation, world: &M::World) -> u32 {
        if let Some(id) = self.class_ids.get(eval.outcome_key.as_str()) {
            return *id;
        }
        let id = self.classes.len() as u32;
        self.classes
            .push((eval.outcome_key.clone(), eval.outcome_summary.clone()));
        self.class_ids.insert(eval.outcome_key.clone(), id);
        if M::SYMMETRIC {
            self.class_worlds.push(world.clone());
        }
        id
    }

    /// The class of the finished worlds of class `class` permuted by `perm`: computed once
    /// from the class's kept world. Expectations name no permuted client
    /// ([`Model::canonical`]), so the violations stay the same (checked in debug builds).
    fn map_class(&mut self, class: u32, perm: u32) -> u32 {
        if perm == 0 {
            return class;
        }
        if let Some(id) = self.class_map.get(&pair(class, perm)[..]) {
            return *id;
        }
        let world = &self.class_worlds[class as usize];
        let moved = self
            .model
            .permute(world, &self.perms.letters[perm as usize]);
        let eval = self.model.evaluate(&moved);
        debug_assert_eq!(
            eval.violated,
            self.model.evaluate(world).violated,
            "a permutation changed which expectations fail"
        );
        let id = self.class_of(&eval, &moved);
        self.class_map.insert(pair(class, perm).into(), id);
        id
    }

    /// The classes of summary `id`'s outcomes seen through `perm` (`None`: the identity).
    fn mapped_keys(&mut self, summary: &Compact, perm: u32) -> Option<Vec<u32>> {
        (M::SYMMETRIC && perm != 0).then(|| {
            let keys: Vec<u32> = summary.outcomes.iter().map(|(k, _)| *k).collect();
            keys.into_iter().map(|k| self.map_class(k, perm)).collect()
        })
    }

    /// Does at most `budget` transitions of work; returns where the search stands.
    pub fn run(&mut self, budget: u64) -> Progress {
        let mut work = 0u64;
        while self.root.is_none() && work < budget {
            if self.stopped_by.is_none() {
                let limited = self.bounds.max_schedules < u64::MAX;
                if limited && self.covered >= self.bounds.max_schedules {
                    self.stopped_by = Some("max_schedules");
                } else if self.states >= self.bounds.max_states {
                    self.stopped_by = Some("max_states");
                }
            }
            let Some(top) = self.stack.last_mut() else {
                break;
            };
            // A finished world, or the search was stopped: close this frame.
            let finished = top.choices.is_empty();
            if finished || top.next >= top.choices.len() || self.stopped_by.is_some() {
                let frame = self.stack.pop().expect("stack is non-empty here");
                let summary = if finished {
                    self.covered.add_u64(1);
                    let eval = self.model.evaluate(&frame.world);
                    let class = self.class_of(&eval, &frame.world);
                    Compact::terminal(&eval, class)
                } else {
                    frame.acc
                };
                if self.stack.is_empty() {
                    self.root = Some(summary);
                    continue;
                }
                let keys = self.mapped_keys(&summary, frame.perm);
                let parent = self.stack.last_mut().expect("checked above");
                let id = self.summaries.len() as u32;
                parent.acc.absorb(
                    &mut self.edges,
                    &frame.edge,
                    (id, frame.perm),
                    &summary,
                    keys.as_deref(),
                );
                self.summaries.push(summary);
                // Only complete summaries may be memoised and reused.
                if self.stopped_by.is_none() {
                    let key = fingerprint(&frame.code);
                    self.memo
                        .entry(key)
                        .or_default()
                        .push((frame.code.into_boxed_slice(), id));
                }
                continue;
            }
            let client = top.choices[top.next];
            top.next += 1;
            let depth = top.depth + 1;
            work += 1;
            if depth > self.bounds.max_depth {
                // Prune this branch only; the report will say it is incomplete.
                self.pruned = true;
                continue;
            }
            let (child, edge) = self.model.advance(&top.world, client);
            let (child, perm) = if M::SYMMETRIC {
                let (child, perm) = self.model.canonical(child);
                (child, perm.map_or(0, |p| self.perms.id(&p)))
            } else {
                (child, 0)
            };
            let code = self.model.encode(&child);
            let key = fingerprint(&code);
            if let Some(id) = lookup(&self.memo, &code, key) {
                let found = std::mem::take(&mut self.summaries[id as usize]);
                self.covered.add(&found.schedules);
                let keys = self.mapped_keys(&found, perm);
                if let Some(parent) = self.stack.last_mut() {
                    parent
                        .acc
                        .absorb(&mut self.edges, &edge, (id, perm), &found, keys.as_deref());
                }
                self.summaries[id as usize] = found;
                continue;
            }
            self.states += 1;
            let choices = self.model.choices(&child);
            self.stack.push(Frame {
                world: child,
                code,
                edge,
                perm,
                choices,
                next: 0,
                depth,
                acc: Compact::empty(self.n_expectations),
            });
        }
        self.progress()
    }

    /// Stops the search: the next [`Explorer::run`] closes the open worlds and ends with a
    /// report that says `stopped_by: "cancelled"` (a bound already reached keeps its name).
    pub fn cancel(&mut self) {
        if self.root.is_none() && self.stopped_by.is_none() {
            self.stopped_by = Some("cancelled");
        }
    }

    /// The model searched.
    pub fn model(&self) -> &M {
        &self.model
    }

    /// Where the search stands.
    pub fn progress(&self) -> Progress {
        Progress {
            states: self.states,
            schedules: self.covered.clone(),
            done: self.root.is_some(),
        }
    }

    /// Runs to the end and returns the report.
    pub fn finish(mut self) -> Report {
        while !self.run(u64::MAX).done {}
        self.report()
    }

    /// Runs to the end (if not done yet) and returns the report, keeping the explorer.
    pub fn finish_mut(&mut self) -> Report {
        while !self.run(u64::MAX).done {}
        self.report()
    }

    /// The report, once [`Progress::done`] (before that: what is known so far is not
    /// available, and this returns `None`).
    pub fn report_if_done(&self) -> Option<Report> {
        self.root.as_ref().map(|_| self.report())
    }

    /// The letters of `path` and of the paths it continues with (`pick` reads the next one
    /// from a child's summary: the same expectation's, or the class the path names), each
    /// mapped to the root's clients through the permutations on the way.
    fn letters(&self, mut path: Path, pick: impl Fn(&Compact, &Path) -> Option<Path>) -> Vec<u8> {
        let want = path.len as usize;
        let mut out = Vec::with_capacity(want);
        // The root's slot of each client of the summary reached (letters are `a` to `z`).
        let mut slots: Vec<u8> = if M::SYMMETRIC {
            (0..26).collect()
        } else {
            Vec::new()
        };
        while path.edge != NONE {
            let edge = &self.edges.letters[path.edge as usize];
            if M::SYMMETRIC {
                out.extend(edge.iter().map(|l| b'a' + slots[usize::from(l - b'a')]));
            } else {
                out.extend_from_slice(edge);
            }
            if M::SYMMETRIC && path.perm != 0 {
                let perm = &self.perms.letters[path.perm as usize];
                slots = perm.iter().map(|&s| slots[usize::from(s)]).collect();
            }
            let child = &self.summaries[path.next as usize];
            path = pick(child, &path).expect("a path goes on in the summary it names");
        }
        debug_assert_eq!(out.len(), want, "a path's length is its letters'");
        out
    }

    /// The root's summary with its continuations spelled out.
    fn root_summary(&self) -> Summary {
        let Some(root) = &self.root else {
            return Summary::default();
        };
        Summary {
            schedules: root.schedules.clone(),
            violations: root.violations.clone(),
            counterexamples: root
                .counterexamples
                .iter()
                .enumerate()
                .map(|(i, c)| c.map(|p| self.letters(p, |s, _| s.counterexamples[i])))
                .collect(),
            outcomes: {
                let mut outcomes = VecMap::new();
                for (k, (count, p)) in root.outcomes.iter() {
                    let example = self.letters(*p, |s, p| s.outcomes.get(&p.key).map(|e| e.1));
                    outcomes.insert(*k, (count.clone(), example));
                }
                outcomes
            },
        }
    }

    fn report(&self) -> Report {
        let summary = self.root_summary();
        Report {
            schedules: summary.schedules.clone(),
            states: self.states,
            complete: self.stopped_by.is_none() && !self.pruned,
            stopped_by: self
                .stopped_by
                .or(if self.pruned { Some("max_depth") } else { None }),
            prefix: self.prefix.clone(),
            summary,
            classes: self.classes.clone(),
        }
    }
}

/// Compresses schedule letters into a token with run-length counts (`aaab` → `a3b`).
pub fn compress(letters: &[u8]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < letters.len() {
        let c = letters[i];
        let mut j = i;
        while j < letters.len() && letters[j] == c {
            j += 1;
        }
        out.push(char::from(c));
        if j - i > 1 {
            out.push_str(&(j - i).to_string());
        }
        i = j;
    }
    out
}

#[cfg(test)]
mod tests;
