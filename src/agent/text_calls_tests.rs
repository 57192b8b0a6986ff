use super::*;

fn offer() -> (Vec<String>, Vec<String>) {
    (
        ["activate_skill", "run_command", "read_skill_file", "mcp__time__now"]
            .map(String::from)
            .to_vec(),
        ["time", "weather", "PDF-Tools"].map(String::from).to_vec(),
    )
}

fn read_text(text: &str) -> Reading {
    let (tools, skills) = offer();
    read(
        text,
        &Offer {
            tools: &tools,
            skills: &skills,
        },
    )
}

fn one(text: &str) -> (String, Value) {
    match read_text(text) {
        Reading::Calls { calls, .. } => {
            assert_eq!(calls.len(), 1, "{text}");
            (
                calls[0].name.clone(),
                serde_json::from_str(&calls[0].arguments).unwrap(),
            )
        }
        other => panic!("{text:?} read as {other:?}"),
    }
}

#[test]
fn the_shapes_small_models_write_are_read_as_calls() {
    let cases = [
        // What Qwen2.5-Coder-1.5B wrote for "weather in Tokyo".
        "```json\n{\"function\": \"run_command\", \"arguments\": {\"command\": \"curl wttr.in/Tokyo\"}}\n```",
        "<tools>{\"name\": \"run_command\", \"arguments\": {\"command\": \"curl wttr.in/Tokyo\"}}</tools>",
        "<tool_call>\n{\"name\": \"run_command\", \"arguments\": {\"command\": \"curl wttr.in/Tokyo\"}}\n</tool_call>",
        "{\"name\": \"run_command\", \"parameters\": {\"command\": \"curl wttr.in/Tokyo\"}}",
        "{\"name\": \"run_command\", \"arguments\": \"{\\\"command\\\": \\\"curl wttr.in/Tokyo\\\"}\"}",
        "{\"type\": \"function\", \"function\": {\"name\": \"run_command\", \"arguments\": {\"command\": \"curl wttr.in/Tokyo\"}}}",
        "[TOOL_CALLS] [{\"name\": \"run_command\", \"arguments\": {\"command\": \"curl wttr.in/Tokyo\"}}]",
        "<|python_tag|>{\"name\": \"functions.run_command\", \"parameters\": {\"command\": \"curl wttr.in/Tokyo\"}}",
        "I will check the weather.\n```\n{\"name\": \"run_command\", \"arguments\": {\"command\": \"curl wttr.in/Tokyo\"}}\n```",
        "<tool_call>\n{\"name\": \"run_command\", \"arguments\": {\"command\": \"curl wttr.in/Tokyo\"}}",
        // Doubled braces, then the output the model imagined (what it wrote on the bench).
        "{{\"name\": \"run_command\", \"arguments\": {\"command\": \"curl wttr.in/Tokyo\"}}}}\n```\n+12 C\n```\n</tool_response>",
    ];
    for text in cases {
        let (name, args) = one(text);
        assert_eq!(name, "run_command", "{text}");
        assert_eq!(args["command"], "curl wttr.in/Tokyo", "{text}");
    }
}

#[test]
fn a_skill_named_as_a_tool_activates_it() {
    // What the model wrote for "What time is it in Tokyo right now?".
    let (name, args) = one("```json\n{\"name\": \"time\", \"arguments\": {}}\n```");
    assert_eq!(name, "activate_skill");
    assert_eq!(args["name"], "time");
    let (_, args) = one("{\"name\": \"pdf-tools\", \"arguments\": {\"file\": \"a.pdf\"}}");
    assert_eq!(args["name"], "PDF-Tools", "the skill's own spelling");
}

#[test]
fn parallel_calls_are_all_taken() {
    let text = "<tool_call>\n{\"name\": \"activate_skill\", \"arguments\": {\"name\": \"time\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"mcp__time__now\", \"arguments\": {}}\n</tool_call>";
    let Reading::Calls { calls, shape } = read_text(text) else {
        panic!()
    };
    assert_eq!(shape, "tool_call tags");
    assert_eq!(
        calls.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
        ["activate_skill", "mcp__time__now"]
    );
}

#[test]
fn prose_and_mentions_are_answers() {
    for text in [
        "It is 21:04 in Tokyo.",
        "Run `curl wttr.in/Tokyo` to see the weather.",
        "You could call run_command with {\"command\": \"ls\"} to list files.",
        "[Tokyo weather](https://wttr.in/Tokyo) is sunny.",
        "{\"city\": \"Tokyo\", \"temp\": 21}",
        "{\"name\": \"weather\"}",
        "```bash\ncurl wttr.in/Tokyo\n```",
        "<b>Sunny</b>",
    ] {
        assert_eq!(read_text(text), Reading::Answer, "{text}");
    }
}

#[test]
fn a_call_in_a_long_explanation_or_among_several_blocks_is_not_run() {
    let long = format!(
        "{}\n```json\n{{\"name\": \"run_command\", \"arguments\": {{\"command\": \"rm -rf x\"}}}}\n```",
        "Here is how the tool is used in general. ".repeat(10)
    );
    assert_eq!(read_text(&long), Reading::Answer);
    let two = "```json\n{\"name\": \"run_command\", \"arguments\": {\"command\": \"a\"}}\n```\nor\n```json\n{\"name\": \"run_command\", \"arguments\": {\"command\": \"b\"}}\n```";
    assert_eq!(read_text(two), Reading::Answer);
}

#[test]
fn a_call_of_an_unknown_tool_is_unusable_and_says_why() {
    let Reading::Unusable { why } = read_text("{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Tokyo\"}}")
    else {
        panic!()
    };
    assert!(why.contains("get_weather"), "{why}");
    let Reading::Unusable { why } = read_text("{\"name\": \"run_command\", \"arguments\": 5}") else {
        panic!()
    };
    assert!(why.contains("not a JSON object"), "{why}");
}

#[test]
fn streaming_is_held_only_for_what_may_be_a_call() {
    for start in [
        "{",
        "  [",
        "<tool",
        "```json",
        "<|python_tag|>",
        "Run_command(",
        "`run_command",
    ] {
        assert!(may_be_call(start), "{start}");
    }
    for start in ["It", "Sunny", "1. First", "- item"] {
        assert!(!may_be_call(start), "{start}");
    }
}

#[test]
fn what_the_half_billion_model_wrote_in_one_reply_is_every_call_in_it() {
    let text = "{\"name\": \"activate_skill\", \"arguments\": {\"name\": \"time\"}}\n{\"command\": \"./run.sh Tokyo\"}\n{\"name\": \"run_command\", \"command\": \"./run.sh Oslo\"}";
    let Reading::Calls { calls, .. } = read_text(text) else {
        panic!()
    };
    let got: Vec<(String, Value)> = calls
        .iter()
        .map(|c| (c.name.clone(), serde_json::from_str(&c.arguments).unwrap()))
        .collect();
    assert_eq!(got[0].0, "activate_skill");
    assert_eq!(
        got[1],
        ("run_command".into(), serde_json::json!({"command": "./run.sh Tokyo"}))
    );
    assert_eq!(
        got[2],
        ("run_command".into(), serde_json::json!({"command": "./run.sh Oslo"}))
    );
    // A skill named as a tool, with its command: both.
    let Reading::Calls { calls, .. } =
        read_text("{\"name\": \"time\", \"arguments\": {\"command\": \"./run.sh Tokyo\"}}")
    else {
        panic!()
    };
    assert_eq!(
        calls.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
        ["activate_skill", "run_command"]
    );
    // Data is still data.
    assert_eq!(read_text("{\"command\": \"ls\", \"exit\": 0}"), Reading::Answer);
    assert_eq!(read_text("{\"name\": \"Ada\", \"age\": 36}"), Reading::Answer);
}

#[test]
fn a_tool_name_then_its_arguments_is_that_call() {
    // What the 1.5B model wrote for "Give me a briefing for Tokyo." (bench/real_model).
    for (text, name, args) in [
        (
            "activate_skill\n```\n{\n  \"name\": \"report\"\n}\n```",
            "activate_skill",
            serde_json::json!({"name": "report"}),
        ),
        (
            "run_command({\"command\": \"./run.sh Tokyo\"})",
            "run_command",
            serde_json::json!({"command": "./run.sh Tokyo"}),
        ),
        (
            "functions.activate_skill: {\"name\": \"time\"}",
            "activate_skill",
            serde_json::json!({"name": "time"}),
        ),
    ] {
        let Reading::Calls { calls, shape } = read_text(text) else {
            panic!("{text}")
        };
        assert_eq!(shape, "tool name then json");
        assert_eq!(calls[0].name, name);
        assert_eq!(serde_json::from_str::<Value>(&calls[0].arguments).unwrap(), args);
        assert!(may_be_call(text), "{text}");
    }
    // Prose that names a tool, an unoffered name, a name with no JSON: answers.
    for text in [
        "activate_skill is how a skill starts.",
        "delete_all {\"x\": 1}",
        "run_command ./run.sh Tokyo",
    ] {
        assert_eq!(read_text(text), Reading::Answer, "{text}");
    }
    // While a reply could still grow into a tool's name, streaming waits; prose goes at once.
    assert!(undecided("activ") && undecided("func") && undecided("r"));
    assert!(!undecided("It is") && !undecided("run_command"));
}

#[test]
fn a_reply_of_one_fenced_command_line_is_that_command_and_nothing_else_is() {
    // What the 1.5B model wrote when told to call run_command.
    assert_eq!(
        bare_command("```\n```\n./run.sh Tokyo\n```").as_deref(),
        Some("./run.sh Tokyo")
    );
    assert_eq!(
        bare_command("```sh\n$ python3 scripts/x.py a.csv\n```").as_deref(),
        Some("python3 scripts/x.py a.csv")
    );
    for text in [
        "./run.sh Tokyo",
        "Run this:\n```\n./run.sh Tokyo\n```",
        "```\n./run.sh Tokyo\n./run.sh Oslo\n```",
        "```json\n{\"command\": \"x\"}\n```",
        "```\n# a comment\n```",
    ] {
        assert_eq!(bare_command(text), None, "{text}");
    }
}

#[test]
fn one_quoted_invocation_of_the_skills_own_script_is_found_and_nothing_else() {
    // What the 1.5B model wrote when told to call run_command.
    assert_eq!(
        quoted_own_script("To get the Roman numeral for 1987, run `./scripts/roman.py 1987`").as_deref(),
        Some("./scripts/roman.py 1987")
    );
    assert_eq!(
        quoted_own_script("Run `python3 scripts/x.py a.csv` now.").as_deref(),
        Some("python3 scripts/x.py a.csv")
    );
    for text in [
        "Run `rm -rf ~` to clean up.",
        "Run `./a.sh` then `./b.sh`.",
        "Run `./scripts/x.py; rm -rf ~`",
        "Run `../other/x.sh`",
        "Use `curl wttr.in` here.",
        "No quotes at all: ./scripts/x.py",
    ] {
        assert_eq!(quoted_own_script(text), None, "{text}");
    }
}

#[test]
fn a_call_shown_amid_prose_is_found_but_not_read_as_a_call() {
    let text = format!(
        "{} Here is what I would run:\n\n```json\n{{\"name\": \"activate_skill\", \"arguments\": {{\"name\": \"time\"}}}}\n```\n\nThe result will be 20000.",
        "To find the answer we need to query the data in several careful steps. ".repeat(5)
    );
    assert_eq!(read_text(&text), Reading::Answer);
    let tools = ["activate_skill".to_string(), "run_command".to_string()];
    let skills = ["time".to_string()];
    let offer = Offer {
        tools: &tools,
        skills: &skills,
    };
    assert_eq!(call_in_prose(&text, &offer).as_deref(), Some("activate_skill"));
    // A fenced shell example, or JSON that calls nothing offered, is no call.
    assert_eq!(
        call_in_prose("Run this:\n```sh\n./run.sh Tokyo\n```\nthen read it.", &offer),
        None
    );
    assert_eq!(
        call_in_prose("Data:\n```json\n{\"name\": \"Ada\", \"age\": 36}\n```", &offer),
        None
    );
}

#[test]
fn what_the_model_wrote_after_its_second_chance_is_read_as_the_call() {
    // Backticks around a whole JSON call, and the parameter written after the tool's name.
    for (text, command) in [
        (
            "`{\"name\": \"run_command\", \"arguments\": {\"command\": \"scripts/b64.py encode 'agent skills'\"}}`",
            "scripts/b64.py encode 'agent skills'",
        ),
        ("run_command command: ./run.sh Tokyo", "./run.sh Tokyo"),
        ("run_command: ./run.sh Tokyo", "./run.sh Tokyo"),
    ] {
        let Reading::Calls { calls, .. } = read_text(text) else {
            panic!("{text}")
        };
        assert_eq!(calls[0].name, "run_command", "{text}");
        let args: Value = serde_json::from_str(&calls[0].arguments).unwrap();
        assert_eq!(args["command"], command, "{text}");
    }
    // Prose that begins with a tool's name is no call; call syntax keeps its own reader.
    for text in [
        "run_command is the tool that runs a skill's commands.",
        "run_command runs ./run.sh Tokyo for you",
        "activate_skill: the time skill and then the weather",
    ] {
        assert_eq!(read_text(text), Reading::Answer, "{text}");
    }
    let Reading::Calls { calls, shape } = read_text("run_command(\"./run.sh Tokyo\")") else {
        panic!()
    };
    assert_eq!(
        (shape, calls[0].arguments.as_str()),
        ("call syntax", "{\"command\":\"./run.sh Tokyo\"}")
    );
}
