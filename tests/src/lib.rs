//! Integration tests of dynamo-entity live in `tests/`; compile-fail cases in `ui/`.
