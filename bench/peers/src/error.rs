//! The bench's one error type: any error, boxed, which `main` prints as
//! `peers: {e}` before exiting with status 1. A module of its own so that
//! every other module can name it without importing one that imports it
//! back.

pub type Res<T> = Result<T, Box<dyn std::error::Error>>;
