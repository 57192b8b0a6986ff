//! The sandbox in words for a person: what a skill's commands may write and reach (`skills show`,
//! the approval prompt) and what this machine supports (`agent sandbox status`). Paths came from
//! skill folders and settings, so they are shown with anything invisible escaped.

use crate::exec::sandbox::Mode;
use crate::exec::sandbox::policy::{Enforcement, Grant, Network, Policy, Writable};
use crate::output::report::SandboxStatus;
use crate::support::terminal_text::visible;

fn grant(g: Grant) -> &'static str {
    match g {
        Grant::SkillFolder => "its folder",
        Grant::WorkingDir => "working directory",
        Grant::Temp => "temp",
        Grant::Declared => "requires.write",
        Grant::AllowWrite => "--allow-write",
        Grant::ToolCache => "tools' cache",
    }
}

fn network(p: &Policy) -> &'static str {
    match (p.network, p.mode) {
        (Network::Off, _) => "off (--sandbox strict; the skill can declare requires.network: true)",
        (Network::Open, Mode::Strict) => "open (the skill declares requires.network)",
        (Network::Open, _) => "open",
    }
}

/// A writable place as a person should judge it: the path, where it really leads when a symlink
/// makes that somewhere else, and the protected place the user's own `--allow-write` opens.
fn place(w: &Writable) -> String {
    let mut out = visible(&w.path.display().to_string()).into_owned();
    if let Some(target) = &w.target {
        out.push_str(&format!(" -> {}", visible(&target.display().to_string())));
    }
    if let Some(what) = &w.protected {
        out.push_str(&format!(" [PROTECTED: {}]", visible(what)));
    }
    out
}

/// One line for the approval prompt: where the command may write and whether it reaches the
/// network, or that it runs unconfined.
pub(crate) fn reach_summary(p: &Policy) -> String {
    match p.enforcement() {
        Enforcement::Confined => {
            let places: Vec<String> = p
                .write
                .iter()
                .map(|w| match w.grant {
                    Grant::SkillFolder => "its folder".to_string(),
                    Grant::WorkingDir => "the working directory".to_string(),
                    _ => place(w),
                })
                .collect();
            format!(
                "sandbox: may write only to {} · network {}",
                places.join(", "),
                match p.network {
                    Network::Off => "off",
                    Network::Open => "open",
                }
            )
        }
        Enforcement::Unconfined if p.mode == Mode::Off => {
            "sandbox: off (--sandbox off): it can write anywhere you can".into()
        }
        Enforcement::Unconfined => "sandbox: unavailable here: it can write anywhere you can".into(),
        Enforcement::Refused(why) => format!("sandbox: {why}"),
    }
}

/// `skills show`'s lines about the sandbox.
pub(crate) fn policy_lines(p: &Policy) -> Vec<String> {
    let mut out = vec![format!("sandbox:     {} ({})", p.mode, visible(&p.in_force))];
    match p.enforcement() {
        Enforcement::Confined => {
            for w in &p.write {
                out.push(format!("  writes:    {} ({})", place(w), grant(w.grant)));
            }
            for path in &p.read_only {
                let how = match &p.read_only_unavailable {
                    None => "read-only: ",
                    Some(_) => "WRITABLE:  ",
                };
                out.push(format!("  {how}{}", visible(&path.display().to_string())));
            }
            if let Some(why) = &p.read_only_unavailable {
                out.push(format!(
                    "  no mount namespace here ({}): .git and the like stay writable, and file modes and times everywhere changeable",
                    visible(why)
                ));
            }
            for s in &p.skipped {
                out.push(format!(
                    "  not:       {} ({}): {}",
                    visible(&s.path),
                    grant(s.grant),
                    visible(&s.reason)
                ));
            }
            out.push(format!("  network:   {}", network(p)));
        }
        Enforcement::Unconfined => out.push("  unconfined: its commands can write anywhere you can".into()),
        Enforcement::Refused(why) => out.push(format!("  {}", visible(&why))),
    }
    out
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// `agent sandbox status`.
pub(crate) fn status_lines(s: &SandboxStatus) -> Vec<String> {
    let kernel = match (&s.missing, s.kernel_abi) {
        (Some(why), _) => format!("no Landlock: {}", visible(why)),
        (None, k) if k == s.abi => format!("Landlock ABI {k}"),
        (None, k) => format!("Landlock ABI {k} (used as ABI {})", s.abi),
    };
    let mut out = vec![
        format!("mode:           {} ({})", s.mode, visible(&s.in_force)),
        format!("kernel:         {kernel}"),
        format!("writes:         {}", yes(s.filesystem)),
        format!("truncation:     {}", yes(s.truncate)),
        format!("TCP (strict):   {}", yes(s.tcp)),
        format!("UDP and others: {} (seccomp, strict)", yes(s.seccomp)),
        format!("device ioctl:   {}", yes(s.device_ioctl)),
        format!("signals, abstract sockets (strict): {}", yes(s.scopes)),
        format!("check:          {}", visible(&s.check)),
    ];
    if let Some(w) = &s.warning {
        out.push(format!("warning: {}", visible(w)));
    }
    out
}
