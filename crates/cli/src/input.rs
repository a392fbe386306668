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
