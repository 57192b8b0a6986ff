//! Settling which server and model a run talks to before the agent is built
//! (docs/design.md#configuration): a local server found on the usual ports when nothing is
//! configured, and the model a server that is not api.openai.com lists when none was given.

use std::time::Duration;

use crate::cli::Cli;
use crate::config::Config;
use crate::config::{is_local_endpoint, is_openai};
use crate::exit::{AppError, ExitCode};
use crate::llm::models::{LOCAL_SERVERS, ModelsError, find_local_server, list_models};
use crate::llm::tool_support::server_facts;

/// Test hook (listed under "Tests" in .env.example, not in the README): a comma-separated list of ports the local
/// probe tries instead of [`LOCAL_SERVERS`] (empty: probe nothing). Tests set it so that they
/// never reach a real server on this machine.
const PROBE_PORTS_VAR: &str = "AGENT_PROBE_PORTS";
/// `0` skips asking a local server whether its model can call tools (tests set it, so that
/// their mock servers see only the requests they count).
const TOOL_CHECK_VAR: &str = "AGENT_TOOL_CHECK";
/// Most model names an error message lists.
const MAX_LISTED: usize = 20;

/// Fill in the base URL and model where they are discovered (docs/configuration.md, "Local
/// servers"); errors are exit 3 (or 4 when the server cannot be reached at all). A replayed run
/// talks to no server and keeps its settings.
pub(crate) async fn discover(cli: &Cli, config: &mut Config) -> Result<(), AppError> {
    if cli.replay.is_some() {
        return Ok(());
    }
    if !config.provider.discovers_servers() {
        // Nothing to find: the base URL (or a gateway's), the key and the model are as set.
        return config.require_key();
    }
    // Built only when a question is asked: a client for an https:// URL loads every CA certificate.
    let client = |base_url: &str| {
        crate::llm::http::builder(base_url)
            .connect_timeout(config.connect_timeout)
            .timeout(config.idle_timeout.min(Duration::from_secs(30)))
            .user_agent(concat!("agent/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| AppError::context(ExitCode::Internal, "cannot set up HTTP", e))
    };
    if !config.base_url_given && config.api_key.is_none() {
        let ports = probe_ports();
        let Some(found) = find_local_server(&client("http://127.0.0.1")?, &ports).await else {
            let mut err = config
                .require_key()
                .err()
                .unwrap_or_else(|| AppError::config("no model endpoint is configured"));
            err.message.push_str(&format!(
                "; no local server answered on 127.0.0.1 either (tried {})",
                describe(&ports)
            ));
            return Err(err);
        };
        tracing::debug!("found {} at {}", found.kind, found.base_url);
        config.base_url = found.base_url;
        // Not the default: messages about it name the server found, not the key.
        config.base_url_given = true;
        if !config.model_given {
            let place = format!("{} at {}", found.kind, config.base_url);
            config.model = choose(&place, found.models)?;
            config.model_given = true;
        }
    }
    config.require_key()?;
    if !config.model_given && !is_openai(&config.base_url) {
        let key = config.api_key.as_ref().map(|k| k.value.as_str());
        let models = list_models(&client(&config.base_url)?, &config.base_url, key)
            .await
            .map_err(|e| match e {
                ModelsError::Unreachable(cause) => AppError::new(
                    ExitCode::Llm,
                    format!(
                        "cannot reach {} to ask which model to use: {cause}. Is the server running? \
                     (Setting the model with --model NAME or AGENT_MODEL skips this question.)",
                        config.base_url
                    ),
                ),
                ModelsError::NoList(why) => AppError::config(format!(
                    "no model is set, and {}/models did not say which to use ({why}); set one with \
                 --model NAME or AGENT_MODEL=NAME",
                    config.base_url
                )),
            })?;
        config.model = choose(&config.base_url, models)?;
    }
    // A local server may serve a model that cannot call tools, and then drops them silently.
    let check = config.env.get(TOOL_CHECK_VAR).is_none_or(|v| v.trim() != "0");
    if check && is_local_endpoint(&config.base_url) {
        let key = config.api_key.as_ref().map(|k| k.value.as_str());
        let http = client(&config.base_url)?;
        let facts = server_facts(&http, config.cache.as_ref(), &config.base_url, &config.model, key).await;
        config.tool_support = Some(facts.tools.clone());
        config.server_facts = Some(facts);
    }
    Ok(())
}

/// The one model a server serves, or an error that lists them and says how to pick.
fn choose(place: &str, models: Vec<String>) -> Result<String, AppError> {
    match models.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(AppError::config(format!(
            "{place} serves no model yet: load one into the server (for Ollama: `ollama pull \
             qwen2.5:7b`), or name one with --model NAME or AGENT_MODEL=NAME"
        ))),
        many => {
            let mut shown: Vec<&str> = many.iter().take(MAX_LISTED).map(String::as_str).collect();
            if many.len() > MAX_LISTED {
                shown.push("…");
            }
            Err(AppError::config(format!(
                "{place} serves {} models: {}; choose one with --model NAME or AGENT_MODEL=NAME \
                 (in the environment or .env), e.g. --model {}",
                many.len(),
                shown.join(", "),
                many[0]
            )))
        }
    }
}

fn probe_ports() -> Vec<u16> {
    match std::env::var(PROBE_PORTS_VAR) {
        Ok(list) => list.split(',').filter_map(|p| p.trim().parse().ok()).collect(),
        Err(_) => LOCAL_SERVERS.iter().map(|(port, _)| *port).collect(),
    }
}

/// "Ollama 11434, llama.cpp 8080 …" for the ports that were tried.
fn describe(ports: &[u16]) -> String {
    if ports.is_empty() {
        return "no ports were tried".into();
    }
    ports
        .iter()
        .map(|port| match LOCAL_SERVERS.iter().find(|(p, _)| p == port) {
            Some((_, kind)) => format!("{kind} {port}"),
            None => format!("port {port}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_model_is_chosen_several_are_listed() {
        assert_eq!(choose("x", vec!["m".into()]).unwrap(), "m");
        let err = choose("http://h/v1", vec!["a".into(), "b".into()]).unwrap_err();
        assert_eq!(err.code, ExitCode::Config);
        assert!(err.message.contains("serves 2 models: a, b") && err.message.contains("AGENT_MODEL"));
        assert!(choose("x", Vec::new()).unwrap_err().message.contains("no model"));
    }

    #[test]
    fn only_api_openai_com_keeps_the_default_model() {
        assert!(is_openai("https://api.openai.com/v1"));
        assert!(!is_openai("http://localhost:11434/v1"));
        assert_eq!(describe(&[11434, 9]), "Ollama 11434, port 9");
    }
}
