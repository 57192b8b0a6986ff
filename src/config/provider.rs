//! Which wire dialect, key, base URL and default model a run uses (docs/configuration.md#providers):
//! `AGENT_PROVIDER` when set, else Anthropic's Messages API when `ANTHROPIC_API_KEY` is the only
//! key set, else OpenAI chat completions (and the local servers found without a key).

use crate::exit::AppError;
use crate::llm::Provider;

use super::{ApiKey, Environment};

/// The variable that names the provider outright.
pub(crate) const PROVIDER_VAR: &str = "AGENT_PROVIDER";
/// Where the OpenAI API lives unless told otherwise.
pub(crate) const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
/// Model used on OpenAI unless told otherwise.
pub(crate) const OPENAI_MODEL: &str = "gpt-4.1-mini";

/// `AGENT_PROVIDER` (`openai`, `anthropic`), else what the keys that are set say.
pub(super) fn resolve(env: &Environment) -> Result<Provider, AppError> {
    match env.get(PROVIDER_VAR).map(|v| v.trim().to_ascii_lowercase()) {
        Some(v) if v == "openai" => Ok(Provider::OpenAi),
        Some(v) if v == "anthropic" => Ok(Provider::Anthropic),
        Some(other) => Err(AppError::config(format!(
            "{PROVIDER_VAR}={other:?} is not one of openai, anthropic"
        ))),
        None => {
            let openai_key = ["AGENT_API_KEY", "OPENAI_API_KEY"].iter().any(|v| env.get(v).is_some());
            Ok(if env.get("ANTHROPIC_API_KEY").is_some() && !openai_key {
                Provider::Anthropic
            } else {
                Provider::OpenAi
            })
        }
    }
}

/// `AGENT_MAX_TOKENS`: the longest answer a Messages API request allows, at least 1.
pub(super) fn max_tokens(env: &Environment) -> Result<u32, AppError> {
    let default = u64::from(crate::llm::anthropic::DEFAULT_MAX_TOKENS);
    let n = super::pick_number(None, env, "AGENT_MAX_TOKENS", default)?;
    u32::try_from(n)
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| AppError::config("AGENT_MAX_TOKENS must be a whole number from 1 to 4294967295"))
}

/// The variables a provider's key is read from, first set wins.
fn key_vars(provider: Provider) -> &'static [&'static str] {
    match provider {
        Provider::OpenAi => &["AGENT_API_KEY", "OPENAI_API_KEY"],
        Provider::Anthropic => &["ANTHROPIC_API_KEY", "AGENT_API_KEY"],
    }
}

/// The provider's key, with the variable it came from.
pub(super) fn api_key(provider: Provider, env: &Environment) -> Option<ApiKey> {
    key_vars(provider).iter().find_map(|var| {
        env.get(var).map(|value| ApiKey {
            value: value.to_string(),
            var,
        })
    })
}

/// The variables a base URL is read from after `--base-url`, first set wins.
pub(super) fn base_url_vars(provider: Provider) -> &'static [&'static str] {
    match provider {
        Provider::OpenAi => &["AGENT_BASE_URL", "OPENAI_BASE_URL"],
        Provider::Anthropic => &["AGENT_BASE_URL", "ANTHROPIC_BASE_URL"],
    }
}

/// The base URL when none is set.
pub(super) fn default_base_url(provider: Provider) -> &'static str {
    match provider {
        Provider::OpenAi => OPENAI_BASE_URL,
        Provider::Anthropic => crate::llm::anthropic::DEFAULT_BASE_URL,
    }
}

/// The model when none is set.
pub(super) fn default_model(provider: Provider) -> &'static str {
    match provider {
        Provider::OpenAi => OPENAI_MODEL,
        Provider::Anthropic => crate::llm::anthropic::DEFAULT_MODEL,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn provider(vars: &[(&str, &str)]) -> Result<Provider, AppError> {
        resolve(&Environment::from_maps(vars, &[], &[]))
    }

    #[test]
    fn an_anthropic_key_alone_chooses_anthropic() {
        assert_eq!(provider(&[("ANTHROPIC_API_KEY", "a")]).unwrap(), Provider::Anthropic);
        assert_eq!(provider(&[]).unwrap(), Provider::OpenAi);
        for other in ["OPENAI_API_KEY", "AGENT_API_KEY"] {
            assert_eq!(
                provider(&[("ANTHROPIC_API_KEY", "a"), (other, "o")]).unwrap(),
                Provider::OpenAi,
                "{other} keeps OpenAI"
            );
        }
    }

    #[test]
    fn the_variable_decides_and_a_wrong_one_is_named() {
        let both = [("ANTHROPIC_API_KEY", "a"), ("OPENAI_API_KEY", "o")];
        let mut vars = both.to_vec();
        vars.push((PROVIDER_VAR, "Anthropic"));
        assert_eq!(provider(&vars).unwrap(), Provider::Anthropic);
        let env = Environment::from_maps(&vars, &[], &[]);
        assert_eq!(api_key(Provider::Anthropic, &env).unwrap().var, "ANTHROPIC_API_KEY");
        assert_eq!(
            provider(&[(PROVIDER_VAR, "openai"), ("ANTHROPIC_API_KEY", "a")]).unwrap(),
            Provider::OpenAi
        );
        let err = provider(&[(PROVIDER_VAR, "gemini")]).unwrap_err();
        assert!(
            err.message.contains("AGENT_PROVIDER") && err.message.contains("openai, anthropic"),
            "{}",
            err.message
        );
    }
}
