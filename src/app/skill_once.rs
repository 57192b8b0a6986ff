//! `agent --skill NAME [--once] "ARGS"`: invoke a skill by hand for one turn, as `/NAME ARGS`
//! does in the chat. An unknown name is a configuration error (exit 3) naming the nearest ones.

use super::once::{one_turn, read_stdin};
use super::{Run, endpoint};
use crate::exit::{AppError, ExitCode};
use crate::skills::Skill;
use crate::skills::arguments::Arguments;
use crate::skills::discover::Discovery;
use crate::skills::resolve::{Named, resolve, unknown};

/// Invoke `name` with the arguments of the command line (and piped stdin as context), then run
/// the one turn that follows.
pub(super) async fn skill_once(mut run: Run<'_>, discovery: Discovery, name: &str) -> Result<ExitCode, AppError> {
    let name = find_skill(name, &discovery)
        .map_err(|message| AppError::config(format!("--skill {message}")))?
        .name
        .clone();
    let name = name.as_str();
    let args = arguments(&run)?;
    endpoint::discover(run.cli, &mut run.config).await?;
    let (mut agent, _) = super::session::started_agent(&run, discovery)?;
    let invoked = agent
        .invoke_by_hand(name, &Arguments::parse(&args.text))
        .await
        .map_err(AppError::config)?;
    let message = match &args.piped {
        Some(input) => format!("{}\n\nInput:\n```\n{}\n```", invoked.request, input.trim_end()),
        None => invoked.request,
    };
    Ok(one_turn(&run, &mut agent, &message).await)
}

/// The discovered skill `name` names: its own name or its folder's (skills/resolve.rs), else a
/// skill whose name differs only in letter case; when none does, the message every command gives
/// (text: each caller puts it in its own error, and nothing lies beneath it).
pub(super) fn find_skill<'a>(name: &str, discovery: &'a Discovery) -> Result<&'a Skill, String> {
    let folders = folders(&discovery.skills);
    let named = named(&discovery.skills, &folders);
    resolve(name, &named)
        .or_else(|| discovery.skills.iter().position(|s| s.name.eq_ignore_ascii_case(name)))
        .and_then(|i| discovery.skills.get(i))
        .ok_or_else(|| unknown_of(name, &named))
}

/// What every command that takes a skill's name says of one it does not know: the nearest names
/// (skills' own and folders'), never the whole library, and where the full list is.
pub(super) fn unknown_skill(name: &str, discovery: &Discovery) -> String {
    let folders = folders(&discovery.skills);
    unknown_of(name, &named(&discovery.skills, &folders))
}

fn unknown_of(name: &str, named: &[Named<'_>]) -> String {
    unknown(name, named, "skill", "`agent skills list` shows every skill")
}

/// The folder name of each skill, as text.
fn folders(skills: &[Skill]) -> Vec<String> {
    skills
        .iter()
        .map(|s| {
            s.dir
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
        .collect()
}

fn named<'a>(skills: &'a [Skill], folders: &'a [String]) -> Vec<Named<'a>> {
    skills
        .iter()
        .zip(folders)
        .map(|(s, folder)| Named { name: &s.name, folder })
        .collect()
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
