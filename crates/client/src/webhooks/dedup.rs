//! [`Deduplicator`]: remembers the last N event ids, so an event the network
//! delivers twice (it may) is handled once. Bounded: the oldest id is forgotten
//! when a new one would exceed the capacity. In memory; a receiver that must not
//! handle an event twice across its own restarts records ids where it records the
//! effect.

use std::collections::{HashSet, VecDeque};

/// The last `capacity` distinct event ids seen.
#[derive(Debug, Clone)]
pub struct Deduplicator {
    seen: HashSet<String>,
    order: VecDeque<String>,
    capacity: usize,
}

impl Deduplicator {
    /// Remembers up to `capacity` ids (at least one).
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        Self {
            seen: HashSet::with_capacity(capacity),
            order: VecDeque::with_capacity(capacity),
            capacity,
        }
    }

    /// True the first time `id` is seen (among the ids remembered), false for a
    /// duplicate.
    pub fn first_time(&mut self, id: &str) -> bool {
        if self.seen.contains(id) {
            return false;
        }
        if self.order.len() == self.capacity
            && let Some(oldest) = self.order.pop_front()
        {
            self.seen.remove(&oldest);
        }
        self.seen.insert(id.to_owned());
        self.order.push_back(id.to_owned());
        true
    }

    /// How many ids are remembered.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
}

impl Default for Deduplicator {
    /// Ten thousand ids: hours of a busy clinic's events.
    fn default() -> Self {
        Self::new(10_000)
    }
}

#[cfg(test)]
mod tests {
    use super::Deduplicator;

    #[test]
    fn an_id_is_new_once() {
        let mut seen = Deduplicator::new(8);
        assert!(seen.first_time("01A"));
        assert!(!seen.first_time("01A"));
        assert!(seen.first_time("01B"));
    }

    #[test]
    fn the_oldest_id_is_forgotten_past_the_capacity() {
        let mut seen = Deduplicator::new(2);
        for id in ["01A", "01B", "01C"] {
            assert!(seen.first_time(id));
        }
        assert_eq!(seen.len(), 2);
        assert!(!seen.first_time("01C"));
        assert!(seen.first_time("01A"), "forgotten, so new again");
    }
}
