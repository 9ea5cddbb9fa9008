//! `oxello web` through the real binary and real sockets: it prints the address it listens on
//! and the one to open, binds where it is told (warning beyond the loopback), answers faulty
//! requests (not HTTP, no JSON type, a foreign `Host`, an over-long body, a path outside its
//! pages) with 4xx and keeps serving, and stays responsive while clients stall mid-request.

use crate::common::http::{exchange, get, post_json, read_reply, request_bytes};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `oxello web` on a free port, killed when dropped.
struct WebServer {
    child: Child,
    /// The address it listens on, from its first line.
    listening: String,
    /// The address to open in a browser, from the same line.
    address: String,
    stderr: Option<std::process::ChildStderr>,
}

impl WebServer {
    fn start(extra: &[&str]) -> WebServer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_oxello"))
            .args(["--threads", "1", "web", "--port", "0", "--hash", "16"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("oxello starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the address line");
        let listening = line
            .split("listening on ")
            .nth(1)
            .and_then(|rest| rest.split(';').next())
            .unwrap_or_else(|| panic!("no listening address in {line:?}"))
            .to_string();
        let address = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_string();
        let stderr = child.stderr.take();
        WebServer {
            child,
            listening,
            address,
            stderr,
        }
    }

    fn port(&self) -> &str {
        self.address.rsplit(':').next().expect("a port")
    }

    fn request(&self, method: &str, path: &str, headers: &str, body: &[u8]) -> (u16, String) {
        exchange(
            &self.address,
            &request_bytes(method, path, &self.address, headers, body),
        )
    }

    /// What the server wrote to stderr up to now (it is killed first).
    fn stderr_after_kill(mut self) -> String {
        self.child.kill().ok();
        self.child.wait().ok();
        let mut text = String::new();
        if let Some(mut stderr) = self.stderr.take() {
            std::io::Read::read_to_string(&mut stderr, &mut text).ok();
        }
        text
    }
}

impl Drop for WebServer {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

#[test]
fn it_prints_a_loopback_address_and_serves_the_page() {
    let server = WebServer::start(&[]);
    assert!(
        server.address.starts_with("127.0.0.1:") && server.listening == server.address,
        "{} / {}",
        server.listening,
        server.address
    );
    let (status, body) = server.request("GET", "/", "", b"");
    assert_eq!(status, 200);
    assert!(body.contains("<title>oxello</title>"), "{body}");
    let (status, body) = post_json(&server.address, "/api/position", r#"{"moves": ["f5"]}"#);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#""last":"f5""#), "{body}");
    // On the loopback only: another loopback address of this machine is not listened on.
    assert!(TcpStream::connect(format!("127.0.0.2:{}", server.port())).is_err());
}

#[test]
fn replies_forbid_framing_and_foreign_scripts() {
    let server = WebServer::start(&[]);
    let mut stream = TcpStream::connect(&server.address).expect("the server accepts");
    stream
        .write_all(&request_bytes("GET", "/", &server.address, "", b""))
        .expect("sent");
    let mut head = String::new();
    let mut reader = BufReader::new(stream);
    while reader.read_line(&mut head).expect("a reply") > 2 && !head.ends_with("\r\n\r\n") {}
    let head = head.to_ascii_lowercase();
    assert!(
        head.contains("content-security-policy: default-src 'self'; frame-ancestors 'none'"),
        "{head}"
    );
    assert!(head.contains("x-frame-options: deny"), "{head}");
}

#[test]
fn faulty_requests_get_4xx_and_the_server_keeps_serving() {
    let server = WebServer::start(&[]);
    let cases: Vec<(u16, (u16, String))> = vec![
        (
            400,
            post_json(&server.address, "/api/position", "{not json"),
        ),
        (
            400,
            post_json(&server.address, "/api/think", r#"{"moves": ["a1"]}"#),
        ),
        (
            415,
            server.request(
                "POST",
                "/api/position",
                "Content-Type: text/plain\r\n",
                b"{}",
            ),
        ),
        (404, server.request("GET", "/../Cargo.toml", "", b"")),
        (
            404,
            server.request("GET", "/%2e%2e/%2e%2e/etc/passwd", "", b""),
        ),
        (405, server.request("PUT", "/api/position", "", b"")),
        (
            413,
            post_json(
                &server.address,
                "/api/position",
                &format!("\"{}\"", "x".repeat(70_000)),
            ),
        ),
    ];
    for (expected, (status, body)) in cases {
        assert_eq!(status, expected, "{body}");
        assert!(body.contains("\"error\""), "{body}");
    }
    let foreign = exchange(
        &server.address,
        b"GET / HTTP/1.1\r\nHost: attacker.example:8080\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(foreign.0, 403, "{}", foreign.1);
    let (status, _) = exchange(&server.address, b"\x00\x01garbage that is not HTTP\r\n\r\n");
    assert!(status == 0 || (400..500).contains(&status), "{status}");
    let (status, _) = exchange(&server.address, b"GET / HTTP/1.1\r\nHost: ");
    assert!(status == 0 || (400..500).contains(&status), "{status}");
    let (status, body) = post_json(&server.address, "/api/position", "{}");
    assert_eq!(status, 200, "still serving: {body}");
}

/// Connects and sends the head of a POST announcing `length` body bytes and a few of them.
fn stalled_post(address: &str, length: usize) -> TcpStream {
    let mut stream = TcpStream::connect(address).expect("the server accepts");
    let head = format!(
        "POST /api/position HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n{{\"setup\": \""
    );
    stream.write_all(head.as_bytes()).expect("sent");
    stream
}

#[test]
fn stalled_clients_cannot_freeze_the_server() {
    let server = WebServer::start(&[]);
    let stalled: Vec<TcpStream> = (0..12)
        .map(|_| stalled_post(&server.address, 60_000))
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    let begun = Instant::now();
    let (status, body) = server.request("GET", "/", "", b"");
    let waited = begun.elapsed();
    assert_eq!(status, 200, "{body}");
    assert!(
        waited < Duration::from_secs(1),
        "a plain GET waited {waited:?} behind 12 stalled clients"
    );
    let (status, body) = post_json(&server.address, "/api/position", "{}");
    assert_eq!(status, 200, "{body}");
    // A stalled client is answered 408 at the deadline and let go.
    let mut first = stalled.into_iter().next().expect("a stalled client");
    first
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("a timeout");
    let (status, body) = read_reply(&mut first);
    assert_eq!(status, 408, "{body}");
}

#[test]
fn a_body_over_the_limit_is_refused_before_it_is_read() {
    let server = WebServer::start(&[]);
    let mut stream = stalled_post(&server.address, 10_000_000);
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("a timeout");
    let begun = Instant::now();
    let (status, body) = read_reply(&mut stream);
    assert_eq!(status, 413, "{body}");
    assert!(
        begun.elapsed() < Duration::from_secs(3),
        "{:?}",
        begun.elapsed()
    );
}

#[test]
fn a_slow_but_honest_client_is_served() {
    let server = WebServer::start(&[]);
    let body = br#"{"moves": ["f5", "d6", "c3", "d3", "c4"]}"#;
    let request = request_bytes(
        "POST",
        "/api/position",
        &server.address,
        "Content-Type: application/json\r\n",
        body,
    );
    let mut stream = TcpStream::connect(&server.address).expect("the server accepts");
    for piece in request.chunks(request.len() / 6 + 1) {
        stream.write_all(piece).expect("sent");
        std::thread::sleep(Duration::from_millis(300));
    }
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("a timeout");
    let (status, reply) = read_reply(&mut stream);
    assert_eq!(status, 200, "{reply}");
    assert!(reply.contains(r#""last":"c4""#), "{reply}");
}

#[test]
fn binding_every_address_warns_listens_there_and_keeps_its_host_check() {
    let server = WebServer::start(&["--bind", "0.0.0.0", "--allow-host", "board.example"]);
    assert!(
        server.listening.starts_with("0.0.0.0:"),
        "the real address is printed: {}",
        server.listening
    );
    assert!(
        server.address.starts_with("127.0.0.1:"),
        "the address to open is this machine's: {}",
        server.address
    );
    // Bound to every address: another loopback address of this machine answers too.
    let elsewhere = format!("127.0.0.2:{}", server.port());
    let (status, _) = get(&elsewhere, "/", &elsewhere);
    assert_eq!(status, 200);
    let (status, _) = get(&server.address, "/", "attacker.example");
    assert_eq!(status, 403);
    let (status, _) = get(&server.address, "/", &format!("0.0.0.0:{}", server.port()));
    assert_eq!(status, 403);
    let (status, _) = get(
        &server.address,
        "/",
        &format!("Board.Example:{}", server.port()),
    );
    assert_eq!(status, 200);
    let stderr = server.stderr_after_kill();
    assert!(
        stderr.contains("beyond this machine") && stderr.contains("board.example"),
        "{stderr}"
    );
}
