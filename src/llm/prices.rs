//! What a model call cost: a small table of published prices per million tokens, dated, that
//! `AGENT_PRICES` overrides or extends (docs/configuration.md#cost). A model not in either has
//! no cost: the tokens are still counted, and nothing is guessed.

use super::types::Usage;
use crate::support::money::Usd;

/// US dollars per million tokens: plain input, output, input written to the prompt cache (the
/// five-minute kind this client asks for) and input read from it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Price {
    pub(crate) input: f64,
    pub(crate) output: f64,
    pub(crate) cache_write: f64,
    pub(crate) cache_read: f64,
}

/// Published prices as of 2026-12-03 (the providers' model and pricing pages), by model id prefix (a dated id such as `claude-haiku-4-5-20251001` matches
/// `claude-haiku-4-5`); the longest matching prefix wins.
const TABLE: [(&str, Price); 9] = [
    ("claude-sonnet-5-5", price(2.0, 10.0, 2.5, 0.10)),
    ("claude-sonnet-5", price(2.0, 10.0, 2.5, 0.20)),
    ("claude-opus-5-5", price(4.0, 20.0, 5.0, 0.40)),
    ("claude-haiku-4-5", price(1.0, 5.0, 1.25, 0.10)),
    ("claude-sonnet-4-5", price(3.0, 15.0, 3.75, 0.30)),
    ("claude-sonnet-4-6", price(3.0, 15.0, 3.75, 0.30)),
    ("gpt-4.1-mini", price(0.40, 1.60, 0.40, 0.10)),
    ("gpt-4.1-nano", price(0.10, 0.40, 0.10, 0.025)),
    ("gpt-4.1", price(2.0, 8.0, 2.0, 0.50)),
];

const fn price(input: f64, output: f64, cache_write: f64, cache_read: f64) -> Price {
    Price {
        input,
        output,
        cache_write,
        cache_read,
    }
}

/// An `AGENT_PRICES` entry that is not `MODEL=INPUT,OUTPUT[,CACHE_WRITE,CACHE_READ]`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "AGENT_PRICES entry {entry:?} is not MODEL=INPUT,OUTPUT[,CACHE_WRITE,CACHE_READ] \
     (US dollars per million tokens), e.g. claude-sonnet-5-5=2,10,2.5,0.1"
)]
pub(crate) struct BadPrice {
    /// The entry as written (trimmed).
    pub(crate) entry: String,
}

/// The prices of a run: the table, with `AGENT_PRICES` entries before it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Prices {
    overrides: Vec<(String, Price)>,
}

impl Prices {
    /// Parse `AGENT_PRICES`: `MODEL=INPUT,OUTPUT[,CACHE_WRITE,CACHE_READ]` entries separated by
    /// `;`, dollars per million tokens. Without the cache prices, writes cost the input price
    /// and reads a tenth of it. The error names the entry that is wrong.
    pub(crate) fn parse(spec: Option<&str>) -> Result<Self, BadPrice> {
        let mut overrides = Vec::new();
        for entry in spec
            .unwrap_or_default()
            .split(';')
            .map(str::trim)
            .filter(|e| !e.is_empty())
        {
            let bad = || BadPrice {
                entry: entry.to_string(),
            };
            let (model, numbers) = entry.split_once('=').ok_or_else(bad)?;
            let numbers: Vec<f64> = numbers
                .split(',')
                .map(|n| n.trim().parse::<f64>().ok().filter(|n| n.is_finite() && *n >= 0.0))
                .collect::<Option<_>>()
                .ok_or_else(bad)?;
            let p = match numbers.as_slice() {
                [input, output] => price(*input, *output, *input, input / 10.0),
                [input, output, write, read] => price(*input, *output, *write, *read),
                _ => return Err(bad()),
            };
            if model.trim().is_empty() {
                return Err(bad());
            }
            overrides.push((model.trim().to_string(), p));
        }
        Ok(Self { overrides })
    }

    /// The price of `model`: an override naming it exactly or by prefix, else the table's.
    pub(crate) fn of(&self, model: &str) -> Option<Price> {
        let longest = |entries: &mut dyn Iterator<Item = (&str, Price)>| {
            entries
                .filter(|(prefix, _)| model.starts_with(prefix))
                .max_by_key(|(prefix, _)| prefix.len())
                .map(|(_, p)| p)
        };
        longest(&mut self.overrides.iter().map(|(m, p)| (m.as_str(), *p)))
            .or_else(|| longest(&mut TABLE.iter().map(|(m, p)| (*m, *p))))
    }

    /// What `usage` cost on `model`, when its price is known.
    pub(crate) fn cost(&self, model: &str, usage: &Usage) -> Option<Usd> {
        let p = self.of(model)?;
        let plain = usage
            .prompt_tokens
            .saturating_sub(usage.cache_write_tokens + usage.cache_read_tokens);
        let dollars = (plain as f64 * p.input
            + usage.completion_tokens as f64 * p.output
            + usage.cache_write_tokens as f64 * p.cache_write
            + usage.cache_read_tokens as f64 * p.cache_read)
            / 1_000_000.0;
        Some(Usd::from_dollars(dollars))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(prompt: u64, out: u64, write: u64, read: u64) -> Usage {
        Usage {
            prompt_tokens: prompt,
            completion_tokens: out,
            total_tokens: prompt + out,
            cache_write_tokens: write,
            cache_read_tokens: read,
            cost_usd: None,
        }
    }

    #[test]
    fn cache_tokens_are_priced_apart_from_plain_input() {
        let prices = Prices::default();
        // 1,000 plain, 100,000 written, 900,000 read, 10,000 out on Sonnet 5.5.
        let cost = prices
            .cost("claude-sonnet-5-5", &usage(1_001_000, 10_000, 100_000, 900_000))
            .unwrap();
        let expected = 0.001 * 2.0 + 0.01 * 10.0 + 0.1 * 2.5 + 0.9 * 0.10;
        assert!((cost.dollars() - expected).abs() < 1e-6, "{cost:?}");
        assert_eq!(prices.cost("some-local-model", &usage(10, 1, 0, 0)), None);
        assert!(prices.of("claude-haiku-4-5-20251001").is_some(), "dated ids match");
        assert_eq!(
            prices.of("gpt-4.1-mini").unwrap().input,
            0.40,
            "the longest prefix wins"
        );
    }

    #[test]
    fn overrides_come_first_and_bad_entries_are_named() {
        let p = Prices::parse(Some("claude-sonnet-5-5=1,2; my-model=3,4,5,6")).unwrap();
        assert_eq!(p.of("claude-sonnet-5-5").unwrap(), price(1.0, 2.0, 1.0, 0.1));
        assert_eq!(p.of("my-model").unwrap(), price(3.0, 4.0, 5.0, 6.0));
        for bad in ["x", "m=1", "m=a,b", "=1,2", "m=1,2,3"] {
            let err = Prices::parse(Some(bad)).unwrap_err();
            assert_eq!(err.entry, bad);
            let text = err.to_string();
            assert!(text.contains("AGENT_PRICES") && text.contains(bad), "{text}");
        }
        assert_eq!(Usd::from_dollars(0.0123).to_string(), "$0.0123");
        assert_eq!(Usd::from_dollars(12.345).to_string(), "$12.35");
        let five = Usd::from_dollars(0.000_005);
        assert_eq!(Usd::sum(None, Some(five)), Some(five));
    }
}
