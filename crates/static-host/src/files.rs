//! Mapping a request path to a file under a root, and a file's Content-Type.

use std::path::{Path, PathBuf};

/// The Content-Type for a file name.
pub fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        // A precompressed file asked for by its own name (`FILE.gz`): the gzip file itself.
        "gz" => "application/gzip",
        _ => "application/octet-stream",
    }
}

/// Maps a request target (a path below the mount point; query and fragment ignored) to a file
/// under `root`; `None` for anything that could escape it (`..`, `.`, a backslash). A path
/// ending in `/` names that directory's `index.html`. Paths are not percent-decoded, so an
/// encoded `%2e%2e` names a file called that, which does not exist.
pub fn resolve(root: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let mut file = root.to_path_buf();
    for part in path.split('/').filter(|p| !p.is_empty()) {
        if part == ".." || part == "." || part.contains('\\') {
            return None;
        }
        file.push(part);
    }
    if path.ends_with('/') || path.is_empty() || file == root {
        file.push("index.html");
    }
    Some(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_inside_the_root_only() {
        let root = Path::new("/d");
        assert_eq!(resolve(root, "/"), Some(PathBuf::from("/d/index.html")));
        assert_eq!(resolve(root, ""), Some(PathBuf::from("/d/index.html")));
        assert_eq!(
            resolve(root, "/a.wasm?x=1"),
            Some(PathBuf::from("/d/a.wasm"))
        );
        assert_eq!(
            resolve(root, "/sub/"),
            Some(PathBuf::from("/d/sub/index.html"))
        );
        assert_eq!(resolve(root, "/../etc/passwd"), None);
        assert_eq!(resolve(root, "/a/./b"), None);
        assert_eq!(resolve(root, "/a\\..\\b"), None);
    }

    #[test]
    fn content_types_by_extension() {
        assert_eq!(content_type(Path::new("x.wasm")), "application/wasm");
        assert_eq!(
            content_type(Path::new("x.js")),
            "text/javascript; charset=utf-8"
        );
        assert_eq!(
            content_type(Path::new("index.html")),
            "text/html; charset=utf-8"
        );
        assert_eq!(content_type(Path::new("x.bin")), "application/octet-stream");
        assert_eq!(content_type(Path::new("x.wasm.gz")), "application/gzip");
    }
}
