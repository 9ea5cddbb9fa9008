//! The web server's searches: one engine thread owns the [`Engine`] and runs one job at a time
//! (the engine's move, hints, a game's review). Submitting a job stops the one running, and a job
//! overtaken before it began is skipped, so the engine always works on the latest request. The
//! page polls the latest job's [`JobStatus`], which the search's progress keeps up to date.
//!
//! A stop covers the latest job whenever it comes, even before the engine thread takes that
//! job. A panic while a job runs fails that job with the panic's message, and a fresh engine
//! thread with a fresh engine takes the jobs after it.
//!
//! The files read in this order: `status` (a job and what the page sees of it), `tasks` (the
//! searches) and `scheduler` (the engine thread that runs them).

mod scheduler;
mod status;
mod tasks;

pub use scheduler::Jobs;
pub use status::{JobContext, JobState, Task};
pub use tasks::{move_name, run_task};
