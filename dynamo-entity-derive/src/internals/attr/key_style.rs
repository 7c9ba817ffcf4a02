//! Key styles of `#[derive(Entity)]`: `key_case = "lower" | "upper" | "as_is"`,
//! `key_values = "escaped" | "verbatim"` and `delimiter = "..."` on the struct, parsed here.
//! Checked with the whole model by `check::key_style`; written as the runtime `KeyStyle` (see the
//! runtime's `key::style`) by `expand::entity::keys`.

use syn::LitStr;

use crate::internals::ctxt::Ctxt;
use crate::internals::template;

/// The case keys are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeyCase {
    #[default]
    AsIs,
    Lower,
    Upper,
}

/// The struct's key style choices, each with the literal it was given by.
#[derive(Default, Clone)]
pub struct KeyStyleAttrs {
    /// `key_case = "..."`.
    pub case: Option<(KeyCase, LitStr)>,
    /// `key_values = "verbatim"`: values are not escaped, and a value holding `#` is refused.
    pub verbatim: Option<(bool, LitStr)>,
    /// `delimiter = "|"`: the character between the segments of every key of the entity.
    pub delimiter: Option<(char, LitStr)>,
}

impl KeyStyleAttrs {
    /// Parses the value of `key_case`.
    pub fn set_case(&mut self, lit: LitStr, cx: &Ctxt) {
        let case = match lit.value().as_str() {
            "as_is" => KeyCase::AsIs,
            "lower" => KeyCase::Lower,
            "upper" => KeyCase::Upper,
            other => {
                cx.error_spanned_by(
                    &lit,
                    format!(
                        "unknown `key_case` value `{other}`: expected `\"as_is\"` (the default), `\"lower\"` (the \
                         whole key lowercased, as ElectroDB writes it) or `\"upper\"`"
                    ),
                );
                return;
            }
        };
        self.case = Some((case, lit));
    }

    /// Parses the value of `key_values`.
    pub fn set_values(&mut self, lit: LitStr, cx: &Ctxt) {
        let verbatim = match lit.value().as_str() {
            "escaped" => false,
            "verbatim" => true,
            other => {
                cx.error_spanned_by(
                    &lit,
                    format!(
                        "unknown `key_values` value `{other}`: expected `\"escaped\"` (the default: the delimiter \
                         and `%` inside a value are escaped, `#` as `%23` and `%` as `%25`) or `\"verbatim\"` \
                         (values are written as they are, and a value holding the delimiter is refused, as for keys \
                         written by clients that never escape)"
                    ),
                );
                return;
            }
        };
        self.verbatim = Some((verbatim, lit));
    }

    /// Parses the value of `delimiter`: one ASCII punctuation character, not `%` (the escape
    /// character) nor one of the placeholder syntax's characters.
    pub fn set_delimiter(&mut self, lit: LitStr, cx: &Ctxt) {
        let text = lit.value();
        let mut chars = text.chars();
        let problem = match (chars.next(), chars.next()) {
            (None, _) => Some("it is empty".to_owned()),
            (Some(_), Some(_)) => Some("a delimiter is one character".to_owned()),
            (Some(c), None) if c.is_ascii_alphanumeric() || c.is_whitespace() => Some(format!(
                "`{}` can be part of a value or of literal text, so the segments of a key could not be told apart",
                c.escape_default()
            )),
            (Some(c), None) if template::RESERVED_DELIMITERS.contains(c) => Some(if c == '%' {
                "`%` is the escape character of key parts".to_owned()
            } else {
                format!(
                    "`{c}` belongs to the placeholder syntax (`<field>`, `<field:raw>`, `<shard(field, N)>`, field \
                     names with `_`); for keys such as `USER_123`, write the literal around the placeholder in one \
                     segment: `USER_<id>`"
                )
            }),
            (Some(c), None) if !c.is_ascii_punctuation() => Some(format!("`{c}` is not ASCII punctuation")),
            (Some(_), None) => None,
        };
        match problem {
            Some(why) => cx.error_spanned_by(
                &lit,
                format!(
                    "invalid `delimiter` {:?}: {why}; the delimiter is one ASCII punctuation character other than \
                     `{}`, such as `\"|\"` or `\"/\"` (the default is `\"#\"`)",
                    text,
                    template::RESERVED_DELIMITERS
                ),
            ),
            None => self.delimiter = Some((text.chars().next().unwrap_or('#'), lit)),
        }
    }

    /// The character between the segments of the entity's keys (`#` by default).
    pub fn delimiter(&self) -> char {
        self.delimiter.as_ref().map_or('#', |(c, _)| *c)
    }

    pub fn case(&self) -> KeyCase {
        self.case.as_ref().map_or(KeyCase::AsIs, |(c, _)| *c)
    }

    pub fn folds_case(&self) -> bool {
        self.case() != KeyCase::AsIs
    }

    /// Whether this is the library's own style (`KeyStyle::DEFAULT`): case kept, values
    /// escaped, `#` between segments.
    pub fn is_default(&self) -> bool {
        !self.folds_case() && !self.verbatim.as_ref().is_some_and(|(v, _)| *v) && self.delimiter() == '#'
    }

    /// Literal text of a template in this style's case (the runtime folds only values).
    pub fn fold(&self, text: &str) -> String {
        match self.case() {
            KeyCase::AsIs => text.to_owned(),
            KeyCase::Lower => text.to_lowercase(),
            KeyCase::Upper => text.to_uppercase(),
        }
    }
}
