//! Whether a `BatchWriteItem` request may have been applied without the library learning it:
//! the [`LostAnswer`] interceptor.
//!
//! A batch's requests go through the SDK's retries (see [`batch`](crate::batch)), which send
//! a request again on a server error (HTTP 5xx) or a timeout: DynamoDB may have applied the
//! attempt whose answer was lost, and the library sees only the last attempt's answer. An entry
//! that answer returns unprocessed may then be stored all the same. The interceptor sees every
//! attempt, so the batch can say which entries may have been written.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use aws_sdk_dynamodb::config::interceptors::FinalizerInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;

/// Set when an attempt of the request it is given to got no answer (a timeout, a connection
/// failure, an answer that could not be read) or a server error (HTTP 5xx).
#[derive(Debug, Clone, Default)]
pub(super) struct LostAnswer(Arc<AtomicBool>);

impl LostAnswer {
    /// Whether an attempt lost its answer.
    pub(super) fn lost(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

impl Intercept for LostAnswer {
    fn name(&self) -> &'static str {
        "dynamo_entity::batch::LostAnswer"
    }

    fn read_after_attempt(
        &self,
        context: &FinalizerInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let server_error = context.response().is_some_and(|r| r.status().is_server_error());
        let no_answer = matches!(
            context.output_or_error(),
            Some(Err(e)) if e.is_timeout_error() || e.is_connector_error() || e.is_response_error()
        );
        if server_error || no_answer {
            self.0.store(true, Ordering::Relaxed);
        }
        Ok(())
    }
}
