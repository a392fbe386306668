//! `cargo xtask guards`: the page's size rules that clippy cannot name (docs/size.md).
//!
//! Clippy's `disallowed-methods` / `-types` / `-macros` (clippy.toml, crates/core/clippy.toml,
//! crates/web/clippy.toml) cover what has a path: std's sorts, Unicode case mapping, map types
//! in the page's crate, `json!`. What is left is matched in the text of the page's code
//! (`crates/core/src`, `crates/web/src`, tests excluded), line by line:
//!
//! - `float-format`: a format string with a precision or an exponent (`{x:.2}`, `{:.*}`,
//!   `{:e}`), or `f64::to_string`: both link std's float formatter (9.5 kB of wasm);
//!   `rvlab_core::numfmt` writes the same text.
//! - `float-parse`: `parse::<f64>()` or `f64::from_str`: std's correctly rounded parser and its
//!   10 kB table (13.6 kB of gzip when it left).
//! - `second-sort`: a function named `sort`, `sort_*` or `*_sort` outside
//!   `crates/core/src/sort.rs`: the page has one shared sort.
//!
//! `{}` of an `f64` formats it too, but a text match cannot see types; `numfmt`'s tests and
//! twiggy (docs/size.md, "How to look") are the check for that.
//!
//! A deliberate use carries `// guard: allow(RULE) REASON` on its line or the line above.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

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
             use rvlab_core::numfmt::{fixed, shortest} (docs/size.md)",
};
const FLOAT_PARSE: Rule = Rule {
    name: "float-parse",
    advice: "std's f64 parser links a 10 kB table (13.6 kB of gzip): parse the digits \
             yourself, as lang::lexer's decimal_f64 does (docs/size.md)",
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
        findings.extend(check_file(&path, &text));
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

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
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

/// The findings in one file's text (`path` decides which rules apply and is reported).
pub fn check_file(path: &str, text: &str) -> Vec<Finding> {
    let file_name = path.rsplit('/').next().unwrap_or(path);
    if file_name == "tests.rs" || path.contains("/tests/") {
        return Vec::new();
    }
    let raw: Vec<&str> = text.lines().collect();
    let lines = scan(text);
    let mut findings = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if line.in_test {
            continue;
        }
        let mut broken = Vec::new();
        if line.strings.iter().any(|s| has_float_spec(s))
            || contains_path(&line.code, &["f64::to_string", "f32::to_string"])
        {
            broken.push(FLOAT_FORMAT);
        }
        if contains_path(
            &line.code,
            &[
                "parse::<f64>",
                "parse::<f32>",
                "f64::from_str",
                "f32::from_str",
            ],
        ) {
            broken.push(FLOAT_PARSE);
        }
        if path != SHARED_SORT && defines_sort(&line.code) {
            broken.push(SECOND_SORT);
        }
        for rule in broken {
            let here = raw.get(i).copied().unwrap_or("");
            let above = if i > 0 { raw[i - 1] } else { "" };
            if allows(here, rule) || allows(above, rule) {
                continue;
            }
            findings.push(Finding {
                path: path.to_owned(),
                line: i + 1,
                rule,
                text: here.trim().to_owned(),
            });
        }
    }
    findings
}

/// `// guard: allow(RULE) REASON` with a non-empty reason.
fn allows(line: &str, rule: Rule) -> bool {
    let marker = format!("guard: allow({})", rule.name);
    match line.find(&marker) {
        Some(at) => line[..at].contains("//") && !line[at + marker.len()..].trim().is_empty(),
        None => false,
    }
}

/// `code` contains one of `needles` not as part of a longer identifier on the left.
fn contains_path(code: &str, needles: &[&str]) -> bool {
    needles.iter().any(|n| {
        code.match_indices(n).any(|(at, _)| {
            !code[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    })
}

/// The line defines a function named `sort`, `sort_*` or `*_sort`.
fn defines_sort(code: &str) -> bool {
    let words: Vec<&str> = code
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    words.windows(2).any(|w| {
        w[0] == "fn" && (w[1] == "sort" || w[1].starts_with("sort_") || w[1].ends_with("_sort"))
    })
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

/// One source line as the guards see it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Line {
    /// The code outside comments and string literals (literals become `""`).
    pub code: String,
    /// The contents of the string literals that end on this line (escapes kept as written).
    pub strings: Vec<String>,
    /// Inside an item marked `#[cfg(test)]`.
    pub in_test: bool,
}

/// Splits Rust source into lines of code and string literals, and marks `#[cfg(test)]` items.
/// A small lexer: `//` and nested `/* */` comments, `"..."` with escapes, raw strings
/// `r#"..."#`, byte strings, and character literals (told apart from lifetimes).
pub fn scan(text: &str) -> Vec<Line> {
    let chars: Vec<char> = text.chars().collect();
    let mut lines = vec![Line::default()];
    let mut i = 0;
    // Test-item tracking: `pending` after `#[cfg(test)]` until the item's `{` or `;`; then the
    // brace depth at which the item ends.
    let mut depth: usize = 0;
    let mut pending = false;
    let mut test_until: Option<usize> = None;
    let mut current = String::new(); // the string literal being read
    macro_rules! cur {
        () => {
            lines.last_mut().expect("at least one line")
        };
    }
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '\n' {
            let in_test = test_until.is_some() || pending;
            cur!().in_test |= in_test;
            lines.push(Line {
                in_test,
                ..Line::default()
            });
            i += 1;
            continue;
        }
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && next == Some('*') {
            let mut nest = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    nest += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    nest -= 1;
                    i += 2;
                    if nest == 0 {
                        break;
                    }
                } else {
                    if chars[i] == '\n' {
                        let in_test = test_until.is_some() || pending;
                        lines.push(Line {
                            in_test,
                            ..Line::default()
                        });
                    }
                    i += 1;
                }
            }
            continue;
        }
        // Raw strings: r"..", r#".."#, br#".."#.
        let raw_start = if c == 'r' && matches!(next, Some('"' | '#')) {
            Some(i + 1)
        } else if c == 'b' && next == Some('r') && matches!(chars.get(i + 2), Some('"' | '#')) {
            Some(i + 2)
        } else {
            None
        };
        let ident_before = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        if let (Some(start), false) = (raw_start, ident_before) {
            let mut j = start;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) == Some(&'"') {
                j += 1;
                current.clear();
                loop {
                    match chars.get(j) {
                        None => break,
                        Some('"') if (0..hashes).all(|k| chars.get(j + 1 + k) == Some(&'#')) => {
                            j += 1 + hashes;
                            break;
                        }
                        Some('\n') => {
                            let in_test = test_until.is_some() || pending;
                            lines.push(Line {
                                in_test,
                                ..Line::default()
                            });
                            current.push('\n');
                            j += 1;
                        }
                        Some(&ch) => {
                            current.push(ch);
                            j += 1;
                        }
                    }
                }
                cur!().code.push_str("\"\"");
                cur!().strings.push(std::mem::take(&mut current));
                i = j;
                continue;
            }
        }
        if c == '"' {
            let mut j = i + 1;
            current.clear();
            while let Some(&ch) = chars.get(j) {
                if ch == '\\' {
                    current.push(ch);
                    if let Some(&esc) = chars.get(j + 1) {
                        if esc == '\n' {
                            let in_test = test_until.is_some() || pending;
                            lines.push(Line {
                                in_test,
                                ..Line::default()
                            });
                        }
                        current.push(esc);
                    }
                    j += 2;
                    continue;
                }
                if ch == '"' {
                    j += 1;
                    break;
                }
                if ch == '\n' {
                    let in_test = test_until.is_some() || pending;
                    lines.push(Line {
                        in_test,
                        ..Line::default()
                    });
                }
                current.push(ch);
                j += 1;
            }
            cur!().code.push_str("\"\"");
            cur!().strings.push(std::mem::take(&mut current));
            i = j;
            continue;
        }
        if c == '\'' {
            // A character literal ('a', '\n', '\u{1F600}', '"'), or a lifetime ('a).
            let close = if next == Some('\\') {
                (i + 3..chars.len().min(i + 12)).find(|&k| chars[k] == '\'')
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            if let Some(k) = close {
                cur!().code.push_str("' '");
                i = k + 1;
                continue;
            }
        }
        // `#[cfg(test)]` marks the next item as test code.
        if c == '#' && starts_with(&chars[i..], "#[cfg(test)]") {
            pending = true;
            cur!().in_test = true;
        }
        match c {
            '{' => {
                depth += 1;
                if pending {
                    pending = false;
                    test_until = Some(depth);
                }
            }
            '}' => {
                if test_until == Some(depth) {
                    test_until = None;
                    cur!().in_test = true;
                }
                depth = depth.saturating_sub(1);
            }
            ';' if pending => {
                pending = false;
                cur!().in_test = true;
            }
            _ => {}
        }
        if test_until.is_some() || pending {
            cur!().in_test = true;
        }
        cur!().code.push(c);
        i += 1;
    }
    lines
}

fn starts_with(chars: &[char], s: &str) -> bool {
    let mut it = chars.iter();
    s.chars().all(|c| it.next() == Some(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(path: &str, text: &str) -> Vec<(usize, &'static str)> {
        check_file(path, text)
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
                    let c = \"fn sort_x() parse::<f64>\";\n";
        let lines = scan(text);
        assert_eq!(lines.len(), 7);
        assert_eq!(lines[0].strings, Vec::<String>::new());
        assert!(lines[0].code.contains("fn f<'a>(x: &'a str)"));
        assert_eq!(lines[1].strings, ["// not a comment {:.1}"]);
        assert_eq!(lines[2].strings, ["a \"quoted\" {x:.2}"]);
        assert_eq!(lines[4].strings, ["multi\nline {:e}"]);
        assert_eq!(
            rules("crates/web/src/a.rs", text),
            [
                (2, "float-format"),
                (3, "float-format"),
                (5, "float-format")
            ]
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
        )[0];
        let shown = f.to_string();
        assert!(
            shown.starts_with("crates/web/src/a.rs:2: [float-format] "),
            "{shown}"
        );
        assert!(shown.contains("numfmt"), "{shown}");
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
    }
}
