//! `cargo xtask schema`: Kubernetes' schema facts for strategic merge patch and server-side
//! apply, read from Kubernetes' own Go types, into `crates/core/src/store/schema.txt` (the
//! format and the pruning rule: `crates/core/src/store/schema.rs`'s module docs).
//!
//! The sources are k8s.io/api and k8s.io/apimachinery at one release: by default the Go
//! modules at the versions `reference/kubernetes/go.mod` pins (the reference's release,
//! docs/reference.md), fetched into the module cache by `go mod download`; with `--api` /
//! `--apimachinery` and `--tag`, git directories read with `git show TAG:PATH` (mirrors
//! without a work tree). A small Go reader (a lexer and a
//! parser of type declarations only; function bodies are skipped) yields the struct types with
//! their fields, struct tags and `+marker` comments; the types reachable from the served kinds'
//! roots are resolved (inline embedding flattened, pointers dropped, named scalar, map and list
//! types replaced by what they name), then cut to the fields that carry a fact or lead to one.
//!
//! Like kube-openapi's generator, a field's `+patchStrategy`/`+patchMergeKey` markers must
//! equal its `patchStrategy`/`patchMergeKey` struct tags (the tags are what apimachinery's
//! strategic merge reads; the markers what the OpenAPI, hence server-side apply, carries); a
//! mismatch is an error here.

use anyhow::{anyhow, bail, Context, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// Where `schema.txt` lives, from the project root.
const OUT: &str = "crates/core/src/store/schema.txt";
/// The same facts as Rust statics, what the store (and so the page) reads: no text to parse
/// at start (docs/size.md, "Issue #14").
const OUT_RS: &str = "crates/core/src/store/schema_data.rs";
/// The Go module that pins the reference's release (and so the modules read by default).
const REFERENCE_MODULE: &str = "reference/kubernetes";

/// The served kinds: (kind, Go package path, Go type).
const ROOTS: &[(&str, &str, &str)] = &[
    ("ConfigMap", CORE, "ConfigMap"),
    ("Secret", CORE, "Secret"),
    ("Namespace", CORE, "Namespace"),
    ("Deployment", APPS, "Deployment"),
];
const CORE: &str = "k8s.io/api/core/v1";
const APPS: &str = "k8s.io/api/apps/v1";
const META: &str = "k8s.io/apimachinery/pkg/apis/meta/v1";

/// Types with their own JSON form (a string or a number), scalars to a schema.
const SCALARS: &[(&str, &str)] = &[
    ("k8s.io/apimachinery/pkg/api/resource", "Quantity"),
    ("k8s.io/apimachinery/pkg/util/intstr", "IntOrString"),
    ("k8s.io/apimachinery/pkg/types", "UID"),
    (META, "Time"),
    (META, "MicroTime"),
    (META, "Duration"),
];

const USAGE: &str =
    "usage: cargo xtask schema [--check | --full] [--api DIR --apimachinery DIR --tag TAG]";

/// The command: writes `schema.txt`, or with `--check` compares it with a fresh generation.
pub fn schema(args: &[String]) -> Result<()> {
    let (mut api, mut mach, mut tag) = (None, None, None);
    let (mut check, mut full) = (false, false);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| anyhow!("{a} needs a value\n{USAGE}"))
        };
        match a.as_str() {
            "--api" => api = Some(value()?),
            "--apimachinery" => mach = Some(value()?),
            "--tag" => tag = Some(value()?),
            "--check" => check = true,
            "--full" => full = true,
            _ => bail!("unknown argument `{a}`\n{USAGE}"),
        }
    }
    let (api, mach) = match (api, mach, tag) {
        (None, None, None) => (
            Source::module("k8s.io/api")?,
            Source::module("k8s.io/apimachinery")?,
        ),
        (Some(api), Some(mach), Some(tag)) => (Source::new(&api, &tag)?, Source::new(&mach, &tag)?),
        _ => bail!("--api, --apimachinery and --tag go together\n{USAGE}"),
    };
    let text = generate(&api, &mach, full)?;
    if full {
        print!("{text}");
        return Ok(());
    }
    let rust = rust_data(&text)?;
    for (path, new) in [(OUT, &text), (OUT_RS, &rust)] {
        if check {
            let old =
                std::fs::read_to_string(path).with_context(|| format!("cannot read {path}"))?;
            if old != *new {
                let (o, n): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
                let i = (0..o.len().max(n.len()))
                    .find(|&i| o.get(i) != n.get(i))
                    .unwrap_or(0);
                bail!(
                    "{path} is not what `cargo xtask schema` generates: line {} is\n  {}\nbut would be\n  {}\n\
                     (run `cargo xtask schema` and commit the result)",
                    i + 1,
                    o.get(i).unwrap_or(&"<missing>"),
                    n.get(i).unwrap_or(&"<missing>")
                );
            }
            println!("{path} is up to date ({} bytes)", new.len());
        } else {
            std::fs::write(path, new).with_context(|| format!("cannot write {path}"))?;
            println!("wrote {path} ({} bytes)", new.len());
        }
    }
    Ok(())
}

/// A module in the Go module cache, or a git directory at a tag.
struct Source {
    dir: String,
    /// The module's version, or the tag.
    tag: String,
    /// The module's go.sum hash, or the tag's commit.
    commit: String,
    /// `dir` is a module directory (files read as they are), not a git directory.
    module: bool,
}

impl Source {
    fn new(dir: &str, tag: &str) -> Result<Source> {
        if !Path::new(dir).exists() {
            bail!("the source {dir} does not exist (a git directory of the repository; pass another with --api / --apimachinery)");
        }
        let commit = git(dir, &["rev-parse", &format!("{tag}^{{commit}}")])
            .with_context(|| format!("{dir} has no tag {tag}"))?;
        Ok(Source {
            dir: dir.to_string(),
            tag: tag.to_string(),
            commit: commit.trim().to_string(),
            module: false,
        })
    }

    /// `path` at the version `reference/kubernetes/go.mod` requires, downloaded into the module
    /// cache by the go command (`go mod download -json`, which checks it against go.sum).
    fn module(path: &str) -> Result<Source> {
        let root = crate::util::project_root().join(REFERENCE_MODULE);
        let go_mod = std::fs::read_to_string(root.join("go.mod"))
            .with_context(|| format!("cannot read {REFERENCE_MODULE}/go.mod"))?;
        let version = crate::reference::required(&go_mod, path)
            .with_context(|| format!("{REFERENCE_MODULE}/go.mod does not require {path}"))?;
        let out = Command::new("go")
            .args(["mod", "download", "-json", &format!("{path}@{version}")])
            .current_dir(&root)
            .output()
            .context("cannot run go (the schema is read from the Go modules; Go 1.26+)")?;
        let json: serde_json::Value = serde_json::from_slice(&out.stdout)
            .with_context(|| format!("`go mod download -json {path}@{version}` printed no JSON"))?;
        if !out.status.success() || json.get("Error").is_some() {
            bail!(
                "`go mod download {path}@{version}` failed: {}",
                json["Error"]
                    .as_str()
                    .unwrap_or(&String::from_utf8_lossy(&out.stderr))
            );
        }
        Ok(Source {
            dir: json["Dir"].as_str().context("no Dir")?.to_string(),
            tag: version,
            commit: json["Sum"].as_str().unwrap_or_default().to_string(),
            module: true,
        })
    }

    /// The `.go` files of a package directory (no tests, no generated protobuf code).
    fn package(&self, dir: &str) -> Result<Vec<(String, String)>> {
        if self.module {
            let mut files = Vec::new();
            let mut names: Vec<_> = std::fs::read_dir(Path::new(&self.dir).join(dir))
                .with_context(|| format!("{}/{dir}", self.dir))?
                .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
                .collect();
            names.sort();
            for name in names {
                if name.ends_with(".go") && !name.ends_with("_test.go") && !name.ends_with(".pb.go")
                {
                    let text = std::fs::read_to_string(Path::new(&self.dir).join(dir).join(&name))?;
                    files.push((format!("{dir}/{name}"), text));
                }
            }
            if files.is_empty() {
                bail!("{}: no Go files in {dir}", self.dir);
            }
            return Ok(files);
        }
        let names = git(
            &self.dir,
            &["ls-tree", "--name-only", &self.tag, &format!("{dir}/")],
        )?;
        let mut files = Vec::new();
        for name in names.lines() {
            if name.ends_with(".go") && !name.ends_with("_test.go") && !name.ends_with(".pb.go") {
                let text = git(&self.dir, &["show", &format!("{}:{name}", self.tag)])?;
                files.push((name.to_string(), text));
            }
        }
        if files.is_empty() {
            bail!("{}: no Go files in {dir} at {}", self.dir, self.tag);
        }
        Ok(files)
    }
}

fn git(dir: &str, args: &[&str]) -> Result<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .context("cannot run git")?;
    if !out.status.success() {
        bail!(
            "`git -C {dir} {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    String::from_utf8(out.stdout).context("git printed non-UTF-8")
}

/// Reads the three packages and renders `schema.txt`.
fn generate(api: &Source, mach: &Source, full: bool) -> Result<String> {
    let mut decls = Decls::default();
    for (src, path, dir) in [
        (api, CORE, "core/v1"),
        (api, APPS, "apps/v1"),
        (mach, META, "pkg/apis/meta/v1"),
    ] {
        for (name, text) in src.package(dir)? {
            parse_file(&text, path, &mut decls).with_context(|| format!("{}: {name}", src.dir))?;
        }
    }
    let what = |s: &Source| {
        if s.module {
            format!("{} (module, go.sum {})", s.tag, s.commit)
        } else {
            format!("{} (commit {})", s.tag, s.commit)
        }
    };
    let header = format!(
        "# Generated by `cargo xtask schema`: do not edit.\n\
         # From k8s.io/api {} core/v1, apps/v1\n\
         # and k8s.io/apimachinery {} pkg/apis/meta/v1.\n",
        what(api),
        what(mach)
    );
    render(&decls, &header, ROOTS, full)
}

// ---------------------------------------------------------------------------------------------
// The Go reader.

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    Comment(String),
    Punct(char),
    Other,
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    line: usize,
    col: usize,
    /// The first token of its line.
    first: bool,
}

fn lex(src: &str) -> Result<Vec<Token>> {
    let b: Vec<char> = src.chars().collect();
    let (mut i, mut line, mut col0) = (0usize, 1usize, 0usize);
    let mut out: Vec<Token> = Vec::new();
    let mut last_line = 0;
    while i < b.len() {
        let c = b[i];
        if c == '\n' {
            line += 1;
            i += 1;
            col0 = i;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let (start, start_line, col) = (i, line, i - col0);
        let tok = if c == '/' && b.get(i + 1) == Some(&'/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
            Tok::Comment(b[start + 2..i].iter().collect())
        } else if c == '/' && b.get(i + 1) == Some(&'*') {
            i += 2;
            while i < b.len() && !(b[i] == '*' && b.get(i + 1) == Some(&'/')) {
                if b[i] == '\n' {
                    line += 1;
                    col0 = i + 1;
                }
                i += 1;
            }
            i += 2;
            Tok::Other
        } else if c == '"' || c == '`' || c == '\'' {
            i += 1;
            let mut s = String::new();
            while i < b.len() && b[i] != c {
                if b[i] == '\\' && c != '`' {
                    i += 1;
                }
                if b[i] == '\n' {
                    if c != '`' {
                        bail!("line {start_line}: an unterminated string");
                    }
                    line += 1;
                    col0 = i + 1;
                }
                s.push(b[i]);
                i += 1;
            }
            if i >= b.len() {
                bail!("line {start_line}: an unterminated string");
            }
            i += 1;
            if c == '\'' {
                Tok::Other
            } else {
                Tok::Str(s)
            }
        } else if c.is_alphabetic() || c == '_' {
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            Tok::Ident(b[start..i].iter().collect())
        } else if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '.' || b[i] == '_') {
                i += 1;
            }
            Tok::Other
        } else {
            i += 1;
            Tok::Punct(c)
        };
        out.push(Token {
            tok,
            line: start_line,
            col,
            first: start_line != last_line,
        });
        last_line = line;
    }
    Ok(out)
}

/// A Go type expression; names resolved to (package path, name), `None` for Go's own types.
#[derive(Debug, Clone, PartialEq)]
enum Expr {
    Name(Option<String>, String),
    Ptr(Box<Expr>),
    Slice(Box<Expr>),
    Map(Box<Expr>, Box<Expr>),
    Struct(Vec<GoField>),
    /// Interfaces, functions, channels: nothing a served kind's JSON holds.
    Other,
}

#[derive(Debug, Clone, PartialEq)]
struct GoField {
    /// `None` for an embedded field.
    name: Option<String>,
    ty: Expr,
    tag: String,
    doc: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
struct TypeDecl {
    expr: Expr,
    doc: Vec<String>,
}

/// Every type declaration read, by (package path, name), and the string constants (for
/// `+default=ref(NAME)`).
#[derive(Debug, Default)]
struct Decls {
    types: BTreeMap<(String, String), TypeDecl>,
    consts: BTreeMap<(String, String), String>,
}

const GO_BUILTINS: &[&str] = &[
    "bool",
    "string",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "uintptr",
    "float32",
    "float64",
    "byte",
    "rune",
    "complex64",
    "complex128",
    "error",
    "any",
];

struct Parser<'a> {
    t: &'a [Token],
    i: usize,
    pkg: &'a str,
    imports: BTreeMap<String, String>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.t.get(self.i).map(|t| &t.tok)
    }
    fn punct(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }
    fn line(&self) -> usize {
        self.t.get(self.i).map_or(usize::MAX, |t| t.line)
    }
    fn err(&self, m: &str) -> anyhow::Error {
        anyhow!("line {}: {m}", self.t.get(self.i).map_or(0, |t| t.line))
    }
    fn skip_comments(&mut self) {
        while matches!(self.peek(), Some(Tok::Comment(_) | Tok::Other)) {
            self.i += 1;
        }
    }
    fn expect(&mut self, c: char) -> Result<()> {
        self.skip_comments();
        if !self.punct(c) {
            return Err(self.err(&format!("expected `{c}`")));
        }
        self.i += 1;
        Ok(())
    }
    fn ident(&mut self) -> Result<String> {
        self.skip_comments();
        match self.peek() {
            Some(Tok::Ident(s)) => {
                let s = s.clone();
                self.i += 1;
                Ok(s)
            }
            _ => Err(self.err("expected a name")),
        }
    }

    /// The comment lines right above token `i` (a contiguous group, each first on its line).
    fn doc(&self, i: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut want = self.t[i].line;
        let mut j = i;
        while j > 0 {
            j -= 1;
            match &self.t[j] {
                Token {
                    tok: Tok::Comment(c),
                    line,
                    first: true,
                    ..
                } if *line + 1 == want => {
                    out.push(c.clone());
                    want = *line;
                }
                _ => break,
            }
        }
        out.reverse();
        out
    }

    fn name(&self, q: Option<String>, n: String) -> Result<Expr> {
        Ok(match q {
            Some(alias) => {
                let path = self
                    .imports
                    .get(&alias)
                    .ok_or_else(|| self.err(&format!("unknown package `{alias}`")))?;
                Expr::Name(Some(path.clone()), n)
            }
            None if GO_BUILTINS.contains(&n.as_str()) => Expr::Name(None, n),
            None => Expr::Name(Some(self.pkg.to_string()), n),
        })
    }

    fn ty(&mut self) -> Result<Expr> {
        self.skip_comments();
        match self.peek().cloned() {
            Some(Tok::Punct('*')) => {
                self.i += 1;
                Ok(Expr::Ptr(Box::new(self.ty()?)))
            }
            Some(Tok::Punct('[')) => {
                self.i += 1;
                while !self.punct(']') {
                    if self.peek().is_none() {
                        return Err(self.err("unterminated `[`"));
                    }
                    self.i += 1; // an array's length
                }
                self.i += 1;
                Ok(Expr::Slice(Box::new(self.ty()?)))
            }
            Some(Tok::Ident(w)) if w == "map" => {
                self.i += 1;
                self.expect('[')?;
                let k = self.ty()?;
                self.expect(']')?;
                Ok(Expr::Map(Box::new(k), Box::new(self.ty()?)))
            }
            Some(Tok::Ident(w)) if w == "struct" => {
                self.i += 1;
                self.expect('{')?;
                Ok(Expr::Struct(self.fields()?))
            }
            Some(Tok::Ident(w)) if w == "interface" || w == "func" || w == "chan" => {
                // Skip to the end of the expression: balanced brackets, then the line's end.
                let line = self.line();
                self.i += 1;
                let mut depth = 0i32;
                while let Some(t) = self.t.get(self.i) {
                    match t.tok {
                        Tok::Punct('(' | '{' | '[') => depth += 1,
                        Tok::Punct(')' | '}' | ']') if depth > 0 => depth -= 1,
                        _ if depth == 0
                            && (t.line != line
                                || matches!(t.tok, Tok::Str(_) | Tok::Punct('}' | ';' | ')'))) =>
                        {
                            break
                        }
                        _ => {}
                    }
                    self.i += 1;
                }
                Ok(Expr::Other)
            }
            Some(Tok::Ident(n)) => {
                self.i += 1;
                let named = if self.punct('.') {
                    self.i += 1;
                    let m = self.ident()?;
                    self.name(Some(n), m)?
                } else {
                    self.name(None, n)?
                };
                // A generic type's instantiation (`unique.Handle[string]`, apimachinery 0.37's
                // FieldsV1): opaque to the schema, its arguments skipped.
                if self.punct('[') {
                    let mut depth = 0i32;
                    while let Some(t) = self.t.get(self.i) {
                        match t.tok {
                            Tok::Punct('[') => depth += 1,
                            Tok::Punct(']') => depth -= 1,
                            _ => {}
                        }
                        self.i += 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    return Ok(Expr::Other);
                }
                Ok(named)
            }
            _ => Err(self.err("expected a type")),
        }
    }

    /// A struct's fields, after its `{`, through its `}`.
    fn fields(&mut self) -> Result<Vec<GoField>> {
        let mut out = Vec::new();
        loop {
            self.skip_comments();
            if self.punct(';') {
                self.i += 1;
                continue;
            }
            if self.punct('}') {
                self.i += 1;
                return Ok(out);
            }
            let start = self.i;
            let line = self.line();
            let doc = self.doc(start);
            // Embedded: `T`, `*T`, `pkg.T`, then a tag or the line's end.
            let t1 = self.t.get(self.i + 1);
            let embedded = self.punct('*')
                || t1.is_none_or(|t| {
                    t.line != line || matches!(t.tok, Tok::Str(_) | Tok::Punct('.' | '}' | ';'))
                });
            let mut names = Vec::new();
            if !embedded {
                names.push(self.ident()?);
                while self.punct(',') {
                    self.i += 1;
                    names.push(self.ident()?);
                }
            }
            let ty = self.ty()?;
            let tag = match self.t.get(self.i) {
                Some(Token {
                    tok: Tok::Str(s),
                    line: l,
                    ..
                }) if *l >= line => {
                    let s = s.clone();
                    self.i += 1;
                    s
                }
                _ => String::new(),
            };
            if embedded {
                names.push(String::new());
            }
            for n in names {
                out.push(GoField {
                    name: (!n.is_empty()).then_some(n),
                    ty: ty.clone(),
                    tag: tag.clone(),
                    doc: doc.clone(),
                });
            }
        }
    }

    /// `Name Type` of a `type` declaration (after `type` or inside `type (`).
    fn type_spec(&mut self, decls: &mut Decls) -> Result<()> {
        self.skip_comments();
        // The doc comment sits above `type NAME`, or above `NAME` in a `type (` group.
        let at = match self.i.checked_sub(1).map(|j| &self.t[j]) {
            Some(Token {
                tok: Tok::Ident(k),
                line,
                ..
            }) if k == "type" && *line == self.line() => self.i - 1,
            _ => self.i,
        };
        let doc = self.doc(at);
        let name = self.ident()?;
        if self.punct('[') && matches!(self.t.get(self.i + 2).map(|t| &t.tok), Some(Tok::Ident(_)))
        {
            // A generic type: nothing a served kind uses.
            self.skip_decl();
            return Ok(());
        }
        if self.punct('=') {
            self.i += 1;
        }
        let expr = self.ty()?;
        decls
            .types
            .insert((self.pkg.to_string(), name), TypeDecl { expr, doc });
        Ok(())
    }

    /// Skips to the next top-level declaration (a keyword in column 0 outside brackets).
    fn skip_decl(&mut self) {
        let mut depth = 0i32;
        while let Some(t) = self.t.get(self.i) {
            match &t.tok {
                Tok::Punct('(' | '{' | '[') => depth += 1,
                Tok::Punct(')' | '}' | ']') => depth -= 1,
                Tok::Ident(k)
                    if depth <= 0
                        && t.col == 0
                        && matches!(k.as_str(), "func" | "type" | "var" | "const" | "import") =>
                {
                    return
                }
                _ => {}
            }
            self.i += 1;
        }
    }

    /// `const ( A T = "x" … )` or `const A = "x"`: the string constants.
    fn consts(&mut self, decls: &mut Decls) {
        let start = self.i;
        self.skip_decl();
        let end = self.i;
        let mut i = start;
        while i + 2 < end {
            if let (Tok::Ident(n), true) = (&self.t[i].tok, self.t[i].first || i == start) {
                // NAME [TYPE] = "value" on one line.
                let mut j = i + 1;
                if matches!(self.t[j].tok, Tok::Ident(_)) {
                    j += 1;
                }
                if let (Some(Tok::Punct('=')), Some(Tok::Str(v))) = (
                    self.t.get(j).map(|t| &t.tok),
                    self.t.get(j + 1).map(|t| &t.tok),
                ) {
                    decls
                        .consts
                        .insert((self.pkg.to_string(), n.clone()), v.clone());
                }
            }
            i += 1;
        }
    }
}

/// Reads one Go file's imports, type declarations and string constants into `decls`.
fn parse_file(src: &str, pkg: &str, decls: &mut Decls) -> Result<()> {
    let tokens = lex(src)?;
    let mut p = Parser {
        t: &tokens,
        i: 0,
        pkg,
        imports: BTreeMap::new(),
    };
    loop {
        p.skip_comments();
        let Some(tok) = p.peek().cloned() else {
            return Ok(());
        };
        match tok {
            Tok::Ident(k) if k == "package" => {
                p.i += 1;
                p.ident()?;
            }
            Tok::Ident(k) if k == "import" => {
                p.i += 1;
                p.skip_comments();
                let group = p.punct('(');
                if group {
                    p.i += 1;
                }
                loop {
                    p.skip_comments();
                    if group && p.punct(')') {
                        p.i += 1;
                        break;
                    }
                    let alias = match p.peek().cloned() {
                        Some(Tok::Ident(a)) => {
                            p.i += 1;
                            Some(a)
                        }
                        Some(Tok::Punct('_' | '.')) => {
                            p.i += 1;
                            None
                        }
                        _ => None,
                    };
                    let Some(Tok::Str(path)) = p.peek().cloned() else {
                        return Err(p.err("expected an import path"));
                    };
                    p.i += 1;
                    let alias = alias
                        .unwrap_or_else(|| path.rsplit('/').next().unwrap_or(&path).to_string());
                    p.imports.insert(alias, path);
                    if !group {
                        break;
                    }
                }
            }
            Tok::Ident(k) if k == "type" => {
                p.i += 1;
                p.skip_comments();
                if p.punct('(') {
                    p.i += 1;
                    loop {
                        p.skip_comments();
                        if p.punct(')') {
                            p.i += 1;
                            break;
                        }
                        p.type_spec(decls)?;
                    }
                } else {
                    p.type_spec(decls)?;
                }
            }
            Tok::Ident(k) if k == "const" => {
                p.i += 1;
                p.consts(decls);
            }
            _ => {
                p.i += 1;
                p.skip_decl();
            }
        }
    }
}

/// `key:"value"` of a struct tag (reflect.StructTag.Get).
fn tag_get<'a>(tag: &'a str, key: &str) -> Option<&'a str> {
    let mut rest = tag.trim_start();
    while !rest.is_empty() {
        let colon = rest.find(':')?;
        let (k, after) = (&rest[..colon], &rest[colon + 1..]);
        let after = after.strip_prefix('"')?;
        let mut end = 0;
        let bytes = after.as_bytes();
        while end < bytes.len() && bytes[end] != b'"' {
            end += if bytes[end] == b'\\' { 2 } else { 1 };
        }
        if k == key {
            return after.get(..end);
        }
        rest = after.get(end + 1..)?.trim_start();
    }
    None
}

/// The `+name=value` markers of a doc comment, in order (gengo's ExtractCommentTags).
fn markers(doc: &[String]) -> Vec<(String, String)> {
    doc.iter()
        .filter_map(|l| l.trim().strip_prefix('+'))
        .map(|m| match m.split_once('=') {
            Some((k, v)) => (k.to_string(), v.to_string()),
            None => (m.to_string(), String::new()),
        })
        .collect()
}

fn marker<'a>(m: &'a [(String, String)], name: &str) -> Option<&'a str> {
    m.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

// ---------------------------------------------------------------------------------------------
// Resolution and pruning.

#[derive(Debug, Clone, PartialEq)]
enum Ty {
    Scalar,
    Named(usize),
    List(Box<Ty>),
    Map(Box<Ty>),
}

#[derive(Debug, Clone)]
struct Field {
    json: String,
    ty: Ty,
    patch: Option<String>,
    key: Option<String>,
    list: Option<String>,
    keys: Vec<String>,
    map: Option<String>,
    default: Option<String>,
}

impl Field {
    fn has_facts(&self) -> bool {
        self.patch.is_some()
            || self.key.is_some()
            || self.list.is_some()
            || !self.keys.is_empty()
            || self.map.is_some()
    }

    /// The keys server-side apply identifies this list's items by (kube-openapi's schemaconv
    /// `getListElementRelationship`): `+listMapKey`s of a `+listType=map`, else, without a
    /// `+listType`, the merge key of a `merge` patch strategy.
    fn ssa_keys(&self) -> Vec<String> {
        match (&self.list, self.patch.as_deref()) {
            (Some(l), _) if l == "map" => self.keys.clone(),
            (None, Some("merge" | "merge,retainKeys")) => self.key.iter().cloned().collect(),
            _ => Vec::new(),
        }
    }
}

#[derive(Debug, Clone)]
struct Out {
    name: String,
    atomic: bool,
    fields: Vec<Field>,
}

struct Resolver<'a> {
    decls: &'a Decls,
    types: Vec<Out>,
    index: BTreeMap<(String, String), usize>,
}

/// `core.v1.Container` for (`k8s.io/api/core/v1`, `Container`).
fn type_name(path: &str, name: &str) -> String {
    let short = match path {
        CORE => "core.v1",
        APPS => "apps.v1",
        META => "meta.v1",
        other => other,
    };
    format!("{short}.{name}")
}

impl Resolver<'_> {
    fn decl(&self, path: &str, name: &str) -> Result<&TypeDecl> {
        self.decls
            .types
            .get(&(path.to_string(), name.to_string()))
            .ok_or_else(|| anyhow!("type {path}.{name} is not in the sources"))
    }

    fn ty(&mut self, e: &Expr) -> Result<Ty> {
        Ok(match e {
            Expr::Ptr(x) => self.ty(x)?,
            Expr::Slice(x) if **x == Expr::Name(None, "byte".into()) => Ty::Scalar,
            Expr::Slice(x) => Ty::List(Box::new(self.ty(x)?)),
            Expr::Map(_, v) => Ty::Map(Box::new(self.ty(v)?)),
            Expr::Name(None, _) => Ty::Scalar,
            Expr::Name(Some(p), n) if SCALARS.contains(&(p.as_str(), n.as_str())) => Ty::Scalar,
            Expr::Name(Some(p), n) => {
                let d = self.decl(p, n)?;
                match &d.expr {
                    Expr::Struct(_) => Ty::Named(self.struct_type(p, n)?),
                    other => {
                        let m = markers(&d.doc);
                        for k in ["listType", "mapType", "structType"] {
                            if marker(&m, k).is_some() {
                                bail!("+{k} on the non-struct type {p}.{n} is not supported");
                            }
                        }
                        let other = other.clone();
                        self.ty(&other)?
                    }
                }
            }
            Expr::Struct(_) => bail!("an anonymous struct type is not supported"),
            Expr::Other => bail!("an interface, func or chan type in a served kind"),
        })
    }

    fn struct_type(&mut self, path: &str, name: &str) -> Result<usize> {
        let k = (path.to_string(), name.to_string());
        if let Some(i) = self.index.get(&k) {
            return Ok(*i);
        }
        let d = self.decl(path, name)?;
        let m = markers(&d.doc);
        let atomic = match marker(&m, "structType") {
            None | Some("granular") => false,
            Some("atomic") => true,
            Some(v) => bail!("{path}.{name}: unknown +structType={v}"),
        };
        let Expr::Struct(go) = d.expr.clone() else {
            bail!("{path}.{name} is not a struct")
        };
        let i = self.types.len();
        self.types.push(Out {
            name: type_name(path, name),
            atomic,
            fields: Vec::new(),
        });
        self.index.insert(k, i);
        let mut fields = Vec::new();
        self.flatten(path, name, &go, &mut fields)?;
        let mut seen = BTreeSet::new();
        for f in &fields {
            if !seen.insert(&f.json) {
                bail!("{path}.{name}: the JSON field `{}` twice", f.json);
            }
        }
        self.types[i].fields = fields;
        Ok(i)
    }

    /// The JSON fields of a struct's Go fields, inline embedded structs flattened.
    fn flatten(
        &mut self,
        path: &str,
        owner: &str,
        go: &[GoField],
        out: &mut Vec<Field>,
    ) -> Result<()> {
        for g in go {
            let json = tag_get(&g.tag, "json");
            if json == Some("-") {
                continue;
            }
            let (jname, opts) = json.map_or(("", ""), |j| j.split_once(',').unwrap_or((j, "")));
            let inline =
                opts.split(',').any(|o| o == "inline") || (g.name.is_none() && jname.is_empty());
            let at = || format!("{path}.{owner}.{}", g.name.as_deref().unwrap_or(jname));
            if inline {
                let mut e = &g.ty;
                while let Expr::Ptr(x) = e {
                    e = x;
                }
                let Expr::Name(Some(p), n) = e else {
                    bail!("{}: an inline field that is not a named struct", at());
                };
                let d = self.decl(p, n)?;
                let Expr::Struct(inner) = d.expr.clone() else {
                    bail!("{}: inlines the non-struct {p}.{n}", at());
                };
                self.flatten(&p.clone(), &n.clone(), &inner, out)?;
                continue;
            }
            let goname = match &g.name {
                Some(n) => n.clone(),
                None => match &g.ty {
                    Expr::Name(_, n) => n.clone(),
                    _ => String::new(),
                },
            };
            if goname.chars().next().is_some_and(|c| c.is_lowercase()) {
                continue; // unexported
            }
            let m = markers(&g.doc);
            let mut f = Field {
                json: if jname.is_empty() {
                    goname.clone()
                } else {
                    jname.to_string()
                },
                ty: self.ty(&g.ty).with_context(at)?,
                patch: tag_get(&g.tag, "patchStrategy").map(str::to_string),
                key: tag_get(&g.tag, "patchMergeKey").map(str::to_string),
                list: marker(&m, "listType").map(str::to_string),
                keys: m
                    .iter()
                    .filter(|(k, _)| k == "listMapKey")
                    .map(|(_, v)| v.clone())
                    .collect(),
                map: marker(&m, "mapType").map(str::to_string),
                default: None,
            };
            for (tagk, val) in [("patchStrategy", &f.patch), ("patchMergeKey", &f.key)] {
                if marker(&m, tagk) != val.as_deref() {
                    bail!("{}: the +{tagk} marker and the struct tag differ", at());
                }
            }
            if let Some(p) = &f.patch {
                if !matches!(
                    p.as_str(),
                    "merge" | "retainKeys" | "merge,retainKeys" | "replace"
                ) {
                    bail!("{}: unknown patch strategy `{p}`", at());
                }
            }
            if f.list
                .as_deref()
                .is_some_and(|l| !matches!(l, "atomic" | "set" | "map"))
            {
                bail!("{}: unknown +listType", at());
            }
            if f.map
                .as_deref()
                .is_some_and(|l| !matches!(l, "atomic" | "granular"))
            {
                bail!("{}: unknown +mapType", at());
            }
            if (f.list.as_deref() == Some("map")) == f.keys.is_empty() {
                bail!("{}: +listMapKey goes with +listType=map", at());
            }
            f.default = self.default(path, &m, &g.ty).with_context(at)?;
            out.push(f);
        }
        Ok(())
    }

    /// `+default` of a field, else of the named types it names (as kube-openapi reads it),
    /// `ref(NAME)` resolved to the string constant.
    fn default(&self, path: &str, m: &[(String, String)], ty: &Expr) -> Result<Option<String>> {
        let (mut path, mut v) = (path.to_string(), marker(m, "default").map(str::to_string));
        let mut e = ty.clone();
        while v.is_none() {
            match e {
                Expr::Ptr(x) => e = *x,
                Expr::Name(Some(p), n) if !SCALARS.contains(&(p.as_str(), n.as_str())) => {
                    let d = self.decl(&p, &n)?;
                    v = marker(&markers(&d.doc), "default").map(str::to_string);
                    if matches!(d.expr, Expr::Struct(_)) {
                        break;
                    }
                    e = d.expr.clone();
                    path = p;
                }
                _ => break,
            }
        }
        let Some(v) = v else { return Ok(None) };
        if let Some(r) = v.strip_prefix("ref(").and_then(|r| r.strip_suffix(')')) {
            let c = self
                .decls
                .consts
                .get(&(path.clone(), r.to_string()))
                .ok_or_else(|| anyhow!("+default={v}: no string constant {r}"))?;
            return Ok(Some(format!("\"{c}\"")));
        }
        if v.chars().any(char::is_whitespace) {
            bail!("+default={v} holds a space");
        }
        Ok(Some(v))
    }
}

/// What the pruning keeps: per type, its fields by index; and the list-map keys' fields
/// (type, JSON name), whose `+default` is kept.
fn prune(types: &[Out]) -> (Vec<Vec<usize>>, BTreeSet<(usize, String)>) {
    let mut key_fields = BTreeSet::new();
    for t in types {
        for f in &t.fields {
            if let Ty::List(e) = &f.ty {
                if let Ty::Named(i) = **e {
                    for k in f.ssa_keys() {
                        key_fields.insert((i, k));
                    }
                }
            }
        }
    }
    fn ty_matters(t: &Ty, m: &[bool]) -> bool {
        match t {
            Ty::Scalar => false,
            Ty::Named(i) => m[*i],
            Ty::List(e) => ty_matters(e, m),
            Ty::Map(_) => true,
        }
    }
    let kept = |i: usize, f: &Field, m: &[bool]| {
        f.has_facts()
            || (f.default.is_some() && key_fields.contains(&(i, f.json.clone())))
            || ty_matters(&f.ty, m)
    };
    // The least fixpoint: a type matters when atomic or when a field is kept.
    let mut matters = vec![false; types.len()];
    loop {
        let mut changed = false;
        for (i, t) in types.iter().enumerate() {
            let now = t.atomic || t.fields.iter().any(|f| kept(i, f, &matters));
            if now != matters[i] {
                matters[i] = now;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let keep = types
        .iter()
        .enumerate()
        .map(|(i, t)| {
            (0..t.fields.len())
                .filter(|&j| kept(i, &t.fields[j], &matters))
                .collect()
        })
        .collect();
    (keep, key_fields)
}

fn ty_text(t: &Ty, types: &[Out]) -> String {
    match t {
        Ty::Scalar => "s".into(),
        Ty::Named(i) => types[*i].name.clone(),
        Ty::List(e) => format!("[{}]", ty_text(e, types)),
        Ty::Map(e) => format!("{{{}}}", ty_text(e, types)),
    }
}

fn named(t: &Ty, out: &mut Vec<usize>) {
    match t {
        Ty::Scalar => {}
        Ty::Named(i) => out.push(*i),
        Ty::List(e) | Ty::Map(e) => named(e, out),
    }
}

/// `schema.txt`'s facts as the Rust statics of `store/schema_data.rs` (`Schema`, `TypeDef`,
/// `Field` and `Ty` of `store/schema.rs`): the same types, fields and attributes in the same
/// order; a test in the core checks that parsing the text gives exactly this data.
fn rust_data(text: &str) -> Result<String> {
    let q = |s: &str| format!("{s:?}");
    let mut source = Vec::new();
    let mut roots = Vec::new();
    let mut types: Vec<(String, bool, Vec<String>)> = Vec::new();
    let names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("type "))
        .map(|l| l.split(' ').next().unwrap_or(""))
        .collect();
    let index = |n: &str| {
        names
            .iter()
            .position(|m| *m == n)
            .ok_or_else(|| anyhow!("unknown type `{n}`"))
    };
    fn ty(t: &str, index: &dyn Fn(&str) -> Result<usize>) -> Result<String> {
        Ok(if t == "s" {
            "Scalar".into()
        } else if let Some(e) = t.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            format!("List(&{})", ty(e, index)?)
        } else if let Some(e) = t.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
            format!("Map(&{})", ty(e, index)?)
        } else {
            format!("Named({})", index(t)?)
        })
    }
    for line in text.lines() {
        if let Some(c) = line.strip_prefix('#') {
            if types.is_empty() && roots.is_empty() {
                source.push(q(c.trim()));
            }
        } else if let Some(f) = line.strip_prefix("  ") {
            let w: Vec<&str> = f.split_whitespace().collect();
            let (Some(t), [name, fty, attrs @ ..]) = (types.last_mut(), w.as_slice()) else {
                bail!("schema.txt: bad field line `{line}`");
            };
            let (mut set, mut keys) = (Vec::new(), Vec::new());
            for a in attrs {
                let (k, v) = a
                    .split_once('=')
                    .ok_or_else(|| anyhow!("schema.txt: bad attribute `{a}`"))?;
                match k {
                    "patch" => {
                        for p in v.split(',') {
                            set.push(match p {
                                "merge" => "merge: true".to_string(),
                                "retainKeys" => "retain_keys: true".into(),
                                "replace" => "replace: true".into(),
                                _ => bail!("schema.txt: unknown patch strategy `{p}`"),
                            });
                        }
                    }
                    "key" => keys.push(format!("merge_key: Some({})", q(v))),
                    "list" => set.push(format!(
                        "list_type: Some(ListType::{})",
                        match v {
                            "atomic" => "Atomic",
                            "set" => "Set",
                            "map" => "Map",
                            _ => bail!("schema.txt: unknown list type `{v}`"),
                        }
                    )),
                    "keys" => keys.push(format!(
                        "list_keys: &[{}]",
                        v.split(',').map(q).collect::<Vec<_>>().join(", ")
                    )),
                    "map" => set.push(format!(
                        "map_type: Some(MapType::{})",
                        match v {
                            "atomic" => "Atomic",
                            "granular" => "Granular",
                            _ => bail!("schema.txt: unknown map type `{v}`"),
                        }
                    )),
                    "default" => keys.push(format!("default: Some({})", q(v))),
                    _ => bail!("schema.txt: unknown attribute `{k}`"),
                }
            }
            if !keys.is_empty() {
                if keys.len() < 3 {
                    keys.push("..Keys::NONE".into());
                }
                set.push(format!("keys: Some(&Keys {{ {} }})", keys.join(", ")));
            }
            let of = format!("Field::of({})", ty(fty, &index)?);
            t.2.push(if set.is_empty() {
                format!("({}, {of})", q(name))
            } else {
                format!("({}, Field {{ {}, ..{of} }})", q(name), set.join(", "))
            });
        } else if let Some(r) = line.strip_prefix("root ") {
            let Some((kind, t)) = r.split_once(' ') else {
                bail!("schema.txt: bad root line `{line}`");
            };
            roots.push(format!("({}, {})", q(kind), index(t)?));
        } else if let Some(t) = line.strip_prefix("type ") {
            let (name, atomic) = match t.strip_suffix(" atomic") {
                Some(n) => (n, true),
                None => (t, false),
            };
            types.push((name.to_string(), atomic, Vec::new()));
        } else if !line.trim().is_empty() {
            bail!("schema.txt: bad line `{line}`");
        }
    }
    let mut s = String::from(
        "//! Generated by `cargo xtask schema` from `schema.txt`: do not edit. The facts of\n\
         //! `schema.txt` as Rust data (`schema.rs` has the format and the types).\n\n\
         use super::{Field, Keys, ListType, MapType, Schema, Ty::*, TypeDef};\n\n\
         pub(super) static BUILTIN: Schema = Schema {\n    #[cfg(test)]\n    source: &[\n",
    );
    for l in &source {
        s.push_str(&format!("        {l},\n"));
    }
    s.push_str("    ],\n    roots: &[\n");
    for r in &roots {
        s.push_str(&format!("        {r},\n"));
    }
    s.push_str("    ],\n    types: &[\n");
    for (i, (name, atomic, fields)) in types.iter().enumerate() {
        s.push_str(&format!(
            "        // {i}\n        TypeDef {{\n            #[cfg(test)]\n            name: {},\n            atomic: {atomic},\n            fields: &[",
            q(name)
        ));
        if fields.is_empty() {
            s.push_str("],\n");
        } else {
            s.push('\n');
            for f in fields {
                s.push_str(&format!("                {f},\n"));
            }
            s.push_str("            ],\n");
        }
        s.push_str("        },\n");
    }
    s.push_str("    ],\n};\n");
    Ok(s)
}

/// Resolves the roots, prunes and renders the format of `store/schema.rs`.
/// With `full`, nothing is cut (every reachable field, every `+default`): for reading, not
/// for the store.
fn render(
    decls: &Decls,
    header: &str,
    root_types: &[(&str, &str, &str)],
    full: bool,
) -> Result<String> {
    let mut r = Resolver {
        decls,
        types: Vec::new(),
        index: BTreeMap::new(),
    };
    let mut roots = Vec::new();
    for (kind, path, name) in root_types {
        roots.push((
            kind,
            r.struct_type(path, name)
                .with_context(|| format!("root {kind}"))?,
        ));
    }
    let types = r.types;
    let (mut keep, mut key_fields) = prune(&types);
    if full {
        keep = types
            .iter()
            .map(|t| (0..t.fields.len()).collect())
            .collect();
        key_fields = types
            .iter()
            .enumerate()
            .flat_map(|(i, t)| t.fields.iter().map(move |f| (i, f.json.clone())))
            .collect();
    }
    // The types the kept fields reach, from the roots.
    let mut reached = BTreeSet::new();
    let mut todo: Vec<usize> = roots.iter().map(|(_, i)| *i).collect();
    while let Some(i) = todo.pop() {
        if reached.insert(i) {
            for &j in &keep[i] {
                named(&types[i].fields[j].ty, &mut todo);
            }
        }
    }
    let total_fields: usize = types.iter().map(|t| t.fields.len()).sum();
    let kept_fields: usize = reached.iter().map(|&i| keep[i].len()).sum();
    let mut s = String::from(header);
    s.push_str(&format!(
        "# Kept: {} of the {} struct types and {} of their {} fields reachable from the roots.\n",
        reached.len(),
        types.len(),
        kept_fields,
        total_fields
    ));
    for (kind, i) in &roots {
        s.push_str(&format!("root {kind} {}\n", types[*i].name));
    }
    let by_name: BTreeMap<&str, usize> = reached
        .iter()
        .map(|&i| (types[i].name.as_str(), i))
        .collect();
    for (name, i) in by_name {
        let t = &types[i];
        s.push_str(&format!(
            "type {name}{}\n",
            if t.atomic { " atomic" } else { "" }
        ));
        for &j in &keep[i] {
            let f = &t.fields[j];
            s.push_str(&format!("  {} {}", f.json, ty_text(&f.ty, &types)));
            let attrs = [
                ("patch", f.patch.clone()),
                ("key", f.key.clone()),
                ("list", f.list.clone()),
                ("keys", (!f.keys.is_empty()).then(|| f.keys.join(","))),
                ("map", f.map.clone()),
                (
                    "default",
                    f.default
                        .clone()
                        .filter(|_| key_fields.contains(&(i, f.json.clone()))),
                ),
            ];
            for (k, v) in attrs {
                if let Some(v) = v {
                    s.push_str(&format!(" {k}={v}"));
                }
            }
            s.push('\n');
        }
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    const META_GO: &str = r#"package v1

import "k8s.io/apimachinery/pkg/types"

type TypeMeta struct {
	Kind string `json:"kind,omitempty" protobuf:"bytes,1,opt,name=kind"`
}

type ObjectMeta struct {
	Name string `json:"name,omitempty"`
	UID types.UID `json:"uid,omitempty"`
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	CreationTimestamp Time `json:"creationTimestamp,omitempty"`
}
"#;

    const CORE_GO: &str = r#"/* A licence. */
package v1

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Protocol is a protocol.
// +enum
type Protocol string

const (
	// ProtocolTCP is TCP.
	ProtocolTCP Protocol = "TCP"
	other = 3
)

type (
	ResourceName string
	ResourceList map[ResourceName]resource.Quantity
)

// Pod is a pod.
type Pod struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec *PodSpec `json:"spec,omitempty"` // a trailing comment
	internal string
	Skipped []Unknown `json:"-"`
}

type PodSpec struct {
	// +patchMergeKey=name
	// +patchStrategy=merge
	// +listType=map
	// +listMapKey=name
	// +listMapKey=protocol
	Ports []Port `json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,1,rep,name=ports"`
	Groups map[string][]string `json:"groups,omitempty"`
	Limits ResourceList `json:"limits,omitempty"`
	Data []byte `json:"data,omitempty"`
	// +mapType=atomic
	Selector map[string]string `json:"selector,omitempty"`
	Handler `json:",inline"`
	Sel *Selector `json:"sel,omitempty"`
	Plain Plain `json:"plain"`
	Port intstr.IntOrString `json:"port"`
	// +patchStrategy=retainKeys
	Strategy Plain `json:"strategy" patchStrategy:"retainKeys"`
}

// +structType=atomic
type Selector struct {
	A string `json:"a"`
}

type Port struct {
	Name string `json:"name"`
	// +default=ref(ProtocolTCP)
	Protocol Protocol `json:"protocol,omitempty"`
	// +default="x"
	Other string `json:"other,omitempty"`
}

type Handler struct {
	// +listType=atomic
	Command []string `json:"command,omitempty"`
}

type Plain struct {
	A, B string
	C []Selector
}

func (p *Pod) String() string {
	type local struct{ x int }
	if p == nil {
		return fmt.Sprintf("%v", map[string]int{"a": 1})
	}
	return `raw
string`
}

var _ = func() int { return 1 }
"#;

    fn decls(core: &str) -> Result<Decls> {
        let mut d = Decls::default();
        parse_file(META_GO, META, &mut d)?;
        parse_file(core, CORE, &mut d)?;
        Ok(d)
    }

    fn decl<'a>(d: &'a Decls, name: &str) -> &'a TypeDecl {
        &d.types[&(CORE.to_string(), name.to_string())]
    }

    #[test]
    fn struct_tags_read_like_reflect() {
        let t = r#"json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"name" x:"a\"b""#;
        assert_eq!(tag_get(t, "json"), Some("ports,omitempty"));
        assert_eq!(tag_get(t, "patchStrategy"), Some("merge"));
        assert_eq!(tag_get(t, "patchMergeKey"), Some("name"));
        assert_eq!(tag_get(t, "x"), Some(r#"a\"b"#));
        assert_eq!(tag_get(t, "protobuf"), None);
        assert_eq!(tag_get("", "json"), None);
    }

    #[test]
    fn the_parser_reads_fields_tags_docs_and_named_types() {
        let d = decls(CORE_GO).unwrap();
        let Expr::Struct(pod) = &decl(&d, "Pod").expr else {
            panic!("Pod is a struct")
        };
        let names: Vec<Option<&str>> = pod.iter().map(|f| f.name.as_deref()).collect();
        assert_eq!(
            names,
            [None, None, Some("Spec"), Some("internal"), Some("Skipped")]
        );
        assert_eq!(pod[0].ty, Expr::Name(Some(META.into()), "TypeMeta".into()));
        assert_eq!(pod[1].doc, [" +optional"]);
        assert_eq!(pod[1].tag, r#"json:"metadata,omitempty""#);
        assert_eq!(
            pod[2].ty,
            Expr::Ptr(Box::new(Expr::Name(Some(CORE.into()), "PodSpec".into())))
        );
        assert!(pod[3].doc.is_empty(), "a trailing comment is no doc");
        assert_eq!(decl(&d, "Pod").doc, [" Pod is a pod."]);
        assert_eq!(
            decl(&d, "Protocol").doc,
            [" Protocol is a protocol.", " +enum"]
        );
        assert_eq!(decl(&d, "Protocol").expr, Expr::Name(None, "string".into()));
        assert_eq!(
            decl(&d, "ResourceList").expr,
            Expr::Map(
                Box::new(Expr::Name(Some(CORE.into()), "ResourceName".into())),
                Box::new(Expr::Name(
                    Some("k8s.io/apimachinery/pkg/api/resource".into()),
                    "Quantity".into()
                ))
            )
        );
        let Expr::Struct(plain) = &decl(&d, "Plain").expr else {
            panic!("Plain is a struct")
        };
        assert_eq!(plain.len(), 3, "`A, B string` is two fields");
        assert_eq!(plain[1].name.as_deref(), Some("B"));
        let Expr::Struct(spec) = &decl(&d, "PodSpec").expr else {
            panic!("PodSpec is a struct")
        };
        assert_eq!(
            markers(&spec[0].doc),
            [
                ("patchMergeKey", "name"),
                ("patchStrategy", "merge"),
                ("listType", "map"),
                ("listMapKey", "name"),
                ("listMapKey", "protocol")
            ]
            .map(|(k, v)| (k.to_string(), v.to_string()))
        );
        assert_eq!(
            spec[1].ty,
            Expr::Map(
                Box::new(Expr::Name(None, "string".into())),
                Box::new(Expr::Slice(Box::new(Expr::Name(None, "string".into()))))
            )
        );
        assert_eq!(spec[5].name, None, "the inline Handler");
        assert_eq!(
            d.consts[&(CORE.to_string(), "ProtocolTCP".to_string())],
            "TCP"
        );
        assert!(!d
            .types
            .contains_key(&(CORE.to_string(), "local".to_string())));
    }

    #[test]
    fn the_schema_flattens_resolves_and_prunes() {
        let d = decls(CORE_GO).unwrap();
        let text = render(&d, "# h\n", &[("Pod", CORE, "Pod")], false).unwrap();
        assert_eq!(
            text,
            "# h\n\
             # Kept: 6 of the 6 struct types and 13 of their 24 fields reachable from the roots.\n\
             root Pod core.v1.Pod\n\
             type core.v1.Plain\n\
             \x20 C [core.v1.Selector]\n\
             type core.v1.Pod\n\
             \x20 metadata meta.v1.ObjectMeta\n\
             \x20 spec core.v1.PodSpec\n\
             type core.v1.PodSpec\n\
             \x20 ports [core.v1.Port] patch=merge key=name list=map keys=name,protocol\n\
             \x20 groups {[s]}\n\
             \x20 limits {s}\n\
             \x20 selector {s} map=atomic\n\
             \x20 command [s] list=atomic\n\
             \x20 sel core.v1.Selector\n\
             \x20 plain core.v1.Plain\n\
             \x20 strategy core.v1.Plain patch=retainKeys\n\
             type core.v1.Port\n\
             \x20 protocol s default=\"TCP\"\n\
             type core.v1.Selector atomic\n\
             type meta.v1.ObjectMeta\n\
             \x20 labels {s}\n"
        );
        // Deterministic: the same bytes again.
        assert_eq!(
            render(&d, "# h\n", &[("Pod", CORE, "Pod")], false).unwrap(),
            text
        );
    }

    #[test]
    fn markers_must_match_the_struct_tags() {
        let bad = CORE_GO.replace("\t// +patchStrategy=retainKeys\n", "");
        let e = format!(
            "{:#}",
            render(&decls(&bad).unwrap(), "", &[("Pod", CORE, "Pod")], false).unwrap_err()
        );
        assert!(
            e.contains("PodSpec.Strategy: the +patchStrategy marker and the struct tag differ"),
            "{e}"
        );
        let bad = CORE_GO
            .replace("\t// +listMapKey=protocol\n", "")
            .replace("\t// +listMapKey=name\n", "");
        let e = format!(
            "{:#}",
            render(&decls(&bad).unwrap(), "", &[("Pod", CORE, "Pod")], false).unwrap_err()
        );
        assert!(e.contains("+listMapKey goes with +listType=map"), "{e}");
    }

    #[test]
    fn unknown_types_and_sources_are_errors() {
        let bad = CORE_GO.replace(
            "Skipped []Unknown `json:\"-\"`",
            "Skipped []Unknown `json:\"s\"`",
        );
        let e = format!(
            "{:#}",
            render(&decls(&bad).unwrap(), "", &[("Pod", CORE, "Pod")], false).unwrap_err()
        );
        assert!(
            e.contains("type k8s.io/api/core/v1.Unknown is not in the sources"),
            "{e}"
        );
        let e = Source::new("/nonexistent/kubernetes+api", "v0.32.5")
            .err()
            .unwrap();
        assert!(
            e.to_string()
                .contains("/nonexistent/kubernetes+api does not exist"),
            "{e}"
        );
        assert!(parse_file("package v1\nvar s = \"open\n", CORE, &mut Decls::default()).is_err());
    }

    #[test]
    fn the_rust_data_is_the_text_as_statics() {
        let text = "# Generated.\nroot X a\ntype a\n  p [b] patch=merge,retainKeys key=k list=map keys=k,l\n  \
                    m {s} map=atomic\n  d s default=\"TCP\"\ntype b atomic\n";
        let r = rust_data(text).unwrap();
        for want in [
            "source: &[\n        \"Generated.\",\n    ],",
            "roots: &[\n        (\"X\", 0),\n    ],",
            "(\"p\", Field { merge: true, retain_keys: true, list_type: Some(ListType::Map), \
             keys: Some(&Keys { merge_key: Some(\"k\"), list_keys: &[\"k\", \"l\"], ..Keys::NONE }), \
             ..Field::of(List(&Named(1))) }),",
            "(\"m\", Field { map_type: Some(MapType::Atomic), ..Field::of(Map(&Scalar)) }),",
            "(\"d\", Field { keys: Some(&Keys { default: Some(\"\\\"TCP\\\"\"), ..Keys::NONE }), \
             ..Field::of(Scalar) }),",
            "name: \"b\",\n            atomic: true,\n            fields: &[],",
        ] {
            assert!(r.contains(want), "{want}\nnot in\n{r}");
        }
        assert!(rust_data("type a\n  x c\n").is_err(), "an unknown type");
        assert!(rust_data("type a\n  x [s] list=bag\n").is_err());
    }
}
