//! Key template parsing.
//!
//! A template is `#`-separated segments. Each segment is either literal text (non-empty, without
//! `<`, `>` or `%`), one placeholder `<field>` naming a struct field, with optional literal text
//! before and after it inside the segment (`user_<id>`, `o<num>`, `<id>.json`, as other writers
//! form their keys), or a shard suffix `<shard(field, N)>` (write sharding: the shard number of
//! the item, from `field`, `N` shards). A placeholder `<field:raw>` writes an integer without
//! zero padding.
//! This module only checks the syntax; [`crate::internals::check`] checks that the placeholders
//! name fields that can be key parts and that shard suffixes are only in GSI partition keys.

use std::ops::Range;

use proc_macro2::Span;
use syn::LitStr;

use crate::internals::model::{MAX_SHARDS, MIN_SHARDS};

/// One `#`-separated segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// Literal text such as `SKILL`.
    Literal(String),
    /// A placeholder: the field name, the byte range of `<name>` in the template, the literal
    /// text around it inside the segment, and whether it is `<name:raw>` (an integer written
    /// without zero padding).
    Field { name: String, range: Range<usize>, prefix: String, suffix: String, raw: bool },
    /// A shard suffix `<shard(field, N)>`: the source field, the shard count, and the byte
    /// ranges of the whole segment and of the field name.
    Shard { field: String, count: u16, range: Range<usize>, field_range: Range<usize> },
}

/// A parsed key template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pub segments: Vec<Segment>,
}

impl Template {
    /// The placeholders in order: field name and byte range of `<name>` in the template.
    pub fn fields(&self) -> impl Iterator<Item = (&str, &Range<usize>)> {
        self.segments.iter().filter_map(|s| match s {
            Segment::Field { name, range, .. } => Some((name.as_str(), range)),
            Segment::Literal(_) | Segment::Shard { .. } => None,
        })
    }

    /// The shard suffix, if any: source field, count, range of the segment, range of the field.
    pub fn shard(&self) -> Option<(&str, u16, &Range<usize>, &Range<usize>)> {
        self.segments.iter().find_map(|s| match s {
            Segment::Shard { field, count, range, field_range } => Some((field.as_str(), *count, range, field_range)),
            _ => None,
        })
    }

    /// The first literal segment, if the template starts with one.
    pub fn first_literal(&self) -> Option<&str> {
        match self.segments.first() {
            Some(Segment::Literal(l)) => Some(l),
            _ => None,
        }
    }
}

/// A syntax error in a template, with the byte range it concerns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    pub message: String,
    pub range: Range<usize>,
}

impl TemplateError {
    fn new(range: Range<usize>, message: impl Into<String>) -> TemplateError {
        TemplateError { message: message.into(), range }
    }
}

/// A piece of one segment while it is being read: literal text or a `<...>` placeholder.
enum Piece<'s> {
    Text(&'s str),
    Placeholder(&'s str, bool),
    Shard(Segment),
}

/// Parses `source` (the value of the string literal) with the default delimiter `#`.
#[cfg(test)]
pub fn parse(source: &str) -> Result<Template, TemplateError> {
    parse_with(source, '#')
}

/// The characters a key delimiter cannot be: the escape character and the characters of the
/// placeholder syntax (`<field:raw>`, `<shard(field, N)>`, field names).
pub const RESERVED_DELIMITERS: &str = "%<>():,_";

/// Parses `source` with `delimiter` between its segments (`#[entity(delimiter = "|")]`; one
/// ASCII punctuation character outside [`RESERVED_DELIMITERS`], checked by the caller).
pub fn parse_with(source: &str, delimiter: char) -> Result<Template, TemplateError> {
    if source.is_empty() {
        return Err(TemplateError::new(
            0..0,
            "empty key template: write literal text and `<field>` placeholders separated by `#`, \
             such as \"SKILL#<id>\"",
        ));
    }
    let mut segments = Vec::new();
    let mut start = 0;
    for text in source.split(delimiter) {
        let range = start..start + text.len();
        start = range.end + 1;
        segments.push(parse_segment(source, text, range, delimiter)?);
    }
    let mut seen: Vec<&str> = Vec::new();
    for segment in &segments {
        if let Segment::Field { name, range, .. } = segment {
            if seen.contains(&name.as_str()) {
                return Err(TemplateError::new(
                    range.clone(),
                    format!("`{name}` appears twice in this key template; each field may fill one part"),
                ));
            }
            seen.push(name);
        }
    }
    let mut shards = segments.iter().filter_map(|s| match s {
        Segment::Shard { field, range, field_range, .. } => Some((field, range, field_range)),
        _ => None,
    });
    if let Some((field, _, field_range)) = shards.next() {
        if let Some((_, second, _)) = shards.next() {
            return Err(TemplateError::new(
                second.clone(),
                "a key template has at most one shard suffix: one `<shard(field, N)>` spreads the partition over N",
            ));
        }
        if seen.contains(&field.as_str()) {
            return Err(TemplateError::new(
                field_range.clone(),
                format!(
                    "the shard source `{field}` is also a part of this key, so every item of one partition would \
                     land in the same shard; shard by a field with many values, such as the item's id"
                ),
            ));
        }
    }
    Ok(Template { segments })
}

fn parse_segment(source: &str, text: &str, range: Range<usize>, d: char) -> Result<Segment, TemplateError> {
    if text.is_empty() {
        // Point at the delimiter(s) around the empty segment.
        let at = range.start;
        let (span, message) = if at == 0 {
            (0..1, format!("a key template cannot start with `{d}`"))
        } else if at == source.len() {
            (at - 1..at, format!("a key template cannot end with `{d}`"))
        } else {
            (at - 1..at + 1, format!("empty segment `{d}{d}` in key template: `{d}` separates non-empty segments"))
        };
        return Err(TemplateError::new(span, message));
    }
    let base = range.start;
    let mut pieces = Vec::new();
    let mut rest = text;
    let mut offset = base;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('<') {
            let Some(close) = after.find(['<', '>']).filter(|&i| after.as_bytes()[i] == b'>') else {
                return Err(TemplateError::new(
                    offset..range.end,
                    "unclosed `<` in key template: a placeholder is written `<field>`",
                ));
            };
            let name = &after[..close];
            let whole = offset..offset + close + 2;
            if name.is_empty() {
                return Err(TemplateError::new(
                    whole,
                    "empty placeholder `<>`: write the name of a field inside, such as `<id>`",
                ));
            }
            if name.contains('(') || name.contains(')') {
                let segment = shard(name, offset + 1, whole.clone())?;
                pieces.push((Piece::Shard(segment), whole.clone()));
                rest = &after[close + 1..];
                offset = whole.end;
                continue;
            }
            let (name, option) = match name.split_once(':') {
                Some((n, o)) => (n, Some(o)),
                None => (name, None),
            };
            if !is_identifier(name) {
                return Err(TemplateError::new(
                    whole,
                    format!(
                        "`<{name}>` is not a placeholder: write the name of a field inside `<` and `>`, such as `<id>`"
                    ),
                ));
            }
            let raw = match option {
                None => false,
                Some("raw") => true,
                Some(other) => {
                    let at = offset + 1 + name.len() + 1;
                    return Err(TemplateError::new(
                        at..at + other.len(),
                        format!(
                            "unknown placeholder option `{other}`: the one option is `raw`, as in `<{name}:raw>`, an \
                             integer written without zero padding"
                        ),
                    ));
                }
            };
            pieces.push((Piece::Placeholder(name, raw), whole.clone()));
            rest = &after[close + 1..];
            offset = whole.end;
        } else {
            let len = rest.find('<').unwrap_or(rest.len());
            let literal = &rest[..len];
            let here = offset..offset + len;
            if let Some(i) = literal.find('>') {
                return Err(TemplateError::new(
                    offset + i..offset + i + 1,
                    "`>` without a matching `<` in key template",
                ));
            }
            if let Some(i) = literal.find('%') {
                return Err(TemplateError::new(
                    offset + i..offset + i + 1,
                    "`%` cannot appear in the literal text of a key template: it is the escape character of key parts",
                ));
            }
            pieces.push((Piece::Text(literal), here.clone()));
            rest = &rest[len..];
            offset = here.end;
        }
    }
    let field = |name: &str, raw: bool, whole: &Range<usize>, prefix: &str, suffix: &str| Segment::Field {
        name: name.to_owned(),
        range: whole.clone(),
        prefix: prefix.to_owned(),
        suffix: suffix.to_owned(),
        raw,
    };
    match pieces.as_slice() {
        [(Piece::Text(t), _)] => Ok(Segment::Literal((*t).to_owned())),
        [(Piece::Placeholder(name, raw), whole)] => Ok(field(name, *raw, whole, "", "")),
        [(Piece::Text(p), _), (Piece::Placeholder(name, raw), whole)] => Ok(field(name, *raw, whole, p, "")),
        [(Piece::Placeholder(name, raw), whole), (Piece::Text(s), _)] => Ok(field(name, *raw, whole, "", s)),
        [(Piece::Text(p), _), (Piece::Placeholder(name, raw), whole), (Piece::Text(s), _)] => {
            Ok(field(name, *raw, whole, p, s))
        }
        [(Piece::Shard(segment), _)] => Ok(segment.clone()),
        _ => {
            // The suggestion: a new segment before each placeholder once the current one has
            // one, and around a shard suffix.
            let mut fixed: Vec<String> = vec![String::new()];
            let mut has_placeholder = false;
            for (p, r) in &pieces {
                let last = fixed.last().is_none_or(String::is_empty);
                match p {
                    Piece::Text(t) => {
                        if matches!(fixed.last(), Some(l) if l.starts_with("<shard")) {
                            fixed.push(String::new());
                        }
                        if let Some(l) = fixed.last_mut() {
                            l.push_str(t);
                        }
                    }
                    Piece::Placeholder(..) | Piece::Shard(_) => {
                        let shard = matches!(p, Piece::Shard(_));
                        if !last && (has_placeholder || shard) {
                            fixed.push(String::new());
                        }
                        has_placeholder = true;
                        if let Some(l) = fixed.last_mut() {
                            l.push_str(&source[r.clone()]);
                        }
                    }
                }
            }
            let what = if pieces.iter().any(|(p, _)| matches!(p, Piece::Shard(_))) {
                format!("a shard suffix must fill a whole `{d}`-separated segment")
            } else {
                "a segment holds at most one placeholder, or the parts could not be told apart when the key is read"
                    .to_owned()
            };
            Err(TemplateError::new(
                range,
                format!("{what}: write `{}` instead of `{text}`", fixed.join(&d.to_string())),
            ))
        }
    }
}

const SHARD_SYNTAX: &str = "a shard suffix is written `<shard(field, N)>`: the field whose value picks the shard and the number of \
     shards, such as `<shard(id, 8)>`";

/// Parses the inside of `<shard(field, N)>`; `text` starts at byte `start` of the template and
/// `whole` is the range of the segment with its `<` `>`.
fn shard(text: &str, start: usize, whole: Range<usize>) -> Result<Segment, TemplateError> {
    let open = text.find('(').unwrap_or(text.len());
    let function = text[..open].trim();
    if function != "shard" {
        let name_range = start..start + open;
        return Err(TemplateError::new(
            if function.is_empty() { whole } else { name_range },
            format!(
                "unknown key function `{function}`: the one function is `shard(field, N)`, a shard suffix for write \
                 sharding"
            ),
        ));
    }
    let Some(args) = text[open..].strip_prefix('(').and_then(|a| a.strip_suffix(')')) else {
        return Err(TemplateError::new(whole, SHARD_SYNTAX));
    };
    let args_start = start + open + 1;
    let pieces: Vec<&str> = args.split(',').collect();
    let [field, count] = pieces.as_slice() else {
        return Err(TemplateError::new(whole, SHARD_SYNTAX));
    };
    let field_offset = args_start + (field.len() - field.trim_start().len());
    let field = field.trim();
    let field_range = field_offset..field_offset + field.len();
    if !is_identifier(field) {
        return Err(TemplateError::new(if field.is_empty() { whole } else { field_range }, SHARD_SYNTAX));
    }
    let count_start = args_start + pieces[0].len() + 1;
    let count_offset = count_start + (count.len() - count.trim_start().len());
    let count = count.trim();
    let count_range = count_offset..count_offset + count.len();
    if count.is_empty() || !count.bytes().all(|b| b.is_ascii_digit()) {
        return Err(TemplateError::new(if count.is_empty() { whole } else { count_range }, SHARD_SYNTAX));
    }
    match count.parse::<u16>() {
        Ok(n) if (MIN_SHARDS..=MAX_SHARDS).contains(&n) => {
            Ok(Segment::Shard { field: field.to_owned(), count: n, range: whole, field_range })
        }
        _ => Err(TemplateError::new(
            count_range,
            format!(
                "`{count}` shards is out of range: a shard count is between {MIN_SHARDS} (one shard is no sharding) \
                 and {MAX_SHARDS} (every page of a query of the index sends one request per shard)"
            ),
        )),
    }
}

/// A Rust identifier (no keyword check: a keyword names no field and is reported as such).
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if c == '_' || c.is_alphabetic() => {}
        _ => return false,
    }
    name != "_" && chars.all(|c| c == '_' || c.is_alphanumeric())
}

/// The span of bytes `range` of the literal's value: a sub-span where the compiler supports it
/// (nightly) and the literal has no escapes, else the whole literal.
pub fn span_of(lit: &LitStr, range: &Range<usize>) -> Span {
    let token = lit.token();
    let text = token.to_string();
    let value = lit.value();
    // Only a plain "..." literal maps value bytes to source bytes one to one.
    if text.len() == value.len() + 2 && text.starts_with('"') && text[1..text.len() - 1] == value {
        if let Some(span) = token.subspan(range.start + 1..range.end + 1) {
            return span;
        }
    }
    lit.span()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(s: &str) -> Segment {
        Segment::Literal(s.to_owned())
    }
    fn field(name: &str, range: Range<usize>) -> Segment {
        Segment::Field { name: name.to_owned(), range, prefix: String::new(), suffix: String::new(), raw: false }
    }
    fn err(source: &str) -> TemplateError {
        parse(source).expect_err(source)
    }

    #[test]
    fn literal_and_placeholders() {
        assert_eq!(parse("META").unwrap().segments, vec![lit("META")]);
        assert_eq!(parse("SKILL#<id>").unwrap().segments, vec![lit("SKILL"), field("id", 6..10)]);
        assert_eq!(parse("<downloads>").unwrap().segments, vec![field("downloads", 0..11)]);
        assert_eq!(
            parse("ORDER#<created_at>#<order_id>#LINE").unwrap().segments,
            vec![lit("ORDER"), field("created_at", 6..18), field("order_id", 19..29), lit("LINE")]
        );
        assert_eq!(parse("A#B").unwrap().segments, vec![lit("A"), lit("B")]);
        assert_eq!(parse("<_x1>").unwrap().segments, vec![field("_x1", 0..5)]);
        assert_eq!(parse("a b-c.d").unwrap().segments, vec![lit("a b-c.d")]);
        assert_eq!(parse("ÜBER#<größe>").unwrap().segments, vec![lit("ÜBER"), field("größe", 6..15)]);
    }

    #[test]
    fn fields_and_first_literal() {
        let t = parse("SKILL#<id>#X#<n>").unwrap();
        assert_eq!(t.fields().map(|(n, _)| n).collect::<Vec<_>>(), ["id", "n"]);
        assert_eq!(t.first_literal(), Some("SKILL"));
        assert_eq!(parse("<a>").unwrap().first_literal(), None);
    }

    #[test]
    fn empty_template() {
        assert!(err("").message.starts_with("empty key template"));
    }

    #[test]
    fn empty_segments() {
        let e = err("A##B");
        assert_eq!(e.range, 1..3);
        assert!(e.message.starts_with("empty segment"), "{}", e.message);
        assert_eq!(err("#A").range, 0..1);
        assert!(err("#A").message.contains("cannot start with `#`"));
        assert_eq!(err("A#").range, 1..2);
        assert!(err("A#").message.contains("cannot end with `#`"));
        assert_eq!(err("#").range, 0..1);
    }

    #[test]
    fn unclosed_placeholder() {
        let e = err("SKILL#<id");
        assert_eq!(e.range, 6..9);
        assert!(e.message.starts_with("unclosed `<`"));
        // The delimiter ends the segment, so the `>` after it does not close the placeholder.
        assert!(err("<a#b>").message.starts_with("unclosed `<`"));
        assert!(err("<a<b>").message.starts_with("unclosed `<`"));
    }

    #[test]
    fn empty_placeholder() {
        let e = err("SKILL#<>");
        assert_eq!(e.range, 6..8);
        assert!(e.message.starts_with("empty placeholder `<>`"));
    }

    #[test]
    fn placeholder_must_be_an_identifier() {
        assert!(err("<a b>").message.contains("is not a placeholder"));
        assert!(err("<1a>").message.contains("is not a placeholder"));
        assert!(err("<_>").message.contains("is not a placeholder"));
        assert!(err("<a-b>").message.contains("is not a placeholder"));
    }

    #[test]
    fn text_around_a_placeholder() {
        let affixed = |name: &str, range: Range<usize>, prefix: &str, suffix: &str, raw: bool| Segment::Field {
            name: name.to_owned(),
            range,
            prefix: prefix.to_owned(),
            suffix: suffix.to_owned(),
            raw,
        };
        assert_eq!(parse("X#V<n>").unwrap().segments, vec![lit("X"), affixed("n", 3..6, "V", "", false)]);
        assert_eq!(
            parse("$app#user_<id>").unwrap().segments,
            vec![lit("$app"), affixed("id", 10..14, "user_", "", false)]
        );
        assert_eq!(parse("<id>.json").unwrap().segments, vec![affixed("id", 0..4, "", ".json", false)]);
        assert_eq!(parse("o<n:raw>x").unwrap().segments, vec![affixed("n", 1..8, "o", "x", true)]);
        assert_eq!(parse("<n:raw>").unwrap().segments, vec![affixed("n", 0..7, "", "", true)]);
        assert_eq!(parse("o<n:raw>x").unwrap().fields().map(|(n, _)| n).collect::<Vec<_>>(), ["n"]);
    }

    #[test]
    fn mixed_segments() {
        let e = err("X#V<a>.<b>");
        assert_eq!(e.range, 2..10);
        assert_eq!(
            e.message,
            "a segment holds at most one placeholder, or the parts could not be told apart when the key is read: \
             write `V<a>.#<b>` instead of `V<a>.<b>`"
        );
        assert!(err("<a><b>").message.ends_with("write `<a>#<b>` instead of `<a><b>`"));
        let e = err("<n:pad>");
        assert_eq!(e.range, 3..6);
        assert!(e.message.starts_with("unknown placeholder option `pad`"), "{}", e.message);
    }

    #[test]
    fn stray_close_and_escape_character() {
        let e = err("A>B");
        assert_eq!(e.range, 1..2);
        assert!(e.message.starts_with("`>` without a matching `<`"));
        let e = err("A#50%");
        assert_eq!(e.range, 4..5);
        assert!(e.message.contains("escape character"));
    }

    #[test]
    fn shard_suffix() {
        let t = parse("SKILL#<status>#<shard(id, 8)>").unwrap();
        assert_eq!(
            t.segments,
            vec![
                lit("SKILL"),
                field("status", 6..14),
                Segment::Shard { field: "id".to_owned(), count: 8, range: 15..29, field_range: 22..24 }
            ]
        );
        assert_eq!(t.fields().map(|(n, _)| n).collect::<Vec<_>>(), ["status"]);
        assert_eq!(t.shard().map(|(f, n, ..)| (f, n)), Some(("id", 8)));
        assert_eq!(parse("<shard(id,100)>").unwrap().shard().map(|(f, n, ..)| (f, n)), Some(("id", 100)));
    }

    #[test]
    fn shard_suffix_errors() {
        let e = err("Q#<shard(id)>");
        assert_eq!((e.range.clone(), e.message.as_str()), (2..13, SHARD_SYNTAX));
        assert_eq!(err("Q#<shard(id, x)>").range, 13..14);
        assert_eq!(err("Q#<shard(id, 8, 9)>").message, SHARD_SYNTAX);
        assert_eq!(err("Q#<shard(1d, 8)>").range, 9..11);
        let e = err("Q#<shard(id, 1)>");
        assert_eq!(e.range, 13..14);
        assert!(e.message.starts_with("`1` shards is out of range: a shard count is between 2"), "{}", e.message);
        assert_eq!(err("Q#<shard(id, 101)>").range, 13..16);
        let e = err("Q#<hash(id, 8)>");
        assert_eq!(e.range, 3..7);
        assert!(e.message.starts_with("unknown key function `hash`"));
        let e = err("Q#<shard(a, 2)>#<shard(b, 2)>");
        assert_eq!(e.range, 16..29);
        let e = err("Q#<id>#<shard(id, 4)>");
        assert_eq!(e.range, 14..16);
        assert!(e.message.starts_with("the shard source `id` is also a part of this key"));
        let e = err("Q#X<shard(id, 4)>");
        assert!(e.message.starts_with("a shard suffix must fill a whole `#`-separated segment"), "{}", e.message);
        assert!(e.message.ends_with("write `X#<shard(id, 4)>` instead of `X<shard(id, 4)>`"));
    }

    #[test]
    fn duplicate_placeholder() {
        let e = err("<id>#<id>");
        assert_eq!(e.range, 5..9);
        assert!(e.message.starts_with("`id` appears twice"));
    }
}
