//! The text rules: one table of (id, class, severity, pattern, why, advice), matched against every
//! text file of a skill — scripts and prose alike, because the lures of the 2026 campaigns were
//! written as "Prerequisites" for a person or the model to paste, not as code. Each rule names
//! keywords; [`super::scan`] tries a rule's pattern only on lines holding one of them.

use super::indicators::{HostKind, Indicators};
use super::{Class, Level};

/// A refinement of a match: the severity it really has, or `None` to drop it.
pub(super) type Refine = fn(matched: &str, line: &str, data: &Indicators, level: Level) -> Option<Level>;

/// One text rule.
pub(super) struct Rule {
    pub(super) id: &'static str,
    pub(super) class: Class,
    pub(super) level: Level,
    /// Words one of which a line must hold (any letter case) for the pattern to be tried on it:
    /// one pass of a keyword automaton over the file leaves the patterns only a few lines.
    /// Empty: the rule looks at long lines instead (encoded blobs have no keyword).
    pub(super) keys: &'static [&'static str],
    pub(super) pattern: &'static str,
    pub(super) why: &'static str,
    pub(super) advice: &'static str,
    pub(super) refine: Option<Refine>,
}

const RUN_IT_YOURSELF: &str =
    "do not run it; if the tool is needed, install it from its vendor's documented source yourself";
const READ_THE_CODE: &str = "read what the code does with it; do not install unless you know why it needs this";

/// Shells and interpreters a download is piped into.
macro_rules! interp {
    () => {
        r"(?:sudo\s+(?:-\S+\s+)*)?(?:/usr/bin/env\s+|/bin/)?(?:ba|z|k|da|fi)?sh|python[0-9.]*|perl|ruby|node|php"
    };
}

pub(super) const RULES: &[Rule] = &[
    Rule {
        id: "download-pipe-shell",
        keys: &["curl", "wget"],
        class: Class::DownloadExecute,
        level: Level::Critical,
        pattern: concat!(r"(?i)\b(?:curl|wget|fetch)\b[^\n|]{0,300}\|\s*(?:", interp!(), r")\b"),
        why: "downloads code and runs it at once: what runs is whatever the server sends that day, unseen",
        advice: RUN_IT_YOURSELF,
        refine: Some(piped_code_only),
    },
    Rule {
        id: "download-subst-shell",
        keys: &["curl", "wget"],
        class: Class::DownloadExecute,
        level: Level::Critical,
        pattern: r#"(?i)(?:\b(?:ba|z)?sh\s+(?:-c\s+)?["']?(?:<\(|\$\()|\beval\s+["']?\$\(|\bsource\s+<\(|\.\s+<\()\s*(?:curl|wget)\b"#,
        why: "runs downloaded code through a substitution: the same as curl | sh, harder to spot",
        advice: RUN_IT_YOURSELF,
        refine: Some(installer_is_medium),
    },
    Rule {
        id: "decode-pipe-shell",
        keys: &["base64"],
        class: Class::DownloadExecute,
        level: Level::Critical,
        pattern: concat!(
            r"(?i)base64\s+(?:-d|--decode|-D)\b[^\n]{0,200}\|\s*(?:",
            interp!(),
            r")\b"
        ),
        why: "decodes hidden text and runs it: the classic one-liner of fake prerequisites",
        advice: "decode it without running it to see what it is; do not install the skill",
        refine: None,
    },
    Rule {
        id: "powershell-download-exec",
        keys: &["iex", "invoke-expression"],
        class: Class::DownloadExecute,
        level: Level::Critical,
        pattern: r"(?i)\b(?:iex|invoke-expression)\b[^\n]{0,200}(?:downloadstring|\biwr\b|invoke-webrequest|\birm\b|invoke-restmethod|net\.webclient)|(?:downloadstring|\biwr\b|invoke-webrequest|\birm\b|invoke-restmethod)[^\n]{0,300}\|\s*(?:iex|invoke-expression)\b",
        why: "PowerShell downloads a script and runs it in memory",
        advice: RUN_IT_YOURSELF,
        refine: Some(installer_is_medium),
    },
    Rule {
        id: "powershell-encoded",
        keys: &["powershell"],
        class: Class::Obfuscation,
        level: Level::Critical,
        pattern: r"(?i)\bpowershell(?:\.exe)?\b[^\n]{0,100}\s-e(?:nc|ncodedcommand)?\s+[A-Za-z0-9+/=]{20,}",
        why: "runs a base64-encoded PowerShell command, so nobody reads what it does",
        advice: "decode it without running it; do not install the skill",
        refine: None,
    },
    Rule {
        id: "download-then-run",
        keys: &["chmod"],
        class: Class::DownloadExecute,
        level: Level::High,
        pattern: r"(?i)\b(?:curl|wget)\b[^\n]{0,300}(?:&&|;)\s*(?:sudo\s+)?chmod\s+(?:[ugoa]*\+x|[0-7]{3,4})\b",
        why: "downloads a file and makes it executable: a program nobody reviewed",
        advice: RUN_IT_YOURSELF,
        refine: Some(installer_is_medium),
    },
    Rule {
        id: "quarantine-removal",
        keys: &["xattr", "spctl"],
        class: Class::Payload,
        level: Level::Medium,
        pattern: r"(?i)\bxattr\s+(?:-\w+\s+)*-[cd]\b[^\n]{0,40}(?:com\.apple\.quarantine)?|\bspctl\s+--master-disable",
        why: "removes macOS's download quarantine so Gatekeeper does not check the program (a step of the AMOS lures)",
        advice: "do not run it; a legitimate tool is signed and needs no such step",
        refine: Some(quarantine_only),
    },
    Rule {
        id: "password-archive",
        keys: &[".zip", ".rar", ".7z", "unzip", "unrar", "7z ", "7za"],
        class: Class::Payload,
        level: Level::Critical,
        pattern: r"(?i)(?-i:\bunzip\b[^\n]{0,120}\s-P\s*\S+)|\b(?:7z|7za|unrar)\b[^\n]{0,120}\s-p\S+|\.(?:zip|rar|7z)\b[^\n]{0,120}\b(?:password|passphrase|pass|pwd|(?:extract|unpack|unzip|open)\w*\s+(?:it\s+)?(?:using|with)\s*:)|\b(?:password|passphrase)\b[^\n]{0,120}\.(?:zip|rar|7z)\b",
        why: "a password-protected archive hides its content from malware scanners: the delivery of the ClawHavoc payloads",
        advice: "do not download or open it; do not install the skill",
        refine: None,
    },
    Rule {
        id: "binary-link",
        keys: &[
            ".exe",
            ".msi",
            ".scr",
            ".bat",
            ".cmd",
            ".vbs",
            ".ps1",
            ".dmg",
            ".pkg",
            ".apk",
            ".jar",
            ".appimage",
        ],
        class: Class::Payload,
        level: Level::High,
        pattern: r#"(?i)\b(?:https?|ftp)://[^\s"'<>)\]]+\.(?:exe|msi|scr|bat|cmd|vbs|ps1|dmg|pkg|apk|jar|appimage)\b"#,
        why: "links a program to download and run outside any package manager",
        advice: "get the program from its vendor yourself, or not at all",
        refine: Some(installer_is_medium),
    },
    Rule {
        id: "raw-ip-url",
        keys: &[
            "://0", "://1", "://2", "://3", "://4", "://5", "://6", "://7", "://8", "://9",
        ],
        class: Class::Payload,
        level: Level::High,
        pattern: r"(?i)\b(?:https?|ftp|wss?|tcp)://(?:\d{1,3}\.){3}\d{1,3}\b",
        why: "a URL with a bare IP address has no name to check and is typical of payload servers",
        advice: "find out whose address it is before anything is fetched from it",
        refine: Some(public_ip_only),
    },
    Rule {
        id: "ssh-private-key",
        keys: &[".ssh/", "private key"],
        class: Class::Credentials,
        level: Level::High,
        pattern: r"(?i)\.ssh/(?:id_[a-z0-9_]+|identity)\b|\bBEGIN (?:OPENSSH|RSA|EC|DSA) PRIVATE KEY",
        why: "reads SSH private keys, which open every server the user can reach",
        advice: READ_THE_CODE,
        refine: None,
    },
    Rule {
        id: "cloud-credentials",
        keys: &[
            ".aws/",
            ".config/gcloud",
            "application_default",
            ".azure/",
            ".docker/config",
            ".git-credentials",
            ".pypirc",
            ".netrc",
        ],
        class: Class::Credentials,
        level: Level::High,
        pattern: r"(?i)\.aws/credentials\b|\.config/gcloud/(?:credentials|application_default)|application_default_credentials\.json|\.azure/(?:accesstokens|msal_token)|\.docker/config\.json|\.git-credentials\b|\.pypirc\b|\.netrc\b",
        why: "reads cloud or registry credential files",
        advice: READ_THE_CODE,
        refine: None,
    },
    Rule {
        id: "browser-profile",
        keys: &[
            "login data",
            "key3.db",
            "key4.db",
            "logins.json",
            "cookies.sqlite",
            "chrome/",
            "chromium/",
            "brave",
            "microsoft/edge/",
        ],
        class: Class::Credentials,
        level: Level::High,
        pattern: r"(?i)\blogin data\b|\bkey[34]\.db\b|\blogins\.json\b|\bcookies\.sqlite\b|(?:google/chrome|chromium|brave-browser|bravesoftware|microsoft/edge)/[^\n]{0,60}\b(?:cookies|local state|web data)\b",
        why: "reads saved browser passwords or cookies: what info-stealers take first",
        advice: "do not install the skill",
        refine: None,
    },
    Rule {
        id: "crypto-wallet",
        keys: &["wallet", "nkbihf", "metamask", "seed phrase", "private key", "mnemonic"],
        class: Class::Credentials,
        level: Level::High,
        pattern: r"(?i)\bwallet\.dat\b|\bexodus/exodus\.wallet\b|electrum/wallets\b|\bnkbihfbeogaeaoehlefnkodbefgpgknn\b|metamask[^\n]{0,40}\b(?:vault|ldb|local extension settings)\b|\b(?:send|post|upload|paste)\b[^\n]{0,60}\b(?:seed phrase|private key|mnemonic)\b",
        why: "reaches for cryptocurrency wallets or asks for their keys",
        advice: "never give a skill a seed phrase or private key; do not install it",
        refine: None,
    },
    Rule {
        id: "keychain-dump",
        keys: &["security dump", "security find", "keychain"],
        class: Class::Credentials,
        level: Level::High,
        pattern: r"(?i)\bsecurity\s+(?:dump-keychain|find-generic-password\s[^\n]*-w|find-internet-password)|\blogin\.keychain(?:-db)?\b",
        why: "reads passwords out of the system keychain",
        advice: READ_THE_CODE,
        refine: None,
    },
    Rule {
        id: "env-file-read",
        keys: &[".env"],
        class: Class::Credentials,
        level: Level::Medium,
        pattern: r#"(?i)\b(?:cat|type|less|head|tail|source|open|read_text|readfilesync|readfile|load_dotenv)\b[\s(\x22'~/$A-Za-z{}_.]{0,40}\.env\b"#,
        why: "reads a .env file, where API keys usually live",
        advice: "make sure only the keys the skill documents are used, and nothing is sent elsewhere",
        refine: None,
    },
    Rule {
        id: "send-secrets",
        keys: &["curl", "wget", "iwr", "invoke-webrequest"],
        class: Class::Exfiltration,
        level: Level::Critical,
        pattern: r"(?i)\b(?:curl|wget|invoke-webrequest|iwr)\b[^\n]{0,200}(?:-d|--data\S*|-F|--form|-T|--upload-file|--post-file|-body)\b[^\n]{0,120}(?:\.ssh/|\.aws/|\.env\b|/etc/passwd|/etc/shadow|id_rsa|\.kube/config|keychain)",
        why: "uploads credential files to a server",
        advice: "do not install the skill",
        refine: None,
    },
    Rule {
        id: "dns-exfiltration",
        keys: &["nslookup", "dig ", "host ", "ping "],
        class: Class::Exfiltration,
        level: Level::High,
        pattern: r"(?i)\b(?:nslookup|dig|host|ping)\s+[^\n|;&]{0,40}\$\([^)\n]{1,80}\)\.[a-z0-9-]*\.?[a-z]",
        why: "puts command output into a DNS name: a way to send data out past firewalls",
        advice: "do not install the skill",
        refine: None,
    },
    Rule {
        id: "reverse-shell",
        keys: &[
            "/dev/tcp",
            "/dev/udp",
            "nc ",
            "ncat",
            "netcat",
            "socat",
            "mkfifo",
            "dup2",
            "pty.spawn",
        ],
        class: Class::ReverseShell,
        level: Level::Critical,
        pattern: r"(?i)/dev/(?:tcp|udp)/[^\s/]+/\d+|\b(?:nc|ncat|netcat)\b[^\n]{0,80}\s-[ec]\s+(?:/bin/)?(?:ba|z)?sh\b|\bsocat\b[^\n]{0,120}\bexec:[^\n]{0,40}\b(?:ba)?sh\b|\bmkfifo\b[^\n]{0,80}\b(?:nc|ncat|netcat)\b|\bos\.dup2\(\s*\w+\.fileno\(\)|\bpty\.spawn\(\s*['\x22](?:/bin/)?(?:ba)?sh",
        why: "gives a remote host an interactive shell on this machine",
        advice: "do not install the skill",
        refine: None,
    },
    Rule {
        id: "cron-persistence",
        keys: &["crontab", "/etc/cron", "/var/spool/cron"],
        class: Class::Persistence,
        level: Level::High,
        pattern: r"(?i)\(\s*crontab\s+-l|\|\s*crontab\s+-?\s*$|\|\s*crontab\s+-\s|/etc/cron\.(?:d|daily|hourly|weekly)\b|/var/spool/cron\b",
        why: "adds a cron job: code that keeps running after the skill is removed",
        advice: "a skill should not schedule itself; ask the author why it does",
        refine: None,
    },
    Rule {
        id: "launch-agent",
        keys: &["launchagents", "launchdaemons", "launchctl"],
        class: Class::Persistence,
        level: Level::High,
        pattern: r"(?i)library/launch(?:agents|daemons)\b|\blaunchctl\s+(?:load|bootstrap|submit)\b",
        why: "installs a macOS launch agent or daemon that starts at every login",
        advice: "a skill should not install services; ask the author why it does",
        refine: None,
    },
    Rule {
        id: "systemd-unit",
        keys: &["systemd", "systemctl"],
        class: Class::Persistence,
        level: Level::Medium,
        pattern: r"(?i)\.config/systemd/user/|/etc/systemd/system/[^\s]+\.(?:service|timer)|\bsystemctl\s+(?:--user\s+)?enable\b",
        why: "installs or enables a systemd unit that runs outside the skill",
        advice: "make sure the service is what you asked for",
        refine: None,
    },
    Rule {
        id: "shell-startup",
        keys: &[
            ".bashrc",
            ".zshrc",
            ".profile",
            ".bash_profile",
            ".zprofile",
            ".zshenv",
            ".zlogin",
        ],
        class: Class::Persistence,
        level: Level::High,
        pattern: r#"(?i)>>?\s*["']?(?:~|\$home|\$\{home\})/\.(?:bashrc|zshrc|profile|bash_profile|zprofile|zshenv|zlogin)\b"#,
        why: "writes into a shell startup file: code that runs in every new terminal",
        advice: "add such lines yourself if you want them; a skill should not",
        refine: Some(plain_export_is_medium),
    },
    Rule {
        id: "authorized-keys",
        keys: &["authorized_keys"],
        class: Class::Persistence,
        level: Level::Critical,
        pattern: r"(?i)>>?\s*\S*\.ssh/authorized_keys\b",
        why: "adds a key to authorized_keys: a permanent way in for someone else",
        advice: "do not install the skill",
        refine: None,
    },
    Rule {
        id: "decode-and-exec",
        keys: &[
            "b64decode",
            "base64",
            "atob(",
            "frombase64string",
            "decodebytes",
            "fromhex",
            "unhexlify",
            "codecs.decode",
            "zlib.decompress",
            "marshal.loads",
        ],
        class: Class::Obfuscation,
        level: Level::High,
        pattern: r#"(?i)\b(?:eval|exec|execute|invoke-expression|iex|new\s+function)\s*\(?[^\n]{0,40}(?:b64decode|base64\.(?:b64)?decode|atob\(|frombase64string|decodebytes|bytes\.fromhex|unhexlify|codecs\.decode|zlib\.decompress|marshal\.loads|buffer\.from\([^)]{0,200}['"](?:base64|hex)['"])"#,
        why: "decodes hidden code and runs it, so nobody reads what it does",
        advice: "decode it without running it; do not install unless you can read all of it",
        refine: None,
    },
    Rule {
        id: "char-code-chain",
        keys: &["fromcharcode", "chr("],
        class: Class::Obfuscation,
        level: Level::High,
        pattern: r"(?i)fromcharcode\s*\(\s*\d+(?:\s*,\s*\d+){9,}|(?:\bchr\s*\(\s*\d+\s*\)\s*[+.,]\s*){8,}",
        why: "assembles text from character codes: a way to hide commands or URLs",
        advice: "decode it without running it; do not install unless you can read all of it",
        refine: None,
    },
    Rule {
        id: "hex-escape-chain",
        keys: &["\\x"],
        class: Class::Obfuscation,
        level: Level::Medium,
        pattern: r"(?i)(?:\\x[0-9a-f]{2}){24,}",
        why: "a long run of hex escapes hides what the text says",
        advice: "decode it without running it to see what it is",
        refine: None,
    },
    Rule {
        id: "encoded-blob",
        keys: &[],
        class: Class::Obfuscation,
        level: Level::Medium,
        pattern: r"[A-Za-z0-9+/]{400,}={0,2}",
        why: "a long encoded blob in a skill is code or data nobody can read",
        advice: "decode it without running it to see what it is",
        refine: Some(not_data_uri),
    },
    Rule {
        id: "override-instructions",
        keys: &["ignore", "disregard", "forget", "override"],
        class: Class::Injection,
        level: Level::High,
        pattern: r"(?i)\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+)?(?:previous|prior|above|earlier|preceding|system|your\s+(?:previous|original))\s+(?:instructions|prompts?|rules|guidelines|directives)",
        why: "tries to replace the agent's instructions with the skill's: prompt injection",
        advice: "do not install the skill",
        refine: None,
    },
    Rule {
        id: "conceal-from-user",
        keys: &[
            "do not", "don't", "never", "without", "silently", "secretly", "covertly",
        ],
        class: Class::Injection,
        level: Level::High,
        pattern: r"(?i)\b(?:do\s+not|don't|never)\s+(?:tell|inform|notify|mention\s+(?:this|it)\s+to|reveal\s+(?:this|it)\s+to|alert|let)\s+(?:the\s+)?(?:user|human|operator)\b|without\s+(?:the\s+)?user'?s?\s+(?:knowledge|knowing|noticing)|\b(?:silently|secretly|covertly)\s+(?:send|upload|post|exfiltrate|copy|forward|install)\b",
        why: "tells the agent to hide what it does from the user",
        advice: "do not install the skill",
        refine: None,
    },
    Rule {
        id: "skip-confirmation",
        keys: &["always", "automatically", "dangerously", "--yolo", "without"],
        class: Class::Injection,
        level: Level::Medium,
        pattern: r"(?i)\b(?:always|automatically)\s+(?:run|use|pass|add|answer)\b[^\n]{0,40}(?:--yes\b|\s-y\b|--force\b|--no-confirm\b|\byes\b to)|--dangerously-skip-permissions|--yolo\b|without\s+(?:asking|confirmation|confirming)\s+(?:the\s+)?user",
        why: "tells the agent to skip the user's confirmation",
        advice: "keep approvals on (`--approve ask`) for this skill",
        refine: None,
    },
    Rule {
        id: "sandbox-off",
        keys: &[
            "disable",
            "turn off",
            "bypass",
            "switch off",
            "deactivate",
            "circumvent",
            "--sandbox",
            "agent_sandbox",
            "--approve",
            "agent_approve",
        ],
        class: Class::Injection,
        level: Level::High,
        pattern: r"(?i)\b(?:disable|turn\s+off|bypass|switch\s+off|deactivate|circumvent)\s+(?:the\s+)?(?:sandbox|landlock|seccomp|approval(?:s)?|safety\s+checks?|security\s+checks?)\b|--sandbox[= ]off\b|\bAGENT_SANDBOX=off\b|--approve[= ]yes\b|\bAGENT_APPROVE=yes\b",
        why: "tells the agent or the user to turn off the protections that confine the skill",
        advice: "keep the sandbox on; a skill that needs it off should say why, and you decide",
        refine: None,
    },
];

/// `curl URL | python3 -c '…'` (or `-m json.tool`, `node -e`) hands the interpreter its program
/// in the arguments and the download as data: the common way to read a JSON answer, not code from
/// the server. Everything else piped into a shell or interpreter stays, at its refined severity.
fn piped_code_only(matched: &str, line: &str, data: &Indicators, level: Level) -> Option<Level> {
    let after = line.find(matched).map_or("", |at| &line[at + matched.len()..]);
    let interpreter = ["python", "perl", "ruby", "node", "php"]
        .iter()
        .any(|i| matched.to_ascii_lowercase().contains(i));
    let program_in_args = after.trim_start().starts_with("-c")
        || after.trim_start().starts_with("-m")
        || after.trim_start().starts_with("-e");
    if interpreter && program_in_args {
        return None;
    }
    installer_is_medium(matched, line, data, level)
}

/// `curl … | sh` from a vendor's documented install host is common in honest skills: medium.
fn installer_is_medium(_matched: &str, line: &str, data: &Indicators, level: Level) -> Option<Level> {
    let campaign = data.hosts_in(line).iter().any(|h| h.kind == HostKind::Campaign);
    if !campaign && data.names_installer(line) {
        Some(Level::Medium)
    } else {
        Some(level)
    }
}

/// `echo 'export API_KEY=…' >> ~/.bashrc` is how setup guides keep a setting: medium. Anything
/// else appended to a startup file (a download, a background job) stays high.
fn plain_export_is_medium(_matched: &str, line: &str, _data: &Indicators, level: Level) -> Option<Level> {
    let lower = line.to_ascii_lowercase();
    let plain = lower.contains("export ") || lower.contains("path=");
    let active = ["curl", "wget", "base64", "nohup", "&&", "| sh", "|sh", "eval", "nc "]
        .iter()
        .any(|w| lower.contains(w));
    Some(if plain && !active { Level::Medium } else { level })
}

/// `xattr -c` on anything is common; only the quarantine attribute or `-c` of an app matters.
fn quarantine_only(matched: &str, line: &str, _data: &Indicators, level: Level) -> Option<Level> {
    let lower = line.to_ascii_lowercase();
    (matched.to_ascii_lowercase().contains("spctl") || lower.contains("quarantine") || lower.contains(".app"))
        .then_some(level)
}

/// Loopback, private and link-local addresses are local services, not payload servers.
fn public_ip_only(matched: &str, _line: &str, _data: &Indicators, level: Level) -> Option<Level> {
    let host = matched.rsplit("//").next().unwrap_or("");
    let ip: std::net::Ipv4Addr = host.parse().ok()?;
    let local = ip.is_loopback() || ip.is_private() || ip.is_link_local() || ip.is_unspecified() || ip.is_broadcast();
    (!local).then_some(level)
}

/// `data:image/png;base64,…` is an embedded picture, not a payload.
fn not_data_uri(_matched: &str, line: &str, _data: &Indicators, level: Level) -> Option<Level> {
    let lower = line.to_ascii_lowercase();
    (!lower.contains("data:image/") && !lower.contains("data:font/") && !lower.contains(";base64,")).then_some(level)
}

/// The ids of every text rule, for tests.
#[cfg(test)]
pub fn ids() -> Vec<&'static str> {
    RULES.iter().map(|r| r.id).collect()
}
