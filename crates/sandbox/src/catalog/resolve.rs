//! Resolving what a caller names — by id, code or name — to catalog entries. A
//! name resolves to the one entry whose name equals it (ignoring case and spacing)
//! or, failing that, to the entries whose name contains every word of it. The
//! network never guesses: several fits are returned as such, for a person to pick.

use crate::wire::EntityMatchType;

/// At most this many entries are offered for one name.
pub const MAX_OPTIONS: usize = 20;

/// What a reference resolved to.
#[derive(Debug)]
pub enum Found<'a, T> {
    One(&'a T, EntityMatchType),
    Several(Vec<(&'a T, EntityMatchType)>),
    Nothing,
}

fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_lowercase).collect()
}

/// Every entry that fits `name`: exact fits first, then those containing every
/// word, at most [`MAX_OPTIONS`].
pub fn matches_by_name<'a, T>(
    items: &'a [T],
    name: &str,
    name_of: impl Fn(&T) -> &str,
) -> Vec<(&'a T, EntityMatchType)> {
    let wanted = words(name);
    if wanted.is_empty() {
        return Vec::new();
    }
    let mut exact = Vec::new();
    let mut fuzzy = Vec::new();
    for item in items {
        let have = words(name_of(item));
        if have == wanted {
            exact.push((item, EntityMatchType::ExactNameMatch));
        } else if wanted
            .iter()
            .all(|w| have.iter().any(|h| h.contains(w.as_str())))
        {
            fuzzy.push((item, EntityMatchType::FuzzyNameMatch));
        }
    }
    exact.extend(fuzzy);
    exact.truncate(MAX_OPTIONS);
    exact
}

/// Resolves `name`: a single exact fit wins; otherwise one fit, several, or none.
pub fn by_name<'a, T>(items: &'a [T], name: &str, name_of: impl Fn(&T) -> &str) -> Found<'a, T> {
    let found = matches_by_name(items, name, name_of);
    let exact: Vec<_> = found
        .iter()
        .filter(|(_, m)| *m == EntityMatchType::ExactNameMatch)
        .collect();
    if exact.len() == 1 {
        return Found::One(exact[0].0, EntityMatchType::ExactNameMatch);
    }
    collect(found)
}

/// Resolves a code (RxNorm, NDC, UPC, ICD-10): every entry that carries it.
pub fn by_code<'a, T>(
    items: &'a [T],
    code: &str,
    code_of: impl Fn(&T) -> Option<&str>,
    match_type: EntityMatchType,
) -> Found<'a, T> {
    let code = code.trim();
    collect(
        items
            .iter()
            .filter(|item| code_of(item).is_some_and(|c| c.eq_ignore_ascii_case(code)))
            .map(|item| (item, match_type))
            .take(MAX_OPTIONS)
            .collect(),
    )
}

fn collect<T>(mut found: Vec<(&T, EntityMatchType)>) -> Found<'_, T> {
    match found.len() {
        0 => Found::Nothing,
        1 => {
            let (item, m) = found.remove(0);
            Found::One(item, m)
        }
        _ => Found::Several(found),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: &[&str] = &[
        "Ibuprofen 400 MG Oral Tablet",
        "Ibuprofen 800 MG Oral Tablet",
        "Lisinopril 10 MG Oral Tablet",
    ];

    #[test]
    fn an_exact_name_resolves_to_one_entry() {
        assert!(matches!(
            by_name(NAMES, "lisinopril 10 mg  oral tablet", |s| *s),
            Found::One(n, EntityMatchType::ExactNameMatch) if *n == NAMES[2]
        ));
    }

    #[test]
    fn a_name_fitting_several_entries_is_ambiguous() {
        assert!(matches!(by_name(NAMES, "ibuprofen", |s| *s), Found::Several(v) if v.len() == 2));
    }

    #[test]
    fn a_partial_name_fitting_one_entry_resolves_as_fuzzy() {
        assert!(matches!(
            by_name(NAMES, "ibuprofen 800", |s| *s),
            Found::One(_, EntityMatchType::FuzzyNameMatch)
        ));
    }

    #[test]
    fn a_name_fitting_nothing_finds_nothing() {
        assert!(matches!(by_name(NAMES, "warfarin", |s| *s), Found::Nothing));
        assert!(matches!(by_name(NAMES, "   ", |s| *s), Found::Nothing));
    }
}
