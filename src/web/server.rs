//! `oxello web`'s options and its HTTP server: `tiny_http` underneath, a few threads taking
//! requests and answering them through [`super::handle`], one engine thread searching.

use super::api::{handle, Reply, MAX_BODY_BYTES};
use super::jobs::Jobs;
use crate::book::Book;
use crate::engine::{Engine, EngineOptions, DEFAULT_HASH_MIB};
use crate::eval::Evaluation;
use anyhow::Context;
use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

/// Threads taking requests (searches run on the engine's own thread and pool).
const REQUEST_THREADS: usize = 4;

/// `oxello web`: play, hints, set-up and review in the browser.
#[derive(clap::Args, Debug, Clone)]
pub struct WebArgs {
    /// Port to listen on (0: any free port; the address is printed).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on: this machine only unless told otherwise (0.0.0.0 opens the
    /// board to the whole network, with no password).
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    pub bind: IpAddr,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = DEFAULT_HASH_MIB)]
    pub hash: usize,
}

/// Serves the board until the process is stopped.
pub fn run(
    args: &WebArgs,
    threads: usize,
    evaluation: Evaluation,
    book: Option<Arc<Book>>,
) -> anyhow::Result<()> {
    let mut engine = Engine::with_evaluation(
        EngineOptions {
            threads,
            hash_mib: args.hash,
        },
        evaluation,
    )?;
    engine.set_book(book, 0, 0);
    let jobs = Jobs::start(engine).context("cannot start the engine thread")?;
    let listen = SocketAddr::new(args.bind, args.port);
    let server = tiny_http::Server::http(listen)
        .map_err(|e| anyhow::anyhow!("cannot listen on {listen}: {e}"))?;
    let address = server
        .server_addr()
        .to_ip()
        .context("the server has no IP address")?;
    let shown = if address.ip().is_unspecified() {
        SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), address.port())
    } else {
        address
    };
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "oxello web: open http://{shown}/ in a browser")?;
    stdout.flush()?;
    drop(stdout);
    log::info!("listening on {address}");
    let loopback_only = address.ip().is_loopback();
    std::thread::scope(|scope| {
        for _ in 0..REQUEST_THREADS {
            scope.spawn(|| {
                while let Ok(request) = server.recv() {
                    answer(request, &jobs, loopback_only);
                }
            });
        }
    });
    Ok(())
}

/// Whether a request's `Host` names this machine: a page elsewhere that renames itself to a
/// local address (DNS rebinding) must not reach a server that listens on the loopback only.
fn local_host(host: &str) -> bool {
    let name = match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    };
    matches!(name, "localhost" | "[::1]")
        || name.parse::<Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

fn header<'a>(request: &'a tiny_http::Request, name: &'static str) -> Option<&'a str> {
    request
        .headers()
        .iter()
        .find(|h| h.field.equiv(name))
        .map(|h| h.value.as_str())
}

fn answer(mut request: tiny_http::Request, jobs: &Jobs, loopback_only: bool) {
    let method = request.method().as_str().to_string();
    let url = request.url().to_string();
    let reply = if loopback_only && !header(&request, "Host").is_some_and(local_host) {
        Reply::error(
            403,
            "this server answers only requests addressed to this machine",
        )
    } else if method == "POST"
        && !header(&request, "Content-Type")
            .is_some_and(|t| t.trim_start().starts_with("application/json"))
    {
        Reply::error(415, "send the request's body as application/json")
    } else {
        let mut body = Vec::new();
        let limit = MAX_BODY_BYTES as u64 + 1;
        match request.as_reader().take(limit).read_to_end(&mut body) {
            Ok(_) => handle(&method, &url, &body, jobs),
            Err(error) => Reply::error(400, &format!("cannot read the body: {error}")),
        }
    };
    if reply.status >= 400 {
        log::info!("{method} {url}: {}", reply.status);
    }
    let mut response = tiny_http::Response::from_data(reply.body).with_status_code(reply.status);
    for (field, value) in [
        ("Content-Type", reply.content_type),
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
    ] {
        if let Ok(header) = tiny_http::Header::from_bytes(field, value) {
            response.add_header(header);
        }
    }
    if let Err(error) = request.respond(response) {
        log::debug!("{method} {url}: cannot send the reply: {error}");
    }
}

#[cfg(test)]
mod tests {
    use super::local_host;

    #[test]
    fn only_this_machines_names_are_local() {
        for host in [
            "127.0.0.1:8080",
            "localhost:80",
            "localhost",
            "[::1]:8080",
            "127.0.0.2",
        ] {
            assert!(local_host(host), "{host}");
        }
        for host in [
            "example.com",
            "192.168.1.2:8080",
            "localhost.evil.com:8080",
            "",
        ] {
            assert!(!local_host(host), "{host}");
        }
    }
}
