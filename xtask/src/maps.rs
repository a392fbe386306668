//! Every module is in its parent's map (part of `cargo xtask layers`).
//!
//! A file that declares submodules (`mod x;`, `pub mod x;`) names each of them in its `//!`
//! docs, in backticks (`` `x` ``, `` [`x`] ``, `` `x.rs` ``, `` `parent::x` ``), so that the
//! crate root and every module root stay a true map of the code (ARCHITECTURE.md). Test
//! modules (declared under a `#[cfg(...test...)]`) need no entry; a module read from another
//! file (`#[path = "f.rs"]`) may be named by that file.

use anyhow::{anyhow, Context, Result};

/// Checks the `.rs` files of every crate's `src` (and xtask's); Ok with a summary line, or an
/// error naming each module missing from its parent's map.
pub fn check_workspace() -> Result<String> {
    let root = crate::util::project_root();
    let mut files = Vec::new();
    for src in crate::cycles::crate_srcs()? {
        crate::guards::rust_files(&src, &mut files)?;
    }
    files.sort();
    let mut missing = Vec::new();
    let mut declared = 0;
    for file in &files {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let shown = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .display()
            .to_string();
        let (n, absent) = unmapped(&text);
        declared += n;
        missing.extend(absent.into_iter().map(|m| format!("{shown}: `{m}`")));
    }
    if !missing.is_empty() {
        return Err(anyhow!(
            "modules missing from their parent's `//!` map (name each in backticks):\n  {}",
            missing.join("\n  ")
        ));
    }
    Ok(format!(
        "every one of {declared} declared modules is in its parent's map ({} files)",
        files.len()
    ))
}

/// How many non-test modules `text` declares, and those its `//!` docs do not name.
pub fn unmapped(text: &str) -> (usize, Vec<String>) {
    let docs: String = text
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("//!"))
        .collect::<Vec<_>>()
        .join("\n");
    let lines: Vec<&str> = text.lines().collect();
    let mut count = 0;
    let mut missing = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = declared_module(line) else {
            continue;
        };
        // The attributes right above the declaration.
        let attrs: Vec<&str> = lines[..i]
            .iter()
            .rev()
            .take_while(|l| l.trim_start().starts_with("#["))
            .map(|l| l.trim())
            .collect();
        if attrs
            .iter()
            .any(|a| a.starts_with("#[cfg(") && a.contains("test"))
        {
            continue;
        }
        count += 1;
        let path_file = attrs.iter().find_map(|a| {
            let rest = a.strip_prefix("#[path = \"")?;
            rest.split('"').next()
        });
        let named = |n: &str| {
            [
                format!("`{n}`"),
                format!("`{n}.rs`"),
                format!("`{n}/"),
                format!("::{n}`"),
                format!("`{n}::"),
            ]
            .iter()
            .any(|p| docs.contains(p.as_str()))
        };
        if !named(name) && !path_file.is_some_and(|f| docs.contains(f)) {
            missing.push(name.to_owned());
        }
    }
    (count, missing)
}

/// `x` of a line `mod x;`, `pub mod x;` or `pub(crate) mod x;` (not an inline `mod x { … }`).
fn declared_module(line: &str) -> Option<&str> {
    let l = line.trim_start();
    let l = l
        .strip_prefix("pub(crate) ")
        .or_else(|| l.strip_prefix("pub(super) "))
        .or_else(|| l.strip_prefix("pub "))
        .unwrap_or(l);
    let name = l.strip_prefix("mod ")?.strip_suffix(';')?;
    name.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_')
        .then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_module_missing_from_the_map_is_named() {
        let text = "//! Map: [`store`], `watch.rs`, `engine::world`.\n\
                    pub mod store;\nmod watch;\npub(crate) mod world;\nmod hidden;\n\
                    #[cfg(test)]\nmod tests;\n#[rustfmt::skip]\n#[path = \"schema_data.rs\"]\nmod data;\n\
                    mod inline {}\n";
        assert_eq!(unmapped(text), (5, vec!["hidden".into(), "data".into()]));
        let with_file = format!("//! `schema_data.rs` holds the data.\n{text}");
        assert_eq!(unmapped(&with_file).1, ["hidden"]);
    }

    #[test]
    fn the_workspace_maps_are_complete() {
        check_workspace().expect("every module is mapped");
    }
}
