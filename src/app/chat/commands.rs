//! The chat's slash commands: one static table of name, help and handler, read by `/help`, by
//! Tab completion and by dispatch, so a new command is one entry. Every handler answers with a
//! [`ChatReply`], never by printing.

use std::collections::BTreeSet;

use super::Chat;
use super::sessions::{self, Deferred};
use crate::exec::approval::ApprovalPolicy;
use crate::output::ChatReply;
use crate::output::chat::{CommandHelp, SkillCommand};
use crate::skills::arguments::Arguments;
use crate::skills::{SkillSet, code};

/// What the chat does after a command.
pub(super) enum Flow {
    /// Read the next input.
    Done,
    /// End the chat.
    Exit,
    /// Run a command that awaits the model, the server or a skill's commands (and may lead to a
    /// message to send).
    Later(Deferred),
}

/// A slash command: its name, its one-line help, and what it does with its argument.
pub(super) struct SlashCommand {
    /// `/model`
    pub(crate) name: &'static str,
    /// What `/help` says; an argument synopsis first when it takes one.
    pub(crate) help: &'static str,
    run: fn(&mut Chat<'_>, &str) -> Flow,
}

/// Every command, in `/help` order.
pub(super) const COMMANDS: [SlashCommand; 18] = [
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
        help: "NAME [arguments] — invoke a skill by hand, as /NAME does (this also reaches a skill named like a built-in command); without arguments it only activates",
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
        help: "this session's messages, yours and the model's answers",
        run: history,
    },
    SlashCommand {
        name: "/usage",
        help: "tokens in and out per turn and for the whole session, and the context in use",
        run: sessions::usage,
    },
    SlashCommand {
        name: "/context",
        help: "what the next request holds (prompt, catalog, skills, history) against the context window",
        run: sessions::context,
    },
    SlashCommand {
        name: "/compact",
        help: "[FOCUS] — replace the history by a summary (active skills are sent again; the session file keeps all)",
        run: sessions::compact,
    },
    SlashCommand {
        name: "/sessions",
        help: "recent stored sessions, newest first",
        run: sessions::sessions,
    },
    SlashCommand {
        name: "/resume",
        help: "ID — go on with a stored session instead of this one (a prefix of the id is enough)",
        run: sessions::resume,
    },
    SlashCommand {
        name: "/fork",
        help: "go on in a new session, a copy of this one so far (this one stays as it is)",
        run: sessions::fork,
    },
    SlashCommand {
        name: "/export",
        help: "[FILE] — write this session as Markdown to the exports folder beside the sessions, or to FILE (.html/.json by its extension)",
        run: sessions::export,
    },
    SlashCommand {
        name: "/mcp",
        help: "the MCP servers: state, tool counts, where each is configured",
        run: mcp,
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
        // A built-in command wins over a skill of the same name (`/skill NAME` reaches that one).
        None if chat.agent.skills().get(name).is_some() => invoke(chat, name, arg, true),
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
    let skills = skill_commands(chat.agent.skills());
    chat.say(ChatReply::Help { commands, skills });
    Flow::Done
}

/// Whether `/name` is a built-in command.
pub(super) fn is_builtin(name: &str) -> bool {
    COMMANDS.iter().any(|c| c.name[1..].eq_ignore_ascii_case(name))
}

/// The skills a person is offered (all but `user-invocable: false`), each with the command that
/// reaches it: `/NAME`, or `/skill NAME` when a built-in command has that name.
pub(super) fn skill_commands(skills: &SkillSet) -> Vec<SkillCommand> {
    skills
        .all()
        .iter()
        .filter(|s| s.invocation.user)
        .map(|s| SkillCommand {
            name: s.name.clone(),
            command: if is_builtin(&s.name) {
                format!("/skill {}", s.name)
            } else {
                format!("/{}", s.name)
            },
            hint: s.invocation.argument_hint.clone(),
            description: s.description.clone(),
        })
        .collect()
}

fn skills(chat: &mut Chat<'_>, _arg: &str) -> Flow {
    let trust = &chat.run.trust;
    let skills = crate::app::skills::summaries(chat.agent.skills().all(), trust);
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
        return refuse(chat, "skill", "usage: /skill NAME [arguments]");
    }
    // Without arguments `/skill NAME` only activates; `/NAME` alone also asks the model to act.
    invoke(chat, name, message, !message.trim().is_empty())
}

/// Invoke skill `name` by hand with `args` (placeholders in its body replaced); `send`: start a
/// turn with the request that follows from it.
/// Activation may run the skill's dynamic context, so it is awaited ([`invoke_now`]).
fn invoke(_chat: &mut Chat<'_>, name: &str, args: &str, send: bool) -> Flow {
    Flow::Later(Deferred::Invoke {
        name: name.to_string(),
        args: args.to_string(),
        send,
    })
}

/// Invoke skill `name` by hand now; the request to send, when `send` and it was activated.
pub(super) async fn invoke_now(chat: &mut Chat<'_>, name: &str, args: &str, send: bool) -> Option<String> {
    let args = Arguments::parse(args);
    match chat.agent.invoke_by_hand(name, &args).await {
        Ok(invoked) => {
            chat.say(ChatReply::SkillActivated {
                skill: invoked.skill,
                dir: invoked.dir,
            });
            send.then_some(invoked.request)
        }
        Err(why) => {
            refuse(chat, "skill", &why);
            None
        }
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
    let entries = chat.agent.history();
    chat.say(ChatReply::History { messages, entries });
    Flow::Done
}

fn reload(chat: &mut Chat<'_>, _arg: &str) -> Flow {
    let skills = chat.reload();
    chat.say(ChatReply::Reloaded { skills });
    Flow::Done
}

fn mcp(_chat: &mut Chat<'_>, _arg: &str) -> Flow {
    Flow::Later(Deferred::Mcp)
}

fn exit(_chat: &mut Chat<'_>, _arg: &str) -> Flow {
    Flow::Exit
}

/// Answer that `/command` could not do what was asked.
pub(super) fn refuse(chat: &Chat<'_>, command: &str, message: &str) -> Flow {
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
    fn skills_are_offered_as_commands_unless_hidden_and_builtins_win() {
        let mut hidden = crate::skills::Skill::synthetic("background", "Conventions the model loads.");
        hidden.invocation.user = false;
        let mut deploy = crate::skills::Skill::synthetic("deploy", "Deploy the app.");
        deploy.invocation.argument_hint = Some("[env]".into());
        let help = crate::skills::Skill::synthetic("help", "A skill named like a built-in.");
        let offered = skill_commands(&SkillSet::new(vec![hidden, deploy, help]));
        let commands: Vec<(&str, Option<&str>)> = offered
            .iter()
            .map(|s| (s.command.as_str(), s.hint.as_deref()))
            .collect();
        assert_eq!(commands, [("/deploy", Some("[env]")), ("/skill help", None)]);
        assert!(is_builtin("HELP") && !is_builtin("deploy"));
    }

    #[test]
    fn names_are_unique_and_slashed() {
        let names = names();
        let unique: BTreeSet<_> = names.iter().collect();
        assert_eq!(unique.len(), names.len());
        assert!(names.iter().all(|n| n.starts_with('/') && n.len() > 1));
    }
}
