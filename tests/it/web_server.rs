//! `oxello web` through the real binary and real sockets: it prints the address to open, binds
//! to the loopback unless told otherwise, answers faulty requests (not HTTP, no JSON type, a
//! foreign `Host`, an over-long body, a path outside its pages) with 4xx and keeps serving.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `oxello web` on a free port, killed when dropped.
struct WebServer {
    child: Child,
    address: String,
}

impl WebServer {
    fn start(extra: &[&str]) -> WebServer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_oxello"))
            .args(["--threads", "1", "web", "--port", "0", "--hash", "16"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("oxello starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the address line");
        let address = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_string();
        WebServer { child, address }
    }

    /// Sends raw bytes and returns the status code and the body of the reply.
    fn raw(&self, request: &[u8]) -> (u16, String) {
        let mut stream = TcpStream::connect(&self.address).expect("the server accepts");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("a timeout");
        stream.write_all(request).expect("the request is sent");
        stream.shutdown(Shutdown::Write).ok();
        let mut reply = Vec::new();
        stream.read_to_end(&mut reply).ok();
        let text = String::from_utf8_lossy(&reply).to_string();
        let status = text
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or(0);
        let body = text
            .split_once("\r\n\r\n")
            .map_or(String::new(), |(_, body)| body.to_string());
        (status, body)
    }

    fn request(&self, method: &str, path: &str, headers: &str, body: &[u8]) -> (u16, String) {
        let mut bytes = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n{headers}Content-Length: {}\r\n\r\n",
            self.address,
            body.len()
        )
        .into_bytes();
        bytes.extend_from_slice(body);
        self.raw(&bytes)
    }

    fn post_json(&self, path: &str, body: &str) -> (u16, String) {
        self.request(
            "POST",
            path,
            "Content-Type: application/json\r\n",
            body.as_bytes(),
        )
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
        server.address.starts_with("127.0.0.1:"),
        "{}",
        server.address
    );
    let (status, body) = server.request("GET", "/", "", b"");
    assert_eq!(status, 200);
    assert!(body.contains("<title>oxello</title>"), "{body}");
    let (status, body) = server.post_json("/api/position", r#"{"moves": ["f5"]}"#);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#""last":"f5""#), "{body}");
}

#[test]
fn faulty_requests_get_4xx_and_the_server_keeps_serving() {
    let server = WebServer::start(&[]);
    let cases: Vec<(u16, (u16, String))> = vec![
        (400, server.post_json("/api/position", "{not json")),
        (400, server.post_json("/api/think", r#"{"moves": ["a1"]}"#)),
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
            server.post_json("/api/position", &format!("\"{}\"", "x".repeat(70_000))),
        ),
    ];
    for (expected, (status, body)) in cases {
        assert_eq!(status, expected, "{body}");
        assert!(body.contains("\"error\""), "{body}");
    }
    let foreign =
        server.raw(b"GET / HTTP/1.1\r\nHost: attacker.example:8080\r\nConnection: close\r\n\r\n");
    assert_eq!(foreign.0, 403, "{}", foreign.1);
    let (status, _) = server.raw(b"\x00\x01garbage that is not HTTP\r\n\r\n");
    assert!(status == 0 || (400..500).contains(&status), "{status}");
    let (status, _) = server.raw(b"GET / HTTP/1.1\r\nHost: ");
    assert!(status == 0 || (400..500).contains(&status), "{status}");
    let (status, body) = server.post_json("/api/position", "{}");
    assert_eq!(status, 200, "still serving: {body}");
}

#[test]
fn it_binds_where_it_is_told() {
    let server = WebServer::start(&["--bind", "0.0.0.0"]);
    assert!(
        server.address.starts_with("127.0.0.1:"),
        "the address to open is this machine's: {}",
        server.address
    );
    let (status, _) = server.request("GET", "/", "", b"");
    assert_eq!(status, 200);
}
