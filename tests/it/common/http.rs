//! Raw HTTP/1.1 over a real socket, for the web server's tests: exactly the bytes given, and
//! the reply's status and body.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::Duration;

/// Sends `request` to `address` as it is, closes the sending side, and returns the reply's
/// status (0 if none came) and body.
pub fn exchange(address: &str, request: &[u8]) -> (u16, String) {
    let mut stream = TcpStream::connect(address).expect("the server accepts");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("a timeout");
    stream.write_all(request).expect("the request is sent");
    stream.shutdown(Shutdown::Write).ok();
    read_reply(&mut stream)
}

/// Reads a reply to its end: its status (0 if none came) and body.
pub fn read_reply(stream: &mut TcpStream) -> (u16, String) {
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

/// A whole request: `headers` (each ending in CRLF) after `Host`, then the body's length and
/// the body.
pub fn request_bytes(method: &str, path: &str, host: &str, headers: &str, body: &[u8]) -> Vec<u8> {
    let mut bytes = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{headers}Content-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// A JSON POST to `address`, addressed to it.
pub fn post_json(address: &str, path: &str, body: &str) -> (u16, String) {
    exchange(
        address,
        &request_bytes(
            "POST",
            path,
            address,
            "Content-Type: application/json\r\n",
            body.as_bytes(),
        ),
    )
}

/// A GET of `path` from `address`, addressed to `host`.
pub fn get(address: &str, path: &str, host: &str) -> (u16, String) {
    exchange(address, &request_bytes("GET", path, host, "", b""))
}
