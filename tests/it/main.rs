//! The integration tests, one test binary (one build and one link) with a module a subject:
//! the rules against published counts and a slow reference, the search and the solver against
//! exact scores, the protocols through the real binary, the tools, the book formats, the web
//! server, and the documents' claims. `common` holds what they share. The browser test is a
//! binary of its own (`tests/browser.rs`): it reports itself ignored where Chromium is missing.

mod common;

mod arena;
mod book;
mod command_lines;
mod cpu_levels;
mod data_files;
mod edax_book;
mod endgame;
mod eval;
mod label;
mod module_graph;
mod network;
mod perft;
mod ponder;
mod protocol_fuzz;
mod protocol_gtp;
mod protocol_nboard;
mod readme_sessions;
mod recipe;
mod rules_properties;
mod search;
mod signatures;
mod table_memory;
mod tools_cli;
mod web_api;
mod web_faults;
mod web_server;
