//! The `oxello` command: with no subcommand, the engine on stdin/stdout; otherwise a tool, whose
//! options and run function live beside it in `oxello::tools`.

use anyhow::Result;
use clap::Parser;

use oxello::book::{Book, BookFormat};
use oxello::cli::{Cli, Command};
use oxello::engine::EngineOptions;
use oxello::eval::{DeferredEvaluation, Evaluation};
use oxello::protocol::ServerConfig;
use oxello::tools::{arena, bench, book, perft, solve};
use oxello::training::{eval_error, label, network as train_network, selfplay, train, tune_mpc};
use std::path::PathBuf;
use std::sync::Arc;

fn main() -> Result<()> {
    let mut cli = Cli::parse();
    let mut logger =
        env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"));
    if let Some(level) = cli.log_level {
        logger.filter_level(level);
    }
    logger.target(env_logger::Target::Stderr).init();
    let all_cores = oxello::engine::all_cores();
    let Some(command) = cli.command.take() else {
        return serve_engine(&cli, all_cores);
    };
    // Built only for the tools that evaluate: `perft` and `match` (whose engines are programs
    // of their own) neither read nor lay out one.
    let evaluation = || Evaluation::from_name(&cli.eval).map_err(|e| anyhow::anyhow!(e));
    match command {
        Command::Perft(args) => perft::run(&args, cli.threads.unwrap_or(1)),
        Command::Match(args) => arena::command::run(*args),
        Command::Solve(args) => {
            if !solve::run(&args, cli.threads, evaluation()?)? {
                std::process::exit(1);
            }
            Ok(())
        }
        Command::Train(args) => train::run(&args, &evaluation()?),
        Command::TrainNetwork(args) => {
            let threads = cli.threads.unwrap_or(all_cores);
            train_network::run(&args, threads, &cli.eval, &evaluation()?)
        }
        Command::Label(args) => label::run(&args, cli.threads, &evaluation()?),
        Command::Selfplay(args) => selfplay::run(&args, &evaluation()?),
        Command::EvalError(args) => eval_error::run(&args, &evaluation()?),
        Command::Bench(args) => bench::run(&args, cli.threads.unwrap_or(1), evaluation()?),
        Command::TuneMpc(args) => tune_mpc::run(&args, &cli.eval, &evaluation()?),
        Command::Book(args) => book::run(args, cli.threads, &evaluation()?),
        Command::Web(args) => {
            let evaluation = evaluation()?;
            let book = engine_book(&cli)?.book;
            oxello::web::run(&args, cli.threads.unwrap_or(all_cores), evaluation, book)
        }
    }
}

/// The engine on stdin/stdout. The built-in network is laid out on a thread of its own
/// meanwhile, so that the first answers do not wait for it.
fn serve_engine(cli: &Cli, all_cores: usize) -> Result<()> {
    let evaluation = DeferredEvaluation::from_name(&cli.eval).map_err(|e| anyhow::anyhow!(e))?;
    let EngineBook { book, file } = engine_book(cli)?;
    oxello::protocol::serve(
        ServerConfig {
            book,
            book_file: file,
            book_randomness: cli.book_random,
            evaluation,
            engine: EngineOptions {
                threads: cli.threads.unwrap_or(all_cores),
                hash_mib: cli.hash,
            },
            depth: cli.depth,
            move_time: cli.movetime.map(std::time::Duration::from_millis),
            selectivity: cli.selectivity,
            ponder: cli.ponder,
        },
        std::io::stdin(),
        std::io::stdout(),
    )
}

/// The book the engine plays from (`--book`, `--no-book`, else the built-in one), and the file
/// and format it came from (`None` for the built-in book or none).
struct EngineBook {
    book: Option<Arc<Book>>,
    file: Option<(PathBuf, BookFormat)>,
}

fn engine_book(cli: &Cli) -> Result<EngineBook> {
    Ok(match (&cli.book, cli.no_book) {
        (_, true) => EngineBook {
            book: None,
            file: None,
        },
        (Some(path), false) => {
            let (book, format) = Book::read_file_with_format(path)?;
            EngineBook {
                book: Some(Arc::new(book)),
                file: Some((path.clone(), format)),
            }
        }
        (None, false) => EngineBook {
            book: Some(Book::builtin()),
            file: None,
        },
    })
}
