//! Reading a scenario: a path, `-` for standard input, or `lesson:ID`.

use std::io::Read;

/// Reads the scenario text named by `file`.
pub fn load(file: &str) -> Result<String, String> {
    if file == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        return Ok(s);
    }
    if let Some(id) = file.strip_prefix("lesson:") {
        return rvlab_core::lessons::lesson(id)
            .map(|l| l.source.to_string())
            .ok_or_else(|| {
                let ids: Vec<&str> = rvlab_core::lessons::LESSONS.iter().map(|l| l.id).collect();
                format!(
                    "there is no lesson `{id}`; the lessons are: {}",
                    ids.join(", ")
                )
            });
    }
    std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))
}

/// How `file` is named in diagnostics (`<stdin>` for `-`).
pub fn display_name(file: &str) -> &str {
    if file == "-" {
        "<stdin>"
    } else {
        file
    }
}

/// Loads and parses `file`, printing every diagnostic to standard error as
/// `FILE:LINE:COL: …`. `Err` carries the exit code after saying why (an unreadable file).
pub fn parse_file(file: &str) -> Result<rvlab_core::lang::Parsed, u8> {
    let src = load(file).map_err(|e| {
        eprintln!("error: {e}");
        crate::EXIT_FAILED
    })?;
    let parsed = rvlab_core::lang::parse(&src);
    for d in &parsed.diagnostics {
        eprintln!("{}", d.render(display_name(file), &src));
    }
    Ok(parsed)
}

/// [`parse_file`] for the commands that need a scenario to run: a file with errors is exit 1.
pub fn scenario(file: &str) -> Result<rvlab_core::lang::ast::Scenario, u8> {
    let parsed = parse_file(file)?;
    let has_errors = parsed.has_errors();
    parsed.scenario.filter(|_| !has_errors).ok_or_else(|| {
        eprintln!("{}: the scenario has errors", display_name(file));
        crate::EXIT_FAILED
    })
}

/// Writes `files` (name, text) into `dir`, created if needed, printing each path written.
/// Returns the exit code: 0, or 1 after saying what could not be written.
pub fn export<'t>(dir: &str, files: impl IntoIterator<Item = (String, &'t str)>) -> u8 {
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("error: cannot create {dir}: {e}");
        return crate::EXIT_FAILED;
    }
    for (name, text) in files {
        let path = std::path::Path::new(dir).join(name);
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return crate::EXIT_FAILED;
        }
        println!("{}", path.display());
    }
    crate::EXIT_OK
}
