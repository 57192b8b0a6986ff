use super::*;

fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

#[test]
fn variables_expand_with_defaults_and_unset_ones_are_named() {
    let vars = env(&[("TOKEN", "abc"), ("EMPTY", "")]);
    assert_eq!(expand("Bearer ${TOKEN}", &vars).unwrap(), "Bearer abc");
    assert_eq!(expand("${NOPE:-x}/${EMPTY:-y}", &vars).unwrap(), "x/y");
    assert_eq!(expand("$TOKEN stays", &vars).unwrap(), "$TOKEN stays");
    assert!(
        expand("${NOPE}", &vars)
            .unwrap_err()
            .to_string()
            .contains("${NOPE} is not set")
    );
    assert!(expand("${TOKEN", &vars).is_err());
}

#[test]
fn claude_code_files_load_and_bad_entries_are_named() {
    let text = r#"{"mcpServers": {
        "time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "${TZ:-UTC}"}, "autoApprove": ["*"]},
        "docs": {"type": "http", "url": "https://x/mcp", "headers": {"Authorization": "Bearer ${T}"}},
        "old": {"type": "sse", "url": "https://x/sse"},
        "bad__name": {"command": "x"},
        "nothing": {}
    }, "other": 1}"#;
    let file: ConfigFile = serde_json::from_str(text).unwrap();
    let (servers, problems) = servers_of(&file, Path::new("/p/.mcp.json"), Origin::Project);
    let names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["docs", "time"]);
    assert!(
        servers.iter().all(|s| s.auto_approve.is_empty()),
        "a project cannot auto-approve"
    );
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(problems.iter().any(|p| p.contains("\"old\"") && p.contains("SSE")));
    let (user, _) = servers_of(&file, Path::new("/u/mcp.json"), Origin::User);
    assert_eq!(user.iter().find(|s| s.name == "time").unwrap().auto_approve, ["*"]);
    let expanded = user[1].transport.expanded(&env(&[])).unwrap();
    assert_eq!(
        expanded,
        Transport::Stdio {
            command: "uvx".into(),
            args: vec!["mcp-server-time".into()],
            env: env(&[("TZ", "UTC")])
        }
    );
}

#[test]
fn a_project_server_cannot_take_a_user_name_and_files_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("u/mcp.json");
    let project = dir.path().join(".mcp.json");
    let mut file = ConfigFile::default();
    file.servers.insert(
        "time".into(),
        RawServer {
            command: Some("a".into()),
            ..RawServer::default()
        },
    );
    file.other.insert("keep".into(), Value::from(true));
    write_file(&user, &file).unwrap();
    std::fs::write(
        &project,
        r#"{"mcpServers": {"time": {"command": "b"}, "p": {"command": "c"}}}"#,
    )
    .unwrap();
    let (servers, problems) = load(Some(&user), Some(&project));
    assert_eq!(servers.len(), 2);
    assert_eq!(servers[0].transport.describe(), "a");
    assert_eq!(servers[1].origin, Origin::Project);
    assert!(problems[0].contains("already has one of that name"));
    assert!(read_file(&user).unwrap().other.contains_key("keep"));
    assert!(load(None, None).0.is_empty());
    std::fs::write(&project, "{").unwrap();
    assert!(load(None, Some(&project)).1[0].contains("not a valid MCP configuration"));
}

#[test]
fn credentials_in_urls_are_masked_wherever_they_show() {
    assert_eq!(masked_url("http://alice:PASSWORD@h:1/mcp"), "http://alice:***@h:1/mcp");
    assert_eq!(
        masked_url("https://ghp_abcdef123456@api.x/mcp"),
        "https://***@api.x/mcp"
    );
    let q = masked_url("https://x/mcp?api_key=SECRET1&region=eu&access_token=T0KEN");
    assert!(!q.contains("SECRET1") && !q.contains("T0KEN"), "{q}");
    assert!(q.contains("region=eu"), "{q}");
    assert_eq!(masked_url("https://x/mcp"), "https://x/mcp");
    assert_eq!(masked_url("${URL}"), "${URL}");
    let err = masked_urls_in("error sending request for url (http://bob:hunter22@127.0.0.1:9/mcp): refused");
    assert_eq!(
        err,
        "error sending request for url (http://bob:***@127.0.0.1:9/mcp): refused"
    );
    let http = Transport::Http {
        url: "http://alice:PASSWORD@h/mcp".into(),
        headers: BTreeMap::new(),
    };
    assert!(!http.describe().contains("PASSWORD"));
}

#[test]
fn servers_start_in_their_files_folder_or_the_folder_they_name() {
    let text = r#"{"mcpServers": {
        "a": {"command": "python3", "args": ["-m", "mod"]},
        "b": {"command": "./srv", "cwd": "servers"},
        "c": {"command": "x", "cwd": "/opt/srv"}
    }}"#;
    let file: ConfigFile = serde_json::from_str(text).unwrap();
    let (servers, _) = servers_of(&file, Path::new("/home/u/.config/agent/mcp.json"), Origin::User);
    let dirs: Vec<&Path> = servers.iter().map(|s| s.dir.as_path()).collect();
    assert_eq!(
        dirs,
        [
            Path::new("/home/u/.config/agent"),
            Path::new("/home/u/.config/agent/servers"),
            Path::new("/opt/srv")
        ]
    );
}
