//! The chat's slash commands: one static table of name, help and handler, read by `/help`, by
//! Tab completion and by dispatch, so a new command is one entry. Every handler answers with a
//! [`ChatReply`], never by printing.

use std::collections::BTreeSet;

use super::Chat;
use crate::exec::approval::ApprovalPolicy;
use crate::output::ChatReply;
use crate::output::chat::CommandHelp;
use crate::skills::discover::discover_with;
use crate::skills::{SkillSet, code};

/// What the chat does after a command.
pub(super) enum Flow {
    /// Read the next input.
    Done,
    /// End the chat.
    Exit,
    /// Send this text as a message.
    Send(String),
}

/// A slash command: its name, its one-line help, and what it does with its argument.
pub(super) struct SlashCommand {
    /// `/model`
    pub name: &'static str,
    /// What `/help` says; an argument synopsis first when it takes one.
    pub help: &'static str,
    run: fn(&mut Chat<'_>, &str) -> Flow,
}

/// Every command, in `/help` order.
pub(super) const COMMANDS: [SlashCommand; 10] = [
    SlashCommand {
        name: "/help",
        help: "list these commands",
        run: help,
    },
    SlashCommand {
        name: "/skills",
        help: "the skills found: name, dialect, status (warnings, untrusted), root and description",
        run: skills,
    },
    SlashCommand {
        name: "/skill",
        help: "NAME [message] — activate a skill by hand, then optionally send a message",
        run: skill,
    },
    SlashCommand {
        name: "/reset",
        help: "forget the conversation (skills and settings stay)",
        run: reset,
    },
    SlashCommand {
        name: "/model",
        help: "[NAME] — show or switch the model",
        run: model,
    },
    SlashCommand {
        name: "/approve",
        help: "[ask|auto|yes|no] — show or change the approval policy",
        run: approve,
    },
    SlashCommand {
        name: "/history",
        help: "this session's messages",
        run: history,
    },
    SlashCommand {
        name: "/reload",
        help: "scan the skill folders again",
        run: reload,
    },
    SlashCommand {
        name: "/exit",
        help: "end the session (also /quit or Ctrl-D)",
        run: exit,
    },
    SlashCommand {
        name: "/quit",
        help: "end the session",
        run: exit,
    },
];

/// The command names, for Tab completion.
pub(super) fn names() -> Vec<&'static str> {
    COMMANDS.iter().map(|c| c.name).collect()
}

/// Run `/NAME ARG` (`command` is what follows the `/`).
pub(super) fn dispatch(chat: &mut Chat<'_>, command: &str) -> Flow {
    let (name, arg) = command.split_once(char::is_whitespace).unwrap_or((command, ""));
    match COMMANDS.iter().find(|c| &c.name[1..] == name) {
        Some(c) => (c.run)(chat, arg.trim()),
        None => {
            chat.say(ChatReply::UnknownCommand {
                command: name.to_string(),
                suggestion: closest(name).map(str::to_string),
            });
            Flow::Done
        }
    }
}

/// The command an unknown one was probably meant to be: one sharing its first two letters, or
/// one it starts with.
fn closest(name: &str) -> Option<&'static str> {
    COMMANDS.iter().map(|c| c.name).find(|c| {
        let c = &c[1..];
        c.starts_with(name.get(..2).unwrap_or(name)) || name.starts_with(c)
    })
}

fn help(chat: &mut Chat<'_>, _arg: &str) -> Flow {
    let commands = COMMANDS
        .iter()
        .map(|c| CommandHelp {
            name: c.name,
            help: c.help,
        })
        .collect();
    chat.say(ChatReply::Help { commands });
    Flow::Done
}

fn skills(chat: &mut Chat<'_>, _arg: &str) -> Flow {
    let trust = &chat.run.trust;
    let skills = chat
        .agent
        .skills()
        .all()
        .iter()
        .map(|s| crate::app::skills::summary(s, trust))
        .collect();
    let shadowed: BTreeSet<String> = chat
        .warnings
        .iter()
        .filter(|w| w.code == code::SHADOWED)
        .map(|w| w.to_string())
        .collect();
    chat.say(ChatReply::Skills {
        skills,
        shadowed: shadowed.into_iter().collect(),
    });
    Flow::Done
}

fn skill(chat: &mut Chat<'_>, arg: &str) -> Flow {
    let (name, message) = arg.split_once(char::is_whitespace).unwrap_or((arg, ""));
    if name.is_empty() {
        return refuse(chat, "skill", "usage: /skill NAME [message]");
    }
    match chat.agent.activate_by_hand(name) {
        Ok(dir) => chat.say(ChatReply::SkillActivated {
            skill: name.to_string(),
            dir,
        }),
        Err(why) => return refuse(chat, "skill", &why),
    }
    match message.trim() {
        "" => Flow::Done,
        text => Flow::Send(text.to_string()),
    }
}

fn reset(chat: &mut Chat<'_>, _arg: &str) -> Flow {
    chat.agent.reset();
    chat.say(ChatReply::Reset);
    Flow::Done
}

fn model(chat: &mut Chat<'_>, arg: &str) -> Flow {
    if !arg.is_empty() {
        chat.agent.set_model(arg);
    }
    chat.say(ChatReply::Model {
        model: chat.agent.model().to_string(),
        changed: !arg.is_empty(),
    });
    Flow::Done
}

fn approve(chat: &mut Chat<'_>, arg: &str) -> Flow {
    if arg.is_empty() {
        chat.say(ChatReply::Approval {
            policy: chat.agent.approval(),
            changed: false,
        });
        return Flow::Done;
    }
    let Some(policy) = ApprovalPolicy::parse(arg) else {
        return refuse(
            chat,
            "approve",
            &format!("unknown policy {arg:?}: use ask, auto, yes or no"),
        );
    };
    chat.agent.set_approval(policy);
    chat.say(ChatReply::Approval { policy, changed: true });
    Flow::Done
}

fn history(chat: &mut Chat<'_>, _arg: &str) -> Flow {
    let messages = chat.agent.user_turns().into_iter().map(str::to_string).collect();
    chat.say(ChatReply::History { messages });
    Flow::Done
}

fn reload(chat: &mut Chat<'_>, _arg: &str) -> Flow {
    let found = discover_with(&chat.run.config.skill_roots, &chat.run.config.routing_scan());
    crate::app::once::report_discovery(&found, &*chat.run.front.output, false);
    chat.warnings = found.warnings;
    let count = found.skills.len();
    chat.agent
        .set_skills(SkillSet::with_cache(found.skills, chat.run.config.cache.clone()));
    chat.set_completions();
    chat.say(ChatReply::Reloaded { skills: count });
    Flow::Done
}

fn exit(_chat: &mut Chat<'_>, _arg: &str) -> Flow {
    Flow::Exit
}

/// Answer that `/command` could not do what was asked.
fn refuse(chat: &Chat<'_>, command: &str, message: &str) -> Flow {
    chat.say(ChatReply::CommandError {
        command: command.to_string(),
        message: message.to_string(),
    });
    Flow::Done
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_commands_get_the_closest_one() {
        assert_eq!(closest("skils"), Some("/skills"));
        assert_eq!(closest("frobnicate"), None);
        assert_eq!(closest("q"), Some("/quit"));
    }

    #[test]
    fn names_are_unique_and_slashed() {
        let names = names();
        let unique: BTreeSet<_> = names.iter().collect();
        assert_eq!(unique.len(), names.len());
        assert!(names.iter().all(|n| n.starts_with('/') && n.len() > 1));
    }
}
