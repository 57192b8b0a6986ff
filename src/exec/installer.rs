//! Recognising installers that write outside the working folder (issue 34 §4): `pip install`
//! into Python's site-packages, `npm install -g`, `uv pip install --system`, `cargo install`,
//! system package managers. Under `auto` such a command is never run unasked, not even inside the
//! sandbox and not even through a skill's grant of any command: it would change software every
//! later command (and the user) runs. Only the user's own allowance (`AGENT_ALLOW_COMMANDS`) or a
//! person's yes lets one run.
//!
//! This reads command text loosely (every piece between shell operators), on purpose: it decides
//! only whether to ask, never whether something may run unasked on its own, and the walls of the
//! sandbox still hold whatever it misses.

/// An installer found in a command: what it is, as the user would type its grant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Installer {
    /// The leading words that name it (`pip install`, `npm install -g`), for messages and the
    /// grant that would allow it (`Bash(pip install:*)`).
    pub(crate) words: String,
    /// Where it writes, in words (`Python's site-packages`).
    pub(crate) writes: &'static str,
}

impl Installer {
    /// The user's own setting that lets it run unasked.
    pub(crate) fn grant(&self) -> String {
        format!("Bash({}:*)", self.words.trim_end_matches(" -g"))
    }
}

/// Words before the program that leave it the program (`sudo pip install`, `env X=1 npm i -g`).
const PREFIXES: [&str; 7] = ["sudo", "env", "command", "exec", "nohup", "time", "doas"];

/// System package managers: any `install` (or `add`) writes outside the working folder.
const SYSTEM: [&str; 9] = [
    "apt", "apt-get", "dnf", "yum", "zypper", "apk", "pacman", "brew", "port",
];

/// The first installer in `command` that writes outside the working folder, if any.
pub(crate) fn find(command: &str) -> Option<Installer> {
    pieces(command).find_map(|words| of_words(&words))
}

/// The words of each piece of `command` between shell operators, read loosely.
fn pieces(command: &str) -> impl Iterator<Item = Vec<String>> + '_ {
    command
        .split([';', '&', '|', '\n', '(', ')', '`', '{', '}'])
        .map(|piece| {
            shell_words::split(piece).unwrap_or_else(|_| piece.split_whitespace().map(str::to_string).collect())
        })
}

/// A recursive removal aimed beyond the working folder (`rm -rf ~`, `rm -r ..`, `rm -rf /`,
/// `rm -rf "$HOME"`), if `command` has one: the sandbox refuses it outside, but where the working
/// folder lies inside its target it would empty that folder, so `auto` asks first.
pub(crate) fn sweeping_removal(command: &str) -> Option<String> {
    pieces(command).find_map(|words| {
        let words: Vec<&str> = words
            .iter()
            .map(String::as_str)
            .skip_while(|w| PREFIXES.contains(w))
            .collect();
        let (program, args) = words.split_first()?;
        if program.rsplit('/').next() != Some("rm") {
            return None;
        }
        let recursive = args
            .iter()
            .any(|a| *a == "--recursive" || (a.starts_with('-') && !a.starts_with("--") && a.contains(['r', 'R'])));
        let beyond = |a: &&&str| a.starts_with(['/', '~', '$']) || a.split('/').any(|part| part == "..");
        let target = args.iter().filter(|a| !a.starts_with('-')).find(beyond)?;
        recursive.then(|| format!("`rm` removes {target} recursively, which reaches beyond the working folder"))
    })
}

/// The installer one simple command's `words` run, if any.
pub(crate) fn of_words(words: &[String]) -> Option<Installer> {
    let mut words: Vec<&str> = words.iter().map(String::as_str).collect();
    while let Some(first) = words.first() {
        if PREFIXES.contains(first) || (first.contains('=') && !first.starts_with('-')) {
            words.remove(0);
        } else {
            break;
        }
    }
    let program = *words.first()?;
    // A program named by a path (`.venv/bin/pip`) installs where that path leads; the sandbox
    // decides whether it may write there.
    if program.contains('/') {
        return None;
    }
    let name = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let rest = &words[1..];
    let has = |flag: &str| rest.contains(&flag);
    let found = |n: usize, writes| {
        Some(Installer {
            words: words[..n.min(words.len())].join(" "),
            writes,
        })
    };
    match (name, rest.first().copied()) {
        ("pip", Some("install")) if !targets_elsewhere(rest) => found(2, "Python's site-packages"),
        ("python", Some("-m")) if rest.get(1) == Some(&"pip") && rest.get(2) == Some(&"install") => {
            (!targets_elsewhere(rest)).then_some(())?;
            found(4, "Python's site-packages")
        }
        ("uv", Some("pip")) if rest.get(1) == Some(&"install") && (has("--system") || has("--user")) => {
            found(3, "the system's Python")
        }
        ("uv", Some("tool")) if rest.get(1) == Some(&"install") => found(3, "~/.local (uv's tools)"),
        ("pipx", Some("install")) => found(2, "~/.local (pipx's tools)"),
        ("npm" | "pnpm", Some("install" | "i" | "add")) if has("-g") || has("--global") => {
            found(2, "the global node_modules").map(|mut i| {
                i.words.push_str(" -g");
                i
            })
        }
        ("yarn", Some("global")) => found(3, "the global node_modules"),
        ("gem", Some("install")) => found(2, "Ruby's gems"),
        ("cargo", Some("install")) => found(2, "~/.cargo"),
        ("go", Some("install")) => found(2, "~/go"),
        ("conda" | "mamba", Some("install")) => found(2, "the conda environment"),
        (n, Some("install" | "add")) if SYSTEM.contains(&n) => found(2, "the system"),
        _ => None,
    }
}

/// `pip install --target DIR` (and `--prefix`, `--root`) writes where it is told: the sandbox
/// judges that place like any other write.
fn targets_elsewhere(rest: &[&str]) -> bool {
    rest.iter().any(|w| {
        ["-t", "--target", "--prefix", "--root"].contains(w)
            || ["--target=", "--prefix=", "--root="].iter().any(|p| w.starts_with(p))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn installers_that_write_outside_the_working_folder_are_found() {
        for (command, words) in [
            ("pip install requests", "pip install"),
            ("pip3 install -q pandas", "pip3 install"),
            ("python3 -m pip install x", "python3 -m pip install"),
            ("cd /x && sudo pip install y", "pip install"),
            ("uv pip install --system numpy", "uv pip install"),
            ("npm install -g typescript", "npm install -g"),
            ("npm i --global x", "npm i -g"),
            ("X=1 cargo install ripgrep", "cargo install"),
            ("apt-get install -y poppler-utils", "apt-get install"),
            ("uv tool install ruff", "uv tool install"),
        ] {
            assert_eq!(find(command).map(|i| i.words), Some(words.to_string()), "{command}");
        }
        assert_eq!(find("pip install x").unwrap().grant(), "Bash(pip install:*)");
        assert_eq!(find("npm i -g x").unwrap().grant(), "Bash(npm i:*)");
        assert_eq!(
            find("python3 -m pip install x").unwrap().grant(),
            "Bash(python3 -m pip install:*)"
        );
    }

    #[test]
    fn recursive_removals_beyond_the_working_folder_are_found() {
        for command in [
            "rm -rf ~",
            "rm -r ..",
            "cd x && rm -fr /",
            "rm -R \"$HOME\"",
            "sudo rm -rf ../x",
        ] {
            assert!(sweeping_removal(command).is_some(), "{command}");
        }
        for command in [
            "rm -rf build",
            "rm -f ~/x",
            "rm out/*.txt",
            "rm -rf ./build/cache",
            "echo rm -rf ~",
        ] {
            assert!(sweeping_removal(command).is_none(), "{command}");
        }
    }

    #[test]
    fn installs_into_the_working_folder_are_not() {
        for command in [
            "uv pip install numpy",
            "npm install",
            "npm install left-pad",
            "pip install --target ./deps x",
            "pip install -t deps x",
            ".venv/bin/pip install x",
            "pip list",
            "pdftotext in.pdf out.txt",
            "echo pip install",
        ] {
            assert_eq!(find(command), None, "{command}");
        }
    }
}
