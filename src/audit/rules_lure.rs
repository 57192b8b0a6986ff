//! Text rules for social-engineering prerequisites, the way the ClawHavoc skills on ClawHub
//! worked: nothing malicious in the skill itself, only prose telling the user (or the model) to
//! fetch a password-protected archive, run a downloaded program "before using this skill", paste
//! a command copied from a web page into a terminal, or pass a fake "verification". The forms
//! spread over a paragraph are in [`super::flows`]; these are the one-line ones.

use super::rules::Rule;
use super::{Class, Level};

const DO_NOT_FOLLOW: &str =
    "do not follow these steps; a skill needs no program from a link or a pasted command; do not install the skill";

pub(super) const RULES: &[Rule] = &[
    Rule {
        id: "archive-password",
        keys: &[
            " pass",
            "pwd",
            "passphrase",
            "passcode",
            "infected",
            "malware",
            "virus",
            "password-protected",
        ],
        class: Class::Payload,
        level: Level::Critical,
        pattern: r#"(?i)\b(?:archive|zip|rar|7z|7-zip|download|installer|extraction|unpack(?:ing)?)\s+(?:password|passcode|passphrase|pass|pwd)\b|\b(?:password|passphrase|pass|pwd)\s*(?:is\s*)?[:=]?\s*["'`*]*(?:infected|malware|virus)\b|\b(?:extract|unpack|unzip|decompress|open|unlock)\w*\s+(?:it\s+|them\s+|the\s+(?:archive|zip|rar|file|folder|download|package)\s+)?(?:with|using)\s+(?:the\s+)?(?:password|passphrase|passcode|pass|pwd)\b|\bpassword[- ]protected\s+(?:archive|zip|rar|7z|7-zip)\b"#,
        why: "tells you to open a password-protected archive: the password keeps malware scanners out, as in the ClawHavoc lures",
        advice: DO_NOT_FOLLOW,
        refine: None,
    },
    Rule {
        id: "paste-from-site",
        keys: &["paste"],
        class: Class::DownloadExecute,
        level: Level::Critical,
        pattern: r"(?i)\bcopy\b[^\n]{0,100}(?:from|at|on)\s+(?:<?https?://|www\.|(?:the|this|our|that)\s+(?:website|site|web\s*page|page|link|url))[^\n]{0,200}\bpaste\b|\bpaste\b[^\n]{0,100}\b(?:terminal|powershell|command\s+prompt|cmd(?:\.exe)?|run\s+dialog)\b[^\n]{0,120}\b(?:from|at|on|visit|go\s+to)\s+<?(?:https?://|www\.)|\b(?:terminal|powershell|command\s+prompt|cmd(?:\.exe)?)\b[^\n]{0,60}\bpaste\b[^\n]{0,80}\b(?:from|at|on)\s+<?(?:https?://|www\.)",
        why: "tells you to copy a command from a web page and paste it into a terminal: what runs is whatever the page shows that day",
        advice: DO_NOT_FOLLOW,
        refine: None,
    },
    Rule {
        id: "fake-verification",
        keys: &[
            "verification",
            "activation",
            "activate ",
            "human",
            "robot",
            "captcha",
            "unlock",
        ],
        class: Class::Payload,
        level: Level::High,
        pattern: r"(?i)(?:\bverify\s+(?:that\s+)?you(?:'re|\s+are)\s+(?:a\s+)?human|\bhuman\s+verification|\b(?:i'?m|i\s+am)\s+not\s+a\s+robot|\bcaptcha|\b(?:complete|pass|finish)\s+(?:the\s+|a\s+)?(?:quick\s+|one-time\s+)?(?:verification|activation)|\bactivat(?:e|ion\s+of)\s+(?:the\s+|this\s+|your\s+)?(?:skill|plugin|extension|agent|helper|licen[cs]e)|\b(?:verification|activation|unlock)\s+(?:code|key|step|command|script|token))\b[^\n]{0,160}\b(?:run|paste|execute|download|install|open|type|enter|launch)\b|\b(?:run|paste|execute|download|install|open|launch)\b[^\n]{0,120}(?:\bto\s+(?:verify|activate|unlock)\s+(?:the\s+|this\s+|your\s+)?(?:skill|plugin|extension|agent|helper|licen[cs]e|account|access)|\bhuman\s+verification|\bcaptcha)\b",
        why: "asks for a 'verification' or 'activation' step that runs or downloads something: no honest skill needs one",
        advice: DO_NOT_FOLLOW,
        refine: None,
    },
    Rule {
        id: "prerequisite-binary",
        keys: &[".exe", ".msi", ".dmg", ".pkg", ".appimage", ".scr"],
        class: Class::Payload,
        level: Level::Critical,
        pattern: r"(?i)(?:\bbefore\s+(?:using|you\s+use|running|you\s+run|starting)\b|\bprerequisite|\brequired\b|\bmust\s+(?:first\s+)?(?:download|install|run)|\bfirst,?\s+(?:download|install|run)|(?:will\s+not|won't|does\s+not|doesn't)\s+work\s+without)[^\n]{0,200}[\w-]\.(?:exe|msi|dmg|pkg|appimage|scr)\b|[\w-]\.(?:exe|msi|dmg|pkg|appimage|scr)\b[^\n]{0,200}(?:\bbefore\s+(?:using|you\s+use|running|starting)\b|\bprerequisite|\brequired\b|\bfirst\b)",
        why: "tells you to get and run a program before the skill works: the fake-prerequisite lure of the ClawHavoc campaign",
        advice: DO_NOT_FOLLOW,
        refine: None,
    },
];
