//! Loading a skill folder, leniently (docs/design.md#loading-skills): the front of `SKILL.md` that
//! routing needs ([`partial_read`]), frontmatter split and read (`frontmatter`, `yaml_subset`), the
//! fields of either dialect ([`fields`], `markdown_description`), the invocation extensions of
//! other tools (`invocation`), declared needs as written (`requires`), and one folder from
//! disk to a [`Skill`](crate::skills::Skill) ([`parse`]). Every problem is a finding, not a lost skill.

pub mod fields;
pub(crate) mod frontmatter;
pub(crate) mod invocation;
pub(crate) mod markdown_description;
pub mod parse;
pub mod partial_read;
pub(crate) mod requires;
pub(crate) mod skill_hooks;
pub(crate) mod yaml_subset;
