#!/bin/sh
# Read-only GitHub lookups. The token comes from GITHUB_TOKEN and is sent through stdin, never argv.
set -eu

usage() {
    echo "usage: ./run.sh repo OWNER/NAME | issues OWNER/NAME [N] | prs OWNER/NAME [N] | user LOGIN" >&2
    exit 2
}
[ $# -ge 2 ] || usage
cmd=$1 target=$2 count=${3:-10}
case $count in ''|*[!0-9]*) echo "count must be a number, got '$count'" >&2; exit 2 ;; esac
case $cmd in
    repo|issues|prs)
        printf '%s' "$target" | grep -Eq '^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$' || { echo "expected OWNER/NAME, got '$target'" >&2; exit 2; } ;;
    user)
        printf '%s' "$target" | grep -Eq '^[A-Za-z0-9-]+$' || { echo "expected a GitHub login, got '$target'" >&2; exit 2; } ;;
    *) usage ;;
esac
command -v jq >/dev/null 2>&1 || { echo "this skill needs jq (apt-get install jq)" >&2; exit 1; }

# GET an API path, print the JSON body; exit 1 with the API's message on failure.
api() {
    if [ -z "${GITHUB_API_URL:-}" ] && command -v gh >/dev/null 2>&1; then
        gh api "$1" 2>&1 || { echo "gh api $1 failed" >&2; exit 1; }
        return
    fi
    base=${GITHUB_API_URL:-https://api.github.com}
    tmp=$(mktemp)
    trap 'rm -f "$tmp"' EXIT
    if [ -n "${GITHUB_TOKEN:-}" ]; then
        auth="Authorization: Bearer $GITHUB_TOKEN"
    else
        auth="X-No-Auth: 1"
    fi
    code=$(printf '%s\n' "$auth" | curl -sS --max-time 20 -o "$tmp" -w '%{http_code}' \
        -H @- -H 'Accept: application/vnd.github+json' -H 'X-GitHub-Api-Version: 2022-11-28' \
        "$base/$1") || { echo "cannot reach $base" >&2; exit 1; }
    if [ "$code" -ge 400 ]; then
        msg=$(jq -r '.message // empty' "$tmp" 2>/dev/null || true)
        echo "GitHub API $code for $1: ${msg:-no message}" >&2
        exit 1
    fi
    cat "$tmp"
}

case $cmd in
    repo)
        json=$(api "repos/$target")
        printf '%s' "$json" | jq -r '"\(.full_name): \(.description // "no description")",
            "stars: \(.stargazers_count)  forks: \(.forks_count)  open issues: \(.open_issues_count)",
            "default branch: \(.default_branch)  language: \(.language // "n/a")  updated: \(.pushed_at)",
            .html_url' ;;
    issues)
        json=$(api "repos/$target/issues?state=open&per_page=$count")
        printf '%s' "$json" | jq -r '[.[] | select(.pull_request | not)] | if length == 0 then "no open issues" else .[] | "#\(.number) \(.title) (@\(.user.login), \(.comments) comments)" end' ;;
    prs)
        json=$(api "repos/$target/pulls?state=open&per_page=$count")
        printf '%s' "$json" | jq -r 'if length == 0 then "no open pull requests" else .[] | "#\(.number) \(.title) (@\(.user.login))" end' ;;
    user)
        json=$(api "users/$target")
        printf '%s' "$json" | jq -r '"\(.login): \(.name // "no name") — \(.bio // "no bio")",
            "public repos: \(.public_repos)  followers: \(.followers)", .html_url' ;;
esac
