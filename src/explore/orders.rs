//! The hook-order dimension: every registration order of the hooks at each
//! point, and every point a declarative hook's `allowed_hook_points` lets
//! it move to.

use super::rng::Rng;
use crate::hook::HookPoint;
use crate::scenario::{HookEntry, Scenario};
use indexmap::IndexMap;
use std::collections::HashMap;

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
    /// (2^75 for 75 hooks that may take two points). The count never falls
    /// as entries are added (an entry multiplies each weight by at least
    /// 1), so any part of the entries bounds it from below: before listing
    /// counts per point, it is saturated when `m` entries may all take one
    /// point (`m!` orders there) or `m` entries share `k` allowed points
    /// (`m! * C(m + k - 1, k - 1)` layouts of theirs) past `u128::MAX`, and
    /// the listing stops at the first entry that saturates it.
    pub(crate) fn count(&self) -> u128 {
        if self.lower_bound() == u128::MAX {
            return u128::MAX;
        }
        let own: Vec<Vec<usize>> = self
            .choices
            .iter()
            .map(|(_, allowed)| {
                allowed
                    .iter()
                    .filter_map(|point| self.points.iter().position(|q| q == point))
                    .collect()
            })
            .collect();
        let mut counts: HashMap<Vec<u32>, u128> = HashMap::from([(vec![0; self.points.len()], 1)]);
        for allowed in &own {
            let mut next: HashMap<Vec<u32>, u128> = HashMap::with_capacity(counts.len() * 2);
            let mut sum = 0u128;
            for (state, weight) in &counts {
                for &p in allowed {
                    let mut placed = state.clone();
                    placed[p] += 1;
                    let added = weight.saturating_mul(u128::from(placed[p]));
                    sum = sum.saturating_add(added);
                    let total: &mut u128 = next.entry(placed).or_default();
                    *total = total.saturating_add(added);
                }
            }
            if sum == u128::MAX {
                return u128::MAX;
            }
            counts = next;
        }
        counts.values().fold(0u128, |a, b| a.saturating_add(*b))
    }

    /// A lower bound of [`Orders::count`] from two parts of the entries:
    /// those that may take one point, and those that share one allowed set.
    fn lower_bound(&self) -> u128 {
        let at_one_point = self
            .points
            .iter()
            .map(|point| {
                let m = self
                    .choices
                    .iter()
                    .filter(|(_, a)| a.contains(point))
                    .count();
                factorial(m)
            })
            .max()
            .unwrap_or(1);
        let mut sets: HashMap<&[String], usize> = HashMap::new();
        for (_, allowed) in &self.choices {
            *sets.entry(allowed.as_slice()).or_default() += 1;
        }
        let sharing_a_set = sets
            .iter()
            .map(|(allowed, &m)| factorial(m).saturating_mul(choose(m + allowed.len() - 1, m)))
            .max()
            .unwrap_or(1);
        at_one_point.max(sharing_a_set)
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

/// `n!`, saturating.
fn factorial(n: usize) -> u128 {
    (1..=n as u128).fold(1u128, u128::saturating_mul)
}

/// `C(n, k)`, saturating: exact while the running product fits (each step
/// `c * (n - k + i) / i` is an integer).
fn choose(n: usize, k: usize) -> u128 {
    let k = k.min(n - k) as u128;
    let n = n as u128;
    let mut c = 1u128;
    for i in 1..=k {
        match c.checked_mul(n - k + i) {
            Some(product) => c = product / i,
            None => return u128::MAX,
        }
    }
    c
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
        // 75 hooks that may each take all six points: the count saturates
        // long before the counts per point are all listed.
        let six = "    - {name: judge, allowed_hook_points: [before_run, before_llm, before_tool, after_tool, on_exit, after_run]}\n";
        let every_point = Orders::of(&scenario(&format!(
            "hooks:\n  on_exit:\n{}model: []\n",
            six.repeat(75)
        )));
        assert_eq!(every_point.count(), u128::MAX);
        // Below saturation the count is exact: 3 such hooks give 3! orders
        // for each of the C(3 + 5, 5) = 56 ways to split them over 6 points,
        // weighted: the sum over splits of 3!/(a! b! ...) * (a! b! ...) = 6 * 56.
        let three = Orders::of(&scenario(&format!(
            "hooks:\n  on_exit:\n{}model: []\n",
            six.repeat(3)
        )));
        assert_eq!(three.count(), three.all().len() as u128);
        assert_eq!(three.count(), 6 * 56);
    }

    #[test]
    fn the_lower_bound_never_passes_the_count() {
        let text = |hooks: &str| format!("hooks:\n{hooks}model: []\n");
        for hooks in [
            "  on_exit:\n    - {name: a, allowed_hook_points: [on_exit, after_run]}\n    - {name: b}\n",
            "  on_exit:\n    - {name: a, allowed_hook_points: [on_exit, after_run, before_run]}\n    - {name: b, allowed_hook_points: [on_exit, after_run, before_run]}\n  after_run:\n    - {name: c}\n",
            "  before_llm:\n    - {name: a}\n    - {name: b}\n    - {name: c}\n    - {name: d}\n",
        ] {
            let orders = Orders::of(&scenario(&text(hooks)));
            let bound = orders.lower_bound();
            assert!(bound > 1 && bound <= orders.count(), "{hooks}: {bound}");
        }
        assert_eq!(choose(80, 5), 24_040_016);
        assert_eq!(choose(5, 5), 1);
        assert_eq!(
            factorial(34),
            295_232_799_039_604_140_847_618_609_643_520_000_000
        );
        assert_eq!(factorial(35), u128::MAX);
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
