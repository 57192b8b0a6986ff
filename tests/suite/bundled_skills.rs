//! Each bundled skill's real script, run offline (network services replaced by 127.0.0.1 mocks),
//! plus the whole loop over the bundled skills folder.

use std::path::PathBuf;
use std::process::Command;

use crate::common::*;
use serde_json::json;
use wiremock::matchers::{header, method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn skill_dir(name: &str) -> PathBuf {
    repo_path("skills").join(name)
}

/// Run a skill script the way the agent does: `sh -c` in the skill folder, stdin empty.
fn run_script(skill: &str, command: &str, env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(command)
        .current_dir(skill_dir(skill))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap())
        .stdin(std::process::Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[tokio::test]
async fn weather_script_queries_the_service_with_an_encoded_place() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/New%20York"))
        .and(query_param("format", "3"))
        .respond_with(ResponseTemplate::new(200).set_body_string("New York: ⛅️ +8°C\n"))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/Nowhere"))
        .respond_with(ResponseTemplate::new(404).set_body_string("Unknown location"))
        .mount(&server)
        .await;
    let base = server.uri();
    let ok = tokio::task::spawn_blocking({
        let base = base.clone();
        move || run_script("weather", "./run.sh 'New York'", &[("WEATHER_BASE_URL", &base)])
    })
    .await
    .unwrap();
    assert_eq!(ok.status.code(), Some(0), "{}", String::from_utf8_lossy(&ok.stderr));
    assert_eq!(stdout(&ok), "New York: ⛅️ +8°C\n");
    let bad =
        tokio::task::spawn_blocking(move || run_script("weather", "./run.sh Nowhere", &[("WEATHER_BASE_URL", &base)]))
            .await
            .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(!bad.stderr.is_empty());
    let none = run_script("weather", "./run.sh", &[]);
    assert_eq!(none.status.code(), Some(2));
}

#[tokio::test]
async fn github_script_sends_the_token_from_the_environment() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/repos/octo/hello"))
        .and(header("authorization", "Bearer ghp_test_token_123"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "full_name": "octo/hello", "description": "Hello world", "stargazers_count": 42, "forks_count": 7,
            "open_issues_count": 3, "default_branch": "main", "language": "Rust", "pushed_at": "2026-11-01T00:00:00Z",
            "html_url": "https://github.com/octo/hello"
        })))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/repos/octo/hello/issues"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!([
            {"number": 5, "title": "Crash on start", "user": {"login": "amy"}, "comments": 2},
            {"number": 4, "title": "A PR", "user": {"login": "bo"}, "comments": 0, "pull_request": {}}
        ])))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/repos/octo/missing"))
        .respond_with(ResponseTemplate::new(404).set_body_json(json!({"message": "Not Found"})))
        .mount(&server)
        .await;
    let base = server.uri();
    let env = [
        ("GITHUB_API_URL", base.as_str()),
        ("GITHUB_TOKEN", "ghp_test_token_123"),
    ];
    let (repo, issues, missing, bad) = tokio::task::spawn_blocking({
        let env: Vec<(String, String)> = env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move || {
            let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            (
                run_script("github", "./run.sh repo octo/hello", &env),
                run_script("github", "./run.sh issues octo/hello 5", &env),
                run_script("github", "./run.sh repo octo/missing", &env),
                run_script("github", "./run.sh repo 'octo/hello;id'", &env),
            )
        }
    })
    .await
    .unwrap();
    assert_eq!(repo.status.code(), Some(0), "{}", String::from_utf8_lossy(&repo.stderr));
    assert!(
        stdout(&repo).contains("octo/hello: Hello world") && stdout(&repo).contains("stars: 42"),
        "{}",
        stdout(&repo)
    );
    assert_eq!(stdout(&issues), "#5 Crash on start (@amy, 2 comments)\n");
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("Not Found"));
    assert_eq!(bad.status.code(), Some(2));
    // The token was sent as a header, not as a command-line argument.
    let script = std::fs::read_to_string(skill_dir("github").join("run.sh")).unwrap();
    assert!(script.contains("-H @-"));
}

#[test]
fn database_script_reads_and_refuses_writes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("shop.db");
    let made = Command::new("sqlite3")
        .arg(&db)
        .arg("CREATE TABLE item(name TEXT, price INT); INSERT INTO item VALUES ('tea', 3), ('cake', 5);")
        .status()
        .unwrap();
    assert!(made.success());
    let db = db.to_str().unwrap();
    let schema = run_script("database", "scripts/schema.sh", &[("SQLITE_DB", db)]);
    assert!(
        stdout(&schema).contains("CREATE TABLE item"),
        "{}",
        String::from_utf8_lossy(&schema.stderr)
    );
    let rows = run_script(
        "database",
        "scripts/query.sh 'SELECT name, price FROM item ORDER BY price DESC'",
        &[("SQLITE_DB", db)],
    );
    assert_eq!(stdout(&rows), "name | price\ncake | 5\ntea | 3\n");
    for write in [
        "DELETE FROM item",
        "DROP TABLE item",
        ".shell touch /tmp/x",
        "PRAGMA writable_schema=1",
    ] {
        let out = run_script("database", &format!("scripts/query.sh '{write}'"), &[("SQLITE_DB", db)]);
        assert_eq!(out.status.code(), Some(3), "{write}");
    }
    let sneaky = run_script(
        "database",
        "scripts/query.sh 'WITH x AS (SELECT 1) DELETE FROM item'",
        &[("SQLITE_DB", db)],
    );
    assert_ne!(sneaky.status.code(), Some(0));
    let count = run_script(
        "database",
        "scripts/query.sh 'SELECT count(*) AS n FROM item'",
        &[("SQLITE_DB", db)],
    );
    assert_eq!(stdout(&count), "n\n2\n");
    let unset = run_script("database", "scripts/schema.sh", &[]);
    assert_eq!(unset.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&unset.stderr).contains("SQLITE_DB"));
}

#[test]
fn time_script_works_offline() {
    let out = run_script("time", "./run.sh Tokyo 'new york' UTC", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(
        lines[0].starts_with("Tokyo (Asia/Tokyo): ") && lines[0].contains("UTC+09:00"),
        "{}",
        lines[0]
    );
    assert!(lines[1].starts_with("new york (America/New_York): "), "{}", lines[1]);
    assert!(
        lines[2].starts_with("UTC (UTC): ") && lines[2].contains("UTC+00:00"),
        "{}",
        lines[2]
    );
    let more = run_script("time", "./run.sh 'sao paulo' KOLKATA", &[]);
    let text = stdout(&more);
    assert!(text.contains("sao paulo (America/Sao_Paulo): "), "{text}");
    assert!(
        text.contains("KOLKATA (Asia/Kolkata): ") && text.contains("UTC+05:30"),
        "{text}"
    );
    // A city of several words typed without quotes is one place; a word that is one stays one.
    let unquoted = run_script("time", "./run.sh New York Paris Ho Chi Minh", &[]);
    assert_eq!(
        unquoted.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&unquoted.stderr)
    );
    let text = stdout(&unquoted);
    let places: Vec<&str> = text.lines().map(|l| l.split(" (").next().unwrap()).collect();
    assert_eq!(places, ["New York", "Paris", "Ho Chi Minh"], "{text}");
    for bad in ["Atlantis", "../../../etc/passwd"] {
        let out = run_script("time", &format!("./run.sh {bad}"), &[]);
        assert_eq!(out.status.code(), Some(1), "{bad}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("unknown place"), "{bad}");
    }
}

#[test]
fn bundled_skills_load_without_warnings() {
    let ws = Workspace::new();
    let out = ws
        .bare_agent()
        .args(["skills", "list", "--json", "--skills-dir"])
        .arg(skill_dir("..").join("skills"))
        .output()
        .unwrap();
    let listing: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names = listed_names(&listing);
    for expected in ["database", "github", "time", "weather"] {
        assert!(names.iter().any(|n| n == expected), "{names:?}");
    }
    for s in listing["skills"].as_array().unwrap() {
        assert_eq!(s["warnings"], 0, "{s}");
    }
}

/// `agent --once "weather in Tokyo"` over the bundled skills, the weather service mocked.
#[tokio::test]
async fn weather_in_tokyo_end_to_end_with_bundled_skills() {
    let weather = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/Tokyo"))
        .respond_with(ResponseTemplate::new(200).set_body_string("Tokyo: ☀️ +12°C\n"))
        .mount(&weather)
        .await;
    let mock = MockLlm::start(activate_run_answer("weather", "./run.sh Tokyo", "Tokyo: sunny, +12°C.")).await;
    let ws = Workspace::new();
    let mut cmd = ws.bare_agent();
    cmd.env("AGENT_BASE_URL", mock.base_url())
        .env("WEATHER_BASE_URL", weather.uri())
        .arg("--skills-dir")
        .arg(skill_dir("..").join("skills"))
        .args(["--once", "weather in Tokyo"]);
    let out = run_output(cmd).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stdout(&out), "Tokyo: sunny, +12°C.\n");
    let reqs = mock.requests().await;
    let catalog = &contents(&reqs[0], "system")[0];
    for name in ["weather:", "github:", "database:", "time:"] {
        assert!(catalog.contains(name), "{catalog}");
    }
    eprintln!(
        "bundled-skills first request: {} bytes",
        mock.raw_requests().await[0].body.len()
    );
    assert!(contents(&reqs[2], "tool").last().unwrap().contains("Tokyo: ☀️ +12°C"));
}
