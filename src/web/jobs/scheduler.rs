//! The engine thread: it owns the [`Engine`] and runs one job at a time. Submitting a job stops
//! the one running, and a job overtaken before it began is skipped, so the engine always works
//! on the latest request. A stop covers the latest job whenever it comes, even before the
//! engine thread takes that job. A panic while a job runs fails that job with the panic's
//! message, and a fresh engine thread with a fresh engine takes the jobs after it.

use super::status::{JobContext, JobState, JobStatus, Task};
use super::tasks::run_task;
use crate::engine::Engine;
use crossbeam_channel::{Receiver, Sender};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

struct Job {
    id: u64,
    task: Task,
}

/// What the engine thread and the request handlers share.
struct Shared {
    status: Mutex<JobStatus>,
    /// The id of the newest job submitted.
    latest: AtomicU64,
    /// The newest job a stop request covered.
    stopped_through: AtomicU64,
    /// The engines' stop flag: every engine the thread makes searches under it.
    stop: Arc<AtomicBool>,
}

/// Makes an engine: at the start, and again after a panic.
pub type EngineFactory = dyn Fn() -> anyhow::Result<Engine> + Send + Sync;

/// Runs one job's task on the engine, reporting through the context; returns whether it
/// finished by its own limits. [`run_task`] runs the page's searches; tests give others.
pub type TaskRunner = dyn Fn(&mut Engine, Task, &JobContext) -> bool + Send + Sync;

/// The handle the request handlers hold: submit, stop, read the status.
pub struct Jobs {
    shared: Arc<Shared>,
    sender: Sender<Job>,
}

/// What an engine thread needs, to start it and its successors.
struct Worker {
    make_engine: Arc<EngineFactory>,
    run: Arc<TaskRunner>,
    jobs: Receiver<Job>,
    shared: Arc<Shared>,
}

impl Jobs {
    /// Starts the engine thread with an engine from `make_engine`, running the page's
    /// searches.
    pub fn start(
        make_engine: impl Fn() -> anyhow::Result<Engine> + Send + Sync + 'static,
    ) -> anyhow::Result<Jobs> {
        Jobs::start_with(make_engine, run_task)
    }

    /// Starts the engine thread with an engine from `make_engine`, running each job with
    /// `run` (a test's runner may fail on purpose).
    pub fn start_with(
        make_engine: impl Fn() -> anyhow::Result<Engine> + Send + Sync + 'static,
        run: impl Fn(&mut Engine, Task, &JobContext) -> bool + Send + Sync + 'static,
    ) -> anyhow::Result<Jobs> {
        let shared = Arc::new(Shared {
            status: Mutex::new(JobStatus {
                state: JobState::Done,
                ..JobStatus::queued(0, "none")
            }),
            latest: AtomicU64::new(0),
            stopped_through: AtomicU64::new(0),
            stop: Arc::new(AtomicBool::new(false)),
        });
        let (sender, receiver) = crossbeam_channel::unbounded();
        let worker = Worker {
            make_engine: Arc::new(make_engine),
            run: Arc::new(run),
            jobs: receiver,
            shared: Arc::clone(&shared),
        };
        let engine = worker.engine()?;
        worker.spawn(engine)?;
        Ok(Jobs { shared, sender })
    }

    /// Stops the running job and queues `task`; returns its id, or an error if no engine
    /// thread is left to take it.
    pub fn submit(&self, task: Task) -> anyhow::Result<u64> {
        let mut status = self.shared.status.lock();
        let id = self.shared.latest.load(Ordering::SeqCst) + 1;
        self.shared.latest.store(id, Ordering::SeqCst);
        self.shared.stop.store(true, Ordering::SeqCst);
        *status = JobStatus::queued(id, task.kind());
        if self.sender.send(Job { id, task }).is_err() {
            status.state = JobState::Failed;
            status.error = Some("the engine thread has ended".to_string());
            anyhow::bail!("the engine thread has ended");
        }
        Ok(id)
    }

    /// Stops the latest job, which keeps what it found so far, even if the engine thread has
    /// not taken it yet; returns its id.
    pub fn stop(&self) -> u64 {
        let latest = self.shared.latest.load(Ordering::SeqCst);
        self.shared
            .stopped_through
            .fetch_max(latest, Ordering::SeqCst);
        self.shared.stop.store(true, Ordering::SeqCst);
        latest
    }

    /// The latest job's status.
    pub fn status(&self) -> JobStatus {
        self.shared.status.lock().clone()
    }
}

impl Worker {
    /// A new engine searching under the shared stop flag.
    fn engine(&self) -> anyhow::Result<Engine> {
        let mut engine = (self.make_engine)()?;
        engine.set_stop_flag(Arc::clone(&self.shared.stop));
        Ok(engine)
    }

    fn spawn(self, engine: Engine) -> std::io::Result<()> {
        std::thread::Builder::new()
            .name("oxello-web-engine".to_string())
            .spawn(move || self.work(engine))
            .map(drop)
    }

    /// Runs the jobs until the channel closes, or until a job panics: that job fails with the
    /// panic's message and a fresh thread with a fresh engine takes over.
    fn work(self, mut engine: Engine) {
        if self.run_jobs(&mut engine) {
            drop(engine);
            self.replace();
        }
    }

    /// Runs the jobs until the channel closes (false) or a job panics (true).
    fn run_jobs(&self, engine: &mut Engine) -> bool {
        let shared = &self.shared;
        for job in self.jobs.iter() {
            shared.stop.store(false, Ordering::SeqCst);
            if shared.latest.load(Ordering::SeqCst) != job.id {
                continue;
            }
            if shared.stopped_through.load(Ordering::SeqCst) >= job.id {
                shared.stop.store(true, Ordering::SeqCst);
            }
            let context = JobContext::new(&shared.status, job.id);
            let run = &self.run;
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run(engine, job.task, &context)
            }));
            match outcome {
                Ok(finished) => {
                    let stopped = !finished || shared.stop.load(Ordering::SeqCst);
                    context.update(|status| {
                        status.state = if stopped {
                            JobState::Stopped
                        } else {
                            JobState::Done
                        };
                    });
                }
                Err(panic) => {
                    let message = panic_message(panic.as_ref());
                    log::error!(
                        "the web server's engine failed on job {}: {message}",
                        job.id
                    );
                    context.update(|status| {
                        status.state = JobState::Failed;
                        status.error = Some(message);
                    });
                    return true;
                }
            }
        }
        false
    }

    /// Starts the successor of a thread whose engine panicked; without one, the channel
    /// closes with this thread and later submits fail with a message.
    fn replace(self) {
        let engine = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.engine()))
            .unwrap_or_else(|panic| Err(anyhow::anyhow!("{}", panic_message(panic.as_ref()))));
        let started = engine.and_then(|engine| self.spawn(engine).map_err(anyhow::Error::from));
        if let Err(error) = started {
            log::error!("the web server cannot start a new engine: {error}");
        }
    }
}

/// The text of a panic's payload.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|text| text.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}
