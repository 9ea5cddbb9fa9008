//! `oxello web` in a real browser: headless Chromium, driven over the DevTools protocol, opens
//! the page, checks that an illegal click changes nothing, asks for hints, plays a whole game
//! against the engine by clicking, and reviews a 60-move game, reading the losses and the
//! chart's points from the page.
//!
//! Without Chromium the test is reported as ignored, not passed, with what to install: the
//! newcomer's `cargo test --release` stays green, and CI installs Chromium first so that it
//! always runs there. `OXELLO_CHROMIUM` names the browser to use; `OXELLO_SCREENSHOT` a PNG
//! file to save the reviewed game's page to.

use headless_chrome::protocol::cdp::Page::CaptureScreenshotFormatOption;
use headless_chrome::{Browser, LaunchOptions, Tab};
use libtest_mimic::{Arguments, Failed, Trial};
use oxello::board::{Color, Move, Position};
use oxello::notation::{format_move, format_position, parse_transcript, read_wthor_file};
use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TEST_NAME: &str = "a_person_plays_asks_for_hints_and_reviews_a_game_in_chromium";

fn main() {
    let arguments = Arguments::from_args();
    let chromium = find_chromium();
    let trial = match chromium.clone() {
        Some(path) => Trial::test(TEST_NAME, move || browse(&path)),
        None => {
            eprintln!(
                "\n*** BROWSER TEST NOT RUN: no Chromium found (looked for OXELLO_CHROMIUM, \
                 chromium, chromium-browser, google-chrome on PATH).\n*** Install it to run it \
                 (Debian/Ubuntu: apt-get install chromium chromium-driver), then run cargo test \
                 --release again.\n"
            );
            Trial::test(TEST_NAME, || Err("Chromium is not installed".into()))
                .with_ignored_flag(true)
        }
    };
    libtest_mimic::run(&arguments, vec![trial]).exit();
}

fn find_chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("OXELLO_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).find_map(|dir| {
        [
            "chromium",
            "chromium-browser",
            "google-chrome",
            "google-chrome-stable",
        ]
        .iter()
        .map(|name| dir.join(name))
        .find(|candidate| candidate.is_file())
    })
}

/// `oxello web` on a free port, killed when dropped.
struct WebServer {
    child: Child,
    url: String,
}

impl WebServer {
    fn start() -> Result<WebServer, Failed> {
        let mut child = Command::new(env!("CARGO_BIN_EXE_oxello"))
            .args(["--threads", "1", "web", "--port", "0", "--hash", "32"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let mut line = String::new();
        BufReader::new(child.stdout.take().ok_or("no stdout")?).read_line(&mut line)?;
        let url = line
            .split_whitespace()
            .find(|word| word.starts_with("http://"))
            .ok_or_else(|| format!("no address in {line:?}"))?
            .to_string();
        Ok(WebServer { child, url })
    }
}

impl Drop for WebServer {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

/// Evaluates a JavaScript expression that gives a string.
fn text(tab: &Tab, expression: &str) -> Result<String, Failed> {
    let value = tab.evaluate(expression, false)?.value;
    match value {
        Some(serde_json::Value::String(text)) => Ok(text),
        other => Err(format!("{expression} gave {other:?}").into()),
    }
}

/// Waits until a JavaScript expression is true.
fn wait_until(tab: &Tab, expression: &str, limit: Duration) -> Result<(), Failed> {
    let begun = Instant::now();
    loop {
        if tab.evaluate(expression, false)?.value == Some(serde_json::Value::Bool(true)) {
            return Ok(());
        }
        if begun.elapsed() > limit {
            let state = text(tab, "JSON.stringify(document.body.dataset) + ' ' + document.getElementById('status').textContent")?;
            return Err(format!("timed out waiting for {expression}; page: {state}").into());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn json(tab: &Tab, expression: &str) -> Result<serde_json::Value, Failed> {
    Ok(serde_json::from_str(&text(
        tab,
        &format!("JSON.stringify({expression})"),
    )?)?)
}

fn browse(chromium: &Path) -> Result<(), Failed> {
    let server = WebServer::start()?;
    let browser = Browser::new(
        LaunchOptions::default_builder()
            .path(Some(chromium.to_path_buf()))
            .headless(true)
            .sandbox(false)
            .window_size(Some((1280, 1000)))
            .args(vec![OsStr::new("--disable-dev-shm-usage")])
            .idle_browser_timeout(Duration::from_secs(600))
            .build()?,
    )?;
    let tab = browser.new_tab()?;
    tab.set_default_timeout(Duration::from_secs(60));
    tab.navigate_to(&server.url)?.wait_until_navigated()?;
    tab.wait_for_element("#sq-h8")?;
    tab.evaluate(
        "document.getElementById('engine-time').value = 't:100'",
        false,
    )?;
    let human = "document.body.dataset.turn === 'human'";
    wait_until(&tab, human, Duration::from_secs(30))?;

    illegal_clicks_change_nothing(&tab)?;
    hints_score_every_legal_move(&tab)?;
    play_a_whole_game(&tab)?;
    review_a_game(&tab)?;
    Ok(())
}

fn illegal_clicks_change_nothing(tab: &Tab) -> Result<(), Failed> {
    let before = json(tab, "document.body.dataset")?;
    for square in ["a1", "d4", "e5", "h8"] {
        tab.find_element(&format!("#sq-{square}"))?.click()?;
    }
    std::thread::sleep(Duration::from_millis(500));
    let after = json(tab, "document.body.dataset")?;
    if before != after {
        return Err(format!("illegal clicks changed the page: {before} -> {after}").into());
    }
    if after["moves"] != "0" || after["turn"] != "human" {
        return Err(format!("unexpected start: {after}").into());
    }
    Ok(())
}

fn hints_score_every_legal_move(tab: &Tab) -> Result<(), Failed> {
    tab.find_element("#hints")?.click()?;
    let legal = "document.querySelectorAll('.square.legal').length";
    let exact_hints = "document.querySelectorAll('.hint[data-bound=exact]').length";
    wait_until(
        tab,
        &format!("{exact_hints} === 4 && {legal} === 4"),
        Duration::from_secs(30),
    )?;
    tab.find_element("#stop")?.click()?;
    // One snapshot of the squares, scores and best mark: an update that lands after the stop
    // must not mix two reports.
    let hints = json(
        tab,
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

fn play_a_whole_game(tab: &Tab) -> Result<(), Failed> {
    let begun = Instant::now();
    let mut clicks = 0;
    loop {
        wait_until(
            tab,
            "['human', 'over'].includes(document.body.dataset.turn)",
            Duration::from_secs(60),
        )?;
        if text(tab, "document.body.dataset.turn")? == "over" {
            break;
        }
        let moves: usize = text(tab, "document.body.dataset.moves")?.parse()?;
        let square = text(
            tab,
            "document.querySelector('.square.legal').dataset.square",
        )?;
        tab.find_element(&format!("#sq-{square}"))?.click()?;
        clicks += 1;
        wait_until(
            tab,
            &format!("Number(document.body.dataset.moves) > {moves}"),
            Duration::from_secs(10),
        )?;
        if begun.elapsed() > Duration::from_secs(300) {
            return Err("the game took over five minutes".into());
        }
    }
    let transcript = text(tab, "document.getElementById('moves-played').textContent")?;
    let moves = transcript.trim_start_matches("Moves: ");
    let (played, end) = parse_transcript(moves, &Position::START)?;
    // Every click played one of the human's moves, and nothing else did.
    let engine_colour = text(tab, "document.getElementById('engine-color').value")?;
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
    let board = text(tab, "document.body.dataset.board")?;
    if board != format_position(&end) || !end.board.is_game_over() {
        return Err(format!("the page shows {board} after {moves}").into());
    }
    let counts = (
        text(tab, "document.getElementById('black-count').textContent")?,
        text(tab, "document.getElementById('white-count').textContent")?,
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

fn review_a_game(tab: &Tab) -> Result<(), Failed> {
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
    tab.find_element("[data-tab=review]")?.click()?;
    tab.evaluate(
        &format!(
            "document.getElementById('review-text').value = '{transcript}'; \
             document.getElementById('review-time').value = '100'"
        ),
        false,
    )?;
    tab.find_element("#review-go")?.click()?;
    wait_until(
        tab,
        "document.body.dataset.review === 'done'",
        Duration::from_secs(180),
    )?;
    let rows = json(
        tab,
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
        tab,
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
    tab.find_element(&format!("#review-table tr[data-ply='{ply}']"))?
        .click()?;
    wait_until(
        tab,
        &format!("document.body.dataset.moves === '{}'", ply - 1),
        Duration::from_secs(10),
    )?;
    let (_, before) = parse_transcript(&transcript[..2 * (ply - 1)], &Position::START)?;
    let board = text(tab, "document.body.dataset.board")?;
    if board != format_position(&before) {
        return Err(format!("row {ply} shows {board}").into());
    }
    tab.find_element("[data-tab=review]")?.click()?;
    if let Some(path) = std::env::var_os("OXELLO_SCREENSHOT") {
        let png = tab.capture_screenshot(CaptureScreenshotFormatOption::Png, None, None, true)?;
        std::fs::write(path, png)?;
    }
    Ok(())
}
