//! Key template parsing.
//!
//! A template is `#`-separated segments. Each segment is either literal text (non-empty, without
//! `<`, `>` or `%`) or exactly one placeholder `<field>` naming a struct field. This module only
//! checks the syntax; [`crate::check`] checks that the placeholders name fields that can be key
//! parts.

use std::ops::Range;

use proc_macro2::Span;
use syn::LitStr;

/// One `#`-separated segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// Literal text such as `SKILL`.
    Literal(String),
    /// A placeholder: the field name and the byte range of `<name>` in the template.
    Field { name: String, range: Range<usize> },
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
            Segment::Field { name, range } => Some((name.as_str(), range)),
            Segment::Literal(_) => None,
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
    Placeholder(&'s str),
}

/// Parses `source` (the value of the string literal).
pub fn parse(source: &str) -> Result<Template, TemplateError> {
    if source.is_empty() {
        return Err(TemplateError::new(
            0..0,
            "empty key template: write literal text and `<field>` placeholders separated by `#`, \
             such as \"SKILL#<id>\"",
        ));
    }
    let mut segments = Vec::new();
    let mut start = 0;
    for text in source.split('#') {
        let range = start..start + text.len();
        start = range.end + 1;
        segments.push(parse_segment(source, text, range)?);
    }
    let mut seen: Vec<&str> = Vec::new();
    for segment in &segments {
        if let Segment::Field { name, range } = segment {
            if seen.contains(&name.as_str()) {
                return Err(TemplateError::new(
                    range.clone(),
                    format!("`{name}` appears twice in this key template; each field may fill one part"),
                ));
            }
            seen.push(name);
        }
    }
    Ok(Template { segments })
}

fn parse_segment(source: &str, text: &str, range: Range<usize>) -> Result<Segment, TemplateError> {
    if text.is_empty() {
        // Point at the delimiter(s) around the empty segment.
        let at = range.start;
        let (span, message) = if at == 0 {
            (0..1, "a key template cannot start with `#`")
        } else if at == source.len() {
            (at - 1..at, "a key template cannot end with `#`")
        } else {
            (at - 1..at + 1, "empty segment `##` in key template: `#` separates non-empty segments")
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
            if !is_identifier(name) {
                return Err(TemplateError::new(
                    whole,
                    format!(
                        "`<{name}>` is not a placeholder: write the name of a field inside `<` and `>`, such as `<id>`"
                    ),
                ));
            }
            pieces.push((Piece::Placeholder(name), whole.clone()));
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
    match pieces.as_slice() {
        [(Piece::Text(t), _)] => Ok(Segment::Literal((*t).to_owned())),
        [(Piece::Placeholder(name), whole)] => Ok(Segment::Field { name: (*name).to_owned(), range: whole.clone() }),
        _ => {
            let fixed: Vec<String> = pieces
                .iter()
                .map(|(p, _)| match p {
                    Piece::Text(t) => (*t).to_owned(),
                    Piece::Placeholder(n) => format!("<{n}>"),
                })
                .collect();
            Err(TemplateError::new(
                range,
                format!(
                    "a placeholder must fill a whole `#`-separated segment: write `{}` instead of `{text}`",
                    fixed.join("#")
                ),
            ))
        }
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
        Segment::Field { name: name.to_owned(), range }
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
    fn mixed_segments() {
        let e = err("X#V<n>");
        assert_eq!(e.range, 2..6);
        assert_eq!(e.message, "a placeholder must fill a whole `#`-separated segment: write `V#<n>` instead of `V<n>`");
        assert!(err("<a><b>").message.ends_with("write `<a>#<b>` instead of `<a><b>`"));
        assert!(err("<a>x").message.ends_with("write `<a>#x` instead of `<a>x`"));
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
    fn duplicate_placeholder() {
        let e = err("<id>#<id>");
        assert_eq!(e.range, 5..9);
        assert!(e.message.starts_with("`id` appears twice"));
    }
}
