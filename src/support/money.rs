//! Money as usage reports carry it: US dollars, kept exact.

use serde::{Deserialize, Serialize};

/// An amount of US dollars, kept in millionths so that sums are exact and comparable; written
/// and read as a plain number of dollars.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Usd(u64);

impl Usd {
    /// The amount nearest to `dollars` (negative and non-finite amounts are zero).
    pub(crate) fn from_dollars(dollars: f64) -> Self {
        let micros = (dollars * 1_000_000.0).round();
        Self(if micros.is_finite() && micros > 0.0 {
            micros as u64
        } else {
            0
        })
    }

    /// The amount in dollars.
    pub(crate) fn dollars(self) -> f64 {
        self.0 as f64 / 1_000_000.0
    }

    /// The sum of two amounts that may be unknown: unknown only when both are.
    pub(crate) fn sum(a: Option<Self>, b: Option<Self>) -> Option<Self> {
        match (a, b) {
            (None, None) => None,
            (a, b) => Some(Self(a.map_or(0, |x| x.0) + b.map_or(0, |x| x.0))),
        }
    }
}

impl Serialize for Usd {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(self.dollars())
    }
}

impl<'de> Deserialize<'de> for Usd {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        f64::deserialize(deserializer).map(Self::from_dollars)
    }
}

impl std::fmt::Display for Usd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let d = self.dollars();
        // A turn usually costs cents or less: below a dollar, to a hundredth of a cent.
        if d < 1.0 {
            write!(f, "${d:.4}")
        } else {
            write!(f, "${d:.2}")
        }
    }
}
