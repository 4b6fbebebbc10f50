//! "Did you mean": the closest few candidates to a misspelt name.

/// Candidates close enough to `input` to be a likely typo, best first.
pub fn did_you_mean<'a, I>(input: &str, candidates: I) -> Vec<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let input_lower = input.to_lowercase();
    let mut scored: Vec<(f64, &'a str)> = candidates
        .into_iter()
        .filter_map(|candidate| {
            let c = candidate.to_lowercase();
            let jw = strsim::jaro_winkler(&input_lower, &c);
            let edits = strsim::damerau_levenshtein(&input_lower, &c);
            let close = edits <= 2.max(c.len() / 4) || jw >= 0.88;
            let contains = c.len() >= 3 && (input_lower.contains(&c) || c.contains(&input_lower));
            (close || (contains && input_lower.len() >= 3)).then_some((jw, candidate))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(3).map(|(_, c)| c).collect()
}

/// `did you mean `a`?` / `did you mean `a` or `b`?`, or `None`.
pub fn phrase<'a, I>(input: &str, candidates: I) -> Option<String>
where
    I: IntoIterator<Item = &'a str>,
{
    let found = did_you_mean(input, candidates);
    match found.as_slice() {
        [] => None,
        [one] => Some(format!("did you mean `{one}`?")),
        many => {
            let quoted: Vec<String> = many.iter().map(|c| format!("`{c}`")).collect();
            Some(format!("did you mean {}?", quoted.join(" or ")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_typos_and_ignores_strangers() {
        let keys = ["slug", "title", "files", "route", "oracle"];
        assert_eq!(did_you_mean("slgu", keys), vec!["slug"]);
        assert_eq!(did_you_mean("orcale", keys), vec!["oracle"]);
        assert!(did_you_mean("zzzzzz", keys).is_empty());
        assert_eq!(
            phrase("rout", keys).as_deref(),
            Some("did you mean `route`?")
        );
    }
}
