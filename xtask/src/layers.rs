//! `cargo xtask layers`: the house's layering, checked (ARCHITECTURE.md, "Layers").
//!
//! - **Crate edges.** Every normal dependency between workspace crates (from `cargo metadata`)
//!   must be one [`ALLOWED`] lists; a crate missing from the table is an error too, so a new
//!   crate says where it stands. Dev-dependencies may point anywhere (tests use what they test).
//! - **Pure crates.** The crates of [`PURE`] must not reach, through any normal dependency on
//!   any target (`cargo tree -e normal --target all`), a crate of [`FORBIDDEN_IN_PURE`]: no
//!   async runtime, no network, no browser, no entropy.
//! - **No module cycles.** In every crate, the modules that are children of one module (the
//!   crate root's top-level modules, a module's submodules) import each other without a cycle
//!   ([`crate::cycles`]).
//! - **Maps.** Every module is named in its parent's `//!` map ([`crate::maps`]).

use crate::util::{cmd, run_capture};
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;

/// Each workspace crate and the workspace crates it may depend on (normal dependencies). The
/// chain `core ◀ instruments ◀ server ◀ cli`, with the page (`web`) on `core` alone, the static
/// host under the server and xtask, and the test and bench crates beside.
pub const ALLOWED: &[(&str, &[&str])] = &[
    ("rvlab-core", &[]),
    ("rvlab-instruments", &["rvlab-core"]),
    ("rvlab-static", &[]),
    (
        "rvlab-server",
        &["rvlab-core", "rvlab-instruments", "rvlab-static"],
    ),
    (
        "rvlab-cli",
        &["rvlab-core", "rvlab-instruments", "rvlab-server"],
    ),
    // The page: the core only; never the instruments or the server.
    ("rvlab-web", &["rvlab-core"]),
    ("xtask", &["rvlab-static"]),
    ("rvlab-e2e", &["rvlab-static"]),
    (
        "rvlab-clients",
        &[
            "rvlab-core",
            "rvlab-instruments",
            "rvlab-server",
            "rvlab-testkit",
        ],
    ),
    ("rvlab-explore-peer", &[]),
    // What tests and benchmarks share (real etcd clusters): used by tests/clients' benchmark
    // and as a dev-dependency.
    ("rvlab-testkit", &[]),
];

/// The pure crates: no I/O, clock, threads or runtime (ARCHITECTURE.md, "Invariants").
pub const PURE: &[&str] = &["rvlab-core", "rvlab-instruments"];

/// Crates no pure crate may reach: async runtimes and network I/O, the browser, and entropy
/// (randomness is the world's seeded `Rng`). Families count (`wasm-bindgen-futures`, …).
pub const FORBIDDEN_IN_PURE: &[&str] = &[
    "tokio",
    "hyper",
    "mio",
    "socket2",
    "yew",
    "web-sys",
    "gloo",
    "wasm-bindgen",
    "js-sys",
    "getrandom",
    "rand",
];

/// Runs the three checks; prints one line each.
pub fn layers() -> Result<()> {
    let edges = workspace_edges(&metadata()?)?;
    let bad = disallowed_edges(&edges);
    if !bad.is_empty() {
        bail!(
            "crate dependencies outside the layering (xtask/src/layers.rs ALLOWED, \
             ARCHITECTURE.md \"Layers\"):\n  {}",
            bad.join("\n  ")
        );
    }
    let count: usize = edges.values().map(Vec::len).sum();
    println!(
        "layers: {} crates, {count} workspace dependency edges, all allowed",
        edges.len()
    );
    for krate in PURE {
        let tree = run_capture(cmd(
            "cargo",
            &[
                "tree", "-p", krate, "-e", "normal", "--prefix", "none", "--target", "all",
            ],
        ))?;
        let offenders = forbidden_crates(&tree);
        if !offenders.is_empty() {
            bail!(
                "{krate} must stay pure (no I/O, runtime, browser or entropy), but depends on: {}",
                offenders.join(", ")
            );
        }
    }
    println!(
        "layers: {} pure crates, none reaching {}",
        PURE.len(),
        FORBIDDEN_IN_PURE.join(", ")
    );
    let cycles = crate::cycles::check_workspace()?;
    println!("layers: {cycles}");
    let maps = crate::maps::check_workspace()?;
    println!("layers: {maps}");
    Ok(())
}

/// `cargo metadata` of the workspace's own packages.
fn metadata() -> Result<String> {
    run_capture(cmd(
        "cargo",
        &[
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ],
    ))
}

/// Workspace crate → its normal dependencies on workspace crates, from `cargo metadata
/// --no-deps` (a dependency with a `path` is a workspace crate here).
pub fn workspace_edges(metadata: &str) -> Result<BTreeMap<String, Vec<String>>> {
    let v: serde_json::Value =
        serde_json::from_str(metadata).context("cargo metadata is not JSON")?;
    let packages = v["packages"]
        .as_array()
        .context("cargo metadata has no packages")?;
    let names: Vec<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    let mut edges = BTreeMap::new();
    for p in packages {
        let name = p["name"].as_str().context("a package without a name")?;
        let mut deps: Vec<String> = p["dependencies"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| d["kind"].is_null())
            .filter_map(|d| d["name"].as_str())
            .filter(|d| names.contains(d))
            .map(str::to_owned)
            .collect();
        deps.sort();
        deps.dedup();
        edges.insert(name.to_owned(), deps);
    }
    Ok(edges)
}

/// The edges [`ALLOWED`] does not list, and the crates it does not know, as messages.
pub fn disallowed_edges(edges: &BTreeMap<String, Vec<String>>) -> Vec<String> {
    let mut bad = Vec::new();
    for (from, deps) in edges {
        let Some((_, allowed)) = ALLOWED.iter().find(|(name, _)| name == from) else {
            bad.push(format!(
                "{from}: a crate the layering does not know; give it a row in ALLOWED"
            ));
            continue;
        };
        for to in deps {
            if !allowed.contains(&to.as_str()) {
                bad.push(format!("{from} -> {to}: not an allowed dependency"));
            }
        }
    }
    bad
}

/// The forbidden crates named in a `cargo tree --prefix none` listing (families included).
pub fn forbidden_crates(tree: &str) -> Vec<String> {
    let mut found: Vec<String> = tree
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| {
            FORBIDDEN_IN_PURE
                .iter()
                .any(|bad| *name == *bad || name.starts_with(&format!("{bad}-")))
        })
        .map(str::to_owned)
        .collect();
    found.sort();
    found.dedup();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edges(rows: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
        rows.iter()
            .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
            .collect()
    }

    #[test]
    fn an_edge_up_the_chain_or_an_unknown_crate_is_refused() {
        assert!(disallowed_edges(&edges(&[
            ("rvlab-instruments", &["rvlab-core"]),
            ("rvlab-web", &["rvlab-core"]),
        ]))
        .is_empty());
        assert_eq!(
            disallowed_edges(&edges(&[
                ("rvlab-core", &["rvlab-instruments"]),
                ("rvlab-web", &["rvlab-core", "rvlab-instruments"]),
                ("rvlab-new", &[]),
            ])),
            [
                "rvlab-core -> rvlab-instruments: not an allowed dependency",
                "rvlab-new: a crate the layering does not know; give it a row in ALLOWED",
                "rvlab-web -> rvlab-instruments: not an allowed dependency",
            ]
        );
    }

    #[test]
    fn metadata_gives_normal_edges_between_workspace_crates_only() {
        let metadata = r#"{"packages": [
            {"name": "a", "dependencies": [
                {"name": "b", "kind": null}, {"name": "c", "kind": "dev"},
                {"name": "serde", "kind": null}]},
            {"name": "b", "dependencies": []},
            {"name": "c", "dependencies": [{"name": "a", "kind": null}]}
        ]}"#;
        let e = workspace_edges(metadata).unwrap();
        assert_eq!(e["a"], ["b"]);
        assert!(e["b"].is_empty());
        assert_eq!(e["c"], ["a"]);
    }

    #[test]
    fn the_workspace_as_it_is_keeps_its_layers() {
        let metadata = run_capture(cmd(
            "cargo",
            &[
                "metadata",
                "--format-version",
                "1",
                "--no-deps",
                "--offline",
            ],
        ))
        .expect("cargo metadata");
        let e = workspace_edges(&metadata).unwrap();
        assert_eq!(disallowed_edges(&e), Vec::<String>::new());
        assert!(e.len() >= 10, "{e:?}");
    }

    #[test]
    fn guard_names_forbidden_crates_and_their_families() {
        let tree = "rvlab-core v0.1.0 (/x)\nserde v1.0.0\ngetrandom v0.2.0\n\
                    wasm-bindgen-shared v0.2.130\nyewdux v1.0.0\njs-sys v0.3.0\ntokio v1\n";
        assert_eq!(
            forbidden_crates(tree),
            ["getrandom", "js-sys", "tokio", "wasm-bindgen-shared"]
        );
        assert!(forbidden_crates("rvlab-core v0.1.0\nserde_json v1.0.0\n").is_empty());
    }
}
