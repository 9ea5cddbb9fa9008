//! `oxello web`'s options and its HTTP server: a thread a connection (at most
//! [`MAX_CONNECTIONS`]) reads one request under a deadline ([`super::http`]), checks whom it
//! is addressed to and answers it through [`super::handle`]; one engine thread searches.

use super::api::{handle, Reply, MAX_BODY_BYTES};
use super::http::{read_request, respond, ReadLimits, Request};
use super::jobs::Jobs;
use crate::book::Book;
use crate::engine::{Engine, EngineOptions, DEFAULT_HASH_MIB};
use crate::eval::Evaluation;
use anyhow::Context;
use std::io::{ErrorKind, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Connections served at once; one more is answered 503 at once.
const MAX_CONNECTIONS: usize = 64;
/// How a request is read: a stalled or slow client gets 408 after the deadline.
const READ_LIMITS: ReadLimits = ReadLimits {
    head_bytes: 16 * 1024,
    body_bytes: MAX_BODY_BYTES,
    deadline: Duration::from_secs(10),
};
/// The longest a reply may take to write.
const WRITE_DEADLINE: Duration = Duration::from_secs(10);
/// The page's own origin only, and never inside another site's frame.
const CONTENT_SECURITY_POLICY: &str =
    "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/// `oxello web`: play, hints, set-up and review in the browser.
#[derive(clap::Args, Debug, Clone)]
pub struct WebArgs {
    /// Port to listen on (0: any free port; the address is printed).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on: this machine only unless told otherwise (0.0.0.0 opens the
    /// board to the whole network, with no password; a warning says so).
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    pub bind: IpAddr,
    /// A host name requests may be addressed to besides this machine's loopback names and the
    /// bound address (repeatable), e.g. the name other machines reach this one by.
    #[arg(long = "allow-host", value_name = "NAME")]
    pub allow_hosts: Vec<String>,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = DEFAULT_HASH_MIB)]
    pub hash: usize,
}

/// Serves the board until the process is stopped; returns an error if the listening socket
/// fails.
pub fn run(
    args: &WebArgs,
    threads: usize,
    evaluation: Evaluation,
    book: Option<Arc<Book>>,
) -> anyhow::Result<()> {
    let options = EngineOptions {
        threads,
        hash_mib: args.hash,
    };
    let jobs = Jobs::start(move || {
        let mut engine = Engine::with_evaluation(options, evaluation.clone())?;
        engine.set_book(book.clone(), 0, 0);
        Ok(engine)
    })
    .context("cannot start the engine")?;
    let listen = SocketAddr::new(args.bind, args.port);
    let listener =
        TcpListener::bind(listen).with_context(|| format!("cannot listen on {listen}"))?;
    let address = listener.local_addr().context("the server has no address")?;
    let hosts = AllowedHosts::new(address.ip(), &args.allow_hosts);
    let to_open = if address.ip().is_unspecified() {
        SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), address.port())
    } else {
        address
    };
    if !address.ip().is_loopback() {
        log::warn!(
            "oxello web listens on {address}, beyond this machine: anyone who can reach it \
             can use the board, with no password. It answers requests addressed to {}; \
             --allow-host adds names",
            hosts.describe()
        );
    }
    let mut stdout = std::io::stdout().lock();
    writeln!(
        stdout,
        "oxello web: listening on {address}; open http://{to_open}/ in a browser"
    )?;
    stdout.flush()?;
    drop(stdout);
    serve(listener, jobs, &args.allow_hosts)
}

/// Serves the board on `listener` with `jobs`, answering requests addressed to this machine's
/// loopback names, the listener's address and `allow_hosts`. Returns only when accepting
/// fails (a client that gave up before its connection was taken is not a failure): the
/// error, for the process to end with.
pub fn serve(listener: TcpListener, jobs: Jobs, allow_hosts: &[String]) -> anyhow::Result<()> {
    let address = listener.local_addr().context("the server has no address")?;
    let hosts = Arc::new(AllowedHosts::new(address.ip(), allow_hosts));
    let jobs = Arc::new(jobs);
    let open = Arc::new(AtomicUsize::new(0));
    loop {
        let stream = match listener.accept() {
            Ok((stream, _)) => stream,
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::ConnectionAborted
                        | ErrorKind::ConnectionReset
                        | ErrorKind::Interrupted
                ) =>
            {
                continue
            }
            Err(e) => {
                log::error!("oxello web cannot accept connections on {address}: {e}");
                return Err(anyhow::anyhow!(
                    "cannot accept connections on {address}: {e}"
                ));
            }
        };
        if open.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            open.fetch_sub(1, Ordering::SeqCst);
            refuse_busy(stream);
            continue;
        }
        let connection = Connection(Arc::clone(&open));
        let (jobs, hosts) = (Arc::clone(&jobs), Arc::clone(&hosts));
        let spawned = std::thread::Builder::new()
            .name("oxello-web-request".to_string())
            .spawn(move || {
                let _connection = connection;
                answer_connection(stream, &jobs, &hosts);
            });
        if let Err(e) = spawned {
            log::warn!("cannot start a thread for a connection: {e}");
        }
    }
}

/// One open connection, counted until dropped.
struct Connection(Arc<AtomicUsize>);

impl Drop for Connection {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Answers a connection over the limit with 503, without waiting on it.
fn refuse_busy(mut stream: TcpStream) {
    let body = br#"{"error":"the server is busy: try again in a moment"}"#;
    let head = format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.set_write_timeout(Some(Duration::from_secs(1))).ok();
    stream
        .write_all(head.as_bytes())
        .and_then(|_| stream.write_all(body))
        .ok();
}

/// The host names requests may be addressed to: a page elsewhere that renames itself to this
/// machine's address (DNS rebinding) gets 403.
struct AllowedHosts {
    /// Lowercase, without a port.
    names: Vec<String>,
}

impl AllowedHosts {
    /// This machine's loopback names, the bound address (unless it is every address) and
    /// `extra`.
    fn new(bound: IpAddr, extra: &[String]) -> AllowedHosts {
        let mut names = vec!["localhost".to_string()];
        if !bound.is_unspecified() && !bound.is_loopback() {
            names.push(match bound {
                IpAddr::V4(ip) => ip.to_string(),
                IpAddr::V6(ip) => format!("[{ip}]"),
            });
        }
        names.extend(extra.iter().map(|name| name.trim().to_ascii_lowercase()));
        AllowedHosts { names }
    }

    /// Whether a `Host` header names an allowed host: a loopback address or a listed name,
    /// with any port.
    fn allows(&self, host: &str) -> bool {
        let host = host.trim();
        let name = match host.rsplit_once(':') {
            Some((name, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => {
                name
            }
            _ => host,
        };
        let name = name.to_ascii_lowercase();
        name == "[::1]"
            || name.parse::<Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
            || self.names.contains(&name)
    }

    /// The allowed hosts, for the warning.
    fn describe(&self) -> String {
        let mut names = vec!["127.0.0.1".to_string(), "[::1]".to_string()];
        names.extend(self.names.iter().cloned());
        names.join(", ")
    }
}

fn answer_connection(mut stream: TcpStream, jobs: &Jobs, hosts: &AllowedHosts) {
    let reply = match read_request(&mut stream, &READ_LIMITS) {
        Ok(request) => answer(&request, jobs, hosts),
        Err(error) => match error.reply(&READ_LIMITS) {
            Some((status, message)) => {
                log::info!("a request refused: {status} {message}");
                Reply::error(status, &message)
            }
            None => return,
        },
    };
    let headers = [
        ("Content-Type", reply.content_type),
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
    ];
    if let Err(error) = respond(stream, reply.status, &headers, &reply.body, WRITE_DEADLINE) {
        log::debug!("cannot send a reply: {error}");
    }
}

fn answer(request: &Request, jobs: &Jobs, hosts: &AllowedHosts) -> Reply {
    let (method, target) = (request.method.as_str(), request.target.as_str());
    let reply = if !request
        .header("Host")
        .is_some_and(|host| hosts.allows(host))
    {
        Reply::error(
            403,
            "this server answers only requests addressed to this machine or to the names it \
             was given (--allow-host)",
        )
    } else if method == "POST"
        && !request
            .header("Content-Type")
            .is_some_and(|t| t.trim_start().starts_with("application/json"))
    {
        Reply::error(415, "send the request's body as application/json")
    } else {
        handle(method, target, &request.body, jobs)
    };
    if reply.status >= 400 {
        log::info!("{method} {target}: {}", reply.status);
    }
    reply
}

#[cfg(test)]
mod tests {
    use super::AllowedHosts;
    use std::net::{IpAddr, Ipv4Addr};

    #[test]
    fn only_this_machines_names_and_the_given_ones_are_allowed() {
        let loopback = AllowedHosts::new(IpAddr::V4(Ipv4Addr::LOCALHOST), &[]);
        for host in [
            "127.0.0.1:8080",
            "localhost:80",
            "LocalHost",
            "[::1]:8080",
            "127.0.0.2",
        ] {
            assert!(loopback.allows(host), "{host}");
        }
        for host in [
            "example.com",
            "192.168.1.2:8080",
            "localhost.evil.com:8080",
            "0.0.0.0:8080",
            "",
        ] {
            assert!(!loopback.allows(host), "{host}");
        }
        let lan = AllowedHosts::new(
            IpAddr::V4(Ipv4Addr::new(192, 168, 1, 2)),
            &["Board.Example".to_string()],
        );
        for host in ["192.168.1.2:8080", "board.example:8080", "localhost"] {
            assert!(lan.allows(host), "{host}");
        }
        assert!(!lan.allows("192.168.1.3:8080"));
        let everywhere = AllowedHosts::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), &[]);
        assert!(!everywhere.allows("0.0.0.0:8080"));
        assert!(!everywhere.allows("attacker.example"));
    }
}
