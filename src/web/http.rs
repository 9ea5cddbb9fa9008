//! The HTTP/1.1 underneath `oxello web`, over std's sockets: one request a connection
//! (`Connection: close`), read and written under deadlines, so that a client that stalls or
//! trickles holds its own connection's thread for a few seconds at most and never another's.
//!
//! `tiny_http`, used before, reads a body on the thread that handles the request with no
//! timeout (its sockets are out of reach): twelve clients that sent a POST's headers and
//! stalled froze every handler thread. Here a body is refused before it is read when its
//! `Content-Length` is over the limit, and read against the request's deadline otherwise.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// The bounds a request is read within.
#[derive(Clone, Copy, Debug)]
pub struct ReadLimits {
    /// The request line and headers, in bytes.
    pub head_bytes: usize,
    /// The body, in bytes.
    pub body_bytes: usize,
    /// The whole request, from the connection's first byte to the body's last.
    pub deadline: Duration,
}

/// A request as read from the socket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub method: String,
    /// The path and query, as sent.
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    /// The value of the first header named `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(field, _)| field.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// Why no request could be read: each but [`ReadError::Closed`] is answered with its status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// The client closed the connection before the request's end, or the socket failed.
    Closed,
    /// Not HTTP/1.x as this server reads it.
    Malformed(String),
    /// The request line and headers are over the limit.
    HeadTooLarge,
    /// The announced body is over the limit; nothing of it was read.
    BodyTooLarge,
    /// A body without a length (chunked); browsers send string bodies with one.
    LengthRequired,
    /// The request did not arrive within the deadline.
    TimedOut,
}

impl ReadError {
    /// The status and message to answer with (`None`: answer nothing).
    pub fn reply(&self, limits: &ReadLimits) -> Option<(u16, String)> {
        match self {
            ReadError::Closed => None,
            ReadError::Malformed(why) => Some((400, format!("not an HTTP request: {why}"))),
            ReadError::HeadTooLarge => Some((
                431,
                format!("the request's headers are over {} bytes", limits.head_bytes),
            )),
            ReadError::BodyTooLarge => {
                Some((413, format!("the body is over {} bytes", limits.body_bytes)))
            }
            ReadError::LengthRequired => {
                Some((411, "send the body with a Content-Length".to_string()))
            }
            ReadError::TimedOut => Some((
                408,
                format!(
                    "the request did not arrive within {} s",
                    limits.deadline.as_secs()
                ),
            )),
        }
    }
}

/// Reads from `stream` into `buffer` until `deadline`: `Ok(0)` at the end of the stream.
fn read_some(
    stream: &mut TcpStream,
    buffer: &mut [u8],
    deadline: Instant,
) -> Result<usize, ReadError> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ReadError::TimedOut);
        }
        stream
            .set_read_timeout(Some(left))
            .map_err(|_| ReadError::Closed)?;
        match stream.read(buffer) {
            Ok(read) => return Ok(read),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Err(ReadError::TimedOut)
            }
            Err(_) => return Err(ReadError::Closed),
        }
    }
}

/// Reads one request: its head up to the blank line, then as many body bytes as its
/// `Content-Length` says, all before the deadline.
pub fn read_request(stream: &mut TcpStream, limits: &ReadLimits) -> Result<Request, ReadError> {
    let deadline = Instant::now() + limits.deadline;
    let mut received = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = find_blank_line(&received) {
            break at;
        }
        if received.len() > limits.head_bytes {
            return Err(ReadError::HeadTooLarge);
        }
        match read_some(stream, &mut chunk, deadline)? {
            0 if received.is_empty() => return Err(ReadError::Closed),
            0 => return Err(ReadError::Malformed("the headers end early".to_string())),
            read => received.extend_from_slice(&chunk[..read]),
        }
    };
    if head_end > limits.head_bytes {
        return Err(ReadError::HeadTooLarge);
    }
    let (method, target, headers) = parse_head(&received[..head_end])?;
    let mut request = Request {
        method,
        target,
        headers,
        body: Vec::new(),
    };
    if request.header("Transfer-Encoding").is_some() {
        return Err(ReadError::LengthRequired);
    }
    let length = match request.header("Content-Length") {
        None => 0,
        Some(text) => text
            .trim()
            .parse::<usize>()
            .map_err(|_| ReadError::Malformed(format!("Content-Length '{text}'")))?,
    };
    if length > limits.body_bytes {
        return Err(ReadError::BodyTooLarge);
    }
    let mut body = received.split_off(head_end + 4);
    body.truncate(length);
    while body.len() < length {
        let want = (length - body.len()).min(chunk.len());
        match read_some(stream, &mut chunk[..want], deadline)? {
            0 => return Err(ReadError::Closed),
            read => body.extend_from_slice(&chunk[..read]),
        }
    }
    request.body = body;
    Ok(request)
}

/// Where the head's blank line (`\r\n\r\n`) starts.
fn find_blank_line(bytes: &[u8]) -> Option<usize> {
    bytes.windows(4).position(|w| w == b"\r\n\r\n")
}

type Head = (String, String, Vec<(String, String)>);

/// The request line and the headers.
fn parse_head(head: &[u8]) -> Result<Head, ReadError> {
    let text = std::str::from_utf8(head)
        .map_err(|_| ReadError::Malformed("the headers are not UTF-8".to_string()))?;
    let mut lines = text.split("\r\n");
    let request_line = lines.next().unwrap_or("");
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(ReadError::Malformed(format!(
            "request line '{}'",
            request_line.escape_default()
        )));
    };
    if !matches!(version, "HTTP/1.1" | "HTTP/1.0")
        || method.is_empty()
        || !method.bytes().all(|b| b.is_ascii_uppercase())
        || !target.starts_with('/')
    {
        return Err(ReadError::Malformed(format!(
            "request line '{}'",
            request_line.escape_default()
        )));
    }
    let mut headers = Vec::new();
    for line in lines {
        let Some((field, value)) = line.split_once(':') else {
            return Err(ReadError::Malformed(format!(
                "header line '{}'",
                line.escape_default()
            )));
        };
        if field.is_empty() || field.bytes().any(|b| b.is_ascii_whitespace()) {
            return Err(ReadError::Malformed(format!(
                "header name '{}'",
                field.escape_default()
            )));
        }
        headers.push((field.to_string(), value.trim().to_string()));
    }
    Ok((method.to_string(), target.to_string(), headers))
}

/// The reason phrase of the statuses this server sends.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "",
    }
}

/// Writes a whole response and closes the connection: the status line, `headers`, the body's
/// length and `Connection: close`, then the body, within `deadline`. Whatever the client is
/// still sending is read and dropped for a moment before the close, so that a reply sent
/// before the request's end (413, 408) reaches it instead of being lost to a reset.
pub fn respond(
    mut stream: TcpStream,
    status: u16,
    headers: &[(&str, &str)],
    body: &[u8],
    deadline: Duration,
) -> std::io::Result<()> {
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    for (field, value) in headers {
        head.push_str(&format!("{field}: {value}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    stream.set_write_timeout(Some(deadline))?;
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    stream.flush()?;
    stream.shutdown(std::net::Shutdown::Write)?;
    let drain_until = Instant::now() + Duration::from_secs(1);
    let mut sink = [0u8; 4096];
    let mut drained = 0;
    while drained < 1 << 20 {
        match read_some(&mut stream, &mut sink, drain_until) {
            Ok(0) | Err(_) => break,
            Ok(read) => drained += read,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    const LIMITS: ReadLimits = ReadLimits {
        head_bytes: 1024,
        body_bytes: 100,
        deadline: Duration::from_millis(500),
    };

    /// What `read_request` makes of `bytes` sent by a client that then waits.
    fn read(bytes: &[u8]) -> Result<Request, ReadError> {
        read_then(bytes, false)
    }

    /// The same, the client closing its side after `bytes` if `close`.
    fn read_then(bytes: &[u8], close: bool) -> Result<Request, ReadError> {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        client.write_all(bytes).unwrap();
        if close {
            client.shutdown(std::net::Shutdown::Write).unwrap();
        }
        let (mut server, _) = listener.accept().unwrap();
        let result = read_request(&mut server, &LIMITS);
        drop(client);
        result
    }

    #[test]
    fn a_request_with_a_body_is_read_whole() {
        let request =
            read(b"POST /api/x?y=1 HTTP/1.1\r\nHost: a\r\ncontent-length: 5\r\n\r\nhello").unwrap();
        assert_eq!(request.method, "POST");
        assert_eq!(request.target, "/api/x?y=1");
        assert_eq!(request.header("Content-Length"), Some("5"));
        assert_eq!(request.header("host"), Some("a"));
        assert_eq!(request.body, b"hello");
    }

    #[test]
    fn faults_are_named() {
        assert_eq!(read_then(b"", true), Err(ReadError::Closed));
        assert!(matches!(
            read_then(b"GET / HTTP/1.1\r\nHost: a", true),
            Err(ReadError::Malformed(_))
        ));
        assert_eq!(
            read_then(b"POST / HTTP/1.1\r\nContent-Length: 9\r\n\r\nhalf", true),
            Err(ReadError::Closed)
        );
        assert!(matches!(
            read(b"\x00\x01 garbage\r\n\r\n"),
            Err(ReadError::Malformed(_))
        ));
        assert!(matches!(
            read(b"GET / HTTP/1.1\r\nno colon\r\n\r\n"),
            Err(ReadError::Malformed(_))
        ));
        assert!(matches!(
            read(b"GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n"),
            Err(ReadError::Malformed(_))
        ));
        assert_eq!(
            read(b"POST / HTTP/1.1\r\nContent-Length: 101\r\n\r\n"),
            Err(ReadError::BodyTooLarge)
        );
        assert_eq!(
            read(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"),
            Err(ReadError::LengthRequired)
        );
        let long = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "y".repeat(2000));
        assert_eq!(read(long.as_bytes()), Err(ReadError::HeadTooLarge));
    }

    #[test]
    fn a_stalled_body_times_out_at_the_deadline() {
        let begun = Instant::now();
        assert_eq!(
            read(b"POST / HTTP/1.1\r\nContent-Length: 50\r\n\r\nonly this"),
            Err(ReadError::TimedOut)
        );
        let waited = begun.elapsed();
        assert!(
            waited >= LIMITS.deadline && waited < LIMITS.deadline * 4,
            "{waited:?}"
        );
        assert_eq!(read(b"GET / HTTP/1.1\r\nHost: a"), Err(ReadError::TimedOut));
    }
}
