//! Integration tests of dynamo-entity live in `tests/integration/` (one test binary); compile-fail cases in `ui/`.
