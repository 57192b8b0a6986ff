#!/usr/bin/env python3
"""Generate four local git repositories laid out as the public skill repositories are, holding N
skills in all, for the installed-library benchmark (bench/library.sh).

usage: gen_library.py N DIR   — DIR is emptied first. Same seed, same set every run. The layouts:
  anthropic-like/skills/NAME             2 % of the skills
  openai-like/skills/.curated/NAME       1 % (hidden category folders)
  scientific-like/scientific-skills/NAME 13 %, each with scripts/ and references/
  composio-like/composio-skills/NAME     the rest, one SKILL.md each
Nothing is copied from the real repositories: names, descriptions and bodies are made up here.
"""
import os, random, shutil, subprocess, sys

WORDS = ["invoice", "ledger", "sprite", "genome", "tensor", "orbit", "query", "render", "voice", "atlas",
         "market", "survey", "signal", "lattice", "protein", "cluster", "archive", "router", "canvas", "pulse"]


def skill(folder, name, rng, scientific):
    os.makedirs(folder)
    topic = " ".join(rng.sample(WORDS, 3))
    body = [f"# {name}", "", f"Works with {topic}.", ""]
    if scientific:
        os.makedirs(os.path.join(folder, "scripts"))
        os.makedirs(os.path.join(folder, "references"))
        with open(os.path.join(folder, "scripts", "analyse.py"), "w") as f:
            f.write("#!/usr/bin/env python3\nimport sys\nprint(sys.argv[1:])\n")
        with open(os.path.join(folder, "references", "guide.md"), "w") as f:
            f.write("# Guide\n\n" + "Details about the method.\n" * 200)
        body += ["```bash", "python scripts/analyse.py input.csv -o report.md", "```", "",
                 "See [the guide](references/guide.md) and `analyse.py`."]
    body += [f"Line {i} of the instructions about {topic}." for i in range(rng.randint(20, 120))]
    with open(os.path.join(folder, "SKILL.md"), "w") as f:
        f.write(f"---\nname: {name}\ndescription: Handles {topic} tasks; use when the user asks about {topic}.\n"
                f"---\n" + "\n".join(body) + "\n")


def commit(repo):
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", "-c", "init.defaultBranch=main"]
    subprocess.run(git + ["init", "--quiet"], cwd=repo, check=True)
    subprocess.run(git + ["add", "."], cwd=repo, check=True)
    subprocess.run(git + ["commit", "--quiet", "-m", "skills"], cwd=repo, check=True)


def main():
    n, root = int(sys.argv[1]), sys.argv[2]
    shutil.rmtree(root, ignore_errors=True)
    rng = random.Random(23)
    shares = [("anthropic-like", "skills", 0.02), ("openai-like", "skills/.curated", 0.01),
              ("scientific-like", "scientific-skills", 0.13)]
    counts = [max(1, int(n * share)) for _, _, share in shares]
    layouts = shares + [("composio-like", "composio-skills", 0)]
    counts.append(max(1, n - sum(counts)))
    made = 0
    for (repo, folder, _), count in zip(layouts, counts):
        for i in range(count):
            name = f"{repo.split('-')[0]}-{i:04d}"
            skill(os.path.join(root, repo, folder, name), name, rng, repo == "scientific-like")
            made += 1
        commit(os.path.join(root, repo))
    print(f"{made} skills in {len(layouts)} repositories under {root}")


if __name__ == "__main__":
    main()
