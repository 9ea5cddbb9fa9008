// oxello's board: the page keeps the game (a start position and the moves from it) and asks the
// server for everything else: the position and its legal moves, the engine's moves, hints and
// reviews. The server runs one search at a time; a newer request stops the one before.
"use strict";

const FILES = "abcdefgh";
const state = {
  start: null, // board string of the start position, null for the standard one
  moves: [], // "f5", "pass", ...
  view: null, // the server's view of the current position
  hints: new Map(), // move -> {score, bound}
  thinking: false,
  generation: 0, // bumped by every change of game: answers for older games are dropped
};

const $ = (id) => document.getElementById(id);

function squareName(index) {
  return FILES[index % 8] + String(1 + Math.floor(index / 8));
}

function setStatus(text, isError) {
  const status = $("status");
  status.textContent = text;
  status.classList.toggle("error", Boolean(isError));
}

async function post(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body || {}),
  });
  const data = await response.json().catch(() => ({ error: "unreadable reply" }));
  if (!response.ok) {
    throw new Error(data.error || `HTTP ${response.status}`);
  }
  return data;
}

async function jobStatus() {
  const response = await fetch("/api/job");
  return response.json();
}

// Polls job `id` until it ends, handing each status to `onUpdate`; null if a newer job took
// its place.
async function follow(id, onUpdate) {
  for (;;) {
    const status = await jobStatus();
    if (status.id !== id) {
      return null;
    }
    if (status.state === "failed") {
      throw new Error(`The engine failed: ${status.error}`);
    }
    onUpdate(status);
    if (status.state !== "running") {
      return status;
    }
    await new Promise((resolve) => setTimeout(resolve, 120));
  }
}

function gameBody() {
  const body = { moves: state.moves };
  if (state.start) {
    body.start = state.start;
  }
  return body;
}

function engineColor() {
  return $("engine-color").value;
}

function humanToMove() {
  const view = state.view;
  return (
    Boolean(view) && !view.over && !view.must_pass && !state.thinking && view.to_move !== engineColor()
  );
}

function scoreText(score) {
  return score > 0 ? `+${score}` : String(score);
}

function buildBoard() {
  const board = $("board");
  board.appendChild(document.createElement("div")).className = "corner";
  for (let file = 0; file < 8; file++) {
    const label = board.appendChild(document.createElement("div"));
    label.className = "label";
    label.textContent = FILES[file].toUpperCase();
  }
  for (let row = 0; row < 8; row++) {
    const label = board.appendChild(document.createElement("div"));
    label.className = "label";
    label.textContent = String(row + 1);
    for (let file = 0; file < 8; file++) {
      const index = row * 8 + file;
      const square = board.appendChild(document.createElement("div"));
      square.className = "square";
      square.id = "sq-" + squareName(index);
      square.dataset.square = squareName(index);
      square.setAttribute("role", "gridcell");
      square.addEventListener("click", () => clickSquare(squareName(index)));
    }
  }
}

function render() {
  const view = state.view;
  if (!view) {
    return;
  }
  const human = humanToMove();
  for (let index = 0; index < 64; index++) {
    const name = squareName(index);
    const square = $("sq-" + name);
    const cell = view.board[index];
    square.className = "square";
    square.textContent = "";
    if (cell === "X" || cell === "O") {
      const disc = square.appendChild(document.createElement("span"));
      disc.className = "disc " + (cell === "X" ? "black" : "white");
      if (view.flipped.includes(name)) {
        disc.classList.add("flipped");
      }
    }
    if (view.last === name) {
      square.classList.add("last");
    }
    if (human && view.legal.includes(name)) {
      square.classList.add("legal");
    }
    const hint = state.hints.get(name);
    if (hint && view.legal.includes(name)) {
      const label = square.appendChild(document.createElement("span"));
      label.className = "hint" + (hint.best ? " best" : "");
      const prefix = hint.bound === "upper" ? "≤" : hint.bound === "lower" ? "≥" : "";
      label.textContent = prefix + scoreText(hint.score);
      label.dataset.score = String(hint.score);
      label.dataset.bound = hint.bound;
    }
  }
  $("black-count").textContent = String(view.black);
  $("white-count").textContent = String(view.white);
  let turn;
  if (view.over) {
    const diff = view.black - view.white;
    turn = diff === 0 ? "Game over: a draw" : `Game over: ${diff > 0 ? "Black" : "White"} wins by ${Math.abs(diff)}`;
  } else {
    turn = `${view.to_move === "black" ? "Black" : "White"} to move`;
    if (state.thinking) {
      turn += " (engine thinking)";
    }
  }
  $("turn").textContent = turn;
  $("moves-played").textContent = state.moves.length ? "Moves: " + state.moves.join(" ") : "";
  document.body.dataset.turn = view.over ? "over" : state.thinking ? "engine" : human ? "human" : "waiting";
  document.body.dataset.moves = String(state.moves.length);
  document.body.dataset.board = view.board;
}

// Asks the server for the current position, shows it, and lets the engine or a forced pass go
// on from it.
async function refresh() {
  const generation = state.generation;
  let view;
  try {
    view = await post("/api/position", gameBody());
  } catch (error) {
    setStatus(error.message, true);
    return;
  }
  if (generation !== state.generation) {
    return;
  }
  state.view = view;
  state.moves = view.moves;
  render();
  if (view.over) {
    return;
  }
  if (view.to_move === engineColor()) {
    engineMove();
  } else if (view.must_pass) {
    setStatus(`${view.to_move === "black" ? "Black" : "White"} has no move and passes.`);
    changeGame(() => state.moves.push("pass"));
  }
}

// Changes the game (a move, an undo, a new position): older answers no longer apply.
function changeGame(change) {
  state.generation++;
  state.hints.clear();
  change();
  refresh();
}

async function engineMove() {
  const generation = state.generation;
  const [kind, value] = $("engine-time").value.split(":");
  const body = gameBody();
  if (kind === "d") {
    body.depth = Number(value);
  } else {
    body.time_ms = Number(value);
  }
  body.book = $("use-book").checked;
  state.thinking = true;
  render();
  let status = null;
  try {
    const { job } = await post("/api/think", body);
    status = await follow(job, (s) => {
      if (s.think && generation === state.generation) {
        showReport(s.think, true);
      }
    });
  } catch (error) {
    if (generation === state.generation) {
      state.thinking = false;
      render();
      setStatus(error.message, true);
    }
    return;
  }
  if (generation !== state.generation) {
    return;
  }
  state.thinking = false;
  if (!status) {
    setStatus("The engine's search gave way to another request: Engine moves now plays on.");
    render();
    return;
  }
  if (status.think) {
    showReport(status.think, false);
    setStatus(`The engine plays ${status.think.move}.`);
    changeGame(() => state.moves.push(status.think.move));
  } else {
    render();
  }
}

function showReport(report, running) {
  const what = report.book ? "book" : report.depth;
  const pv = report.pv.length ? ` · PV ${report.pv.join(" ")}` : "";
  const speed = report.nodes ? ` · ${report.nodes.toLocaleString()} nodes, ${report.seconds.toFixed(2)} s` : "";
  $("engine-report").textContent = `${running ? "Thinking: " : "Engine: "}${report.move} ${scoreText(report.score)} (${what})${pv}${speed}`;
  $("engine-report").dataset.move = report.move;
}

async function clickSquare(name) {
  if (!humanToMove() || !state.view.legal.includes(name)) {
    return;
  }
  setStatus("");
  const generation = state.generation;
  if (state.hints.size) {
    // Ends a hints search before the engine's move can start (a stop sent after it would
    // end the engine's search instead).
    await stopJob();
  }
  if (generation === state.generation) {
    changeGame(() => state.moves.push(name));
  }
}

async function stopJob() {
  try {
    await post("/api/stop");
  } catch (error) {
    setStatus(error.message, true);
  }
}

async function undo() {
  state.generation++;
  state.thinking = false;
  state.hints.clear();
  await stopJob();
  const generation = state.generation;
  for (;;) {
    while (state.moves.length && state.moves[state.moves.length - 1] === "pass") {
      state.moves.pop();
    }
    if (!state.moves.length) {
      break;
    }
    state.moves.pop();
    const view = await post("/api/position", gameBody()).catch(() => null);
    if (!view || generation !== state.generation) {
      break;
    }
    if (engineColor() === "none" || view.to_move !== engineColor() || !state.moves.length) {
      break;
    }
  }
  setStatus("");
  changeGame(() => {});
}

async function hints() {
  if (!state.view || state.view.over || state.thinking) {
    return;
  }
  const generation = state.generation;
  state.hints.clear();
  setStatus("Hints: searching every move (Stop to end).");
  try {
    const { job } = await post("/api/hints", { ...gameBody(), time_ms: 30000 });
    const status = await follow(job, (s) => {
      if (s.hints && generation === state.generation) {
        showHints(s.hints);
      }
    });
    if (status && status.hints && generation === state.generation) {
      showHints(status.hints);
      setStatus(`Hints: ${status.hints.depth}.`);
    }
  } catch (error) {
    setStatus(error.message, true);
  }
}

function showHints(report) {
  state.hints.clear();
  report.hints.forEach((hint, i) => {
    state.hints.set(hint.move, { score: hint.score, bound: hint.bound, best: i === 0 });
  });
  setStatus(`Hints: ${report.depth}, ${report.nodes.toLocaleString()} nodes, ${report.seconds.toFixed(1)} s.`);
  render();
}

async function setUp(text) {
  let view;
  try {
    view = await post("/api/position", { setup: text });
  } catch (error) {
    setStatus(error.message, true);
    return;
  }
  $("engine-color").value = "none";
  showTab("play");
  state.generation++;
  state.hints.clear();
  state.start = view.start;
  state.moves = view.moves;
  state.view = view;
  render();
  setStatus("Position set up.");
  hints();
}

// Review: the game is parsed by the server, then scored position by position from the end.
async function review() {
  const text = $("review-text").value;
  let game;
  try {
    game = await post("/api/position", { setup: text });
  } catch (error) {
    $("review-state").textContent = error.message;
    return;
  }
  const body = { start: game.start, moves: game.moves, time_ms: Number($("review-time").value) };
  $("review-table").querySelector("tbody").textContent = "";
  $("chart").textContent = "";
  $("review-state").textContent = "Reviewing...";
  document.body.dataset.review = "running";
  try {
    const { job } = await post("/api/review", body);
    const status = await follow(job, (s) => s.review && showReview(game, s.review));
    if (status && status.review) {
      showReview(game, status.review);
      const lost = status.review.moves.reduce(
        (sums, m) => {
          sums[m.color] += m.loss;
          return sums;
        },
        { black: 0, white: 0 },
      );
      $("review-state").textContent =
        `${status.state === "done" ? "Done" : "Stopped"}: Black lost ${lost.black} discs, White ${lost.white}.`;
      document.body.dataset.review = status.state;
    }
  } catch (error) {
    $("review-state").textContent = error.message;
    document.body.dataset.review = "error";
  }
}

function showReview(game, report) {
  $("review-progress").max = report.total;
  $("review-progress").value = report.done;
  $("review-state").textContent = `${report.done} of ${report.total} positions scored`;
  const body = $("review-table").querySelector("tbody");
  body.textContent = "";
  for (const move of report.moves) {
    const row = body.appendChild(document.createElement("tr"));
    row.dataset.ply = String(move.ply);
    row.dataset.loss = String(move.loss);
    row.dataset.move = move.move;
    if (move.loss >= 4) {
      row.className = "blunder";
    } else if (move.loss > 0) {
      row.className = "inaccuracy";
    }
    const position = report.positions.find((p) => p.ply === move.ply - 1);
    const cells = [
      `${move.ply}. ${move.color === "black" ? "●" : "○"}`,
      move.move,
      move.best || "",
      scoreText(move.best_score),
      scoreText(move.played_score),
      String(move.loss),
      position ? position.depth : "",
    ];
    for (const text of cells) {
      row.appendChild(document.createElement("td")).textContent = text;
    }
    row.addEventListener("click", () => showReviewedPosition(game, move.ply - 1));
  }
  drawChart(report.positions, game.moves.length);
}

function showReviewedPosition(game, ply) {
  $("engine-color").value = "none";
  showTab("play");
  state.generation++;
  state.hints.clear();
  state.start = game.start;
  state.moves = game.moves.slice(0, ply);
  $("engine-report").textContent = "";
  setStatus(`The reviewed game before move ${ply + 1}: the engine plays neither side.`);
  refresh();
}

const SVG = "http://www.w3.org/2000/svg";

function svg(parent, name, attributes) {
  const element = parent.appendChild(document.createElementNS(SVG, name));
  for (const [key, value] of Object.entries(attributes)) {
    element.setAttribute(key, String(value));
  }
  return element;
}

// Black's score after every move: above the middle line Black is ahead.
function drawChart(points, plies) {
  const chart = $("chart");
  chart.textContent = "";
  const [left, top, width, height] = [36, 10, 590, 190];
  const span = Math.max(16, ...points.map((p) => Math.abs(p.black_score)));
  const x = (ply) => left + (width * ply) / Math.max(1, plies);
  const y = (score) => top + height / 2 - ((height / 2) * score) / span;
  svg(chart, "line", { x1: left, x2: left + width, y1: y(0), y2: y(0), class: "axis" });
  for (const score of [span, -span]) {
    svg(chart, "text", { x: 2, y: y(score) + 4, class: "tick" }).textContent = scoreText(score);
  }
  const sorted = [...points].sort((a, b) => a.ply - b.ply);
  svg(chart, "polyline", {
    points: sorted.map((p) => `${x(p.ply)},${y(p.black_score)}`).join(" "),
    class: "score-line",
  });
  for (const p of sorted) {
    const dot = svg(chart, "circle", { cx: x(p.ply), cy: y(p.black_score), r: 3, class: "point" });
    dot.dataset.ply = String(p.ply);
    dot.dataset.score = String(p.black_score);
    svg(dot, "title", {}).textContent = `after ${p.ply} moves: ${scoreText(p.black_score)} (${p.depth})`;
  }
}

function showTab(name) {
  for (const tab of document.querySelectorAll(".tab")) {
    tab.classList.toggle("active", tab.dataset.tab === name);
  }
  for (const pane of document.querySelectorAll(".pane")) {
    pane.classList.toggle("hidden", pane.id !== "pane-" + name);
  }
}

function start() {
  buildBoard();
  for (const tab of document.querySelectorAll(".tab")) {
    tab.addEventListener("click", () => showTab(tab.dataset.tab));
  }
  $("new-game").addEventListener("click", async () => {
    state.thinking = false;
    state.generation++;
    await stopJob();
    setStatus("");
    $("engine-report").textContent = "";
    changeGame(() => {
      state.start = null;
      state.moves = [];
    });
  });
  $("go").addEventListener("click", () => {
    if (state.view && !state.view.over && !state.thinking) {
      $("engine-color").value = state.view.to_move;
      changeGame(() => {});
    }
  });
  $("undo").addEventListener("click", undo);
  $("hints").addEventListener("click", hints);
  $("stop").addEventListener("click", stopJob);
  $("engine-color").addEventListener("change", () => changeGame(() => {}));
  $("setup-go").addEventListener("click", () => setUp($("setup-text").value));
  $("setup-current").addEventListener("click", () => {
    $("setup-text").value = state.view ? state.view.board : "";
  });
  $("review-go").addEventListener("click", review);
  $("review-stop").addEventListener("click", stopJob);
  $("review-file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (file) {
      $("review-text").value = await file.text();
    }
  });
  refresh();
}

start();
