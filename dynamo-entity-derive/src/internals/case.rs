//! `#[key_part(rename_all = "...")]`: the name conventions for enum variants.

/// A naming convention for variant names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Case {
    Lower,
    Upper,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
    Camel,
    Pascal,
}

/// The accepted `rename_all` values, for parsing and for messages.
pub const CASES: &[(&str, Case)] = &[
    ("lowercase", Case::Lower),
    ("UPPERCASE", Case::Upper),
    ("snake_case", Case::Snake),
    ("SCREAMING_SNAKE_CASE", Case::ScreamingSnake),
    ("kebab-case", Case::Kebab),
    ("SCREAMING-KEBAB-CASE", Case::ScreamingKebab),
    ("camelCase", Case::Camel),
    ("PascalCase", Case::Pascal),
];

impl Case {
    pub fn from_name(name: &str) -> Option<Case> {
        CASES.iter().find(|(n, _)| *n == name).map(|&(_, c)| c)
    }

    /// Applies the convention to a variant name (conventionally `PascalCase`).
    pub fn apply(self, variant: &str) -> String {
        let words = words(variant);
        let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
        let upper: Vec<String> = words.iter().map(|w| w.to_uppercase()).collect();
        match self {
            Case::Lower => variant.to_lowercase(),
            Case::Upper => variant.to_uppercase(),
            Case::Snake => lower.join("_"),
            Case::ScreamingSnake => upper.join("_"),
            Case::Kebab => lower.join("-"),
            Case::ScreamingKebab => upper.join("-"),
            Case::Pascal => lower.iter().map(|w| capitalize(w)).collect(),
            Case::Camel => {
                let mut out = String::new();
                for (i, w) in lower.iter().enumerate() {
                    if i == 0 {
                        out.push_str(w);
                    } else {
                        out.push_str(&capitalize(w));
                    }
                }
                out
            }
        }
    }
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Splits an identifier into words: at `_`, before an upper-case letter that follows a
/// lower-case letter or digit, and before the last capital of an acronym followed by a
/// lower-case letter (`HTTPError` is `HTTP`, `Error`).
pub fn words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.trim_start_matches("r#").chars().collect();
    let mut words = Vec::new();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c == '_' || c == '-' {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            continue;
        }
        if c.is_uppercase() && !current.is_empty() {
            let prev = chars[i - 1];
            let next_is_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_is_lower) {
                words.push(std::mem::take(&mut current));
            }
        }
        current.push(c);
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// `SCREAMING_SNAKE_CASE` of a field name, for field-handle constants (`submitted_at` is
/// `SUBMITTED_AT`).
pub fn screaming_snake(field: &str) -> String {
    Case::ScreamingSnake.apply(field)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_words() {
        assert_eq!(words("PendingReview"), ["Pending", "Review"]);
        assert_eq!(words("HTTPError"), ["HTTP", "Error"]);
        assert_eq!(words("Draft"), ["Draft"]);
        assert_eq!(words("V2Beta"), ["V2", "Beta"]);
        assert_eq!(words("submitted_at"), ["submitted", "at"]);
        assert_eq!(words("sellerVerified"), ["seller", "Verified"]);
    }

    #[test]
    fn conventions() {
        let v = "PendingReview";
        assert_eq!(Case::Lower.apply(v), "pendingreview");
        assert_eq!(Case::Upper.apply(v), "PENDINGREVIEW");
        assert_eq!(Case::Snake.apply(v), "pending_review");
        assert_eq!(Case::ScreamingSnake.apply(v), "PENDING_REVIEW");
        assert_eq!(Case::Kebab.apply(v), "pending-review");
        assert_eq!(Case::ScreamingKebab.apply(v), "PENDING-REVIEW");
        assert_eq!(Case::Camel.apply(v), "pendingReview");
        assert_eq!(Case::Pascal.apply(v), "PendingReview");
        assert_eq!(Case::Snake.apply("Draft"), "draft");
    }

    #[test]
    fn parses_names() {
        for (name, case) in CASES {
            assert_eq!(Case::from_name(name), Some(*case));
        }
        assert_eq!(Case::from_name("snake"), None);
    }

    #[test]
    fn field_constants() {
        assert_eq!(screaming_snake("submitted_at"), "SUBMITTED_AT");
        assert_eq!(screaming_snake("id"), "ID");
        assert_eq!(screaming_snake("r#type"), "TYPE");
        assert_eq!(screaming_snake("gsi1_key"), "GSI1_KEY");
    }
}
