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
