//! The hook-order dimension: every registration order of the hooks at each
//! point, and every point a declarative hook's `allowed_hook_points` lets
//! it move to.

use super::rng::Rng;
use crate::hook::HookPoint;
use crate::scenario::{HookEntry, Scenario};
use indexmap::IndexMap;

/// A hook entry of the scenario as written: its point and position.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct EntryRef {
    pub point: String,
    pub index: usize,
}

/// Where each entry goes: point -> entries in registration order.
pub(crate) type Layout = IndexMap<String, Vec<EntryRef>>;

/// The hooks of a scenario and where each may be registered.
pub(crate) struct Orders {
    /// Per entry of the scenario, in file order: the points it may take
    /// (its own first).
    choices: Vec<(EntryRef, Vec<String>)>,
    /// The points in file order, then points only a move reaches.
    points: Vec<String>,
}

impl Orders {
    pub(crate) fn of(scenario: &Scenario) -> Self {
        let mut choices = Vec::new();
        let mut points: Vec<String> = scenario.hooks.keys().cloned().collect();
        for (point, entries) in &scenario.hooks {
            for (index, entry) in entries.iter().enumerate() {
                let mut allowed = vec![point.clone()];
                if let HookEntry::Declarative {
                    allowed_hook_points: Some(listed),
                    ..
                } = entry
                {
                    if listed.contains(point) {
                        for other in listed {
                            let known = other.parse::<HookPoint>().is_ok();
                            if known && !allowed.contains(other) {
                                allowed.push(other.clone());
                                if !points.contains(other) {
                                    points.push(other.clone());
                                }
                            }
                        }
                    }
                }
                let entry = EntryRef {
                    point: point.clone(),
                    index,
                };
                choices.push((entry, allowed));
            }
        }
        Orders { choices, points }
    }

    /// How many layouts there are (saturating).
    ///
    /// The sum, over every assignment of entries to points, of the orders
    /// at each point (the product of the factorials of their counts),
    /// found entry by entry from the counts per point: an entry placed at a
    /// point holding `c` multiplies that point's orders by `c + 1`. Listing
    /// the assignments instead takes time in the product of the choices
    /// (2^75 for 75 hooks that may take two points).
    pub(crate) fn count(&self) -> u128 {
        let mut counts: std::collections::BTreeMap<Vec<usize>, u128> =
            std::collections::BTreeMap::from([(vec![0; self.points.len()], 1)]);
        for (_, allowed) in &self.choices {
            let mut next = std::collections::BTreeMap::new();
            for (state, weight) in &counts {
                for point in allowed {
                    let Some(p) = self.points.iter().position(|q| q == point) else {
                        continue;
                    };
                    let mut placed = state.clone();
                    placed[p] += 1;
                    let added = weight.saturating_mul(placed[p] as u128);
                    let total: &mut u128 = next.entry(placed).or_default();
                    *total = total.saturating_add(added);
                }
            }
            counts = next;
        }
        counts.values().fold(0u128, |a, b| a.saturating_add(*b))
    }

    /// Every layout, the scenario's own first.
    pub(crate) fn all(&self) -> Vec<Layout> {
        let mut layouts = Vec::new();
        self.each_assignment(&mut |layout| {
            let per_point: Vec<Vec<Vec<EntryRef>>> =
                layout.values().map(|e| permutations(e)).collect();
            let mut digits = vec![0; per_point.len()];
            loop {
                let mut out = Layout::new();
                for ((point, _), (orders, &d)) in layout.iter().zip(per_point.iter().zip(&digits)) {
                    out.insert(point.clone(), orders[d].clone());
                }
                layouts.push(out);
                // The next combination, the first point's order fastest.
                let mut i = 0;
                loop {
                    if i == digits.len() {
                        return;
                    }
                    digits[i] += 1;
                    if digits[i] < per_point[i].len() {
                        break;
                    }
                    digits[i] = 0;
                    i += 1;
                }
            }
        });
        layouts
    }

    /// One layout at random: a point for each movable entry, then an order
    /// at each point.
    pub(crate) fn random(&self, rng: &mut Rng) -> Layout {
        let mut layout = self.empty();
        for (entry, allowed) in &self.choices {
            let point = &allowed[rng.below(allowed.len())];
            layout[point.as_str()].push(entry.clone());
        }
        for entries in layout.values_mut() {
            rng.shuffle(entries);
        }
        layout
    }

    /// The scenario's own layout.
    pub(crate) fn own(&self) -> Layout {
        let mut layout = self.empty();
        for (entry, _) in &self.choices {
            layout[entry.point.as_str()].push(entry.clone());
        }
        layout
    }

    fn empty(&self) -> Layout {
        self.points
            .iter()
            .map(|p| (p.clone(), Vec::new()))
            .collect()
    }

    /// Calls `each` with every assignment of entries to points (entries in
    /// file order at each point), the scenario's own first.
    fn each_assignment(&self, each: &mut dyn FnMut(&Layout)) {
        let mut picks = vec![0usize; self.choices.len()];
        loop {
            let mut layout = self.empty();
            for ((entry, allowed), &pick) in self.choices.iter().zip(&picks) {
                layout[allowed[pick].as_str()].push(entry.clone());
            }
            each(&layout);
            let mut i = 0;
            loop {
                if i == picks.len() {
                    return;
                }
                picks[i] += 1;
                if picks[i] < self.choices[i].1.len() {
                    break;
                }
                picks[i] = 0;
                i += 1;
            }
        }
    }
}

/// The hooks of `scenario` as `layout` registers them; points left empty
/// are dropped, unless the scenario lists them (an empty list is kept).
pub(crate) fn apply(scenario: &Scenario, layout: &Layout) -> IndexMap<String, Vec<HookEntry>> {
    layout
        .iter()
        .filter(|(point, entries)| !entries.is_empty() || scenario.hooks.contains_key(*point))
        .map(|(point, entries)| {
            let hooks = entries
                .iter()
                .map(|e| scenario.hooks[e.point.as_str()][e.index].clone())
                .collect();
            (point.clone(), hooks)
        })
        .collect()
}

/// How `layout` differs from the scenario as written, one point a part:
/// `before_llm: [audit, redact]`.
pub(crate) fn describe(scenario: &Scenario, layout: &Layout) -> Vec<String> {
    let label = |e: &EntryRef| label(scenario, e);
    layout
        .iter()
        .filter(|(point, entries)| {
            let own: Vec<EntryRef> = (0..scenario.hooks.get(*point).map_or(0, Vec::len))
                .map(|index| EntryRef {
                    point: (*point).clone(),
                    index,
                })
                .collect();
            **entries != own
        })
        .map(|(point, entries)| {
            let names: Vec<String> = entries.iter().map(label).collect();
            format!("{point}: [{}]", names.join(", "))
        })
        .collect()
}

/// An entry by its name, or by its place in the file.
pub(crate) fn label(scenario: &Scenario, entry: &EntryRef) -> String {
    let name = match &scenario.hooks[entry.point.as_str()][entry.index] {
        HookEntry::Declarative { name, .. } | HookEntry::ReadyMade { name, .. } => name.clone(),
        HookEntry::Shared(key) => Some(key.clone()),
        HookEntry::Custom(name) => Some(name.clone()),
        HookEntry::Python { name, call } => {
            Some(name.clone().unwrap_or_else(|| call.short_name().to_owned()))
        }
    };
    name.unwrap_or_else(|| format!("hooks.{}[{}]", entry.point, entry.index))
}

/// Every order of `items`, the given one first (lexicographic by position).
fn permutations<T: Clone>(items: &[T]) -> Vec<Vec<T>> {
    let mut index: Vec<usize> = (0..items.len()).collect();
    let mut out = vec![items.to_vec()];
    // Narayana's next permutation.
    loop {
        let Some(i) = (1..index.len()).rev().find(|&i| index[i - 1] < index[i]) else {
            return out;
        };
        let j = (i..index.len())
            .rev()
            .find(|&j| index[j] > index[i - 1])
            .unwrap_or(i);
        index.swap(i - 1, j);
        index[i..].reverse();
        out.push(index.iter().map(|&k| items[k].clone()).collect());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Format;

    fn scenario(text: &str) -> Scenario {
        Scenario::from_str(text, "orders.yaml", Format::Yaml).unwrap()
    }

    #[test]
    fn the_count_is_the_number_of_layouts_and_is_found_without_listing_them() {
        let movable = "    - {name: judge, allowed_hook_points: [on_exit, after_run]}\n";
        for n in 1..6 {
            let orders = Orders::of(&scenario(&format!(
                "hooks:\n  on_exit:\n{}  after_run:\n    - {{name: other}}\nmodel: []\n",
                movable.repeat(n)
            )));
            assert_eq!(orders.count(), orders.all().len() as u128, "{n}");
        }
        // 75 hooks that may take two points: 2^75 assignments, each with
        // more orders than 128 bits hold.
        let many = Orders::of(&scenario(&format!(
            "hooks:\n  on_exit:\n{}model: []\n",
            movable.repeat(75)
        )));
        assert_eq!(many.count(), u128::MAX);
    }

    #[test]
    fn permutations_come_in_lexicographic_order_from_the_given_one() {
        assert_eq!(
            permutations(&['a', 'b', 'c']),
            [
                ['a', 'b', 'c'],
                ['a', 'c', 'b'],
                ['b', 'a', 'c'],
                ['b', 'c', 'a'],
                ['c', 'a', 'b'],
                ['c', 'b', 'a']
            ]
        );
        assert_eq!(permutations::<u8>(&[]), [Vec::<u8>::new()]);
    }

    #[test]
    fn three_hooks_at_one_point_and_one_elsewhere_give_six_layouts() {
        let s = scenario(
            "hooks:\n  before_llm: [{name: a}, {name: b}, {name: c}]\n  after_run: [{name: d}]\nmodel: []",
        );
        let orders = Orders::of(&s);
        assert_eq!(orders.count(), 6);
        let all = orders.all();
        assert_eq!(all.len(), 6);
        assert!(
            describe(&s, &all[0]).is_empty(),
            "the file's own order comes first"
        );
        assert_eq!(describe(&s, &all[5]), ["before_llm: [c, b, a]"]);
    }

    #[test]
    fn a_hook_moves_to_every_point_it_allows() {
        let s = scenario(
            "hooks:\n  before_llm:\n    - {name: a, allowed_hook_points: [before_llm, after_tool, no_such_point]}\n    - {name: b}\nmodel: []",
        );
        let orders = Orders::of(&s);
        // a with b at before_llm (two orders), or a alone at after_tool.
        assert_eq!(orders.count(), 3);
        let described: Vec<Vec<String>> = orders.all().iter().map(|l| describe(&s, l)).collect();
        assert_eq!(
            described,
            [
                vec![],
                vec!["before_llm: [b, a]".to_owned()],
                vec!["before_llm: [b]".to_owned(), "after_tool: [a]".to_owned()],
            ]
        );
    }

    #[test]
    fn a_random_layout_keeps_every_hook_once() {
        let s = scenario("hooks:\n  before_llm: [{name: a}, {name: b}, {}]\nmodel: []");
        let layout = Orders::of(&s).random(&mut Rng::new(11));
        let mut names: Vec<String> = layout["before_llm"].iter().map(|e| label(&s, e)).collect();
        names.sort();
        assert_eq!(names, ["a", "b", "hooks.before_llm[2]"]);
    }
}
