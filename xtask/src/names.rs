//! `cargo xtask short-names DIR`: gives the page's wasm imports and exports short names, in the
//! wasm and in its wasm-bindgen JS glue alike (run by Trunk.toml's release post-build hook,
//! before terser minifies the glue).
//!
//! Why (docs/size.md): wasm-bindgen names its imports `__wbg_<name>_<16 hex digits>` and its
//! exports `__wbindgen_export3`, `workerexplorer_new`, ...; every name is written twice, in the
//! wasm's import/export sections and in the glue, and the random hex digits do not compress.
//! Neither terser (it keeps property names) nor wasm-opt (it cannot see the glue) shortens them.
//!
//! The rewrite is deliberately strict: it only understands the glue's two shapes, import
//! functions as keys of one object literal (`__wbg_foo_0123456789abcdef: function(...)`, each
//! exactly once) and exports read as `wasm.name`; anything else (a name missing, found twice,
//! read another way) fails the build rather than ship a page that cannot link.

use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The import module name used in both files after the rewrite.
const MODULE: &str = "a";

/// The escape hatch: with `RVLAB_NO_SHORT_NAMES=1`, `short-names` leaves the files as
/// wasm-bindgen wrote them (a few kB of gzip more, still within the budget; docs/size.md), e.g.
/// while the rewrite is adapted to a new wasm-bindgen (CONTRIBUTING.md).
pub const SKIP_VAR: &str = "RVLAB_NO_SHORT_NAMES";

/// Whether [`SKIP_VAR`] is set to `1`.
pub fn skipped() -> bool {
    std::env::var_os(SKIP_VAR).is_some_and(|v| v == "1")
}

/// Rewrites the one `*_bg.wasm` of `dir` and its glue `*.js` in place (unless [`skipped`]).
pub fn short_names(dir: &Path) -> Result<()> {
    if skipped() {
        println!("short-names: skipped ({SKIP_VAR}=1): the wasm-bindgen names stay");
        return Ok(());
    }
    let (wasm_path, js_path) = find_pair(dir)?;
    let wasm = std::fs::read(&wasm_path)
        .with_context(|| format!("cannot read {}", wasm_path.display()))?;
    let glue = std::fs::read_to_string(&js_path)
        .with_context(|| format!("cannot read {}", js_path.display()))?;
    let out = shorten(&wasm, &glue)
        .with_context(|| format!("cannot shorten the names of {}", wasm_path.display()))?;
    std::fs::write(&wasm_path, &out.wasm)?;
    std::fs::write(&js_path, &out.glue)?;
    println!(
        "short-names: {} imports, {} exports renamed; wasm {} -> {} bytes, glue {} -> {} bytes",
        out.imports,
        out.exports,
        wasm.len(),
        out.wasm.len(),
        glue.len(),
        out.glue.len()
    );
    Ok(())
}

/// `dir`'s one `NAME_bg.wasm` and its glue `NAME.js`.
fn find_pair(dir: &Path) -> Result<(PathBuf, PathBuf)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix("_bg.wasm") {
            found.push(stem.to_owned());
        }
    }
    let [stem] = found.as_slice() else {
        bail!(
            "want exactly one *_bg.wasm in {}, found {found:?}",
            dir.display()
        );
    };
    let js = dir.join(format!("{stem}.js"));
    if !js.is_file() {
        bail!("{} has no glue {}", dir.display(), js.display());
    }
    Ok((dir.join(format!("{stem}_bg.wasm")), js))
}

/// The rewritten files and how many names changed.
#[derive(Debug)]
pub struct Shortened {
    /// The wasm with short import and export names.
    pub wasm: Vec<u8>,
    /// The glue reading the same names.
    pub glue: String,
    /// Imports renamed (all of them).
    pub imports: usize,
    /// Exports renamed (those the glue reads as `wasm.name`; others keep their names).
    pub exports: usize,
}

/// Renames every import and every export the glue reads, consistently in both texts.
pub fn shorten(wasm: &[u8], glue: &str) -> Result<Shortened> {
    let module = Module::parse(wasm)?;
    let imports = module.imports()?;
    let exports = module.exports()?;

    // The imports: all from one module, every name a key of the glue's import object.
    let Some(first) = imports.first() else {
        bail!("the wasm has no imports: not a wasm-bindgen module");
    };
    let old_module = first.module.clone();
    if let Some(other) = imports.iter().find(|i| i.module != old_module) {
        bail!(
            "imports from two modules ({old_module:?}, {:?}): only one is supported",
            other.module
        );
    }
    let import_map = assign(imports.iter().map(|i| i.name.as_str()));

    // The exports the glue reads (`main` and the like stay as they are).
    let read: Vec<&str> = exports
        .iter()
        .map(|e| e.name.as_str())
        .filter(|name| {
            tokens(glue)
                .any(|(start, end)| &glue[start..end] == *name && after_wasm_dot(glue, start))
        })
        .collect();
    let export_map = assign(read.iter().copied());

    let glue = rewrite_glue(glue, &old_module, &import_map, &export_map)?;
    let wasm = module.rewrite(&import_map, &export_map);
    Ok(Shortened {
        wasm,
        glue,
        imports: import_map.len(),
        exports: export_map.len(),
    })
}

/// Short, valid JS identifiers: `a`..`z`, `A`..`Z`, then two characters (no keywords).
fn short_name(mut i: usize) -> String {
    const FIRST: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    const NEXT: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let mut name = String::new();
    if i < FIRST.len() {
        name.push(char::from(FIRST[i]));
        return name;
    }
    i -= FIRST.len();
    while i >= FIRST.len() * NEXT.len() {
        // Three characters and more: never needed by the page, but total.
        name.push(char::from(NEXT[i % NEXT.len()]));
        i /= NEXT.len();
    }
    name.insert(0, char::from(NEXT[i % NEXT.len()]));
    name.insert(0, char::from(FIRST[i / NEXT.len()]));
    name
}

/// Old name -> new short name, in first-seen order.
fn assign<'a>(names: impl Iterator<Item = &'a str>) -> BTreeMap<String, String> {
    const KEYWORDS: &[&str] = &["do", "if", "in"];
    let mut map = BTreeMap::new();
    let mut next = 0;
    for old in names {
        if map.contains_key(old) {
            continue;
        }
        let new = loop {
            let candidate = short_name(next);
            next += 1;
            if !KEYWORDS.contains(&candidate.as_str()) {
                break candidate;
            }
        };
        map.insert(old.to_owned(), new);
    }
    map
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// The (start, end) of every identifier-like word of `text`.
fn tokens(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let bytes = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() && !is_ident(bytes[i]) {
            i += 1;
        }
        if i >= bytes.len() {
            return None;
        }
        let start = i;
        while i < bytes.len() && is_ident(bytes[i]) {
            i += 1;
        }
        Some((start, i))
    })
}

/// Whether the word at `start` is read as `wasm.word` (and `wasm` is a word of its own).
fn after_wasm_dot(text: &str, start: usize) -> bool {
    let Some(head) = text[..start].strip_suffix("wasm.") else {
        return false;
    };
    !head
        .bytes()
        .next_back()
        .is_some_and(|b| is_ident(b) || b == b'.')
}

/// The glue with the module name, the import keys and the `wasm.` reads renamed.
fn rewrite_glue(
    glue: &str,
    old_module: &str,
    imports: &BTreeMap<String, String>,
    exports: &BTreeMap<String, String>,
) -> Result<String> {
    // The glue names the wasm's exports object `wasm` and nothing else: the `wasm.` reads
    // below are then all the reads.
    if glue.matches(".exports").count() != 1 || !glue.contains("wasm = instance.exports;") {
        bail!("the glue does not read the exports as `wasm = instance.exports;` (once)");
    }
    let quoted = format!("\"{old_module}\": ");
    if glue.matches(&quoted).count() != 1 {
        bail!("the glue names the import module `{quoted}` not exactly once");
    }
    let glue = glue.replacen(&quoted, &format!("\"{MODULE}\": "), 1);

    let mut out = String::with_capacity(glue.len());
    let mut last = 0;
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (start, end) in tokens(&glue) {
        let word = &glue[start..end];
        let new = if let Some(new) = imports.get(word) {
            // An import: a key `word: function` of the import object, nothing else.
            let before = glue[..start].trim_end();
            if !(before.ends_with('{') || before.ends_with(',')) || !glue[end..].starts_with(": ") {
                bail!("import `{word}` appears in the glue other than as an import key");
            }
            *seen.entry(word).or_default() += 1;
            new
        } else if let Some(new) = exports.get(word) {
            let prev = glue[..start].bytes().next_back();
            if after_wasm_dot(&glue, start) {
                new
            } else if matches!(prev, Some(b'.' | b'"' | b'\'' | b'`')) {
                bail!("export `{word}` is read in the glue other than as `wasm.{word}`");
            } else {
                // A glue function of the same name (`function __wasm_bindgen_func_elem_318`).
                continue;
            }
        } else {
            continue;
        };
        out.push_str(&glue[last..start]);
        out.push_str(new);
        last = end;
    }
    out.push_str(&glue[last..]);
    for old in imports.keys() {
        match seen.get(old.as_str()) {
            Some(1) => {}
            n => bail!(
                "import `{old}` is a key of the glue {} times, want once",
                n.unwrap_or(&0)
            ),
        }
    }
    Ok(out)
}

/// One import of the wasm: its names and its description, kept as raw bytes.
struct Import<'a> {
    module: String,
    name: String,
    desc: &'a [u8],
}

/// One export of the wasm: its name, kind and index (raw bytes).
struct Export<'a> {
    name: String,
    rest: &'a [u8],
}

const IMPORT_SECTION: u8 = 2;
const EXPORT_SECTION: u8 = 7;

/// A wasm binary cut into its sections (id, payload).
struct Module<'a> {
    header: &'a [u8],
    sections: Vec<(u8, &'a [u8])>,
}

impl<'a> Module<'a> {
    fn parse(wasm: &'a [u8]) -> Result<Self> {
        if wasm.get(..8) != Some(b"\0asm\x01\0\0\0".as_slice()) {
            bail!("not a version 1 wasm binary");
        }
        let mut r = Reader::new(&wasm[8..]);
        let mut sections = Vec::new();
        while !r.done() {
            let id = r.byte()?;
            let len = r.len()?;
            sections.push((id, r.take(len)?));
        }
        Ok(Module {
            header: &wasm[..8],
            sections,
        })
    }

    fn section(&self, id: u8) -> Option<&'a [u8]> {
        self.sections
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(_, s)| *s)
    }

    fn imports(&self) -> Result<Vec<Import<'a>>> {
        let Some(payload) = self.section(IMPORT_SECTION) else {
            return Ok(Vec::new());
        };
        let mut r = Reader::new(payload);
        let mut out = Vec::new();
        for _ in 0..r.len()? {
            let module = r.name()?;
            let name = r.name()?;
            let start = r.pos;
            match r.byte()? {
                0x00 => r.skip_leb()?, // function: type index
                0x01 => {
                    r.simple_reftype()?;
                    r.limits()?;
                }
                0x02 => r.limits()?,
                0x03 => {
                    r.simple_reftype()?; // any one-byte value type
                    r.byte()?; // mutability
                }
                0x04 => {
                    r.byte()?; // tag attribute
                    r.skip_leb()?;
                }
                kind => bail!("import `{name}` has an unknown kind {kind:#x}"),
            }
            out.push(Import {
                module,
                name,
                desc: &payload[start..r.pos],
            });
        }
        r.end("import")?;
        Ok(out)
    }

    fn exports(&self) -> Result<Vec<Export<'a>>> {
        let Some(payload) = self.section(EXPORT_SECTION) else {
            return Ok(Vec::new());
        };
        let mut r = Reader::new(payload);
        let mut out = Vec::new();
        for _ in 0..r.len()? {
            let name = r.name()?;
            let start = r.pos;
            r.byte()?; // kind
            r.skip_leb()?; // index
            out.push(Export {
                name,
                rest: &payload[start..r.pos],
            });
        }
        r.end("export")?;
        Ok(out)
    }

    /// The binary with renamed imports (module and names) and exports; other sections as they
    /// were, byte for byte.
    fn rewrite(
        &self,
        imports: &BTreeMap<String, String>,
        exports: &BTreeMap<String, String>,
    ) -> Vec<u8> {
        let mut out = self.header.to_vec();
        for &(id, payload) in &self.sections {
            let mut body = Vec::new();
            match id {
                IMPORT_SECTION => {
                    // `imports()`/`exports()` already parsed both sections successfully.
                    let list = self.imports().unwrap_or_default();
                    write_len(&mut body, list.len());
                    for i in list {
                        write_name(&mut body, MODULE);
                        write_name(&mut body, imports.get(&i.name).unwrap_or(&i.name));
                        body.extend_from_slice(i.desc);
                    }
                }
                EXPORT_SECTION => {
                    let list = self.exports().unwrap_or_default();
                    write_len(&mut body, list.len());
                    for e in list {
                        write_name(&mut body, exports.get(&e.name).unwrap_or(&e.name));
                        body.extend_from_slice(e.rest);
                    }
                }
                _ => body.extend_from_slice(payload),
            }
            out.push(id);
            write_len(&mut out, body.len());
            out.extend_from_slice(&body);
        }
        out
    }
}

fn write_len(out: &mut Vec<u8>, mut n: usize) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn write_name(out: &mut Vec<u8>, name: &str) {
    write_len(out, name.len());
    out.extend_from_slice(name.as_bytes());
}

/// A cursor over wasm bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, pos: 0 }
    }

    fn done(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    fn end(&self, what: &str) -> Result<()> {
        if !self.done() {
            bail!("the {what} section has trailing bytes");
        }
        Ok(())
    }

    fn byte(&mut self) -> Result<u8> {
        let b = *self.bytes.get(self.pos).context("the wasm ends early")?;
        self.pos += 1;
        Ok(b)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).context("length overflow")?;
        let s = self
            .bytes
            .get(self.pos..end)
            .context("the wasm ends early")?;
        self.pos = end;
        Ok(s)
    }

    /// An unsigned LEB128 number (up to 64 bits).
    fn leb(&mut self) -> Result<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        bail!("a LEB128 number is too long")
    }

    fn skip_leb(&mut self) -> Result<()> {
        self.leb().map(drop)
    }

    fn len(&mut self) -> Result<usize> {
        usize::try_from(self.leb()?).context("length overflow")
    }

    fn name(&mut self) -> Result<String> {
        let len = self.len()?;
        let bytes = self.take(len)?;
        String::from_utf8(bytes.to_vec()).context("a name is not UTF-8")
    }

    /// A one-byte value or reference type (the GC proposal's longer forms are refused).
    fn simple_reftype(&mut self) -> Result<()> {
        match self.byte()? {
            0x63 | 0x64 => bail!("typed references are not supported"),
            _ => Ok(()),
        }
    }

    /// Table or memory limits: flags, minimum, maximum when flag bit 0 is set.
    fn limits(&mut self) -> Result<()> {
        let flags = self.byte()?;
        if flags > 0x07 {
            bail!("unknown limits flags {flags:#x}");
        }
        self.skip_leb()?;
        if flags & 1 == 1 {
            self.skip_leb()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A wasm module with the given imports (module, name, desc bytes) and exports (name,
    /// kind, index), plus a one-byte custom-free "function" section kept verbatim.
    fn wasm(imports: &[(&str, &str, &[u8])], exports: &[(&str, u8, u8)]) -> Vec<u8> {
        let mut out = b"\0asm\x01\0\0\0".to_vec();
        // type section: one type () -> ()
        let types = [1, 0x60, 0, 0];
        out.push(1);
        write_len(&mut out, types.len());
        out.extend_from_slice(&types);
        let mut body = Vec::new();
        write_len(&mut body, imports.len());
        for (module, name, desc) in imports {
            write_name(&mut body, module);
            write_name(&mut body, name);
            body.extend_from_slice(desc);
        }
        out.push(IMPORT_SECTION);
        write_len(&mut out, body.len());
        out.extend_from_slice(&body);
        let mut body = Vec::new();
        write_len(&mut body, exports.len());
        for (name, kind, index) in exports {
            write_name(&mut body, name);
            body.extend_from_slice(&[*kind, *index]);
        }
        out.push(EXPORT_SECTION);
        write_len(&mut out, body.len());
        out.extend_from_slice(&body);
        out
    }

    const FUNC: &[u8] = &[0x00, 0x00];
    const TABLE: &[u8] = &[0x01, 0x6f, 0x01, 0x02, 0x83, 0x01];
    const MEMORY: &[u8] = &[0x02, 0x00, 0x11];

    const GLUE: &str = "\
function __wasm_bindgen_func_elem_3(a) {
    wasm.__wasm_bindgen_func_elem_3(a);
}
function __wbg_get_imports() {
    const import0 = {
        __proto__: null,
        __wbg_log_0123456789abcdef: function(arg0) {
            wasm.__wbindgen_export(arg0);
        },
        __wbg_now_fedcba9876543210: function() {
            return wasm.__wbindgen_export2(wasm.memory.buffer);
        },
        __wbindgen_init_externref_table: function() {
            const table = wasm.__wbindgen_externrefs;
        },
    };
    return {
        __proto__: null,
        \"./page_bg.js\": import0,
    };
}
function __wbg_finalize_init(instance, module) {
    wasm = instance.exports;
    wasm.__wbindgen_start();
}
";

    fn sample() -> Vec<u8> {
        let m = "./page_bg.js";
        wasm(
            &[
                (m, "__wbg_log_0123456789abcdef", FUNC),
                (m, "__wbg_now_fedcba9876543210", FUNC),
                (m, "__wbindgen_init_externref_table", TABLE),
                (m, "__wbindgen_init_externref_table", MEMORY),
            ],
            &[
                ("memory", 2, 0),
                ("main", 0, 1),
                ("__wbindgen_export", 0, 2),
                ("__wbindgen_export2", 0, 3),
                ("__wbindgen_externrefs", 1, 0),
                ("__wasm_bindgen_func_elem_3", 0, 4),
                ("__wbindgen_start", 0, 5),
            ],
        )
    }

    #[test]
    fn short_names_are_distinct_identifiers() {
        let names: Vec<String> = (0..4000).map(short_name).collect();
        assert_eq!(names[0], "a");
        assert_eq!(names[51], "Z");
        assert_eq!(names[52], "aa");
        assert_eq!(names[53], "ab");
        assert!(names[..52 + 52 * 62].iter().all(|n| n.len() <= 2));
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
        assert!(names
            .iter()
            .all(|n| n.as_bytes()[0].is_ascii_alphabetic() && n.bytes().all(is_ident)));
        let map = assign((0..200).map(|i| ["x", "y"][i % 2]));
        assert_eq!(map.len(), 2);
        let many: Vec<String> = (0..300).map(|i| format!("n{i}")).collect();
        let map = assign(many.iter().map(String::as_str));
        assert!(!map.values().any(|v| v == "do" || v == "if" || v == "in"));
    }

    #[test]
    fn renames_both_sides_consistently() {
        let before = sample();
        let out = shorten(&before, GLUE).unwrap();
        assert_eq!((out.imports, out.exports), (3, 6));
        let module = Module::parse(&out.wasm).unwrap();
        let imports: Vec<(String, String, Vec<u8>)> = module
            .imports()
            .unwrap()
            .into_iter()
            .map(|i| (i.module, i.name, i.desc.to_vec()))
            .collect();
        let a = |n: &str, d: &[u8]| ("a".to_owned(), n.to_owned(), d.to_vec());
        assert_eq!(
            imports,
            [a("a", FUNC), a("b", FUNC), a("c", TABLE), a("c", MEMORY)]
        );
        let exports: Vec<String> = module
            .exports()
            .unwrap()
            .into_iter()
            .map(|e| e.name)
            .collect();
        // `main` is not read by the glue: kept.
        assert_eq!(exports, ["a", "main", "b", "c", "d", "e", "f"]);
        // The type section is untouched.
        assert_eq!(module.sections[0], (1, [1u8, 0x60, 0, 0].as_slice()));
        let glue = out.glue;
        assert!(glue.contains("        a: function(arg0) {\n            wasm.b(arg0);"));
        assert!(glue.contains("        b: function() {\n            return wasm.c(wasm.a.buffer);"));
        assert!(glue.contains("        c: function() {\n            const table = wasm.d;"));
        assert!(glue.contains("function __wasm_bindgen_func_elem_3(a) {\n    wasm.e(a);"));
        assert!(glue.contains("        \"a\": import0,"));
        assert!(glue.contains("    wasm.f();"));
        assert!(!glue.contains("__wbg_log") && !glue.contains("page_bg"));
        // Sizes: the new names are shorter on both sides.
        assert!(out.wasm.len() < before.len() - 150);
        assert!(glue.len() < GLUE.len() - 150);
    }

    #[test]
    fn refuses_a_glue_it_does_not_understand() {
        let wasm = sample();
        let fails = |glue: &str, want: &str| {
            let err = format!("{:#}", shorten(&wasm, glue).unwrap_err());
            assert!(err.contains(want), "{err}");
        };
        // An import missing from the glue, or read twice.
        fails(
            &GLUE.replace("__wbg_now_fedcba9876543210", "__wbg_now_0000000000000000"),
            "`__wbg_now_fedcba9876543210` is a key of the glue 0 times",
        );
        fails(
            &GLUE.replace("const table", "__wbg_log_0123456789abcdef(); const table"),
            "import `__wbg_log_0123456789abcdef` appears in the glue other than",
        );
        // An export read through another object or by string.
        fails(
            &GLUE.replace(
                "wasm.__wbindgen_start()",
                "wasm.__wbindgen_start(); other.__wbindgen_start()",
            ),
            "export `__wbindgen_start` is read in the glue other than",
        );
        fails(
            &GLUE.replace(
                "wasm.__wbindgen_start()",
                "wasm.__wbindgen_start(); wasm[\"__wbindgen_start\"]()",
            ),
            "export `__wbindgen_start` is read in the glue other than",
        );
        // The exports object under another name, or the module named differently.
        fails(
            &GLUE.replace("wasm = instance.exports;", "w = instance.exports;"),
            "wasm = instance.exports",
        );
        fails(&GLUE.replace("./page_bg.js", "./other.js"), "import module");
        // Not wasm at all, or truncated.
        assert!(shorten(b"\0asm\x02\0\0\0", GLUE).is_err());
        assert!(shorten(&wasm[..wasm.len() - 3], GLUE).is_err());
    }

    #[test]
    fn leb_numbers_round_trip() {
        for n in [0usize, 1, 127, 128, 300, 16_383, 16_384, 1 << 28] {
            let mut bytes = Vec::new();
            write_len(&mut bytes, n);
            let mut r = Reader::new(&bytes);
            assert_eq!(r.len().unwrap(), n);
            assert!(r.done());
        }
    }
}
