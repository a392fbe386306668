//! No import cycles between sibling modules (part of `cargo xtask layers`).
//!
//! In every crate of the workspace, the modules that are children of one module (the crate
//! root's top-level modules, a module's submodules) may import each other only without a
//! cycle: one of two siblings is always below the other. A module's path comes from its file
//! (`src/a/b.rs` and `src/a/b/mod.rs` are `a::b`); an import is a `crate::…` or `super::…`
//! path in its tokens (lexed by `proc-macro2`, as `cargo xtask guards` does), `use` groups
//! (`crate::{a, b::c}`) included; test code (`#[cfg(test)]` items, `tests.rs`, `tests/`) and
//! doc comments do not count. An edge `a::x → a::y` is recorded between the siblings under
//! the paths' common prefix.
//!
//! In `rvlab-core`, whose jobs are layers of modules rather than crates (ARCHITECTURE.md,
//! "Layers"), the top-level modules' edges must also point down or sideways in
//! [`CORE_LAYERS`], and every top-level module must have a layer.

use anyhow::{anyhow, Context, Result};
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// A module path inside a crate (`["store", "meta"]`); the crate root is empty.
type ModPath = Vec<String>;

/// The sibling cycles allowed, by crate directory and parent module, each with its reason.
pub const ALLOWED_CYCLES: &[(&str, &str, &str)] = &[(
    "core",
    "engine",
    "one type's impl across a module's files: `World` is declared in engine/world.rs and its \
     `impl World` blocks live by topic in backoff.rs, kubectl.rs and request.rs, whose types \
     (`RetryState`, `Running`, `Transport`) the world holds",
)];

/// The layers of `rvlab-core`, lowest first (ARCHITECTURE.md, "Layers"): a top-level module
/// may import the modules of its own layer and of the layers before it, never after.
pub const CORE_LAYERS: &[(&str, &[&str])] = &[
    (
        "helpers",
        &[
            "count",
            "decimal",
            "fieldpath",
            "hash",
            "json",
            "rng",
            "sort",
            "text",
            "vecmap",
        ],
    ),
    ("apiserver model", &["names", "store", "watch", "yaml"]),
    ("kubectl model", &["kubectl"]),
    (
        "simulator and course",
        &[
            "engine",
            "exercises",
            "explore",
            "lang",
            "lessons",
            "limits",
            "run",
            "schedule",
            "share",
            "trace",
            "view",
        ],
    ),
];

/// The edges of `edges` (top-level module → top-level module) that point up in `layers`, and
/// the `modules` that have no layer, as messages.
pub fn layer_problems(
    layers: &[(&str, &[&str])],
    modules: &[String],
    edges: &BTreeSet<(String, String)>,
) -> Vec<String> {
    let layer_of = |m: &str| layers.iter().position(|(_, ms)| ms.contains(&m));
    let mut problems = Vec::new();
    for m in modules {
        if layer_of(m).is_none() {
            problems.push(format!("`{m}` is in no layer (add it to CORE_LAYERS)"));
        }
    }
    for (from, to) in edges {
        if let (Some(a), Some(b)) = (layer_of(from), layer_of(to)) {
            if b > a {
                problems.push(format!(
                    "`{from}` ({}) imports `{to}` ({}), a layer above it",
                    layers[a].0, layers[b].0
                ));
            }
        }
    }
    problems
}

/// Checks every crate's `src` under `crates/`, `tests/`, `bench/` and `xtask/`; Ok with a
/// summary line, or an error naming each cycle.
pub fn check_workspace() -> Result<String> {
    let srcs = crate_srcs()?;
    let mut found = Vec::new();
    let mut edges_total = 0;
    for src in &srcs {
        let files = crate_files(src)?;
        let mut sources = Vec::new();
        for (path, module) in &files {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            sources.push((module.clone(), text));
        }
        let edges = sibling_edges(&sources).map_err(|e| anyhow!("{}: {e}", src.display()))?;
        edges_total += edges.values().map(BTreeSet::len).sum::<usize>();
        let name = src
            .parent()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name == "core" {
            let top: Vec<String> = files
                .iter()
                .filter(|(_, m)| m.len() == 1)
                .map(|(_, m)| m[0].clone())
                .collect();
            let root_edges = edges.get(&Vec::new()).cloned().unwrap_or_default();
            for problem in layer_problems(CORE_LAYERS, &top, &root_edges) {
                found.push(format!("core: {problem}"));
            }
        }
        for cycle in cycles(&edges) {
            let parent = cycle[0].rsplit_once("::").map_or("", |(p, _)| p);
            let allowed = ALLOWED_CYCLES
                .iter()
                .any(|(c, p, _)| *c == name && *p == parent);
            if !allowed {
                found.push(format!("{name}: {}", cycle.join(" ↔ ")));
            }
        }
    }
    if !found.is_empty() {
        return Err(anyhow!(
            "import cycles between sibling modules, or core modules importing a layer above \
             theirs (xtask/src/cycles.rs):\n  {}",
            found.join("\n  ")
        ));
    }
    Ok(format!(
        "no import cycle between sibling modules in {} crates ({edges_total} edges; allowed: {}); \
         the core's {} layers point down",
        srcs.len(),
        ALLOWED_CYCLES
            .iter()
            .map(|(c, p, _)| format!("{c}'s {p}::*"))
            .collect::<Vec<_>>()
            .join(", "),
        CORE_LAYERS.len()
    ))
}

/// The `src` directory of every crate of the workspace (`crates/*`, `tests/*`, `bench/*` and
/// `xtask`), sorted.
pub fn crate_srcs() -> Result<Vec<PathBuf>> {
    let root = crate::util::project_root();
    let mut srcs = Vec::new();
    for group in ["crates", "tests", "bench"] {
        let dir = root.join(group);
        for entry in std::fs::read_dir(&dir).with_context(|| format!("{}", dir.display()))? {
            let src = entry?.path().join("src");
            if src.is_dir() {
                srcs.push(src);
            }
        }
    }
    srcs.push(root.join("xtask/src"));
    srcs.sort();
    Ok(srcs)
}

/// The `.rs` files of one crate's `src` with their module paths; `src/bin` (other crates) and
/// test files are left out.
fn crate_files(src: &Path) -> Result<Vec<(PathBuf, ModPath)>> {
    let mut out = Vec::new();
    walk_dir(src, &[], &mut out)?;
    out.sort();
    Ok(out)
}

fn walk_dir(dir: &Path, module: &[String], out: &mut Vec<(PathBuf, ModPath)>) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let path = entry?.path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if path.is_dir() {
            if module.is_empty() && name == "bin" || name == "tests" {
                continue;
            }
            let mut sub = module.to_vec();
            sub.push(name);
            walk_dir(&path, &sub, out)?;
        } else if let Some(stem) = name.strip_suffix(".rs") {
            if stem == "tests" {
                continue;
            }
            let mut m = module.to_vec();
            if !matches!(stem, "mod" | "lib" | "main") {
                m.push(stem.to_owned());
            }
            out.push((path, m));
        }
    }
    Ok(())
}

/// Parent module → its children's import edges (`child → sibling`), from each file's module
/// path and text.
pub fn sibling_edges(
    sources: &[(ModPath, String)],
) -> Result<BTreeMap<ModPath, BTreeSet<(String, String)>>> {
    let modules: BTreeSet<&ModPath> = sources.iter().map(|(m, _)| m).collect();
    let is_module = |p: &[String]| modules.iter().any(|m| m.as_slice() == p);
    let mut edges: BTreeMap<ModPath, BTreeSet<(String, String)>> = BTreeMap::new();
    for (module, text) in sources {
        let tokens = TokenStream::from_str(text).map_err(|e| anyhow!("{module:?}: {e}"))?;
        let mut targets = Vec::new();
        paths_in(tokens, module, &mut targets);
        for target in targets {
            let k = module
                .iter()
                .zip(&target)
                .take_while(|(a, b)| a == b)
                .count();
            if k < module.len() && k < target.len() && is_module(&target[..=k]) {
                edges
                    .entry(module[..k].to_vec())
                    .or_default()
                    .insert((module[k].clone(), target[k].clone()));
            }
        }
    }
    Ok(edges)
}

/// The absolute paths (`crate::a::b` → `[a, b]`, `super::c` from `a::b` → `[a, c]`) named in
/// `tokens` and its groups, test items and doc comments skipped.
fn paths_in(tokens: TokenStream, module: &[String], out: &mut Vec<ModPath>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let ident = |i: usize| match trees.get(i) {
        Some(TokenTree::Ident(id)) => Some(id.to_string()),
        _ => None,
    };
    let punct =
        |i: usize, c: char| matches!(trees.get(i), Some(TokenTree::Punct(p)) if p.as_char() == c);
    let colons = |i: usize| punct(i, ':') && punct(i + 1, ':');
    let mut i = 0;
    while i < trees.len() {
        if punct(i, '#') {
            if let Some(TokenTree::Group(attr)) = trees.get(i + 1) {
                if attr.delimiter() == Delimiter::Bracket && crate::guards::is_doc(attr) {
                    i += 2;
                    continue;
                }
                if attr.delimiter() == Delimiter::Bracket && crate::guards::is_cfg_test(attr) {
                    i = crate::guards::past_item(&trees, i + 2);
                    continue;
                }
            }
        }
        let base = match ident(i).as_deref() {
            Some("crate") if colons(i + 1) && !punct(i.wrapping_sub(1), ':') => {
                Some((Vec::new(), i + 3))
            }
            Some("super") if colons(i + 1) && !punct(i.wrapping_sub(1), ':') => {
                let mut up = 1;
                let mut j = i + 3;
                while ident(j).as_deref() == Some("super") && colons(j + 1) {
                    up += 1;
                    j += 3;
                }
                Some((module[..module.len().saturating_sub(up)].to_vec(), j))
            }
            _ => None,
        };
        if let Some((prefix, j)) = base {
            match trees.get(j) {
                Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {
                    for first in group_heads(g.stream()) {
                        let mut p = prefix.clone();
                        p.extend(first);
                        out.push(p);
                    }
                }
                _ => {
                    let mut p = prefix;
                    let mut k = j;
                    while let Some(name) = ident(k) {
                        p.push(name);
                        if !colons(k + 1) {
                            break;
                        }
                        k += 3;
                    }
                    out.push(p);
                }
            }
            i = j;
            continue;
        }
        if let TokenTree::Group(g) = &trees[i] {
            paths_in(g.stream(), module, out);
        }
        i += 1;
    }
}

/// The leading path of each comma-separated entry of a `use` group (`{a, b::c, d::{e}}` →
/// `[a]`, `[b, c]`, `[d]`).
fn group_heads(tokens: TokenStream) -> Vec<ModPath> {
    let mut out = Vec::new();
    let mut current: ModPath = Vec::new();
    let mut stopped = false;
    for t in tokens {
        match t {
            TokenTree::Punct(p) if p.as_char() == ',' => {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
                stopped = false;
            }
            TokenTree::Ident(id) if !stopped => {
                let s = id.to_string();
                if s == "self" || s == "as" {
                    stopped = true;
                } else {
                    current.push(s);
                }
            }
            TokenTree::Punct(p) if p.as_char() == ':' => {}
            _ => stopped = true,
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Every cycle (a strongly connected set of two or more siblings), as `parent::a ↔ parent::b`
/// names, sorted.
pub fn cycles(edges: &BTreeMap<ModPath, BTreeSet<(String, String)>>) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for (parent, es) in edges {
        let nodes: BTreeSet<&String> = es.iter().flat_map(|(a, b)| [a, b]).collect();
        let reach = |from: &String| -> BTreeSet<String> {
            let mut seen = BTreeSet::new();
            let mut todo = vec![from.clone()];
            while let Some(n) = todo.pop() {
                for (a, b) in es {
                    if *a == n && seen.insert(b.clone()) {
                        todo.push(b.clone());
                    }
                }
            }
            seen
        };
        let reaches: BTreeMap<&String, BTreeSet<String>> =
            nodes.iter().map(|n| (*n, reach(n))).collect();
        let mut done = BTreeSet::new();
        for n in &nodes {
            if done.contains(*n) || !reaches[n].contains(*n) {
                continue;
            }
            let scc: Vec<String> = nodes
                .iter()
                .filter(|m| reaches[n].contains(**m) && reaches[*m].contains(*n))
                .map(|m| {
                    done.insert((*m).clone());
                    let mut full = parent.clone();
                    full.push((*m).clone());
                    full.join("::")
                })
                .collect();
            found.push(scc);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str) -> ModPath {
        p.split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect()
    }

    fn graph(files: &[(&str, &str)]) -> Vec<Vec<String>> {
        let sources: Vec<(ModPath, String)> =
            files.iter().map(|(p, t)| (m(p), t.to_string())).collect();
        cycles(&sibling_edges(&sources).unwrap())
    }

    #[test]
    fn a_two_module_cycle_is_found_through_any_path_form() {
        let found = graph(&[
            ("", "pub mod a; pub mod b;"),
            ("a", "use crate::b::X; pub struct Y;"),
            ("b", "pub fn f() -> crate::a::Y { todo!() }"),
        ]);
        assert_eq!(found, [vec!["a".to_string(), "b".to_string()]]);
        // A `use` group and a `super` path make the same edges.
        let found = graph(&[
            ("", "pub mod s;"),
            ("s", "mod a; mod b;"),
            ("s::a", "use crate::{s::b::X, other};"),
            ("s::b", "use super::a::Y;"),
        ]);
        assert_eq!(found, [vec!["s::a".to_string(), "s::b".to_string()]]);
    }

    #[test]
    fn a_core_import_up_the_layers_and_a_module_without_a_layer_are_problems() {
        let layers: &[(&str, &[&str])] = &[("low", &["a"]), ("high", &["b", "c"])];
        let sources: Vec<(ModPath, String)> = [
            ("", "pub mod a; pub mod b; pub mod c; pub mod d;"),
            ("a", "use crate::b::X;"),
            ("b", "use crate::a::Y; use crate::c::Z;"),
            ("c", ""),
            ("d", ""),
        ]
        .iter()
        .map(|(p, t)| (m(p), t.to_string()))
        .collect();
        let edges = sibling_edges(&sources).unwrap();
        let modules: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
        assert_eq!(
            layer_problems(layers, &modules, &edges[&Vec::new()]),
            [
                "`d` is in no layer (add it to CORE_LAYERS)",
                "`a` (low) imports `b` (high), a layer above it",
            ]
        );
        // Down and sideways are fine.
        let down: BTreeSet<(String, String)> = [("b", "a"), ("b", "c")]
            .map(|(x, y)| (x.to_string(), y.to_string()))
            .into();
        assert!(layer_problems(layers, &modules[..3], &down).is_empty());
    }

    #[test]
    fn one_way_edges_tests_and_docs_are_no_cycle() {
        assert!(graph(&[
            ("", "pub mod a; pub mod b; pub mod c;"),
            ("a", "use crate::b::X; use crate::c::Z;"),
            ("b", "use crate::c::Z;\n/// [`crate::a::Y`]\npub struct X;"),
            (
                "c",
                "#[cfg(test)]\nmod tests { use crate::a::Y; }\npub struct Z;"
            ),
        ])
        .is_empty());
        // An item of the parent is not a sibling module.
        assert!(graph(&[
            ("", "pub mod a; pub struct Root;"),
            ("a", "use crate::Root;"),
        ])
        .is_empty());
    }

    #[test]
    fn a_longer_cycle_is_reported_once() {
        let found = graph(&[
            ("", "mod a; mod b; mod c; mod d;"),
            ("a", "use crate::b::X;"),
            ("b", "use crate::c::X;"),
            ("c", "use crate::a::X; use crate::d::X;"),
            ("d", ""),
        ]);
        assert_eq!(found, [vec!["a", "b", "c"]]);
    }
}
