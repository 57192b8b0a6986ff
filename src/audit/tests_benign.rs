//! The honest side of issue 32 round 4: text shaped like the public skill collections
//! (install instructions of real tools, documented APIs, decoding data without running it) must
//! give no finding of medium or worse, and English words in names are not typo-squats while the
//! real typo-squats still are.

use super::tests_classes::{findings_of, skill};
use super::*;

/// Honest text shaped like the public collections (anthropics/skills, openai/skills,
/// K-Dense-AI/claude-scientific-skills, ComposioHQ/awesome-claude-skills).
const BENIGN: &[(&str, &str)] = &[
    (
        "SKILL.md",
        "## Requirements\n```bash\npip install pypdf pdfplumber\nuv pip install markitdown\n```\n",
    ),
    (
        "SKILL.md",
        "Install the CLI: `npm install -g @anthropic-ai/claude-code`\n",
    ),
    (
        "SKILL.md",
        "On macOS: `brew install poppler`; on Debian: `sudo apt-get install -y libreoffice poppler-utils`\n",
    ),
    (
        "SKILL.md",
        "Fetch the repo data: `curl -s https://api.github.com/repos/OWNER/REPO/releases/latest`\n",
    ),
    (
        "SKILL.md",
        "curl -o out.json https://api.example.invalid/data\npython3 scripts/process.py out.json\n",
    ),
    (
        "SKILL.md",
        "curl -s https://api.example.invalid/q | python3 -c 'import json,sys; print(json.load(sys.stdin))'\n",
    ),
    (
        "scripts/save.py",
        "import base64\n\ndata = base64.b64decode(payload['image'])\nwith open('out.png', 'wb') as f:\n    f.write(data)\n",
    ),
    (
        "scripts/convert.py",
        "subprocess.run([\"soffice\", \"--headless\", \"--convert-to\", \"pdf\", path], check=True)\n",
    ),
    (
        "scripts/app.js",
        "const result = eval(expression);\nconst f = new Function('a', 'b', 'return a + b');\n",
    ),
    (
        "references/config.md",
        "## Database\nSet the password in `config.yaml`:\n\n```yaml\nuser: admin\npassword: your_password\n```\n",
    ),
    (
        "SKILL.md",
        "Copy the command below and paste it into your terminal:\n\n```\npip install requests\n```\n",
    ),
    (
        "SKILL.md",
        "Visit https://platform.example.invalid/keys to create a key, copy it and set `export API_KEY=...`\n",
    ),
    ("SKILL.md", "Run `pdftotext -v` to verify the installation.\n"),
    (
        "SKILL.md",
        "Handles password-protected PDF files with `qpdf --password=PW --decrypt in.pdf out.pdf`\n",
    ),
    (
        "SKILL.md",
        "Download the dataset from https://data.example.invalid/set.zip and unzip it into data/\n",
    ),
    (
        "SKILL.md",
        "Install LibreOffice (required) with `brew install --cask libreoffice`\n",
    ),
    (
        "scripts/setup.sh",
        "echo 'export OPENROUTER_API_KEY=\"your_key\"' >> ~/.bashrc\nsource .env\n",
    ),
    (
        "SKILL.md",
        "xattr -d com.apple.quarantine \"$(brew --prefix)/bin/ant\"\n",
    ),
    (
        "SKILL.md",
        "curl -fsSL https://example.invalid/api -H 'Authorization: Bearer <token>' > out.json\n",
    ),
    (
        "scripts/decode.js",
        "const text = Buffer.from(body, 'base64').toString('utf8');\nconsole.log(JSON.parse(text));\n",
    ),
    (
        "SKILL.md",
        "Review the previous output; the rev field holds the revision.\n",
    ),
];

#[test]
fn benign_collections_stay_below_medium() {
    for (file, text) in BENIGN {
        let found: Vec<_> = findings_of(file, text)
            .into_iter()
            .filter(|f| f.severity >= Level::Medium)
            .map(|f| (f.rule, f.severity))
            .collect();
        assert!(found.is_empty(), "{found:?} for {text:?}");
    }
    for name in [
        "stack-exchange-automation",
        "agent-mail-automation",
        "googledrive-automation",
        "pptx-posters",
    ] {
        let dir = skill(&[(
            "SKILL.md",
            format!("---\nname: {name}\ndescription: y\n---\nbody\n").as_bytes(),
        )]);
        assert!(audit_dir(dir.path()).findings.is_empty(), "{name}");
    }
}

#[test]
fn typo_squats_are_still_imitations() {
    for name in ["gihtub-pr", "clawhub1", "githuub", "g1thub-tools", "sl4ck"] {
        let dir = skill(&[(
            "SKILL.md",
            format!("---\nname: {name}\ndescription: y\n---\nbody\n").as_bytes(),
        )]);
        let found = audit_dir(dir.path()).findings;
        assert!(found.iter().any(|f| f.rule == "name-imitation"), "{name}: {found:?}");
    }
}
