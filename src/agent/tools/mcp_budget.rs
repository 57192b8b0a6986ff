//! When the MCP tools' schemas do not fit their budget (`AGENT_MCP_TOOLS_BUDGET`, bytes per
//! request), the session offers the ones most relevant to its first request (kept, so requests
//! share their prefix) and `search_skills` finds the others, with their schemas, so none is
//! silently dropped: a tool found that way can be called by its name.

use serde_json::Value;

/// One MCP tool's schema with the words it is ranked on.
#[derive(Debug, Clone)]
pub(crate) struct McpSchema {
    pub(crate) name: String,
    /// Its name's parts and its description, lowercased.
    pub(crate) words: String,
    pub(crate) schema: Value,
}

impl McpSchema {
    /// A tool's schema, ranked on its `name` and `description`.
    pub(crate) fn new(name: &str, description: &str, schema: Value) -> Self {
        Self {
            name: name.to_string(),
            words: format!("{} {}", name.replace(['_', '-'], " "), description).to_lowercase(),
            schema,
        }
    }

    /// Bytes the schema adds to a request.
    pub(crate) fn bytes(&self) -> usize {
        self.schema.to_string().len()
    }

    /// How many of `query`'s words (three letters or more) the tool's words hold.
    pub(crate) fn score(&self, query: &str) -> usize {
        query
            .to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() >= 3)
            .filter(|w| self.words.contains(w))
            .count()
    }
}

/// The schemas offered within `budget` bytes — the most relevant to `query` first, then the rest
/// in their order while room remains — and the names of the ones left out.
pub(crate) fn within_budget<'a>(
    all: &'a [McpSchema],
    query: &str,
    budget: usize,
) -> (Vec<&'a McpSchema>, Vec<&'a McpSchema>) {
    if all.iter().map(McpSchema::bytes).sum::<usize>() <= budget {
        return (all.iter().collect(), Vec::new());
    }
    let mut order: Vec<(usize, &McpSchema)> = all.iter().enumerate().collect();
    // Stable: equally relevant tools keep the servers' order.
    order.sort_by_key(|(i, s)| (std::cmp::Reverse(s.score(query)), *i));
    let (mut offered, mut left) = (Vec::new(), Vec::new());
    let mut used = 0;
    for (_, schema) in order {
        if used + schema.bytes() <= budget {
            used += schema.bytes();
            offered.push(schema);
        } else {
            left.push(schema);
        }
    }
    (offered, left)
}

/// The lines `search_skills` adds for the tools left out that match `query`: name, description
/// and the arguments' schema, so the model can call one by its name.
pub(crate) fn search_lines(left: &[McpSchema], query: &str, limit: usize) -> String {
    let mut hits: Vec<(usize, &McpSchema)> = left
        .iter()
        .map(|s| (s.score(query), s))
        .filter(|(score, _)| *score > 0)
        .collect();
    hits.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
    hits.iter()
        .take(limit)
        .map(|(_, s)| {
            let function = &s.schema["function"];
            format!(
                "- MCP tool {} (call it by this name): {}; arguments: {}\n",
                s.name,
                function["description"].as_str().unwrap_or_default(),
                function["parameters"]
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(name: &str, description: &str) -> McpSchema {
        McpSchema::new(
            name,
            description,
            json!({"type": "function", "function": {"name": name, "description": description, "parameters": {"type": "object"}}}),
        )
    }

    #[test]
    fn over_budget_the_relevant_tools_are_offered_and_the_rest_found_by_search() {
        let all = vec![
            schema("mcp__db__query", "Run a SQL query against the shop database"),
            schema("mcp__time__get_current_time", "Get the current time in a timezone"),
            schema("mcp__web__fetch", "Fetch a web page"),
        ];
        let one = all[0].bytes().max(all[1].bytes()).max(all[2].bytes());
        let (offered, left) = within_budget(&all, "what time is it in Tokyo", one);
        assert_eq!(offered.len(), 1);
        assert_eq!(offered[0].name, "mcp__time__get_current_time");
        let left: Vec<McpSchema> = left.into_iter().cloned().collect();
        let found = search_lines(&left, "sql database", 5);
        assert!(
            found.contains("MCP tool mcp__db__query (call it by this name)"),
            "{found}"
        );
        assert!(!found.contains("mcp__web__fetch"));
        let (all_fit, none_left) = within_budget(&all, "", usize::MAX);
        assert_eq!((all_fit.len(), none_left.len()), (3, 0));
    }
}
