//! Sets of detail categories.

use std::collections::BTreeSet;

use super::DetailId;

/// A set of detail categories: what a user allows, or what a grammar offers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DetailSet(BTreeSet<DetailId>);

impl DetailSet {
    pub fn contains(&self, d: DetailId) -> bool {
        self.0.contains(&d)
    }

    pub fn remove(&mut self, d: DetailId) {
        self.0.remove(&d);
    }

    pub fn insert(&mut self, d: DetailId) {
        self.0.insert(d);
    }

    pub fn iter(&self) -> impl Iterator<Item = DetailId> + '_ {
        self.0.iter().copied()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl FromIterator<DetailId> for DetailSet {
    fn from_iter<I: IntoIterator<Item = DetailId>>(iter: I) -> Self {
        DetailSet(iter.into_iter().collect())
    }
}
