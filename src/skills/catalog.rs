//! The set of loaded skills: lookup by name and the compact catalog the model routes on.

use std::fmt::Write;

use super::Skill;
use super::fields::MAX_DESCRIPTION_CHARS;

/// Loaded skills in precedence order, unique by name.
#[derive(Debug, Clone, Default)]
pub struct SkillSet {
    skills: Vec<Skill>,
}

impl SkillSet {
    pub fn new(skills: Vec<Skill>) -> Self {
        Self { skills }
    }

    pub fn all(&self) -> &[Skill] {
        &self.skills
    }

    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// Find a skill by exact name, else case-insensitively (models often re-case names).
    pub fn get(&self, name: &str) -> Option<&Skill> {
        let name = name.trim();
        self.skills
            .iter()
            .find(|s| s.name == name)
            .or_else(|| self.skills.iter().find(|s| s.name.eq_ignore_ascii_case(name)))
    }

    pub fn names(&self) -> Vec<&str> {
        self.skills.iter().map(|s| s.name.as_str()).collect()
    }

    /// One line per skill, `- name: description`, descriptions cut at the spec limit.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for skill in &self.skills {
            let desc: String = skill.description.chars().take(MAX_DESCRIPTION_CHARS).collect();
            // Writing to a String cannot fail.
            let _ = writeln!(out, "- {}: {}", skill.name, desc);
        }
        out
    }
}
