//! The web server's faults over real sockets, with the library's server and an engine thread
//! whose task runner the test controls: a panic on the engine thread fails its job with the
//! message and the next job is served by a fresh engine, a stop that comes before the engine
//! thread takes the job still stops it, and a listening socket that fails ends the server with
//! an error.

use crate::common::http::{get, post_json};
use oxello::engine::{Engine, EngineOptions};
use oxello::web::{run_task, serve, JobContext, Jobs, Task};
use serde_json::Value;
use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn engine() -> anyhow::Result<Engine> {
    Ok(Engine::new(EngineOptions {
        threads: 1,
        hash_mib: 16,
    })?)
}

/// Serves `jobs` on a free loopback port from a thread of its own; returns the address.
fn serve_in_background(jobs: Jobs) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let address = listener.local_addr().expect("an address").to_string();
    std::thread::spawn(move || serve(listener, jobs, &[]));
    address
}

fn json(reply: (u16, String)) -> Value {
    assert_eq!(reply.0, 200, "{}", reply.1);
    serde_json::from_str(&reply.1).expect("a JSON reply")
}

/// Polls the job's status until it is no longer running.
fn ended(address: &str, id: &Value, limit: Duration) -> Value {
    let begun = Instant::now();
    loop {
        let status = json(get(address, "/api/job", address));
        assert_eq!(&status["id"], id, "job {id} was overtaken: {status}");
        if status["state"] != "running" {
            return status;
        }
        assert!(begun.elapsed() < limit, "job {id} still running: {status}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_panic_on_the_engine_thread_fails_its_job_and_the_next_is_served() {
    let made = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&made);
    let panicked = AtomicBool::new(false);
    let jobs = Jobs::start_with(
        move || {
            counted.fetch_add(1, Ordering::SeqCst);
            engine()
        },
        move |engine: &mut Engine, task: Task, context: &JobContext| {
            if !panicked.swap(true, Ordering::SeqCst) {
                panic!("a test's deliberate fault");
            }
            run_task(engine, task, context)
        },
    )
    .expect("the engine thread");
    let address = serve_in_background(jobs);
    let think = r#"{"moves": ["f5"], "depth": 4}"#;
    let first = json(post_json(&address, "/api/think", think))["job"].clone();
    let failed = ended(&address, &first, Duration::from_secs(30));
    assert_eq!(failed["state"], "failed", "{failed}");
    assert!(
        failed["error"]
            .as_str()
            .is_some_and(|e| e.contains("a test's deliberate fault")),
        "{failed}"
    );
    let second = json(post_json(&address, "/api/think", think))["job"].clone();
    let done = ended(&address, &second, Duration::from_secs(30));
    assert_eq!(done["state"], "done", "{done}");
    assert!(done["think"]["move"].is_string(), "{done}");
    assert_eq!(
        made.load(Ordering::SeqCst),
        2,
        "a fresh engine after the panic"
    );
}

#[test]
fn a_stop_before_the_engine_thread_takes_the_job_still_stops_it() {
    // The first job holds the engine thread until released, so that the second is submitted
    // and stopped before the thread takes it.
    let release = Arc::new(AtomicBool::new(false));
    let held = Arc::clone(&release);
    let jobs = Jobs::start_with(
        engine,
        move |engine: &mut Engine, task: Task, context: &JobContext| {
            if matches!(task, Task::Think { .. }) {
                while !held.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(5));
                }
                return true;
            }
            run_task(engine, task, context)
        },
    )
    .expect("the engine thread");
    let address = serve_in_background(jobs);
    json(post_json(&address, "/api/think", r#"{"depth": 4}"#));
    let hints = json(post_json(
        &address,
        "/api/hints",
        r#"{"moves": ["f5"], "time_ms": 60000}"#,
    ))["job"]
        .clone();
    let stopped = json(post_json(&address, "/api/stop", "{}"));
    assert_eq!(stopped["job"], hints);
    release.store(true, Ordering::SeqCst);
    let begun = Instant::now();
    let status = ended(&address, &hints, Duration::from_secs(20));
    assert_eq!(status["state"], "stopped", "{status}");
    assert!(
        begun.elapsed() < Duration::from_secs(10),
        "the stopped hints ran {:?}",
        begun.elapsed()
    );
}

#[test]
fn a_failing_listener_ends_the_server_with_an_error() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    // A socket that cannot wait for a connection: its first accept fails at once.
    listener.set_nonblocking(true).expect("non-blocking");
    let jobs = Jobs::start(engine).expect("the engine thread");
    let error = serve(listener, jobs, &[]).expect_err("the server ends");
    assert!(
        error.to_string().contains("cannot accept connections"),
        "{error}"
    );
}
