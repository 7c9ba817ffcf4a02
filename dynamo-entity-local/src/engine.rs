//! Which DynamoDB engine serves the tests: DynamoDB Local (a `java` process) or Dynoxide (embedded
//! in the test process).

use std::fmt;
use std::str::FromStr;

use crate::LocalError;

/// Environment variable choosing the engine of [`LocalDynamoDb::shared`](crate::LocalDynamoDb::shared):
/// `dynamodb-local` (the default when unset or empty) or `dynoxide`.
pub const ENGINE_ENV: &str = "DYNAMO_ENTITY_ENGINE";

/// A DynamoDB engine that tests can run on.
///
/// Both speak DynamoDB's HTTP protocol on a port of `127.0.0.1`, so every client, the fault layer
/// ([`fault`](crate::fault)) and programs in other languages reach either one the same way. Where
/// they differ from DynamoDB's documented behaviour is listed in [`DIVERGENCES`](crate::DIVERGENCES);
/// [`Engine::diverges`] asks that list.
///
/// ```
/// use dynamo_entity_local::Engine;
/// assert_eq!("dynoxide".parse::<Engine>()?, Engine::Dynoxide);
/// assert_eq!(Engine::DynamoDbLocal.to_string(), "dynamodb-local");
/// assert!("sqlite".parse::<Engine>().is_err());
/// # Ok::<(), dynamo_entity_local::LocalError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Engine {
    /// AWS's DynamoDB Local 3.3.0, a `java` process (Java 17 or newer) that this crate starts and
    /// installs if needed; see the [crate documentation](crate). Name: `dynamodb-local`.
    DynamoDbLocal,
    /// Dynoxide (crate `dynoxide-rs` 3.2, DynamoDB on SQLite, in Rust), embedded: its HTTP server
    /// runs on a port of `127.0.0.1` inside the test process, on a Tokio runtime of its own, with
    /// its databases in memory. No Java, no child process. Needs this crate's `dynoxide` feature
    /// (on by default). Name: `dynoxide`.
    Dynoxide,
}

impl Engine {
    /// Every engine, in the order of this enum.
    pub const ALL: &'static [Engine] = &[Engine::DynamoDbLocal, Engine::Dynoxide];

    /// The engine named by [`ENGINE_ENV`] (`DYNAMO_ENTITY_ENGINE`): [`Engine::DynamoDbLocal`] when
    /// it is unset or empty.
    ///
    /// # Errors
    ///
    /// [`LocalError::UnknownEngine`] when the variable names no engine.
    pub fn from_env() -> Result<Engine, LocalError> {
        match std::env::var(ENGINE_ENV) {
            Ok(value) if !value.trim().is_empty() => value.parse(),
            _ => Ok(Engine::DynamoDbLocal),
        }
    }

    /// The engine's name, as [`ENGINE_ENV`] takes it: `dynamodb-local` or `dynoxide`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Engine::DynamoDbLocal => "dynamodb-local",
            Engine::Dynoxide => "dynoxide",
        }
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Engine {
    type Err = LocalError;

    /// `dynamodb-local` or `dynoxide` (ASCII case and surrounding blanks ignored).
    fn from_str(name: &str) -> Result<Engine, LocalError> {
        let name = name.trim();
        Engine::ALL
            .iter()
            .copied()
            .find(|engine| engine.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| LocalError::UnknownEngine(name.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for engine in Engine::ALL {
            assert_eq!(engine.name().parse::<Engine>().unwrap(), *engine);
        }
        assert_eq!(" Dynoxide ".parse::<Engine>().unwrap(), Engine::Dynoxide);
        assert_eq!(
            "java".parse::<Engine>().unwrap_err().to_string(),
            "DYNAMO_ENTITY_ENGINE names no engine: \"java\" (known: dynamodb-local, dynoxide)"
        );
    }
}
