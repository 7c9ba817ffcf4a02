//! Dynoxide embedded in the test process: each database is an in-memory `dynoxide::Database`
//! served over HTTP on its own port of `127.0.0.1`, by tasks of one Tokio runtime that this
//! module keeps for the life of the process.
//!
//! Why a runtime of its own: a test's `#[tokio::test]` runtime ends with the test, and a server
//! spawned on it would die with it while another test still used it. The runtime's worker threads
//! (`dynoxide-N`) serve every embedded database of the process.
//!
//! Why one port per database rather than one server: Dynoxide's server serves one database, and
//! DynamoDB Local's databases (one per access key id and region) are chosen by the client's
//! credentials, which a plain HTTP server cannot see before it answers. A port per database
//! costs one listening socket, about as cheap as it gets.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use crate::{LocalError, io_error};

/// Worker threads of the runtime serving the embedded databases. Dynoxide answers each request
/// synchronously inside its handler, so two workers let two databases (or a request and a
/// connection's I/O) proceed at once on a 2-core machine.
const WORKERS: usize = 2;

/// One embedded database and the server answering for it; the server stops (gracefully: requests
/// in progress finish) when the last holder of this drops it.
pub(crate) struct EmbeddedServer {
    endpoint: String,
    stop: Mutex<Option<tokio::sync::oneshot::Sender<()>>>,
}

impl EmbeddedServer {
    /// A new in-memory database, served from now on at [`EmbeddedServer::endpoint`]. The port is
    /// bound before this returns, so requests sent at once wait in its backlog until the server
    /// task accepts them.
    pub(crate) fn start() -> Result<Arc<EmbeddedServer>, LocalError> {
        let database = dynoxide::Database::memory().map_err(|error| LocalError::Embedded(error.to_string()))?;
        let listener = std::net::TcpListener::bind("127.0.0.1:0")
            .map_err(io_error("could not bind a port of 127.0.0.1 for Dynoxide"))?;
        listener.set_nonblocking(true).map_err(io_error("could not make Dynoxide's socket non-blocking"))?;
        let port = listener.local_addr().map_err(io_error("could not read the port of Dynoxide's socket"))?.port();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        runtime()?.spawn(async move {
            let listener = match tokio::net::TcpListener::from_std(listener) {
                Ok(listener) => listener,
                Err(error) => {
                    tracing::error!(port, %error, "Dynoxide could not use its socket");
                    return;
                }
            };
            // A dropped sender (the server handle is gone) stops the server as a sent value does.
            let shutdown = async move {
                let _ = stopped.await;
            };
            if let Err(error) = dynoxide::server::serve_with_shutdown(listener, database, shutdown).await {
                tracing::error!(port, %error, "Dynoxide's server failed");
            }
        });
        Ok(Arc::new(EmbeddedServer { endpoint: format!("http://127.0.0.1:{port}"), stop: Mutex::new(Some(stop)) }))
    }

    /// The endpoint URL, such as `http://127.0.0.1:41234`.
    pub(crate) fn endpoint(&self) -> &str {
        &self.endpoint
    }
}

impl Drop for EmbeddedServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.get_mut().unwrap_or_else(PoisonError::into_inner).take() {
            let _ = stop.send(());
        }
    }
}

impl fmt::Debug for EmbeddedServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EmbeddedServer").field("endpoint", &self.endpoint).finish_non_exhaustive()
    }
}

/// The runtime serving every embedded database, built on first use and kept until the process
/// ends (statics are never dropped).
fn runtime() -> Result<&'static tokio::runtime::Handle, LocalError> {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    if let Some(runtime) = RUNTIME.get() {
        return Ok(runtime.handle());
    }
    let built = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(WORKERS)
        .thread_name("dynoxide")
        .enable_io()
        .enable_time()
        .build()
        .map_err(io_error("could not build the Tokio runtime of Dynoxide"))?;
    // Two threads racing here build two runtimes. The loser's ran no task; it is shut down in
    // the background, since dropping a runtime from within an async context panics.
    if let Err(loser) = RUNTIME.set(built) {
        loser.shutdown_background();
    }
    match RUNTIME.get() {
        Some(runtime) => Ok(runtime.handle()),
        None => Err(io_error("could not keep the Tokio runtime of Dynoxide")(std::io::Error::other("unset"))),
    }
}

/// The databases of one embedded engine: one per access key id and region, as DynamoDB Local
/// keeps them, each started on first use.
#[derive(Debug, Default)]
pub(crate) struct EmbeddedDatabases {
    servers: Mutex<HashMap<(String, String), Arc<EmbeddedServer>>>,
}

impl EmbeddedDatabases {
    /// The server of the database of `access_key_id` in `region`, started if it is the first
    /// request for it. It lives as long as this registry or a client holding it.
    pub(crate) fn server(&self, access_key_id: &str, region: &str) -> Result<Arc<EmbeddedServer>, LocalError> {
        let mut servers = self.servers.lock().unwrap_or_else(PoisonError::into_inner);
        let key = (access_key_id.to_owned(), region.to_owned());
        if let Some(server) = servers.get(&key) {
            return Ok(Arc::clone(server));
        }
        let server = EmbeddedServer::start()?;
        servers.insert(key, Arc::clone(&server));
        Ok(server)
    }
}

/// Registries are equal when they are the same one (a [`ClientBuilder`](crate::ClientBuilder)
/// compares the databases it builds clients of).
impl PartialEq for EmbeddedDatabases {
    fn eq(&self, other: &EmbeddedDatabases) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for EmbeddedDatabases {}

/// An SDK interceptor that does nothing but hold an embedded server: put in a client's
/// configuration, it keeps the server running for as long as the client (or any client built
/// from its configuration, such as a [`fault`](crate::fault) client) exists.
#[derive(Debug, Clone)]
pub(crate) struct KeepsServer {
    /// Held, never read: dropping it is what stops the server.
    _server: Arc<EmbeddedServer>,
}

impl KeepsServer {
    pub(crate) fn new(server: Arc<EmbeddedServer>) -> KeepsServer {
        KeepsServer { _server: server }
    }
}

// One trait for every SDK crate: `aws_sdk_dynamodb::config::Intercept` is this one re-exported.
impl aws_smithy_runtime_api::client::interceptors::Intercept for KeepsServer {
    fn name(&self) -> &'static str {
        "dynamo-entity-local embedded Dynoxide server"
    }
}
