//! Checks beyond loading (docs/design.md#loading-skills): lint for `agent skills check`
//! ([`lint`]), files a `SKILL.md` names that are not there ([`refs`]), scripts that break on
//! other machines ([`portable`]), and declared needs checked against the environment a skill's
//! commands would get ([`needs_met`]).

pub(crate) mod lint;
pub(crate) mod needs_met;
pub(crate) mod portable;
pub(crate) mod portable_fields;
pub(crate) mod refs;
