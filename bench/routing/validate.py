#!/usr/bin/env python3
"""Validate the routing benchmark in this directory (python3, stdlib only).

Checks skills.json and cases.json:
  * both parse as JSON arrays of objects with the expected fields;
  * skill names are unique (case-insensitively) and kebab-ish
    (letters/digits joined by single hyphens, so `ImageResize` and
    `pdftotext` pass but `foo_bar` or `foo bar` do not);
  * descriptions are 80-400 characters;
  * every name in a case's `expect` exists, `none` cases expect nothing and
    every other case expects something;
  * `short` requests are 1-3 words and `long` requests are chatty
    (at least two sentences and 25 words);
  * `paraphrase` requests share no content word with the names and
    descriptions of their expected skills (see `content_words`);
  * `lexical` requests share at least one content word with one of their
    expected skills;
  * counts per kind, share of paraphrase (>= 25 %) and none (3-8 %) cases,
    and coverage (>= 110 skills expected by at least one case).

Prints a summary; exits 1 if any check fails.
"""
import json
import os
import re
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))

KINDS = ("lexical", "paraphrase", "short", "long", "none")
MIN_SKILLS = 130
MIN_CASES = 320
MIN_COVERAGE = 110
MIN_PARAPHRASE_SHARE = 0.25
NONE_SHARE = (0.03, 0.08)

# Small, deliberately conservative stop-word list: function words only.
STOP = set(
    """
    the and for with from into are was were been this that these those
    your yours our ours their theirs them they what which who whom whose
    when where why how can could would should will does did have has had
    not than then there any all some just also about please want use used
    using like such each very much more most other own only over its
   
    """.split()
)
PREFIX_MIN = 5  # treat stems as the same word if one is a prefix of the other and both have >= 5 letters

NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*$")


def stem(w):
    """Crude stemmer: strip one plural/-ing/-ed suffix, then a final 'e'."""
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    else:
        for suf in ("ing", "ed", "es", "s"):
            if w.endswith(suf) and len(w) - len(suf) >= 3:
                w = w[: -len(suf)]
                break
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    return w


def content_words(text):
    """Lowercased words of 3+ characters, minus stop words, crudely stemmed."""
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)  # split CamelCase names
    out = set()
    for w in re.split(r"[\W_]+", text.lower()):
        if len(w) < 3 or w in STOP:
            continue
        out.add(stem(w))
    return out


def same_word(a, b):
    if a == b:
        return True
    if min(len(a), len(b)) >= PREFIX_MIN and (a.startswith(b) or b.startswith(a)):
        return True
    return False


def shared(request_words, skill_words):
    return sorted({a for a in request_words for b in skill_words if same_word(a, b)})


def main():
    errors = []
    warnings = []

    def err(msg):
        errors.append(msg)

    try:
        with open(os.path.join(HERE, "skills.json"), encoding="utf-8") as f:
            skills = json.load(f)
        with open(os.path.join(HERE, "cases.json"), encoding="utf-8") as f:
            cases = json.load(f)
    except (OSError, ValueError) as e:
        print(f"FAIL: cannot load JSON: {e}")
        return 1

    if not isinstance(skills, list) or not isinstance(cases, list):
        print("FAIL: skills.json and cases.json must both be JSON arrays")
        return 1

    # ---- skills ----
    by_name = {}
    seen_lower = set()
    for i, s in enumerate(skills):
        if not isinstance(s, dict) or set(s) != {"name", "description"}:
            err(f"skill #{i}: must be an object with exactly 'name' and 'description'")
            continue
        name, desc = s["name"], s["description"]
        if not isinstance(name, str) or not NAME_RE.match(name):
            err(f"skill #{i}: name {name!r} is not kebab-ish")
            continue
        if name.lower() in seen_lower:
            err(f"skill #{i}: duplicate name {name!r}")
        seen_lower.add(name.lower())
        if not isinstance(desc, str) or not (80 <= len(desc) <= 400):
            err(f"skill {name}: description length {len(desc) if isinstance(desc, str) else '?'} not in 80..400")
        by_name[name] = s
    if len(skills) < MIN_SKILLS:
        err(f"only {len(skills)} skills (want >= {MIN_SKILLS})")

    skill_words = {n: content_words(n.replace("-", " ")) | content_words(s["description"]) for n, s in by_name.items()}

    # ---- cases ----
    kinds = Counter()
    covered = Counter()
    tags = Counter()
    langs = Counter()
    seen_requests = set()
    multi = 0
    for i, c in enumerate(cases):
        where = f"case #{i}"
        if not isinstance(c, dict) or not {"request", "expect", "kind"} <= set(c):
            err(f"{where}: needs 'request', 'expect' and 'kind'")
            continue
        extra = set(c) - {"request", "expect", "kind", "tags", "lang"}
        if extra:
            err(f"{where}: unknown fields {sorted(extra)}")
        req, expect, kind = c["request"], c["expect"], c["kind"]
        where = f"case #{i} ({req!r})"
        if not isinstance(req, str) or not req.strip():
            err(f"{where}: empty request")
            continue
        key = " ".join(req.lower().split())
        if key in seen_requests:
            err(f"{where}: duplicate request")
        seen_requests.add(key)
        if kind not in KINDS:
            err(f"{where}: unknown kind {kind!r}")
            continue
        kinds[kind] += 1
        if not isinstance(expect, list) or len(set(expect)) != len(expect):
            err(f"{where}: expect must be a list without duplicates")
            continue
        for n in expect:
            if n not in by_name:
                err(f"{where}: expects unknown skill {n!r}")
        expect = [n for n in expect if n in by_name]
        covered.update(expect)
        if len(expect) > 1:
            multi += 1
        if kind == "none" and expect:
            err(f"{where}: kind 'none' must expect []")
        if kind != "none" and not expect:
            err(f"{where}: only kind 'none' may expect []")
        for t in c.get("tags", []):
            tags[t] += 1
        if "lang" in c:
            langs[c["lang"]] += 1

        words = req.split()
        if kind == "short" and not (1 <= len(words) <= 3):
            err(f"{where}: 'short' must be 1-3 words, has {len(words)}")
        if kind == "long":
            sentences = [x for x in re.split(r"[.!?]+(?:\s|$)", req) if x.strip()]
            if len(sentences) < 2 or len(words) < 25:
                err(f"{where}: 'long' should be >= 2 sentences and >= 25 words")
        rw = content_words(req)
        if kind == "paraphrase":
            for n in expect:
                common = shared(rw, skill_words[n])
                if common:
                    err(f"{where}: paraphrase shares {common} with {n}")
        if kind == "lexical" and expect:
            if not any(shared(rw, skill_words[n]) for n in expect):
                err(f"{where}: lexical but shares no content word with {expect}")

    total = len(cases)
    if total < MIN_CASES:
        err(f"only {total} cases (want >= {MIN_CASES})")
    if total:
        p = kinds["paraphrase"] / total
        if p < MIN_PARAPHRASE_SHARE:
            err(f"paraphrase share {p:.1%} < {MIN_PARAPHRASE_SHARE:.0%}")
        nshare = kinds["none"] / total
        if not (NONE_SHARE[0] <= nshare <= NONE_SHARE[1]):
            err(f"none share {nshare:.1%} outside {NONE_SHARE[0]:.0%}..{NONE_SHARE[1]:.0%}")
    if len(covered) < MIN_COVERAGE:
        err(f"only {len(covered)} skills are expected by some case (want >= {MIN_COVERAGE})")
    uncovered = sorted(set(by_name) - set(covered))

    # ---- report ----
    print(f"skills: {len(skills)}")
    print(f"cases:  {total}")
    for k in KINDS:
        print(f"  {k:<11}{kinds[k]:>4}  ({kinds[k] / max(total, 1):.1%})")
    print(f"  multi-answer cases: {multi}")
    for t, n in sorted(tags.items()):
        print(f"  tagged {t}: {n} ({n / max(total, 1):.1%})")
    if langs:
        print(f"  non-English: {sum(langs.values())} ({sum(langs.values()) / max(total, 1):.1%}) {dict(sorted(langs.items()))}")
    print(f"coverage: {len(covered)}/{len(by_name)} skills expected by >= 1 case")
    if uncovered:
        print(f"  never expected: {', '.join(uncovered)}")
    for w in warnings:
        print(f"warning: {w}")
    if errors:
        for e in errors:
            print(f"ERROR: {e}")
        print(f"FAIL ({len(errors)} errors)")
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
