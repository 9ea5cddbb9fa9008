//! Resuming a match from its games file: the games already recorded there count as played,
//! so a stopped match goes on where it stopped, and a file that joins the records of a
//! match's shards reports the whole match without playing a game.

use super::game::{GameOutcome, Job, FORFEIT_TAG};
use super::player::Failure;
use crate::board::{Color, Move, Position};
use crate::notation::GgfGame;

/// How a recorded game ended, from its result tag (`RE[+12.000]`, `RE[-64.000:t]`) and its
/// forfeit tag.
pub fn recorded_outcome(record: &GgfGame) -> Option<GameOutcome> {
    let result = record.tag("RE")?;
    let (score, tag) = result.split_once(':').unwrap_or((result, ""));
    let black_score = score.trim().parse::<f64>().ok()?.round() as i32;
    let winner = match black_score.signum() {
        1 => Some(Color::Black),
        -1 => Some(Color::White),
        _ => None,
    };
    let failure = match tag {
        "" => None,
        "t" => Some(Failure::Time),
        _ => Some(Failure::of_kind(record.tag(FORFEIT_TAG).unwrap_or("crash"))),
    };
    let Some(failure) = failure else {
        return Some(GameOutcome {
            record: record.clone(),
            winner,
            black_score: Some(black_score),
            failure: None,
        });
    };
    let loser = winner?.other();
    Some(GameOutcome {
        record: record.clone(),
        winner,
        black_score: None,
        failure: Some((loser, failure)),
    })
}

/// Splits the match's jobs into those a record in `records` already played (each record
/// used once: the game from `openings[job.opening]` with the job's engines on the job's
/// colours) and those left to play, both in the jobs' order.
pub fn split_played(
    jobs: Vec<Job>,
    openings: &[Vec<Move>],
    names: [&str; 2],
    records: &[GgfGame],
) -> (Vec<(Job, GameOutcome)>, Vec<Job>) {
    let mut used = vec![false; records.len()];
    let mut played = Vec::new();
    let mut left = Vec::new();
    for job in jobs {
        let (black, white) = if job.first_is_black {
            (names[0], names[1])
        } else {
            (names[1], names[0])
        };
        let opening = &openings[job.opening];
        let found = records.iter().enumerate().find(|(i, record)| {
            !used[*i]
                && record.tag("PB") == Some(black)
                && record.tag("PW") == Some(white)
                && record.start == Position::START
                && record.moves.len() >= opening.len()
                && record.moves.iter().zip(opening).all(|(m, o)| m.mv == *o)
        });
        match found.and_then(|(i, record)| Some((i, recorded_outcome(record)?))) {
            Some((i, outcome)) => {
                used[i] = true;
                played.push((job, outcome));
            }
            None => left.push(job),
        }
    }
    let unused = used.iter().filter(|u| !**u).count();
    if unused > 0 {
        log::warn!("{unused} games of the games file belong to no game of this match");
    }
    (played, left)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(black: &str, white: &str, moves: &str, result: &str) -> GgfGame {
        let text = format!(
            "(;GM[Othello]PC[oxello match]PB[{black}]PW[{white}]TY[8]RE[{result}]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]{moves};)"
        );
        GgfGame::parse(&text).expect("a valid record")
    }

    #[test]
    fn results_and_forfeits_read_back() {
        let won = recorded_outcome(&record("a", "b", "B[F5]", "+12.000")).unwrap();
        assert_eq!(
            (won.winner, won.black_score),
            (Some(Color::Black), Some(12))
        );
        let drawn = recorded_outcome(&record("a", "b", "B[F5]", "0.000")).unwrap();
        assert_eq!(drawn.winner, None);
        let timed = recorded_outcome(&record("a", "b", "B[F5]", "+64.000:t")).unwrap();
        assert_eq!(timed.failure, Some((Color::White, Failure::Time)));
        assert_eq!(timed.black_score, None);
        let mut illegal = record("a", "b", "B[F5]", "-64.000:r");
        illegal.tags.push((FORFEIT_TAG.into(), "illegal".into()));
        let illegal = recorded_outcome(&illegal).unwrap();
        assert!(matches!(
            illegal.failure,
            Some((Color::Black, Failure::Illegal(_)))
        ));
    }

    #[test]
    fn each_record_plays_one_job_of_its_opening_and_colours() {
        let f5 = crate::notation::parse_move("f5").unwrap();
        let d3 = crate::notation::parse_move("d3").unwrap();
        let openings = vec![vec![f5], vec![d3]];
        let jobs: Vec<Job> = (0..2)
            .flat_map(|opening| {
                [true, false].map(|first_is_black| Job {
                    opening,
                    first_is_black,
                })
            })
            .collect();
        let records = [
            record("new", "old", "B[F5]W[F6]", "+2.000"),
            record("new", "old", "B[F5]W[F4]", "+4.000"),
            record("old", "new", "B[D3]W[C3]", "-6.000"),
            record("x", "y", "B[D3]", "+2.000"),
        ];
        let (played, left) = split_played(jobs, &openings, ["new", "old"], &records);
        let played: Vec<(usize, bool, Option<i32>)> = played
            .iter()
            .map(|(job, o)| (job.opening, job.first_is_black, o.black_score))
            .collect();
        assert_eq!(played, [(0, true, Some(2)), (1, false, Some(-6))]);
        let left: Vec<(usize, bool)> = left
            .iter()
            .map(|job| (job.opening, job.first_is_black))
            .collect();
        assert_eq!(left, [(0, false), (1, true)]);
    }
}
