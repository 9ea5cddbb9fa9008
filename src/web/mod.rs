//! `oxello web`: a board in the browser over the same [`Engine`](crate::engine::Engine) the protocols drive. A person
//! plays against the engine, asks for every move's score, sets up positions and reviews games.
//!
//! The page and its assets are built into the binary (`assets/`); a small HTTP server (`http`
//! reads and writes, `server` accepts and routes) serves them and a JSON API (`api`), whose
//! searches one engine thread runs one at a time (`jobs`): a new request stops the search
//! before it. Nothing here reads or writes files.

mod api;
mod http;
mod jobs;
mod server;

pub use api::{handle, Reply, MAX_BODY_BYTES};
pub use jobs::{run_task, JobContext, JobState, Jobs, Task};
pub use server::{run, serve, WebArgs};
