//! A tiny hand-written argument parser: positionals, `--flag`, `--option VALUE` and
//! `--option=VALUE`.

/// Parsed arguments of one subcommand.
#[derive(Debug, Default)]
pub struct Args {
    pub positional: Vec<String>,
    /// `(name, value)` pairs for options that take a value; flags have `None`.
    pub options: Vec<(String, Option<String>)>,
}

impl Args {
    /// Parses `argv` given the names of options that take a value and of flags.
    pub fn parse(argv: &[String], with_value: &[&str], flags: &[&str]) -> Result<Args, String> {
        let mut out = Args::default();
        let mut it = argv.iter();
        let mut only_positional = false;
        while let Some(a) = it.next() {
            if only_positional || a == "-" || !a.starts_with('-') {
                out.positional.push(a.clone());
                continue;
            }
            if a == "--" {
                only_positional = true;
                continue;
            }
            let (name, inline) = match a.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (a.clone(), None),
            };
            let name = if name == "-h" {
                "--help".to_string()
            } else {
                name
            };
            if with_value.contains(&name.as_str()) {
                let v = match inline {
                    Some(v) => v,
                    None => it
                        .next()
                        .cloned()
                        .ok_or_else(|| format!("{name} needs a value"))?,
                };
                out.options.push((name, Some(v)));
            } else if flags.contains(&name.as_str()) || name == "--help" {
                if inline.is_some() {
                    return Err(format!("{name} takes no value"));
                }
                out.options.push((name, None));
            } else {
                return Err(format!("unknown option {name}"));
            }
        }
        Ok(out)
    }

    /// Whether a flag was given.
    pub fn flag(&self, name: &str) -> bool {
        self.options.iter().any(|(n, _)| n == name)
    }

    /// The last value given for an option.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.options
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.as_deref())
    }
}

/// `--interfere scenario FILE`: the one option with two values. Takes FILE out of `argv` (so it
/// is not read as the setup FILE), leaving `--interfere scenario`; `Ok(None)` without it. Stops
/// at `--` (what follows is `rvlab test`'s command).
pub fn take_interfere_scenario(argv: &[String]) -> Result<(Vec<String>, Option<String>), String> {
    let mut out = Vec::with_capacity(argv.len());
    let mut file = None;
    let mut i = 0;
    while i < argv.len() {
        let a = &argv[i];
        if a == "--" {
            out.extend_from_slice(&argv[i..]);
            break;
        }
        out.push(a.clone());
        let value_at = match a.as_str() {
            "--interfere" if argv.get(i + 1).is_some_and(|v| v == "scenario") => {
                out.push(argv[i + 1].clone());
                i += 1;
                Some(i + 1)
            }
            "--interfere=scenario" => Some(i + 1),
            _ => None,
        };
        if let Some(at) = value_at {
            match argv.get(at) {
                Some(f) if f == "-" || !f.starts_with('-') => {
                    file = Some(f.clone());
                    i = at;
                }
                _ => {
                    return Err(
                        "--interfere scenario needs a FILE: --interfere scenario FILE.rvl (or lesson:ID, or - for standard input)"
                            .into(),
                    )
                }
            }
        }
        i += 1;
    }
    Ok((out, file))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn interfere_scenario_takes_its_file_out_of_the_positionals() {
        let (rest, f) =
            take_interfere_scenario(&v(&["setup.rvl", "--interfere", "scenario", "s.rvl"]))
                .unwrap();
        assert_eq!(
            (rest, f.as_deref()),
            (v(&["setup.rvl", "--interfere", "scenario"]), Some("s.rvl"))
        );
        let (rest, f) = take_interfere_scenario(&v(&[
            "--interfere=scenario",
            "-",
            "--",
            "x",
            "--interfere",
            "scenario",
            "y",
        ]))
        .unwrap();
        assert_eq!(
            (rest, f.as_deref()),
            (
                v(&[
                    "--interfere=scenario",
                    "--",
                    "x",
                    "--interfere",
                    "scenario",
                    "y"
                ]),
                Some("-")
            )
        );
        let (rest, f) =
            take_interfere_scenario(&v(&["--interfere", "read-write", "f.rvl"])).unwrap();
        assert_eq!(
            (rest, f),
            (v(&["--interfere", "read-write", "f.rvl"]), None)
        );
        for bad in [
            &["--interfere", "scenario"][..],
            &["--interfere", "scenario", "--seed", "1"],
        ] {
            let e = take_interfere_scenario(&v(bad)).unwrap_err();
            assert!(e.contains("--interfere scenario needs a FILE"), "{e}");
        }
    }
}
