//! "Did you mean ...?" suggestions by edit distance.

/// The Levenshtein distance between `a` and `b`, counted in chars.
pub fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    // One row of the dynamic-programming table: row[j] is the distance between the prefix of
    // `a` read so far and the first j chars of `b`.
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

/// The candidate closest to `word`, if it is close enough to be a likely typo: at most
/// `max(2, len / 3)` edits, where `len` is the length of `word`. Ties go to the first candidate.
pub fn closest<'c>(word: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let limit = (word.chars().count() / 3).max(2);
    candidates
        .into_iter()
        .map(|c| (levenshtein(word, c), c))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// `` `a`, `b` and `c` ``: a list of names for messages.
pub fn list(names: &[&str]) -> String {
    joined(names, "and")
}

/// `` `a`, `b` or `c` ``: a list of alternatives for messages (one of them is expected).
pub fn list_or(names: &[&str]) -> String {
    joined(names, "or")
}

/// The names quoted, the last joined by `word`.
fn joined(names: &[&str], word: &str) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} {word} {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(levenshtein("", ""), 0);
        assert_eq!(levenshtein("id", ""), 2);
        assert_eq!(levenshtein("", "id"), 2);
        assert_eq!(levenshtein("ids", "id"), 1);
        assert_eq!(levenshtein("kitten", "sitting"), 3);
        assert_eq!(levenshtein("flaw", "lawn"), 2);
        assert_eq!(levenshtein("catgory", "category"), 1);
        assert_eq!(levenshtein("ü", "u"), 1);
        assert_eq!(levenshtein("abc", "abc"), 0);
    }

    #[test]
    fn closest_within_limit() {
        let fields = ["id", "title", "category", "downloads", "submitted_at"];
        assert_eq!(closest("ids", fields), Some("id"));
        assert_eq!(closest("catgory", fields), Some("category"));
        assert_eq!(closest("download", fields), Some("downloads"));
        assert_eq!(closest("submited", fields), None); // 4 edits, limit 2
        assert_eq!(closest("submitted", fields), Some("submitted_at")); // 3 edits, limit 3
        assert_eq!(closest("owner", fields), None);
        assert_eq!(closest("x", ["id"]), Some("id")); // limit is at least 2
    }

    #[test]
    fn closest_prefers_smallest_distance() {
        assert_eq!(closest("gsi1sk", ["gsi1", "gsi1_sk", "sk"]), Some("gsi1_sk"));
        assert_eq!(closest("nmae", ["pk", "sk", "name"]), Some("name"));
    }

    #[test]
    fn lists() {
        assert_eq!(list(&[]), "");
        assert_eq!(list(&["a"]), "`a`");
        assert_eq!(list(&["a", "b"]), "`a` and `b`");
        assert_eq!(list(&["a", "b", "c"]), "`a`, `b` and `c`");
        assert_eq!(list_or(&["a"]), "`a`");
        assert_eq!(list_or(&["a", "b", "c"]), "`a`, `b` or `c`");
    }
}
