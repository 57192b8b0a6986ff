//! The skill library lifecycle (docs/design.md#installed-and-bundled-skills): where `agent skills
//! add` fetches from (`source`), the system `git` run safely (`git`), skills found in what was
//! fetched and put in place atomically (`install`), the `skills-lock.json` record (`lock`), what
//! an update would change (`diff`), a new name for a skill whose name is taken (`rename`) and the
//! template skeletons `--all` skips (`templates`). Orchestration and asking live in
//! `app::skills`; nothing here prints or asks.

pub(crate) mod diff;
pub mod git;
pub(crate) mod install;
pub(crate) mod lock;
pub(crate) mod rename;
pub(crate) mod source;
pub(crate) mod templates;
