//! "Did you mean" suggestions: the closest candidate within a small edit
//! distance, so that a typo names its fix and a wild guess names nothing.

/// The candidate closest to `input`, if it is close enough to be a typo.
pub(crate) fn closest<'a, I, S>(input: &str, candidates: I) -> Option<String>
where
    I: IntoIterator<Item = &'a S>,
    S: AsRef<str> + ?Sized + 'a,
{
    let wanted = input.to_lowercase();
    let limit = match wanted.chars().count() {
        0..=3 => 1,
        4..=7 => 2,
        _ => 3,
    };
    candidates
        .into_iter()
        .map(|candidate| {
            let candidate = candidate.as_ref();
            let distance = strsim::damerau_levenshtein(&wanted, &candidate.to_lowercase());
            (distance, candidate)
        })
        .filter(|&(distance, _)| distance <= limit)
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, candidate)| candidate.to_owned())
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn a_missing_letter_suggests_the_key() {
        let keys = ["max_agent_steps", "exit_conditions"];
        assert_eq!(
            closest("exit_condition", &keys),
            Some("exit_conditions".to_owned())
        );
    }

    #[test]
    fn an_unrelated_word_suggests_nothing() {
        let keys = ["max_agent_steps", "exit_conditions"];
        assert_eq!(closest("temperature", &keys), None);
    }

    #[test]
    fn case_differences_still_suggest() {
        assert_eq!(closest("Model", &["model"]), Some("model".to_owned()));
    }
}
