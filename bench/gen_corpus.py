#!/usr/bin/env python3
"""Generate a skill corpus shaped like a large real-world collection of third-party skills.

usage: gen_corpus.py N DIR [--seed S]   — DIR is emptied first; same N and seed, same corpus.

`bench/gen_skills.py` makes small uniform skills for scaling curves; this one makes the kind of
tree `agent` meets when someone clones a few skill collections: mostly Agent Skills with YAML
frontmatter written every way YAML allows, some SCP skills (plain markdown, a `skill.json`, a
`run.sh`), a few broken files, bundled `scripts/` and `references/` folders, and SKILL.md bodies
whose sizes follow the distribution below.

Distributions (documented so the benchmark can be reproduced and argued with):
- SKILL.md body bytes: log-normal, median 3.0 KB (mu = ln 3000, sigma = 1.0), clipped to
  300 B .. 100 KB. Mean about 5.4 KB, 90th percentile about 12 KB, a long tail up to 100 KB:
  4,000 skills come to about 22 MB.
- Frontmatter: 200 .. 1,500 B. Descriptions 60 .. 900 characters, as a plain scalar (45 %),
  double-quoted (20 %), folded `>` (15 %), literal `|` (5 %), single-quoted (5 %); most also carry
  `license`, many `metadata` (a nested map), `allowed-tools` (a string or a list),
  `compatibility`, or `argument-hint`.
- Dialects: 85 % Agent Skills, 12 % SCP (`# Title`, `## Description`, `## Usage`…), of which two
  thirds have a `skill.json` and half a `run.sh`; 3 % have a quirk real files have (CRLF line
  endings, a byte-order mark, an unquoted colon in a value, an uppercase name, a `name:` line
  without `---` fences, a missing closing `---`).
- Bundled files: 60 % have `scripts/` (1-4 files, some nested one level), 35 % `references/`
  (1-3 markdown files), 10 % `assets/`.
"""
import json, math, os, random, shutil, sys

WORDS = """data file files report reports table tables chart charts image images pdf document documents
spreadsheet csv json yaml xml markdown html page pages site web browser api endpoint request response
server client database query queries index schema migration backup restore log logs metric metrics alert
alerts dashboard deploy deployment cluster container containers pod pods service services queue message
messages email emails calendar event events meeting meetings invoice invoices payment payments customer
customers ticket tickets issue issues branch commit commits review reviews test tests build builds release
release notes changelog version versions package packages dependency dependencies script scripts command
commands terminal shell config configuration secret secrets token tokens key keys certificate user users
team teams project projects task tasks note notes summary summaries translation audio video videos photo
photos thumbnail font fonts color colors theme layout slide slides presentation diagram diagrams graph
graphs model models prompt prompts embedding embeddings vector search ranking weather forecast city map
maps route routes address location timezone currency price prices stock stocks crypto wallet budget
expense expenses recipe recipes workout sleep habit habits reminder reminders""".split()
VERBS = """convert summarise summarize search find list create generate update delete check validate lint
format analyse analyze extract parse render export import sync monitor watch schedule deploy build test
review translate compress resize crop transcribe fetch download upload publish archive encrypt decrypt
sign verify compare merge split clean tag label classify rank score plan draft write edit fix debug
profile benchmark measure track notify""".split()
GLUE = """the a an of for with from into to and or using when while before after so that in on by
each every any all this these your its their""".split()
TOOLS = ["Read", "Write", "Edit", "Grep", "Glob", "Bash(git:*)", "Bash(python3:*)", "Bash(npm run:*)",
         "Bash(curl -s:*)", "WebFetch", "Bash(jq:*)", "Bash(./scripts/*)"]
LICENSES = ["MIT", "Apache-2.0", "BSD-3-Clause", "Proprietary. LICENSE.txt has complete terms", "CC-BY-4.0"]


def sentence(rng, lo=6, hi=18):
    n = rng.randint(lo, hi)
    words = []
    for i in range(n):
        pool = rng.random()
        words.append(rng.choice(VERBS) if pool < 0.2 else rng.choice(GLUE) if pool < 0.5 else rng.choice(WORDS))
    words[0] = words[0].capitalize()
    return " ".join(words) + "."


def paragraph(rng, lo=2, hi=6):
    return " ".join(sentence(rng) for _ in range(rng.randint(lo, hi)))


def description(rng, verb, obj):
    target = int(rng.triangular(60, 900, 220))
    parts = [f"{verb.capitalize()} {obj} {rng.choice(['quickly', 'safely', 'in bulk', 'from the terminal', 'with a report'])}."]
    parts.append(f"Use when the user asks to {verb} {obj} or mentions {rng.choice(WORDS)} {rng.choice(WORDS)}.")
    while len(" ".join(parts)) < target:
        parts.append(sentence(rng, 5, 14))
    return " ".join(parts)[:target].rstrip() + "."


def yaml_description(rng, desc):
    style = rng.random()
    if style < 0.45 and ": " not in desc and not desc.endswith(":"):
        return f"description: {desc}\n"
    if style < 0.65:
        return "description: " + json.dumps(desc) + "\n"
    if style < 0.80:
        return "description: >\n" + wrap(desc, "  ") + "\n"
    if style < 0.85:
        return "description: |\n" + wrap(desc, "  ") + "\n"
    return "description: '" + desc.replace("'", "''") + "'\n"


def wrap(text, indent, width=78):
    lines, line = [], ""
    for w in text.split():
        if line and len(line) + len(w) + 1 > width:
            lines.append(indent + line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    if line:
        lines.append(indent + line)
    return "\n".join(lines)


def frontmatter(rng, name, desc):
    fm = f"name: {name}\n" + yaml_description(rng, desc)
    if rng.random() < 0.6:
        fm += f"license: {rng.choice(LICENSES)}\n"
    if rng.random() < 0.3:
        tools = rng.sample(TOOLS, rng.randint(1, 4))
        if rng.random() < 0.5:
            fm += "allowed-tools: " + " ".join(tools) + "\n"
        else:
            fm += "allowed-tools:\n" + "".join(f"  - {t}\n" for t in tools)
    if rng.random() < 0.15:
        fm += f"compatibility: Requires {rng.choice(['python3', 'node 18+', 'git', 'docker', 'jq'])} and network access\n"
    if rng.random() < 0.4:
        fm += "metadata:\n"
        fm += f"  author: {rng.choice(['acme', 'jdoe', 'skills-team', 'example-org'])}\n"
        fm += f"  version: \"{rng.randint(0, 3)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}\"\n"
        if rng.random() < 0.5:
            fm += "  tags: [" + ", ".join(rng.sample(WORDS, 3)) + "]\n"
    if rng.random() < 0.1:
        fm += f"argument-hint: \"[{rng.choice(WORDS)}] [--{rng.choice(WORDS)}]\"\n"
    return fm


def body(rng, title, size):
    out = [f"# {title}\n"]
    sections = ["Overview", "When to use", "Quick start", "Usage", "Examples", "Options", "Workflow",
                "Troubleshooting", "Reference", "Notes", "Limitations", "Output format"]
    while sum(len(s) for s in out) < size:
        out.append(f"\n## {rng.choice(sections)}\n\n{paragraph(rng)}\n")
        kind = rng.random()
        if kind < 0.35:
            lang = rng.choice(["bash", "python", "json", ""])
            code = "\n".join(f"{rng.choice(['./scripts/run.sh', 'python3 scripts/main.py', 'jq', 'curl -s'])} --{rng.choice(WORDS)} {rng.choice(WORDS)}"
                             for _ in range(rng.randint(2, 8)))
            out.append(f"\n```{lang}\n{code}\n```\n")
        elif kind < 0.6:
            out.append("\n" + "".join(f"- {sentence(rng, 4, 12)}\n" for _ in range(rng.randint(3, 8))))
        elif kind < 0.7:
            rows = "".join(f"| `{rng.choice(WORDS)}` | {sentence(rng, 3, 8)} |\n" for _ in range(rng.randint(3, 10)))
            out.append(f"\n| option | meaning |\n|---|---|\n{rows}")
    text = "".join(out)
    return text[:size] + "\n" if len(text) > size else text


def body_size(rng):
    return int(min(100_000, max(300, rng.lognormvariate(math.log(3000), 1.0))))


def write(path, text, crlf=False, bom=False):
    data = text.replace("\n", "\r\n") if crlf else text
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(("\ufeff" if bom else "") + data)


def bundled(rng, d):
    if rng.random() < 0.6:
        os.makedirs(os.path.join(d, "scripts"))
        for i in range(rng.randint(1, 4)):
            sub = os.path.join(d, "scripts", "lib") if i == 3 else os.path.join(d, "scripts")
            os.makedirs(sub, exist_ok=True)
            p = os.path.join(sub, f"{rng.choice(VERBS)}_{i}.{rng.choice(['py', 'sh', 'js'])}")
            write(p, "#!/usr/bin/env python3\n" + "\n".join(f"# {sentence(rng)}" for _ in range(rng.randint(5, 60))) + "\n")
            os.chmod(p, 0o755)
    if rng.random() < 0.35:
        os.makedirs(os.path.join(d, "references"))
        for i in range(rng.randint(1, 3)):
            write(os.path.join(d, "references", f"{rng.choice(WORDS)}-{i}.md"), body(rng, "Reference", body_size(rng)))
    if rng.random() < 0.1:
        os.makedirs(os.path.join(d, "assets"))
        write(os.path.join(d, "assets", "template.txt"), paragraph(rng) + "\n")


def scp_skill(rng, d, name, verb, obj, size):
    desc = description(rng, verb, obj)
    title = name.replace("-", " ").title()
    text = f"# {title}\n\n## Description\n\n{wrap(desc, '')}\n\n## When to use\n\n{paragraph(rng)}\n\n## Usage\n\n```bash\n./run.sh <{obj.split()[0]}>\n```\n"
    write(os.path.join(d, "SKILL.md"), text + body(rng, title, size)[len(title) + 3:])
    if rng.random() < 0.67:
        manifest = {"name": name, "version": f"{rng.randint(0, 2)}.{rng.randint(0, 9)}.0", "description": desc,
                    "entry": "run.sh", "args": [{"name": obj.split()[0], "required": True}],
                    "env": [{"name": "API_TOKEN", "required": False, "description": "token for the service"}],
                    "tags": rng.sample(WORDS, 3)}
        write(os.path.join(d, "skill.json"), json.dumps(manifest, indent=2) + "\n")
    if rng.random() < 0.5:
        p = os.path.join(d, "run.sh")
        write(p, "#!/bin/sh\nset -eu\necho \"$@\"\n")
        os.chmod(p, 0o755)


def quirky_skill(rng, d, name, verb, obj, size):
    desc = description(rng, verb, obj)
    quirk = rng.choice(["crlf", "bom", "colon", "upper", "nofence", "unclosed"])
    title = name.replace("-", " ").title()
    if quirk == "colon":
        fm = f"---\nname: {name}\ndescription: {desc[:120]} Note: works offline.\n---\n"
    elif quirk == "upper":
        fm = f"---\nname: {title}\ndescription: {desc}\n---\n"
    elif quirk == "nofence":
        fm = f"name: {name}\ndescription: {desc}\n\n"
    elif quirk == "unclosed":
        fm = f"---\nname: {name}\ndescription: {desc}\n\n"
    else:
        fm = "---\n" + frontmatter(rng, name, desc) + "---\n"
    write(os.path.join(d, "SKILL.md"), fm + "\n" + body(rng, title, size), crlf=quirk == "crlf", bom=quirk == "bom")


def main():
    args = sys.argv[1:]
    seed = 7
    if "--seed" in args:
        i = args.index("--seed")
        seed = int(args[i + 1])
        del args[i:i + 2]
    n, root = int(args[0]), args[1]
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    rng = random.Random(seed)
    for i in range(n):
        verb, obj = rng.choice(VERBS), f"{rng.choice(WORDS)} {rng.choice(WORDS)}"
        name = f"{verb}-{obj.replace(' ', '-')}-{i}"
        d = os.path.join(root, name)
        os.makedirs(d)
        size = body_size(rng)
        kind = rng.random()
        if kind < 0.12:
            scp_skill(rng, d, name, verb, obj, size)
        elif kind < 0.15:
            quirky_skill(rng, d, name, verb, obj, size)
        else:
            desc = description(rng, verb, obj)
            title = name.replace("-", " ").title()
            write(os.path.join(d, "SKILL.md"), "---\n" + frontmatter(rng, name, desc) + "---\n\n" + body(rng, title, size))
        bundled(rng, d)


if __name__ == "__main__":
    main()
