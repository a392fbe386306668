//! `cargo xtask guards`: the page's size rules that clippy cannot name (docs/size.md).
//!
//! Clippy's `disallowed-methods` / `-types` / `-macros` (clippy.toml, crates/core/clippy.toml,
//! crates/web/clippy.toml) cover what has a path: std's sorts, Unicode case mapping, map types
//! in the page's crate, `json!`. What is left is matched in the tokens of the page's code
//! (the sources of every crate the page links, [`PAGE_SOURCES`], tests excluded), lexed by `proc-macro2` (comments
//! dropped, string literals whole, groups nested; `span-locations` gives the lines):
//!
//! - `float-format`: a format string with a precision or an exponent (`{x:.2}`, `{:.*}`,
//!   `{:e}`), or `f64::to_string`: both link std's float formatter (9.5 kB of wasm); keep
//!   the quantity an integer and write it with `rvlab_core::decimal::fixed`.
//! - `float-parse`: `parse::<f64>()` or `f64::from_str`: std's correctly rounded parser and its
//!   10 kB table (13.6 kB of gzip when it left).
//! - `second-sort`: a function named `sort`, `sort_*` or `*_sort` outside
//!   `crates/core/src/sort.rs`: the page has one shared sort.
//!
//! `{}` of an `f64` formats it too, but tokens carry no types; twiggy (docs/size.md, "How to
//! look") is the check for that.
//!
//! A deliberate use carries `// guard: allow(RULE) REASON` on its line or the line above
//! (comments are not tokens: the markers are found in the source's lines).

use anyhow::{anyhow, bail, Context, Result};
use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The page's source directories (everything in them is linked into the wasm, tests aside).
const PAGE_SOURCES: &[&str] = &["crates/core/src", "crates/web/src"];
/// The one place a sort may be written.
const SHARED_SORT: &str = "crates/core/src/sort.rs";

/// One rule: its name (as written in `guard: allow(NAME)`) and what to do instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// Short name, used in messages and in `guard: allow(...)`.
    pub name: &'static str,
    /// Why it is refused and what to use instead.
    pub advice: &'static str,
}

const FLOAT_FORMAT: Rule = Rule {
    name: "float-format",
    advice: "formatting an f64 links std's float formatter (9.5 kB of wasm): \
             keep the quantity an integer and show it with rvlab_core::decimal::fixed \
             (docs/size.md)",
};
const FLOAT_PARSE: Rule = Rule {
    name: "float-parse",
    advice: "std's f64 parser links a 10 kB table (13.6 kB of gzip): parse an exact decimal \
             with integer arithmetic, as lang::lexer's literals.rs does for durations and \
             backoff numbers (docs/size.md)",
};
const SECOND_SORT: Rule = Rule {
    name: "second-sort",
    advice: "the page has one shared sort (crates/core/src/sort.rs, docs/size.md): \
             call it instead of writing another",
};

/// One violation: where, which rule, and the line as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Path relative to the project root, with `/`.
    pub path: String,
    /// 1-based line number.
    pub line: usize,
    /// The rule broken.
    pub rule: Rule,
    /// The line's text, trimmed.
    pub text: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: [{}] {}\n    {}",
            self.path, self.line, self.rule.name, self.rule.advice, self.text
        )
    }
}

/// Checks the page's sources; fails with every finding, each naming file:line.
pub fn guards() -> Result<()> {
    let mut files = Vec::new();
    for dir in PAGE_SOURCES {
        rust_files(Path::new(dir), &mut files)?;
    }
    files.sort();
    let mut findings = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let path = file.to_string_lossy().replace('\\', "/");
        findings.extend(check_file(&path, &text)?);
    }
    if !findings.is_empty() {
        for f in &findings {
            eprintln!("{f}");
        }
        bail!(
            "{} source guard finding(s) in the page's code (above). A deliberate use takes \
             `// guard: allow(RULE) REASON` on its line or the line above.",
            findings.len()
        );
    }
    println!(
        "guards: {} files of {} clean ({}, {}, {})",
        files.len(),
        PAGE_SOURCES.join(" and "),
        FLOAT_FORMAT.name,
        FLOAT_PARSE.name,
        SECOND_SORT.name
    );
    Ok(())
}

/// Every `.rs` file under `dir`, recursively.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            rust_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// The findings in one file's text (`path` decides which rules apply and is reported); an
/// error when the text does not lex as Rust.
pub fn check_file(path: &str, text: &str) -> Result<Vec<Finding>> {
    let file_name = path.rsplit('/').next().unwrap_or(path);
    if file_name == "tests.rs" || path.contains("/tests/") {
        return Ok(Vec::new());
    }
    let tokens = TokenStream::from_str(text).map_err(|e| anyhow!("{path}: cannot lex: {e}"))?;
    let mut hits = Vec::new();
    walk(tokens, path != SHARED_SORT, &mut hits);
    hits.sort_by_key(|&(line, rule)| (line, RULES.iter().position(|r| *r == rule)));
    hits.dedup();
    let raw: Vec<&str> = text.lines().collect();
    let line_text = |n: usize| n.checked_sub(1).and_then(|i| raw.get(i)).copied();
    Ok(hits
        .into_iter()
        .filter(|&(line, rule)| {
            !allows(line_text(line).unwrap_or(""), rule)
                && !allows(line_text(line - 1).unwrap_or(""), rule)
        })
        .map(|(line, rule)| Finding {
            path: path.to_owned(),
            line,
            rule,
            text: line_text(line).unwrap_or("").trim().to_owned(),
        })
        .collect())
}

const RULES: [Rule; 3] = [FLOAT_FORMAT, FLOAT_PARSE, SECOND_SORT];

/// Collects `(line, rule)` for every token sequence of one level of `tokens` (and of the
/// groups in it) that breaks a rule. Skipped: doc comments (`#[doc = "..."]` to the lexer)
/// and an item after `#[cfg(test)]` (up to and including its `{...}` or `;`).
fn walk(tokens: TokenStream, sort_rule: bool, hits: &mut Vec<(usize, Rule)>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let words: Vec<Option<String>> = trees.iter().map(word).collect();
    let at = |i: usize, w: &str| words.get(i).and_then(Option::as_deref) == Some(w);
    let line = |i: usize| trees[i].span().start().line;
    let mut i = 0;
    while i < trees.len() {
        if at(i, "#") {
            let open = if at(i + 1, "!") { i + 2 } else { i + 1 };
            if let Some(TokenTree::Group(attr)) = trees.get(open) {
                if attr.delimiter() == Delimiter::Bracket {
                    if is_doc(attr) {
                        i = open + 1;
                        continue;
                    }
                    if is_cfg_test(attr) {
                        i = past_item(&trees, open + 1);
                        continue;
                    }
                }
            }
        }
        let path = |p: &[&str]| p.iter().enumerate().all(|(k, w)| at(i + k, w));
        let float_types = ["f64", "f32"];
        if float_types
            .iter()
            .any(|t| path(&[t, ":", ":", "to_string"]))
        {
            hits.push((line(i), FLOAT_FORMAT));
        }
        if float_types
            .iter()
            .any(|t| path(&["parse", ":", ":", "<", t, ">"]) || path(&[t, ":", ":", "from_str"]))
        {
            hits.push((line(i), FLOAT_PARSE));
        }
        if sort_rule && at(i, "fn") {
            if let Some(TokenTree::Ident(name)) = trees.get(i + 1) {
                let name = name.to_string();
                if name == "sort" || name.starts_with("sort_") || name.ends_with("_sort") {
                    hits.push((line(i + 1), SECOND_SORT));
                }
            }
        }
        match &trees[i] {
            TokenTree::Group(g) => walk(g.stream(), sort_rule, hits),
            TokenTree::Literal(lit)
                if string_contents(&lit.to_string()).is_some_and(|s| has_float_spec(&s)) =>
            {
                hits.push((line(i), FLOAT_FORMAT));
            }
            _ => {}
        }
        i += 1;
    }
}

/// The index just past the item that starts at `i` (up to and including its `{...}` or `;`):
/// what an attribute such as `#[cfg(test)]` applies to.
pub fn past_item(trees: &[TokenTree], mut i: usize) -> usize {
    while let Some(t) = trees.get(i) {
        i += 1;
        match t {
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => break,
            TokenTree::Punct(p) if p.as_char() == ';' => break,
            _ => {}
        }
    }
    i
}

/// An identifier's or a punctuation character's text; `None` for groups and literals.
fn word(tree: &TokenTree) -> Option<String> {
    match tree {
        TokenTree::Ident(i) => Some(i.to_string()),
        TokenTree::Punct(p) => Some(p.as_char().to_string()),
        TokenTree::Group(_) | TokenTree::Literal(_) => None,
    }
}

/// `[doc = "..."]`: a doc comment.
pub fn is_doc(attr: &Group) -> bool {
    matches!(attr.stream().into_iter().next(), Some(TokenTree::Ident(i)) if i == "doc")
}

/// `[cfg(test)]`.
pub fn is_cfg_test(attr: &Group) -> bool {
    let inner: Vec<TokenTree> = attr.stream().into_iter().collect();
    match inner.as_slice() {
        [TokenTree::Ident(cfg), TokenTree::Group(args)] if cfg == "cfg" => {
            let args: Vec<TokenTree> = args.stream().into_iter().collect();
            matches!(args.as_slice(), [TokenTree::Ident(t)] if t == "test")
        }
        _ => false,
    }
}

/// The contents of a string literal as written (escapes kept): `"a\n"`, `r#"a"#`, `b"a"` give
/// `a\n`, `a`, `a`; `None` for other literals (numbers, characters).
pub fn string_contents(lit: &str) -> Option<String> {
    let s = lit.strip_prefix(['b', 'c']).unwrap_or(lit);
    let s = s
        .strip_prefix('r')
        .map_or(s, |raw| raw.trim_start_matches('#'));
    let s = s.strip_prefix('"')?;
    // The lexer checked the literal: its last `"` ends it (a raw string's `#`s follow).
    s.rfind('"').map(|end| s[..end].to_owned())
}

/// `// guard: allow(RULE) REASON` with a non-empty reason.
fn allows(line: &str, rule: Rule) -> bool {
    let marker = format!("guard: allow({})", rule.name);
    match line.find(&marker) {
        Some(at) => line[..at].contains("//") && !line[at + marker.len()..].trim().is_empty(),
        None => false,
    }
}

/// A format string (the contents of one string literal) has a placeholder with a precision
/// (`{:.2}`, `{x:.1$}`, `{:.*}`) or an exponent type (`{:e}`, `{:E}`).
pub fn has_float_spec(s: &str) -> bool {
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' if bytes.get(i + 1) == Some(&b'{') => i += 2,
            b'{' => {
                let Some(len) = s[i + 1..].find('}') else {
                    return false;
                };
                let inner = &s[i + 1..i + 1 + len];
                if let Some((name, spec)) = inner.split_once(':') {
                    let is_arg = name.chars().all(|c| c.is_alphanumeric() || c == '_');
                    if is_arg && spec_is_float(spec) {
                        return true;
                    }
                }
                i += len + 2;
            }
            _ => i += 1,
        }
    }
    false
}

/// A format spec (after the `:`) that only makes sense for floats: a precision or `e`/`E`.
fn spec_is_float(spec: &str) -> bool {
    // Whitespace only as a fill character (`{: >8.2}`); otherwise this is no placeholder.
    let rest = match spec.chars().nth(1) {
        Some('<' | '^' | '>') => &spec[spec.chars().next().map_or(0, char::len_utf8)..],
        _ => spec,
    };
    if rest.contains(char::is_whitespace) {
        return false;
    }
    if let Some(at) = spec.find('.') {
        let after = &spec[at + 1..];
        if after.starts_with('*') || after.starts_with(|c: char| c.is_ascii_digit()) {
            return true;
        }
        // `.name$`: a precision taken from an argument.
        if let Some(end) = after.find('$') {
            let name = &after[..end];
            if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                return true;
            }
        }
    }
    spec.ends_with('e') || spec.ends_with('E')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(path: &str, text: &str) -> Vec<(usize, &'static str)> {
        check_file(path, text)
            .expect("lexes")
            .into_iter()
            .map(|f| (f.line, f.rule.name))
            .collect()
    }

    #[test]
    fn float_specs() {
        for yes in [
            "{:.2}",
            "{x:.0} ms",
            "a {:>8.3} b",
            "{:.*}",
            "{0:.1$}",
            "{:.prec$}",
            "{:e}",
            "{x:E}",
            "{{}} {:.1}",
            "{: >8.2}",
        ] {
            assert!(has_float_spec(yes), "{yes}");
        }
        for no in [
            "{}",
            "{x}",
            "{:?}",
            "{:#?}",
            "{:>8}",
            "{:08x}",
            "{{:.2}}",
            "{name:<12}",
            "{:#}",
            "a.b {x}",
            "{ \"a\": 1.5 }",
            "{",
        ] {
            assert!(!has_float_spec(no), "{no}");
        }
    }

    #[test]
    fn finds_float_formatting_and_parsing_in_code_only() {
        let text = "fn f(x: f64) -> String {\n\
                    \x20   let a = format!(\"{x:.3}\");\n\
                    \x20   // format!(\"{x:.3}\") in a comment\n\
                    \x20   /* write!(f, \"{:.1}\", x) */\n\
                    \x20   let b: f64 = s.parse::<f64>().unwrap();\n\
                    \x20   let c = v.iter().map(f64::to_string);\n\
                    \x20   let d = my_f64::from_str(s);\n\
                    \x20   let e = format!(\"{x:>8}\");\n\
                    \x20   a\n}\n";
        assert_eq!(
            rules("crates/web/src/a.rs", text),
            [(2, "float-format"), (5, "float-parse"), (6, "float-format")]
        );
    }

    #[test]
    fn finds_a_second_sort_outside_the_shared_one() {
        let text = "/// Sorts.\nfn sort_solved(v: &mut [String]) {}\n\
                    pub(crate) fn insertion_sort<T>(v: &mut [T]) {}\nfn sorted(v: &V) {}\n\
                    fn resort() {}\nlet f = sort_by;\n";
        assert_eq!(
            rules("crates/web/src/state/exercises.rs", text),
            [(2, "second-sort"), (3, "second-sort")]
        );
        assert!(rules(SHARED_SORT, text).is_empty());
    }

    #[test]
    fn test_items_and_test_files_are_skipped() {
        let text = "fn a() { format!(\"{:.1}\", 1.0); }\n\
                    #[cfg(test)]\n\
                    mod tests {\n\
                    \x20   fn sort_like_std() { let s = \"}\"; x.parse::<f64>(); }\n\
                    \x20   #[test]\n\
                    \x20   fn t() { format!(\"{:.2}\", 2.0); }\n\
                    }\n\
                    fn b() { format!(\"{:.3}\", 3.0); }\n\
                    #[cfg(test)]\n\
                    use std::f64;\n\
                    fn c() { s.parse::<f32>(); }\n";
        assert_eq!(
            rules("crates/core/src/x.rs", text),
            [
                (1, "float-format"),
                (8, "float-format"),
                (11, "float-parse")
            ]
        );
        assert!(rules("crates/core/src/store/tests.rs", text).is_empty());
        assert!(rules("crates/core/src/tests/x.rs", text).is_empty());
    }

    #[test]
    fn strings_comments_and_chars_do_not_confuse_the_lexer() {
        let text = "let a = '{'; let b = '\"'; fn f<'a>(x: &'a str) {}\n\
                    let s = \"// not a comment {:.1}\";\n\
                    let r = r#\"a \"quoted\" {x:.2}\"#;\n\
                    let m = \"multi\n\
                    line {:e}\";\n\
                    let c = \"fn sort_x() parse::<f64>\";\n\
                    /// Doc comments are comments: {:.2}, f64::to_string.\n\
                    /* /* nested */ format!(\"{:.1}\") */ fn g() {}\n";
        assert_eq!(
            rules("crates/web/src/a.rs", text),
            [
                (2, "float-format"),
                (3, "float-format"),
                (4, "float-format")
            ]
        );
        assert_eq!(string_contents(r#""a\"b""#).as_deref(), Some(r#"a\"b"#));
        assert_eq!(
            string_contents(r##"r#"a "q" {x:.2}"#"##).as_deref(),
            Some(r#"a "q" {x:.2}"#)
        );
        assert_eq!(string_contents(r#"br"x""#).as_deref(), Some("x"));
        assert_eq!(string_contents("'\"'"), None);
        assert_eq!(string_contents("1.5e3"), None);
    }

    #[test]
    fn text_that_does_not_lex_is_an_error() {
        let err = check_file("crates/web/src/a.rs", "fn f() { \"open").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("crates/web/src/a.rs: cannot lex"),
            "{err}"
        );
    }

    #[test]
    fn a_deliberate_use_names_its_rule_and_reason() {
        let text = "format!(\"{:.1}\", x); // guard: allow(float-format) a benchmark label\n\
                    // guard: allow(float-format) the line below, native only\n\
                    format!(\"{:.2}\", x);\n\
                    format!(\"{:.3}\", x); // guard: allow(float-format)\n\
                    format!(\"{:.4}\", x); // guard: allow(float-parse) wrong rule\n";
        assert_eq!(
            rules("crates/web/src/a.rs", text),
            [(4, "float-format"), (5, "float-format")]
        );
    }

    #[test]
    fn a_finding_names_file_line_rule_and_text() {
        let f = &check_file(
            "crates/web/src/a.rs",
            "\n  let t = format!(\"{:.0} ms\", ms);\n",
        )
        .expect("lexes")[0];
        let shown = f.to_string();
        assert!(
            shown.starts_with("crates/web/src/a.rs:2: [float-format] "),
            "{shown}"
        );
        assert!(shown.contains("decimal::fixed"), "{shown}");
        assert!(
            shown.ends_with("\n    let t = format!(\"{:.0} ms\", ms);"),
            "{shown}"
        );
    }

    /// The `path = "..."` entries of a clippy.toml.
    fn clippy_paths(file: &str) -> Vec<String> {
        let text = std::fs::read_to_string(crate::util::project_root().join(file)).expect(file);
        text.lines()
            .filter(|l| !l.trim_start().starts_with('#'))
            .filter_map(|l| l.split("path = \"").nth(1))
            .filter_map(|rest| rest.split('"').next())
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn clippy_configs_repeat_the_rules_they_inherit() {
        // Clippy reads the first clippy.toml from the crate upwards, without merging.
        let root = clippy_paths("clippy.toml");
        let core = clippy_paths("crates/core/clippy.toml");
        let web = clippy_paths("crates/web/clippy.toml");
        assert!(!root.is_empty() && core.len() > root.len() && web.len() > core.len());
        for p in &root {
            assert!(core.contains(p), "crates/core/clippy.toml lacks {p}");
        }
        for p in &core {
            assert!(web.contains(p), "crates/web/clippy.toml lacks {p}");
        }
        // Every other pure crate the page links has the core's rules, exactly.
        for dir in PAGE_SOURCES {
            let file = dir.replace("/src", "/clippy.toml");
            if file != "crates/web/clippy.toml" {
                assert_eq!(clippy_paths(&file), core, "{file}");
            }
        }
    }
}
