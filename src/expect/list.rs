//! Checking a list expectation in its match modes: exact, `in_order` (a
//! subsequence), `any_order` (the same multiset), `contains` (each
//! present), `excludes` (none present).

use super::render;
use crate::outcome::Failure;
use crate::scenario::ListExpect;
use serde_json::Value;

/// A list expectation and how to match and show its items.
pub(crate) struct ListCheck<'a, P, A, M> {
    /// The expectation's key, as failures name it (`hooks`).
    pub(crate) key: &'a str,
    /// What the run shows, in order.
    pub(crate) actual: &'a [A],
    /// Whether an expected item matches an element.
    pub(crate) matches: M,
    /// An expected item as JSON.
    pub(crate) show_item: fn(&P) -> Value,
    /// An element as JSON.
    pub(crate) show_actual: fn(&A) -> Value,
    /// Which elements a mode's failure line lists after `got` (`None`:
    /// all); the failure's `actual` keeps them all.
    pub(crate) listed: Option<fn(&[P], &A) -> bool>,
}

/// The failures of a list expectation of names (`hooks`, `tools_run`)
/// against the names the run shows, `matches` pairing an expected name
/// with a shown one.
pub(crate) fn check_names(
    key: &str,
    want: &ListExpect<String>,
    ran: &[String],
    matches: impl Fn(&String, &String) -> bool,
    failures: &mut Vec<Failure>,
) {
    let check = ListCheck {
        key,
        actual: ran,
        matches,
        show_item: |name: &String| Value::from(name.as_str()),
        show_actual: |name: &String| Value::from(name.as_str()),
        listed: None,
    };
    check.check(want, failures);
}

impl<P, A, M: Fn(&P, &A) -> bool> ListCheck<'_, P, A, M> {
    /// The failures of `expect` against the run, one per mode that does not hold.
    pub(crate) fn check(&self, expect: &ListExpect<P>, failures: &mut Vec<Failure>) {
        let got = Value::Array(self.actual.iter().map(self.show_actual).collect());
        let list = |items: &[P]| Value::Array(items.iter().map(self.show_item).collect());
        let modes = match expect {
            ListExpect::Exact(items) => {
                let same = items.len() == self.actual.len()
                    && items
                        .iter()
                        .zip(self.actual)
                        .all(|(p, a)| (self.matches)(p, a));
                if !same {
                    let want = list(items);
                    let line = format!(
                        "{}: expected {}, got {}",
                        self.key,
                        render(&want),
                        render(&got)
                    );
                    failures.push(Failure::compare(self.top_key(), line, want, got));
                }
                return;
            }
            ListExpect::Modes(modes) => modes,
        };
        for (mode, items) in modes.given() {
            let problem = match mode {
                "in_order" => self.in_order(items),
                "any_order" => self.same_multiset(items),
                "contains" => self.contains(items),
                _ => self.excludes(items),
            };
            if let Some(problem) = problem {
                let shown = match self.listed {
                    None => format!("got {}", render(&got)),
                    Some(listed) => {
                        let kept = self.actual.iter().filter(|a| listed(items, a));
                        let kept = Value::Array(kept.map(self.show_actual).collect());
                        format!("of those kinds, got {}", render(&kept))
                    }
                };
                let line = format!("{}.{mode}: {problem}; {shown}", self.key);
                // The mode with its items: what the file says, not a list
                // to diff line by line against the run's.
                let mut want = serde_json::Map::new();
                want.insert(mode.into(), list(items));
                failures.push(Failure::compare(
                    self.top_key(),
                    line,
                    Value::Object(want),
                    got.clone(),
                ));
            }
        }
    }

    /// The `expect` key the list belongs to (`last_message` for
    /// `last_message.tool_calls`).
    fn top_key(&self) -> &str {
        self.key.split('.').next().unwrap_or(self.key)
    }

    fn shown(&self, items: &[&P]) -> String {
        render(&Value::Array(
            items.iter().map(|item| (self.show_item)(item)).collect(),
        ))
    }

    fn one(&self, item: &P) -> String {
        render(&(self.show_item)(item))
    }

    /// Greedy earliest matching is optimal for a subsequence: an item
    /// matched earlier leaves the most elements for the next ones.
    fn in_order(&self, items: &[P]) -> Option<String> {
        let mut next = 0;
        for (i, item) in items.iter().enumerate() {
            match self.actual[next..]
                .iter()
                .position(|a| (self.matches)(item, a))
            {
                Some(found) => next += found + 1,
                None if i == 0 => {
                    return Some(format!("nothing matches item 0 ({})", self.one(item)));
                }
                None => {
                    return Some(format!(
                        "nothing matches item {i} ({}) after the match of item {} ({})",
                        self.one(item),
                        i - 1,
                        self.one(&items[i - 1])
                    ));
                }
            }
        }
        None
    }

    fn same_multiset(&self, items: &[P]) -> Option<String> {
        let (unmatched, spare) = self.pair(items);
        if unmatched.is_empty() && spare.is_empty() {
            return None;
        }
        let mut parts = Vec::new();
        if !unmatched.is_empty() {
            parts.push(format!("not found: {}", self.shown(&unmatched)));
        }
        if !spare.is_empty() {
            let spare = Value::Array(spare.iter().map(|a| (self.show_actual)(a)).collect());
            parts.push(format!("not expected: {}", render(&spare)));
        }
        Some(parts.join("; "))
    }

    fn contains(&self, items: &[P]) -> Option<String> {
        let (unmatched, _) = self.pair(items);
        (!unmatched.is_empty()).then(|| format!("not found: {}", self.shown(&unmatched)))
    }

    fn excludes(&self, items: &[P]) -> Option<String> {
        let found: Vec<Value> = self
            .actual
            .iter()
            .filter(|a| items.iter().any(|p| (self.matches)(p, a)))
            .map(self.show_actual)
            .collect();
        (!found.is_empty()).then(|| format!("found excluded {}", render(&Value::Array(found))))
    }

    /// A largest pairing of items with distinct elements (Kuhn's augmenting
    /// paths: items such as `before_llm` and `before_llm:a` may compete for
    /// the same element, so a greedy pairing could miss one that exists).
    /// Returns the items left unpaired and the elements left unpaired.
    fn pair<'p>(&self, items: &'p [P]) -> (Vec<&'p P>, Vec<&A>) {
        let mut owner: Vec<Option<usize>> = vec![None; self.actual.len()];
        for item in 0..items.len() {
            let mut seen = vec![false; self.actual.len()];
            self.augment(items, item, &mut owner, &mut seen);
        }
        let paired: Vec<usize> = owner.iter().flatten().copied().collect();
        let unmatched = (0..items.len())
            .filter(|i| !paired.contains(i))
            .map(|i| &items[i])
            .collect();
        let spare = owner
            .iter()
            .zip(self.actual)
            .filter(|(o, _)| o.is_none())
            .map(|(_, a)| a)
            .collect();
        (unmatched, spare)
    }

    fn augment(
        &self,
        items: &[P],
        item: usize,
        owner: &mut [Option<usize>],
        seen: &mut [bool],
    ) -> bool {
        for element in 0..self.actual.len() {
            if seen[element] || !(self.matches)(&items[item], &self.actual[element]) {
                continue;
            }
            seen[element] = true;
            let free = match owner[element] {
                None => true,
                Some(other) => self.augment(items, other, owner, seen),
            };
            if free {
                owner[element] = Some(item);
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::ListModes;
    use serde_json::json;

    fn modes(mode: &str, items: &[&str]) -> ListExpect<String> {
        let list = Some(items.iter().map(|s| (*s).to_owned()).collect());
        let mut modes = ListModes {
            in_order: None,
            any_order: None,
            contains: None,
            excludes: None,
        };
        match mode {
            "in_order" => modes.in_order = list,
            "any_order" => modes.any_order = list,
            "contains" => modes.contains = list,
            _ => modes.excludes = list,
        }
        ListExpect::Modes(modes)
    }

    /// Hooks as `expect.hooks` matches them: `POINT` or `POINT:NAME`.
    fn check(expect: &ListExpect<String>, actual: &[&str]) -> Vec<String> {
        let actual: Vec<String> = actual.iter().map(|s| (*s).to_owned()).collect();
        let check = ListCheck {
            key: "hooks",
            actual: &actual,
            matches: |p: &String, a: &String| {
                if p.contains(':') {
                    p == a
                } else {
                    a.split(':').next() == Some(p.as_str())
                }
            },
            show_item: |p: &String| json!(p),
            show_actual: |a: &String| json!(a),
            listed: None,
        };
        let mut failures = Vec::new();
        check.check(expect, &mut failures);
        failures.into_iter().map(|f| f.message).collect()
    }

    const RAN: &[&str] = &[
        "before_run:audit",
        "before_llm:a",
        "before_llm:b",
        "on_exit:x",
    ];

    #[test]
    fn in_order_is_a_subsequence_and_names_the_item_that_has_no_match_after_the_previous() {
        assert!(check(&modes("in_order", &["before_llm:a", "on_exit"]), RAN).is_empty());
        assert_eq!(
            check(&modes("in_order", &["on_exit", "before_llm:a"]), RAN),
            [
                r#"hooks.in_order: nothing matches item 1 ("before_llm:a") after the match of item 0 ("on_exit"); got ["before_run:audit", "before_llm:a", "before_llm:b", "on_exit:x"]"#
            ]
        );
    }

    #[test]
    fn any_order_pairs_items_that_compete_for_the_same_element() {
        // Greedy would give `before_llm:a` to `before_llm` and fail.
        let expect = modes(
            "any_order",
            &["on_exit", "before_llm", "before_llm:a", "before_run"],
        );
        assert!(check(&expect, RAN).is_empty());
        assert_eq!(
            check(&modes("any_order", &["on_exit", "before_llm:c"]), &RAN[2..]),
            [
                r#"hooks.any_order: not found: ["before_llm:c"]; not expected: ["before_llm:b"]; got ["before_llm:b", "on_exit:x"]"#
            ]
        );
    }

    #[test]
    fn contains_counts_repeated_items_and_excludes_names_what_it_found() {
        assert!(check(&modes("contains", &["before_llm", "before_llm"]), RAN).is_empty());
        assert_eq!(
            check(&modes("contains", &["on_exit", "on_exit"]), RAN)[0],
            r#"hooks.contains: not found: ["on_exit"]; got ["before_run:audit", "before_llm:a", "before_llm:b", "on_exit:x"]"#
        );
        assert!(check(&modes("excludes", &["after_run"]), RAN).is_empty());
        assert!(
            check(&modes("excludes", &["before_llm:b"]), RAN)[0]
                .starts_with(r#"hooks.excludes: found excluded ["before_llm:b"]; got"#)
        );
    }

    #[test]
    fn a_plain_list_stays_exact() {
        let exact = ListExpect::Exact(vec!["before_run".to_owned(), "on_exit".to_owned()]);
        assert!(check(&exact, &["before_run:a", "on_exit:b"]).is_empty());
        assert_eq!(
            check(&exact, &["before_run:a"]),
            [r#"hooks: expected ["before_run", "on_exit"], got ["before_run:a"]"#]
        );
    }
}
