//! Whether the skills a stored conversation holds are still what it holds: a skill's `SKILL.md`
//! may have been edited, or the skill removed, since it was activated. Stale instructions are
//! never used silently: the caller re-sends changed ones and withdraws vanished ones, and says so.

use sha2::{Digest, Sha256};

use super::replay::HeldSkill;

/// The hash an `activation` record keeps of the `SKILL.md` text sent: hex SHA-256.
pub(crate) fn body_hash(body: &str) -> String {
    Sha256::digest(body.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// How a held skill compares with the skill on disk now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Freshness {
    Same,
    /// Its `SKILL.md` reads differently now.
    Changed,
    /// No skill of that name is found any more, or its `SKILL.md` cannot be read.
    Vanished,
}

/// Compare each held skill with its current body (`current(name)`: `None` when it is gone).
pub(crate) fn check(held: &[HeldSkill], current: impl Fn(&str) -> Option<String>) -> Vec<(HeldSkill, Freshness)> {
    held.iter()
        .map(|h| {
            let state = match current(&h.skill) {
                None => Freshness::Vanished,
                Some(body) if body_hash(&body) == h.hash => Freshness::Same,
                Some(_) => Freshness::Changed,
            };
            (h.clone(), state)
        })
        .collect()
}

/// What replaces a changed skill's instructions in the conversation: a note, then `activation`
/// (the tool result activating it now).
pub(crate) fn changed_note(skill: &str, activation: &str) -> String {
    format!(
        "[Skill {skill} changed since it was activated earlier in this session; its instructions as they are now \
         replace the earlier ones.]\n{activation}"
    )
}

/// What replaces the earlier copy of a changed skill's instructions once the current ones are
/// sent, so the model never holds both.
pub(crate) fn superseded_note(skill: &str) -> String {
    format!("[Skill {skill}'s instructions were here; they changed, and the current ones follow further down.]")
}

/// What replaces a vanished skill's instructions in the conversation.
pub(crate) fn vanished_note(skill: &str) -> String {
    format!(
        "[Skill {skill} was activated earlier in this session but no longer exists: its instructions were withdrawn \
         and its commands cannot run. Tell the user if the request needs it.]"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(skill: &str, body: &str) -> HeldSkill {
        HeldSkill {
            skill: skill.into(),
            dir: format!("/s/{skill}"),
            hash: body_hash(body),
            message: 0,
            by_hand: false,
        }
    }

    #[test]
    fn edits_and_removals_are_found() {
        assert_eq!(
            body_hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let held = [held("same", "one"), held("edited", "two"), held("gone", "three")];
        let now = |name: &str| match name {
            "same" => Some("one".to_string()),
            "edited" => Some("two, edited".to_string()),
            _ => None,
        };
        let states: Vec<Freshness> = check(&held, now).into_iter().map(|(_, s)| s).collect();
        assert_eq!(states, [Freshness::Same, Freshness::Changed, Freshness::Vanished]);
        assert!(changed_note("edited", "Skill edited activated.").ends_with("\nSkill edited activated."));
        assert!(vanished_note("gone").contains("no longer exists"));
    }
}
