//! `oxello web` in a real browser: headless Chromium, driven over WebDriver (chromedriver),
//! opens the page, checks that an illegal click changes nothing, asks for hints, plays a whole
//! game against the engine by clicking, and reviews a 60-move game, reading the losses and the
//! chart's points from the page.
//!
//! Without Chromium and its driver the test is reported as ignored, not passed, with what to
//! install: the newcomer's `cargo test --release` stays green, and CI installs both first so
//! that it always runs there. `OXELLO_CHROMIUM` and `OXELLO_CHROMEDRIVER` name the programs to
//! use; `OXELLO_SCREENSHOT` a PNG file to save the reviewed game's page to.

use base64::Engine as _;
use libtest_mimic::{Arguments, Failed, Trial};
use oxello::board::{Color, Move, Position};
use oxello::notation::{format_move, format_position, parse_transcript, read_wthor_file};
use serde_json::{json, Value};
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TEST_NAME: &str = "a_person_plays_asks_for_hints_and_reviews_a_game_in_chromium";

/// The longest one WebDriver command may take (a click waits for the page to settle).
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

fn main() {
    let arguments = Arguments::from_args();
    let trial = match BrowserPaths::find() {
        Ok(browser) => Trial::test(TEST_NAME, move || browse(&browser)),
        Err(missing) => {
            eprintln!(
                "\n*** BROWSER TEST NOT RUN: {missing}.\n*** Install them to run it \
                 (Debian/Ubuntu: apt-get install chromium chromium-driver), then run cargo test \
                 --release again.\n"
            );
            Trial::test(TEST_NAME, || Err("Chromium is not installed".into()))
                .with_ignored_flag(true)
        }
    };
    libtest_mimic::run(&arguments, vec![trial]).exit();
}

/// The browser and its WebDriver server.
struct BrowserPaths {
    chromium: PathBuf,
    driver: PathBuf,
}

impl BrowserPaths {
    fn find() -> Result<BrowserPaths, String> {
        let chromium = find_program(
            "OXELLO_CHROMIUM",
            &[
                "chromium",
                "chromium-browser",
                "google-chrome",
                "google-chrome-stable",
            ],
        )
        .ok_or("no Chromium found (looked for OXELLO_CHROMIUM, chromium, chromium-browser, google-chrome on PATH)")?;
        let driver = find_program("OXELLO_CHROMEDRIVER", &["chromedriver"]).ok_or(
            "no chromedriver found (looked for OXELLO_CHROMEDRIVER, chromedriver on PATH)",
        )?;
        Ok(BrowserPaths { chromium, driver })
    }
}

/// The program the environment variable names, or the first of `names` on PATH.
fn find_program(variable: &str, names: &[&str]) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(variable) {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).find_map(|dir| {
        names
            .iter()
            .map(|name| dir.join(name))
            .find(|candidate| candidate.is_file())
    })
}

/// A child process killed when dropped.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        self.0.kill().ok();
        self.0.wait().ok();
    }
}

/// Starts `command` with stdout piped and returns it with the first word of its stdout's
/// first line that `pick` accepts.
fn start_and_read(
    mut command: Command,
    pick: impl Fn(&str) -> Option<String>,
) -> Result<(Killed, String), Failed> {
    let mut child = Killed(
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?,
    );
    let stdout = child.0.stdout.take().ok_or("no stdout")?;
    let mut lines = BufReader::new(stdout).lines();
    let found = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|line| line.split_whitespace().find_map(&pick))
        .ok_or("the program ended without saying where it listens")?;
    // Keep draining stdout so that the program never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    Ok((child, found))
}

/// `oxello web` on a free port.
struct WebServer {
    _process: Killed,
    url: String,
}

impl WebServer {
    fn start() -> Result<WebServer, Failed> {
        let mut command = Command::new(env!("CARGO_BIN_EXE_oxello"));
        command.args(["--threads", "1", "web", "--port", "0", "--hash", "32"]);
        let (process, url) = start_and_read(command, |word| {
            word.starts_with("http://").then(|| word.to_string())
        })?;
        Ok(WebServer {
            _process: process,
            url,
        })
    }
}

/// chromedriver on a free port of the loopback.
struct ChromeDriver {
    _process: Killed,
    address: String,
}

impl ChromeDriver {
    fn start(path: &Path) -> Result<ChromeDriver, Failed> {
        let mut command = Command::new(path);
        command.arg("--port=0");
        // "ChromeDriver was started successfully on port 37335."
        let (process, port) = start_and_read(command, |word| {
            let digits = word.trim_end_matches('.');
            (word.ends_with('.')
                && !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| digits.to_string())
        })?;
        Ok(ChromeDriver {
            _process: process,
            address: format!("127.0.0.1:{port}"),
        })
    }

    /// Sends one WebDriver command and returns its `value`, or the driver's error as a failure.
    fn command(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, Failed> {
        let failed = |e: &dyn std::fmt::Display| format!("{method} {path}: {e}");
        let body = match method {
            "POST" => body.unwrap_or_else(|| json!({})).to_string(),
            _ => String::new(),
        };
        let (status, reply) =
            http_exchange(&self.address, method, path, &body).map_err(|e| failed(&e))?;
        let reply: Value = serde_json::from_slice(&reply).map_err(|e| failed(&e))?;
        if !(200..300).contains(&status) {
            return Err(failed(&format!("{status} {}", reply["value"])).into());
        }
        Ok(reply["value"].clone())
    }
}

/// One HTTP/1.1 request to `address` on a connection of its own (WebDriver's wire protocol is
/// JSON over plain HTTP): the reply's status and body (by its length, or chunked).
fn http_exchange(
    address: &str,
    method: &str,
    path: &str,
    body: &str,
) -> std::io::Result<(u16, Vec<u8>)> {
    let mut stream = TcpStream::connect(address)?;
    stream.set_read_timeout(Some(COMMAND_TIMEOUT))?;
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\
         Content-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )?;
    let bad = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string());
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| bad("a reply without a status"))?;
    let (mut length, mut chunked) = (None, false);
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Err(bad("a reply cut inside its headers"));
        }
        let header = line.trim_end().to_ascii_lowercase();
        if header.is_empty() {
            break;
        }
        if let Some(value) = header.strip_prefix("content-length:") {
            length = Some(
                value
                    .trim()
                    .parse()
                    .map_err(|_| bad("a bad Content-Length"))?,
            );
        }
        chunked |= header.starts_with("transfer-encoding:") && header.contains("chunked");
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            line.clear();
            reader.read_line(&mut line)?;
            let size_text = line.trim().split(';').next().unwrap_or("");
            let size = usize::from_str_radix(size_text, 16).map_err(|_| bad("a bad chunk size"))?;
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk)?;
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else if let Some(length) = length {
        body.resize(length, 0);
        reader.read_exact(&mut body)?;
    } else {
        reader.read_to_end(&mut body)?;
    }
    Ok((status, body))
}

/// A WebDriver session: one headless Chromium window.
struct Page<'a> {
    driver: &'a ChromeDriver,
    session: String,
}

/// The key of an element reference in WebDriver's answers.
const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

impl<'a> Page<'a> {
    fn open(driver: &'a ChromeDriver, chromium: &Path) -> Result<Page<'a>, Failed> {
        let binary: OsString = chromium.into();
        let capabilities = json!({
            "capabilities": {
                "alwaysMatch": {
                    "browserName": "chrome",
                    "goog:chromeOptions": {
                        "binary": binary.to_string_lossy(),
                        "args": [
                            "--headless=new",
                            "--no-sandbox",
                            "--disable-dev-shm-usage",
                            "--window-size=1280,1000",
                        ],
                    },
                },
            },
        });
        let session = driver.command("POST", "/session", Some(capabilities))?;
        let session = session["sessionId"]
            .as_str()
            .ok_or_else(|| format!("no session in {session}"))?
            .to_string();
        Ok(Page { driver, session })
    }

    fn command(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, Failed> {
        self.driver
            .command(method, &format!("/session/{}{path}", self.session), body)
    }

    fn navigate(&self, url: &str) -> Result<(), Failed> {
        self.command("POST", "/url", Some(json!({ "url": url })))
            .map(drop)
    }

    /// The value of a JavaScript expression.
    fn evaluate(&self, expression: &str) -> Result<Value, Failed> {
        let script = format!("return ({expression});");
        self.command(
            "POST",
            "/execute/sync",
            Some(json!({ "script": script, "args": [] })),
        )
    }

    /// Runs JavaScript statements.
    fn run(&self, statements: &str) -> Result<(), Failed> {
        self.command(
            "POST",
            "/execute/sync",
            Some(json!({ "script": statements, "args": [] })),
        )
        .map(drop)
    }

    /// Clicks the element that `selector` finds, as a pointer would.
    fn click(&self, selector: &str) -> Result<(), Failed> {
        let found = self.command(
            "POST",
            "/element",
            Some(json!({ "using": "css selector", "value": selector })),
        )?;
        let element = found[ELEMENT_KEY]
            .as_str()
            .ok_or_else(|| format!("{selector}: no element in {found}"))?;
        self.command("POST", &format!("/element/{element}/click"), None)
            .map(drop)
    }

    /// The window as a PNG image.
    fn screenshot(&self) -> Result<Vec<u8>, Failed> {
        let encoded = self.command("GET", "/screenshot", None)?;
        let encoded = encoded.as_str().ok_or("no screenshot")?;
        Ok(base64::engine::general_purpose::STANDARD.decode(encoded)?)
    }
}

impl Drop for Page<'_> {
    fn drop(&mut self) {
        self.command("DELETE", "", None).ok();
    }
}

/// Evaluates a JavaScript expression that gives a string.
fn text(page: &Page, expression: &str) -> Result<String, Failed> {
    match page.evaluate(expression)? {
        serde_json::Value::String(text) => Ok(text),
        other => Err(format!("{expression} gave {other}").into()),
    }
}

/// Waits until a JavaScript expression is true.
fn wait_until(page: &Page, expression: &str, limit: Duration) -> Result<(), Failed> {
    let begun = Instant::now();
    loop {
        if page.evaluate(expression)? == serde_json::Value::Bool(true) {
            return Ok(());
        }
        if begun.elapsed() > limit {
            let state = text(page, "JSON.stringify(document.body.dataset) + ' ' + document.getElementById('status').textContent")?;
            return Err(format!("timed out waiting for {expression}; page: {state}").into());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn json(page: &Page, expression: &str) -> Result<serde_json::Value, Failed> {
    Ok(serde_json::from_str(&text(
        page,
        &format!("JSON.stringify({expression})"),
    )?)?)
}

fn browse(browser: &BrowserPaths) -> Result<(), Failed> {
    let server = WebServer::start()?;
    let driver = ChromeDriver::start(&browser.driver)?;
    let page = Page::open(&driver, &browser.chromium)?;
    page.navigate(&server.url)?;
    wait_until(
        &page,
        "document.getElementById('sq-h8') !== null",
        Duration::from_secs(60),
    )?;
    page.run("document.getElementById('engine-time').value = 'd:4'")?;
    let human = "document.body.dataset.turn === 'human'";
    wait_until(&page, human, Duration::from_secs(30))?;

    illegal_clicks_change_nothing(&page)?;
    hints_score_every_legal_move(&page)?;
    play_a_whole_game(&page)?;
    review_a_game(&page)?;
    Ok(())
}

fn illegal_clicks_change_nothing(page: &Page) -> Result<(), Failed> {
    let before = json(page, "document.body.dataset")?;
    for square in ["a1", "d4", "e5", "h8"] {
        page.click(&format!("#sq-{square}"))?;
    }
    std::thread::sleep(Duration::from_millis(500));
    let after = json(page, "document.body.dataset")?;
    if before != after {
        return Err(format!("illegal clicks changed the page: {before} -> {after}").into());
    }
    if after["moves"] != "0" || after["turn"] != "human" {
        return Err(format!("unexpected start: {after}").into());
    }
    Ok(())
}

fn hints_score_every_legal_move(page: &Page) -> Result<(), Failed> {
    page.click("#hints")?;
    let legal = "document.querySelectorAll('.square.legal').length";
    let exact_hints = "document.querySelectorAll('.hint[data-bound=exact]').length";
    wait_until(
        page,
        &format!("{exact_hints} === 4 && {legal} === 4"),
        Duration::from_secs(30),
    )?;
    page.click("#stop")?;
    // One snapshot of the squares, scores and best mark: an update that lands after the stop
    // must not mix two reports.
    let hints = json(
        page,
        "[...document.querySelectorAll('.hint')].map(h => [h.parentElement.dataset.square, Number(h.dataset.score), h.classList.contains('best')])",
    )?;
    let mut squares: Vec<String> = hints
        .as_array()
        .ok_or("no hints")?
        .iter()
        .map(|h| h[0].as_str().unwrap_or("").to_string())
        .collect();
    squares.sort();
    if squares != ["c4", "d3", "e6", "f5"] {
        return Err(format!("hints on {squares:?}").into());
    }
    let scores: Vec<i64> = hints
        .as_array()
        .ok_or("no hints")?
        .iter()
        .filter_map(|h| h[1].as_i64())
        .collect();
    let marked: Vec<i64> = hints
        .as_array()
        .ok_or("no hints")?
        .iter()
        .filter(|h| h[2].as_bool() == Some(true))
        .filter_map(|h| h[1].as_i64())
        .collect();
    let [best] = marked[..] else {
        return Err(format!("hints {hints}: {} marked best", marked.len()).into());
    };
    if scores.len() != 4 || scores.iter().any(|&s| !(-64..=64).contains(&s) || s > best) {
        return Err(format!("hints {scores:?}, the best marked {best}").into());
    }
    Ok(())
}

fn play_a_whole_game(page: &Page) -> Result<(), Failed> {
    let begun = Instant::now();
    let mut clicks = 0;
    loop {
        wait_until(
            page,
            "['human', 'over'].includes(document.body.dataset.turn)",
            Duration::from_secs(60),
        )?;
        if text(page, "document.body.dataset.turn")? == "over" {
            break;
        }
        let moves: usize = text(page, "document.body.dataset.moves")?.parse()?;
        let square = text(
            page,
            "document.querySelector('.square.legal').dataset.square",
        )?;
        page.click(&format!("#sq-{square}"))?;
        clicks += 1;
        wait_until(
            page,
            &format!("Number(document.body.dataset.moves) > {moves}"),
            Duration::from_secs(10),
        )?;
        if begun.elapsed() > Duration::from_secs(300) {
            return Err("the game took over five minutes".into());
        }
    }
    let transcript = text(page, "document.getElementById('moves-played').textContent")?;
    let moves = transcript.trim_start_matches("Moves: ");
    let (played, end) = parse_transcript(moves, &Position::START)?;
    // Every click played one of the human's moves, and nothing else did.
    let engine_colour = text(page, "document.getElementById('engine-color').value")?;
    let mut position = Position::START;
    let mut human_moves = 0;
    for &mv in &played {
        let engine_to_move = match position.side_to_move {
            Color::Black => engine_colour == "black",
            Color::White => engine_colour == "white",
        };
        if !engine_to_move && matches!(mv, Move::Play(_)) {
            human_moves += 1;
        }
        position = position.play(mv)?;
    }
    let board = text(page, "document.body.dataset.board")?;
    if board != format_position(&end) || !end.board.is_game_over() {
        return Err(format!("the page shows {board} after {moves}").into());
    }
    let counts = (
        text(page, "document.getElementById('black-count').textContent")?,
        text(page, "document.getElementById('white-count').textContent")?,
    );
    let expected = (
        end.black().count_ones().to_string(),
        end.white().count_ones().to_string(),
    );
    if counts != expected || clicks != human_moves || clicks == 0 {
        return Err(format!(
            "counts {counts:?} (expected {expected:?}), {clicks} clicks for {human_moves} moves"
        )
        .into());
    }
    Ok(())
}

fn review_a_game(page: &Page) -> Result<(), Failed> {
    let bytes =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/WTH_2020.wtb"))?;
    let file = read_wthor_file(&bytes)?;
    let (moves, end) = file
        .games
        .iter()
        .filter_map(|g| g.replay().ok())
        .find(|(moves, end)| moves.len() == 60 && end.board.empty_count() == 0)
        .ok_or("no 60-move game in the fixture")?;
    let transcript: String = moves
        .iter()
        .map(|&m| format_move(m).to_ascii_lowercase())
        .collect();
    page.click("[data-tab=review]")?;
    page.run(&format!(
        "document.getElementById('review-text').value = '{transcript}'; \
         document.getElementById('review-time').value = '100'"
    ))?;
    page.click("#review-go")?;
    wait_until(
        page,
        "document.body.dataset.review === 'done'",
        Duration::from_secs(180),
    )?;
    let rows = json(
        page,
        "[...document.querySelectorAll('#review-table tbody tr')].map(r => [Number(r.dataset.ply), Number(r.dataset.loss), r.dataset.move])",
    )?;
    let rows = rows.as_array().ok_or("no rows")?;
    if rows.len() != 60 {
        return Err(format!("{} reviewed moves", rows.len()).into());
    }
    for (i, (row, &mv)) in rows.iter().zip(moves.iter()).enumerate() {
        let expected_move = match mv {
            Move::Play(_) => format_move(mv).to_ascii_lowercase(),
            Move::Pass => "pass".to_string(),
        };
        if row[0].as_u64() != Some(i as u64 + 1)
            || !row[1].as_i64().is_some_and(|loss| (0..=64).contains(&loss))
            || row[2].as_str() != Some(&expected_move)
        {
            return Err(format!("row {} is {row}, move {expected_move}", i + 1).into());
        }
    }
    let points = json(
        page,
        "[...document.querySelectorAll('#chart circle.point')].map(c => [Number(c.dataset.ply), Number(c.dataset.score)])",
    )?;
    let points = points.as_array().ok_or("no chart")?;
    let last = points.last().ok_or("an empty chart")?;
    if points.len() != 61
        || last[0] != 60
        || last[1].as_i64() != Some(end.black_final_score().into())
    {
        return Err(format!(
            "{} chart points, the last {last} (the game ended {})",
            points.len(),
            end.black_final_score()
        )
        .into());
    }
    // A row shows the position before its move on the board.
    let ply = 40;
    page.click(&format!("#review-table tr[data-ply='{ply}']"))?;
    wait_until(
        page,
        &format!("document.body.dataset.moves === '{}'", ply - 1),
        Duration::from_secs(10),
    )?;
    let (_, before) = parse_transcript(&transcript[..2 * (ply - 1)], &Position::START)?;
    let board = text(page, "document.body.dataset.board")?;
    if board != format_position(&before) {
        return Err(format!("row {ply} shows {board}").into());
    }
    page.click("[data-tab=review]")?;
    if let Some(path) = std::env::var_os("OXELLO_SCREENSHOT") {
        std::fs::write(path, page.screenshot()?)?;
    }
    Ok(())
}
