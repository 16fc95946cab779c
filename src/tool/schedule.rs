//! Haystack's batching of one step's tool calls by their State reads and writes.
//!
//! A call that reads a key another call writes runs in a later batch
//! (read-after-write, whatever the call order); write-write overlap alone
//! creates no dependency. Cycles are broken by running the lowest-index
//! remaining call alone. Calls in one batch may run in parallel.

use super::ToolSpec;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// The State keys a call reads or writes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Keys {
    /// A State-taking tool touches every key.
    All,
    /// These keys.
    Some(BTreeSet<String>),
}

impl Keys {
    fn intersects(&self, other: &Keys) -> bool {
        match (self, other) {
            (Keys::All, Keys::All) => true,
            (Keys::All, Keys::Some(keys)) | (Keys::Some(keys), Keys::All) => !keys.is_empty(),
            (Keys::Some(a), Keys::Some(b)) => !a.is_disjoint(b),
        }
    }
}

/// `(reads, writes)` of one call: reads skip parameters the model supplied.
pub(crate) fn state_io(spec: &ToolSpec, arguments: &Map<String, Value>) -> (Keys, Keys) {
    if spec.takes_state {
        return (Keys::All, Keys::All);
    }
    let reads = spec
        .inputs_from_state
        .iter()
        .filter(|(_, param)| !arguments.contains_key(param.as_str()))
        .map(|(key, _)| key.clone())
        .collect();
    let writes = spec.outputs_to_state.keys().cloned().collect();
    (Keys::Some(reads), Keys::Some(writes))
}

/// Groups call indices into batches (a layered topological sort).
pub(crate) fn schedule(io: &[(Keys, Keys)]) -> Vec<Vec<usize>> {
    let n = io.len();
    if n <= 1 {
        return if n == 1 { vec![vec![0]] } else { Vec::new() };
    }
    let deps: Vec<Vec<usize>> = (0..n)
        .map(|j| {
            (0..n)
                .filter(|&i| i != j && io[j].0.intersects(&io[i].1))
                .collect()
        })
        .collect();
    let mut done = vec![false; n];
    let mut remaining = n;
    let mut batches = Vec::new();
    while remaining > 0 {
        let mut ready: Vec<usize> = (0..n)
            .filter(|&k| !done[k] && deps[k].iter().all(|&d| done[d]))
            .collect();
        if ready.is_empty() {
            // A cycle: run the lowest-index remaining call on its own.
            ready = (0..n).filter(|&k| !done[k]).take(1).collect();
        }
        for &k in &ready {
            done[k] = true;
        }
        remaining -= ready.len();
        batches.push(ready);
    }
    batches
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(list: &[&str]) -> Keys {
        Keys::Some(list.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn one_call_is_one_batch_and_no_call_no_batch() {
        assert_eq!(schedule(&[(keys(&["x"]), keys(&["x"]))]), vec![vec![0]]);
        assert_eq!(schedule(&[]), Vec::<Vec<usize>>::new());
    }

    #[test]
    fn a_reader_runs_after_the_writer_even_when_called_first() {
        let io = vec![(keys(&["doc"]), keys(&[])), (keys(&[]), keys(&["doc"]))];
        assert_eq!(schedule(&io), vec![vec![1], vec![0]]);
    }

    #[test]
    fn write_write_overlap_alone_keeps_calls_in_one_batch() {
        let io = vec![(keys(&[]), keys(&["x"])), (keys(&[]), keys(&["x"]))];
        assert_eq!(schedule(&io), vec![vec![0, 1]]);
    }

    #[test]
    fn a_cycle_runs_the_lowest_index_call_alone() {
        let io = vec![(keys(&["x"]), keys(&["x"])), (keys(&["x"]), keys(&["x"]))];
        assert_eq!(schedule(&io), vec![vec![0], vec![1]]);
    }

    #[test]
    fn a_state_tool_shares_a_batch_only_with_calls_that_touch_no_state() {
        let io = vec![
            (Keys::All, Keys::All),
            (keys(&[]), keys(&[])),
            (keys(&["x"]), keys(&[])),
        ];
        assert_eq!(schedule(&io), vec![vec![0, 1], vec![2]]);
    }
}
