//! The lines of a text (as `text.split('\n')` gives them), found only as far as they are asked
//! for: a skill file's frontmatter is at the top, and the body after it can be long.

pub(super) struct Lines<'a> {
    text: &'a str,
    /// Start offset of each line found so far.
    starts: Vec<usize>,
    /// Whether the last line has been found.
    done: bool,
}

impl<'a> Lines<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Self {
            text,
            // Frontmatter is a handful of lines: room for them without growing.
            starts: {
                let mut starts = Vec::with_capacity(16);
                starts.push(0);
                starts
            },
            done: false,
        }
    }

    /// Find lines up to line `i`; false when the text has fewer.
    fn reach(&mut self, i: usize) -> bool {
        while self.starts.len() <= i && !self.done {
            let last = self.starts[self.starts.len() - 1];
            match super::scan::find_byte(&self.text.as_bytes()[last..], b'\n') {
                Some(nl) => self.starts.push(last + nl + 1),
                None => self.done = true,
            }
        }
        i < self.starts.len()
    }

    pub(super) fn get(&mut self, i: usize) -> Option<&'a str> {
        if !self.reach(i) {
            return None;
        }
        let end = if self.reach(i + 1) {
            self.starts[i + 1] - 1
        } else {
            self.text.len()
        };
        Some(&self.text[self.starts[i]..end])
    }

    /// How many lines the text has.
    pub(super) fn count(&mut self) -> usize {
        self.reach(usize::MAX - 1);
        self.starts.len()
    }

    /// The first line at or after `from` that `pred` accepts.
    pub(super) fn position(&mut self, from: usize, pred: impl Fn(&str) -> bool) -> Option<usize> {
        (from..)
            .map_while(|i| self.get(i).map(|l| (i, l)))
            .find(|(_, l)| pred(l))
            .map(|(i, _)| i)
    }

    /// Whether every line of `from..to` exists and `pred` accepts it.
    pub(super) fn all(&mut self, from: usize, to: usize, pred: impl Fn(&str) -> bool) -> bool {
        (from..to).all(|i| self.get(i).is_some_and(&pred))
    }

    /// Lines `from..to` joined with `\n`, as the text holds them.
    pub(super) fn join(&mut self, from: usize, to: usize) -> &'a str {
        if from >= to || !self.reach(from) {
            return "";
        }
        let end = if self.reach(to) {
            self.starts[to] - 1
        } else {
            self.text.len()
        };
        &self.text[self.starts[from]..end]
    }

    /// Lines from `from` to the end.
    pub(super) fn rest(&mut self, from: usize) -> &'a str {
        if self.reach(from) {
            &self.text[self.starts[from]..]
        } else {
            ""
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_split() {
        for text in ["", "a", "a\n", "a\nb", "\n\n", "a\n\nb\n"] {
            let all: Vec<&str> = text.split('\n').collect();
            let mut lines = Lines::new(text);
            assert_eq!(lines.count(), all.len(), "{text:?}");
            for from in 0..=all.len() + 1 {
                assert_eq!(
                    lines.rest(from),
                    all.get(from..).map(|l| l.join("\n")).unwrap_or_default()
                );
                for to in from..=all.len() {
                    assert_eq!(lines.join(from, to), all[from.min(all.len())..to].join("\n"));
                }
            }
        }
    }
}
