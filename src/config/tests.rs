use super::*;
use crate::skills::roots::RootKind;
use clap::Parser;

fn resolve(args: &[&str], process: &[(&str, &str)], dotenv: &[(&str, &str)]) -> Result<Config, AppError> {
    let mut argv = vec!["agent"];
    argv.extend_from_slice(args);
    let cli = Cli::parse_from(argv);
    let c = Config::resolve(
        &cli,
        Environment::from_maps(process, dotenv, &[]),
        Path::new("/tmp"),
        false,
    )?;
    c.require_key()?;
    Ok(c)
}

#[test]
fn flag_beats_env_beats_dotenv_beats_default() {
    let env = [("AGENT_MODEL", "from-env"), ("AGENT_API_KEY", "k")];
    let dot = [("AGENT_MODEL", "from-dotenv"), ("AGENT_TIMEOUT", "7")];
    let c = resolve(&["--model", "from-flag"], &env, &dot).unwrap();
    assert_eq!(c.model, "from-flag");
    let c = resolve(&[], &env, &dot).unwrap();
    assert_eq!(c.model, "from-env");
    assert_eq!(c.command_timeout, Duration::from_secs(7));
    let c = resolve(&[], &[("AGENT_API_KEY", "k")], &dot).unwrap();
    assert_eq!(c.model, "from-dotenv");
    let c = resolve(&[], &[("AGENT_API_KEY", "k")], &[]).unwrap();
    assert_eq!(c.model, provider::OPENAI_MODEL);
    assert_eq!(c.base_url, provider::OPENAI_BASE_URL);
    assert_eq!(c.max_steps, 10);
}

#[test]
fn the_trusted_folder_env_beats_the_users_env_file() {
    let env = Environment::from_maps(
        &[("AGENT_TIMEOUT", "1")],
        &[("AGENT_MODEL", "folder"), ("A", "f")],
        &[("AGENT_MODEL", "user"), ("AGENT_TIMEOUT", "9"), ("B", "u")],
    );
    assert_eq!(env.get("AGENT_MODEL"), Some("folder"));
    assert_eq!(env.get("AGENT_TIMEOUT"), Some("1"));
    let merged = env.merged();
    assert_eq!((merged["A"].as_str(), merged["B"].as_str()), ("f", "u"));
    assert_eq!(merged["AGENT_TIMEOUT"], "1");
}

#[test]
fn agent_key_wins_over_openai_key() {
    let c = resolve(&[], &[("OPENAI_API_KEY", "o"), ("AGENT_API_KEY", "a")], &[]).unwrap();
    let key = c.api_key.unwrap();
    assert_eq!((key.value.as_str(), key.var), ("a", "AGENT_API_KEY"));
}

#[test]
fn missing_key_is_a_config_error_naming_both_variables() {
    let err = resolve(&[], &[], &[]).unwrap_err();
    assert_eq!(err.code, crate::exit::ExitCode::Config);
    assert!(err.message.contains("AGENT_API_KEY") && err.message.contains("OPENAI_API_KEY"));
    assert!(err.message.contains("ANTHROPIC_API_KEY"), "{}", err.message);
    assert!(err.message.contains(".env"));
}

#[test]
fn an_anthropic_key_alone_selects_its_api_url_and_model() {
    let c = resolve(&[], &[("ANTHROPIC_API_KEY", "a")], &[]).unwrap();
    assert_eq!(c.provider, Provider::Anthropic);
    assert_eq!(c.base_url, crate::llm::anthropic::DEFAULT_BASE_URL);
    assert_eq!(c.model, crate::llm::anthropic::DEFAULT_MODEL);
    let proxy = resolve(
        &[],
        &[("ANTHROPIC_API_KEY", "a"), ("ANTHROPIC_BASE_URL", "http://gw:4000")],
        &[],
    )
    .unwrap();
    assert_eq!(
        (proxy.base_url.as_str(), proxy.base_url_given),
        ("http://gw:4000", true)
    );
    let err = resolve(&[], &[("AGENT_PROVIDER", "anthropic")], &[]).unwrap_err();
    assert!(
        err.message.contains("ANTHROPIC_API_KEY") && err.message.contains("OPENAI_API_KEY"),
        "{}",
        err.message
    );
    let err = resolve(&[], &[("AGENT_API_KEY", "k"), ("AGENT_MAX_TOKENS", "0")], &[]).unwrap_err();
    assert!(err.message.contains("AGENT_MAX_TOKENS"), "{}", err.message);
}

#[test]
fn local_servers_need_no_key() {
    for url in [
        "http://localhost:11434/v1",
        "http://127.0.0.1:8080/v1",
        "http://192.168.1.9:8000/v1",
        "http://ollama:11434/v1",
    ] {
        assert!(resolve(&[], &[("AGENT_BASE_URL", url)], &[]).is_ok(), "{url}");
    }
    assert!(resolve(&[], &[("AGENT_BASE_URL", "https://api.example.com/v1")], &[]).is_err());
}

#[test]
fn malformed_url_is_a_config_error() {
    for url in ["not a url", "ftp://host/v1", "localhost:11434"] {
        let err = resolve(&["--base-url", url], &[("AGENT_API_KEY", "k")], &[]).unwrap_err();
        assert_eq!(err.code, crate::exit::ExitCode::Config, "{url}");
    }
}

#[test]
fn approval_defaults_and_overrides() {
    let key = ("AGENT_API_KEY", "k");
    assert_eq!(resolve(&["--yes"], &[key], &[]).unwrap().approve, ApprovalPolicy::Yes);
    assert_eq!(
        resolve(&["--approve", "no"], &[key], &[]).unwrap().approve,
        ApprovalPolicy::No
    );
    assert_eq!(
        resolve(&[], &[key, ("AGENT_APPROVE", "yes")], &[]).unwrap().approve,
        ApprovalPolicy::Yes
    );
    assert!(resolve(&[], &[key, ("AGENT_APPROVE", "maybe")], &[]).is_err());
}

use crate::skills::roots::Tool;

#[test]
fn skill_roots_follow_the_spec_order() {
    let c = resolve(
        &[],
        &[
            ("AGENT_API_KEY", "k"),
            ("AGENT_SKILLS_PATH", "/a:/b"),
            ("HOME", "/home/u"),
        ],
        &[],
    )
    .unwrap();
    let roots: Vec<String> = c.skill_roots.iter().map(|r| r.path.display().to_string()).collect();
    assert_eq!(
        roots,
        [
            "/a",
            "/b",
            "/tmp/.agents/skills",
            "/tmp/skills",
            "/home/u/.agents/skills",
            "/home/u/.skills",
            "/tmp/.claude/skills",
            "/tmp/.codex/skills",
            "/tmp/.gemini/skills",
            "/tmp/.opencode/skills",
            "/home/u/.claude/skills",
            "/home/u/.codex/skills",
            "/home/u/.gemini/skills",
            "/home/u/.config/opencode/skills",
        ]
    );
    let kinds: Vec<(RootKind, Tool)> = c.skill_roots.iter().map(|r| (r.kind, r.tool)).collect();
    assert_eq!(kinds[6], (RootKind::Project, Tool::Claude));
    assert_eq!(kinds[13], (RootKind::User, Tool::Opencode));
    let only = resolve(
        &[],
        &[
            ("AGENT_API_KEY", "k"),
            ("HOME", "/h"),
            ("AGENT_OTHER_AGENTS", "gemini"),
            ("AGENT_BUNDLED_SKILLS", "0"),
        ],
        &[],
    )
    .unwrap();
    let tools: Vec<Tool> = only.skill_roots.iter().map(|r| r.tool).collect();
    assert_eq!(
        tools,
        [
            Tool::Agent,
            Tool::Agent,
            Tool::Agent,
            Tool::Agent,
            Tool::Gemini,
            Tool::Gemini
        ]
    );
    let none = resolve(&[], &[("AGENT_API_KEY", "k"), ("AGENT_OTHER_AGENTS", "none")], &[]).unwrap();
    assert!(none.skill_roots.iter().all(|r| r.tool == Tool::Agent));
    let err = resolve(&[], &[("AGENT_API_KEY", "k"), ("AGENT_OTHER_AGENTS", "cursor")], &[]).unwrap_err();
    assert_eq!(err.code, crate::exit::ExitCode::Config);
}

#[test]
fn a_bad_price_entry_exits_3_with_the_entry_kept_beneath() {
    let err = resolve(&[], &[("AGENT_API_KEY", "k"), ("AGENT_PRICES", "m=a,b")], &[]).unwrap_err();
    assert_eq!(err.code, crate::exit::ExitCode::Config);
    assert!(
        err.message.starts_with("AGENT_PRICES entry \"m=a,b\""),
        "{}",
        err.message
    );
    let kept = std::error::Error::source(&err).and_then(|s| s.downcast_ref::<crate::llm::prices::BadPrice>());
    assert_eq!(kept.map(|b| b.entry.as_str()), Some("m=a,b"));
}
