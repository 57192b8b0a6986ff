//! `agent --skill NAME [--once] "ARGS"`: invoke a skill by hand for one turn, as `/NAME ARGS`
//! does in the chat. An unknown name is a configuration error (exit 3) naming the nearest ones.

use super::once::{one_turn, read_stdin};
use super::{Run, endpoint};
use crate::exit::{AppError, ExitCode};
use crate::skills::discover::Discovery;
use crate::skills::invoke::{Arguments, nearest};
use crate::support::terminal_text::visible;

/// Most names suggested for an unknown `--skill`.
const MAX_SUGGESTED: usize = 5;

/// Invoke `name` with the arguments of the command line (and piped stdin as context), then run
/// the one turn that follows.
pub(super) async fn skill_once(mut run: Run<'_>, discovery: Discovery, name: &str) -> Result<ExitCode, AppError> {
    let known = discovery
        .skills
        .iter()
        .any(|s| s.name == name || s.name.eq_ignore_ascii_case(name));
    if !known {
        return Err(AppError::config(format!("--skill {}", unknown_skill(name, &discovery))));
    }
    let args = arguments(&run)?;
    endpoint::settle(run.cli, &mut run.config).await?;
    let (mut agent, _) = super::session::started_agent(&run, discovery)?;
    let invoked = agent
        .invoke_by_hand(name, &Arguments::parse(&args.text))
        .map_err(AppError::config)?;
    let message = match &args.piped {
        Some(input) => format!("{}\n\nInput:\n```\n{}\n```", invoked.request, input.trim_end()),
        None => invoked.request,
    };
    Ok(one_turn(&run, &mut agent, &message).await)
}

/// What every command that takes a skill's name says of one it does not know: the nearest names,
/// never the whole library (which can be thousands), and where the full list is.
pub(super) fn unknown_skill(name: &str, discovery: &Discovery) -> String {
    let names: Vec<&str> = discovery.skills.iter().map(|s| s.name.as_str()).collect();
    let near = nearest(name, &names, MAX_SUGGESTED);
    let hint = if near.is_empty() {
        "`agent skills list` shows every skill".to_string()
    } else {
        format!(
            "did you mean {}? (`agent skills list` shows every skill)",
            near.join(", ")
        )
    };
    format!("{}: there is no skill of that name; {}", visible(name), visible(&hint))
}

/// The arguments of `--skill`, and piped stdin.
struct SkillArgs {
    text: String,
    piped: Option<String>,
}

/// ARGS from the positional argument or `--once` (not both), and piped stdin when there is some.
fn arguments(run: &Run<'_>) -> Result<SkillArgs, AppError> {
    let text = match (&run.cli.args, &run.cli.once) {
        (Some(_), Some(_)) => {
            return Err(AppError::usage(
                "give the skill's arguments once: agent --skill NAME \"ARGS\" (or --once \"ARGS\")",
            ));
        }
        (Some(a), None) | (None, Some(a)) => a.clone(),
        (None, None) => String::new(),
    };
    let piped = if crate::ui::tty::stdin_is_terminal() {
        None
    } else {
        Some(read_stdin()?).filter(|s| !s.trim().is_empty())
    };
    Ok(SkillArgs { text, piped })
}
