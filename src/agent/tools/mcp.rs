//! MCP tools (`mcp__SERVER__TOOL`): offered beside the skill tools, and called under the same
//! approval policy as a command (docs/mcp.md, "Approval"): `ask` shows server, tool and arguments;
//! `auto` runs only tools the user's own `autoApprove` grants, or the active skill's
//! `allowed-tools` where that skill's commands would run (trusted, unchanged); `no` runs none;
//! `yes` all but those an untrusted skill asks for. A server that fails is a tool error the model
//! can act on.

use crate::agent::outcome::Refusal;
use std::time::Instant;

use serde_json::Value;

use super::ToolRunner;
use super::mcp_budget::{McpSchema, within_budget};
use crate::agent::outcome::ToolOutcome;
use crate::exec::approval::ApprovalPolicy;
use crate::mcp::hub::{PREFIX, grant_covers};
use crate::output::Event;
use crate::support::terminal_text::visible;

/// Characters of a tool's description sent to the model.
const MAX_DESCRIPTION: usize = 1024;

/// Whether `name` is an MCP tool's name for the model.
pub(crate) fn is_mcp_tool(name: &str) -> bool {
    name.starts_with(PREFIX)
}

impl ToolRunner {
    /// `tools` (the skill tools' schemas, or null) with the MCP tools added as function schemas:
    /// all of them, or within `AGENT_MCP_TOOLS_BUDGET` the ones most relevant to the session's
    /// first request (kept for the session), with `search_skills` to find the rest. Servers are
    /// asked once a session (cached lists need no server at all); those that fail are warned
    /// about once.
    pub(crate) async fn with_mcp_tools(&mut self, tools: Value, query: &str) -> Value {
        let Some(hub) = self.settings.mcp.clone() else {
            return tools;
        };
        // Chosen on the session's first request and kept: the tool list is part of the prefix a
        // provider caches, so re-ranking it per request would make every request a cache miss.
        // What later requests need of the rest, `search_skills` finds.
        if self.mcp_offered.is_none() {
            let (listed, warnings) = hub.offered().await;
            for message in warnings {
                self.emit(Event::Warning { message });
            }
            let all: Vec<McpSchema> = listed
                .iter()
                .map(|t| {
                    McpSchema::new(
                        &t.qualified,
                        &t.tool.description,
                        schema(&t.qualified, &t.server, &t.tool),
                    )
                })
                .collect();
            let (offered, left) = within_budget(&all, query, self.settings.mcp_budget);
            self.mcp_left = left.into_iter().cloned().collect();
            self.mcp_offered = Some(offered.into_iter().cloned().collect());
        }
        let offered = self.mcp_offered.as_deref().unwrap_or_default();
        if offered.is_empty() && self.mcp_left.is_empty() {
            return tools;
        }
        let left = &self.mcp_left;
        let mut list = match tools {
            Value::Array(list) => list,
            _ => Vec::new(),
        };
        list.extend(offered.iter().map(|s| s.schema.clone()));
        if !left.is_empty() {
            if !self.mcp_noticed {
                self.mcp_noticed = true;
                self.emit(Event::Warning {
                    message: format!(
                        "{} MCP tools do not fit AGENT_MCP_TOOLS_BUDGET ({} bytes of schemas): the session offers the {} \
                         most relevant to its first request, and the model can search_skills for the other {}",
                        offered.len() + left.len(),
                        self.settings.mcp_budget,
                        offered.len(),
                        left.len()
                    ),
                });
            }
            if !list.iter().any(|t| t["function"]["name"] == "search_skills") {
                list.push(crate::agent::prompt::search_tool());
            }
        }
        Value::Array(list)
    }

    /// Carry out the model's call of the MCP tool `qualified` for the `current` skill.
    pub(super) async fn call_mcp(&self, current: Option<&str>, qualified: &str, raw_args: &str) -> ToolOutcome {
        let Some(hub) = self.settings.mcp.clone() else {
            return ToolOutcome::refused(format!(
                "there is no tool named {qualified:?}: no MCP server is configured"
            ));
        };
        let Some((server, tool)) = hub.resolve(qualified) else {
            return ToolOutcome::refused(format!(
                "there is no MCP tool named {qualified:?}; call one of the mcp__SERVER__TOOL tools offered (servers: {})",
                hub.names().join(", ")
            ));
        };
        let arguments = match parse_object(raw_args) {
            Ok(map) => map,
            Err(e) => {
                return ToolOutcome::refused(format!(
                    "the arguments of {qualified} are not a JSON object ({e}); send the object its schema describes"
                ));
            }
        };
        let shown = self
            .settings
            .redactor
            .redact(&Value::Object(arguments.clone()).to_string())
            .into_owned();
        if let Err(reason) = self.approve_mcp(current, &server, &tool, qualified, &shown).await {
            self.emit(Event::McpCallDenied {
                server,
                tool,
                reason: reason.clone(),
            });
            return ToolOutcome::denied(reason);
        }
        self.emit(Event::McpCallStarted {
            server: server.clone(),
            tool: tool.clone(),
            arguments: shown,
        });
        let started = Instant::now();
        let result = hub.call(&server, &tool, arguments).await;
        let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let finished = |is_error, result_bytes, truncated, error| Event::McpCallFinished {
            server: server.clone(),
            tool: tool.clone(),
            duration_ms,
            is_error,
            result_bytes,
            truncated,
            error,
        };
        match result {
            Ok(r) => {
                let error = r.is_error.then(|| first_line(&r.text));
                self.emit(finished(r.is_error, r.bytes, r.truncated, error));
                if r.is_error {
                    ToolOutcome::failed(format!("{qualified} reported an error: {}", r.text))
                } else {
                    ToolOutcome::ok(r.text)
                }
            }
            Err(e) => {
                let e = self.settings.redactor.redact(&e).into_owned();
                self.emit(finished(true, 0, false, Some(e.clone())));
                ToolOutcome::failed(format!(
                    "{e}. The call did not complete; tell the user, or try another way"
                ))
            }
        }
    }

    /// Whether the call may go ahead, else why not. A grant from the active skill counts only
    /// where that skill's own commands would run (folder trust, the installed or bundled copy's
    /// hash): otherwise a cloned repository's skill could call the user's tools by naming them in
    /// `allowed-tools`. The same holds for `--yes`, which never stands in for trust. The user's
    /// own `autoApprove` list is theirs, whichever skill is active.
    async fn approve_mcp(
        &self,
        current: Option<&str>,
        server: &str,
        tool: &str,
        qualified: &str,
        shown: &str,
    ) -> Result<(), Refusal> {
        let policy = self.settings.approve;
        if policy == ApprovalPolicy::No {
            return Err("denied by policy: --approve no runs nothing (rerun with --yes to allow it)".into());
        }
        if policy == ApprovalPolicy::Auto && self.user_granted(server, tool) {
            return Ok(());
        }
        let skill = current.and_then(|n| self.skills.get(n)).cloned();
        let by_skill = skill
            .as_ref()
            .is_some_and(|s| s.allowed_tools.iter().any(|g| grant_covers(g, qualified)));
        if policy == ApprovalPolicy::Yes || (policy == ApprovalPolicy::Auto && by_skill) {
            if let Some(skill) = &skill
                && let Some(refusal) = self.untrusted(skill).await
            {
                return Err(refusal);
            }
            return Ok(());
        }
        if !self.approver.can_answer() {
            return Err(format!(
                "needs approval but there is no terminal to ask on; rerun with --yes, or grant it: \
                 \"autoApprove\": [\"{}\"] for server {} in your mcp.json (with --approve auto)",
                visible(tool),
                visible(server)
            ));
        }
        // Server and tool names come from outside (a server lists its tools): shown escaped, so a
        // newline in a name cannot draw lines of its own under the question.
        let question = format!(
            "MCP tool call: server {}, tool {}\n  arguments: {}",
            visible(server),
            visible(tool),
            visible(shown)
        );
        let approver = self.approver.clone();
        let key = qualified.to_string();
        let yes = tokio::task::spawn_blocking(move || approver.ask_tool(&key, &question))
            .await
            .unwrap_or(false);
        if yes { Ok(()) } else { Err("denied by the user".into()) }
    }

    /// Whether the user's own `autoApprove` list for `server` names `tool` (a project's file
    /// cannot grant: its lists are dropped when read).
    fn user_granted(&self, server: &str, tool: &str) -> bool {
        self.settings
            .mcp
            .as_ref()
            .and_then(|hub| hub.server(server))
            .is_some_and(|s| s.auto_approve.iter().any(|t| t == "*" || t == tool))
    }
}

/// The function schema of one MCP tool.
fn schema(qualified: &str, server: &str, tool: &crate::mcp::ToolInfo) -> Value {
    let mut parameters = match &tool.input_schema {
        Value::Object(map) => map.clone(),
        _ => serde_json::Map::new(),
    };
    // Some endpoints refuse a schema that names its own dialect.
    parameters.remove("$schema");
    parameters.entry("type").or_insert_with(|| Value::from("object"));
    let description: String = format!("(MCP server {server}) {}", tool.description)
        .chars()
        .take(MAX_DESCRIPTION)
        .collect();
    serde_json::json!({"type": "function", "function": {
        "name": qualified,
        "description": description,
        "parameters": parameters,
    }})
}

fn parse_object(raw: &str) -> Result<serde_json::Map<String, Value>, Refusal> {
    if raw.trim().is_empty() {
        return Ok(serde_json::Map::new());
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err("not an object".into()),
        Err(e) => Err(e.to_string()),
    }
}

fn first_line(text: &str) -> String {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default()
        .chars()
        .take(300)
        .collect()
}
