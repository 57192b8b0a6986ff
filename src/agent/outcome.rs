//! What a tool call came to, as a typed value, and the one place where it becomes the text the
//! model reads. Callers match on the variant; nobody looks for `error:` in a string.

/// Why a tool call, or an activation by hand, did not go ahead: the words the model reads in its
/// tool result (or the user reads as the reply to `/NAME`). Text by nature, with no error
/// beneath it: it is a decision (a policy, a path outside the working folder, a skill that is not
/// there) said with its fix, so there is no cause to keep.
pub(crate) type Refusal = String;

/// A skill that a tool call made the active one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Activation {
    /// The skill's name as loaded.
    pub(crate) skill: String,
    /// Its folder, where its commands run.
    pub(crate) dir: String,
    /// The hash of the `SKILL.md` text in this result (`sessions::freshness::body_hash`), when
    /// its instructions are in it; `None` when it was already active and they are further up.
    pub(crate) hash: Option<String>,
}

/// The result of one tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolOutcome {
    /// The tool did its job; `text` is its result. `activated` when it made a skill the active one.
    Ok {
        text: String,
        activated: Option<Activation>,
    },
    /// A proposed command did not run: the policy, a person, no terminal to ask on, an untrusted
    /// folder. `reason` says which, and what would have let it run.
    Denied { reason: String },
    /// The call was carried out but failed: a file that cannot be read, a program that would not
    /// start, a call cut short.
    Failed { message: String },
    /// The call was refused as made: malformed arguments, an unknown tool or skill, no skill
    /// active, over the limit of one response. `message` says how to correct it.
    Refused { message: String },
}

impl ToolOutcome {
    /// A plain successful result.
    pub(crate) fn ok(text: impl Into<String>) -> Self {
        Self::Ok {
            text: text.into(),
            activated: None,
        }
    }

    /// A command that did not run, and why.
    pub(crate) fn denied(reason: impl Into<String>) -> Self {
        Self::Denied { reason: reason.into() }
    }

    /// A call carried out that failed, and how.
    pub(crate) fn failed(message: impl Into<String>) -> Self {
        Self::Failed {
            message: message.into(),
        }
    }

    /// A call refused as made, and how to correct it.
    pub(crate) fn refused(message: impl Into<String>) -> Self {
        Self::Refused {
            message: message.into(),
        }
    }

    /// What the call says for a person: the result, or why it did not succeed (no prefix).
    pub(crate) fn message(&self) -> &str {
        match self {
            Self::Ok { text, .. } => text,
            Self::Denied { reason } => reason,
            Self::Failed { message } | Self::Refused { message } => message,
        }
    }

    /// The text the model gets back for this call: a result as it is, a denial that tells it not
    /// to retry, and an `error: …` it can correct itself from.
    pub fn for_model(&self) -> String {
        match self {
            Self::Ok { text, .. } => text.clone(),
            Self::Denied { reason } => format!(
                "denied: {reason}. The command did not run; do not retry it. Tell the user what you would have run."
            ),
            Self::Failed { message } | Self::Refused { message } => format!("error: {message}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_outcome_reads_as_the_model_expects() {
        assert_eq!(ToolOutcome::ok("exit code: 0\n").for_model(), "exit code: 0\n");
        assert_eq!(
            ToolOutcome::refused("the command is empty").for_model(),
            "error: the command is empty"
        );
        assert_eq!(ToolOutcome::failed("cannot read x").for_model(), "error: cannot read x");
        let denied = ToolOutcome::denied("denied by the user");
        assert!(
            denied
                .for_model()
                .starts_with("denied: denied by the user. The command did not run")
        );
        assert_eq!(denied.message(), "denied by the user");
    }
}
