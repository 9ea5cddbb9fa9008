//! A match's games file: one GGF game a line, plain text, or gzip-compressed when its name
//! ends in `.gz` (`zcat`, `zless` and `gzip -d` open it).
//!
//! Games are appended as they finish, so that a killed match loses nothing it played: in a
//! compressed file each game is a gzip member of its own (gzip reads concatenated members as
//! one stream). Such members compress poorly, so the file is packed into one member when the
//! match ends, and before a match goes on from it; a member cut short by a kill is dropped
//! then with a warning, and the games before it are kept.

use crate::notation::GgfGame;
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Whether the games file at `path` is gzip-compressed (its name ends in `.gz`).
pub fn is_compressed(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "gz")
}

/// The text of a games file: whole lines only (a line cut short by a kill is left out with a
/// warning); an empty text if the file does not exist.
pub fn read_text(path: &Path) -> anyhow::Result<String> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(String::new()),
        Err(e) => anyhow::bail!("cannot read {}: {e}", path.display()),
    };
    let mut text = if is_compressed(path) {
        let mut text = Vec::new();
        if let Err(e) = MultiGzDecoder::new(&bytes[..]).read_to_end(&mut text) {
            log::warn!(
                "{}: the compressed data ends early ({e}); reading the games before that",
                path.display()
            );
        }
        text
    } else {
        bytes
    };
    if text.last().is_some_and(|b| *b != b'\n') {
        let whole = text.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        log::warn!(
            "{}: its last line was cut short; leaving it out",
            path.display()
        );
        text.truncate(whole);
    }
    String::from_utf8(text).map_err(|e| anyhow::anyhow!("{}: not UTF-8 text: {e}", path.display()))
}

/// The games of a games file, in order; lines that are not games of a match are skipped
/// with a warning.
pub fn read_records(path: &Path) -> anyhow::Result<Vec<GgfGame>> {
    let text = read_text(path)?;
    let mut games = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match GgfGame::parse(line) {
            Ok(game) if game.tag("RE").is_some() => games.push(game),
            Ok(_) => log::warn!(
                "{} line {}: a game without a result",
                path.display(),
                number + 1
            ),
            Err(e) => log::warn!("{} line {}: {e}", path.display(), number + 1),
        }
    }
    Ok(games)
}

/// A games file open for appending.
pub struct GamesFile {
    path: PathBuf,
    file: std::fs::File,
    compressed: bool,
}

impl GamesFile {
    /// Opens `path` to append games to, creating it if needed. What a killed run left
    /// unfinished (a cut line, a cut gzip member) is dropped first, so that the next game starts
    /// a line of its own; a compressed file is packed into one member.
    pub fn open(path: &Path) -> anyhow::Result<GamesFile> {
        if let Ok(metadata) = std::fs::metadata(path) {
            let text = read_text(path)?;
            // A plain file shorter as text than on disk ended in a cut line.
            if is_compressed(path) || metadata.len() != text.len() as u64 {
                rewrite(path, &text)?;
            }
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| anyhow::anyhow!("cannot open {}: {e}", path.display()))?;
        Ok(GamesFile {
            path: path.to_path_buf(),
            file,
            compressed: is_compressed(path),
        })
    }

    /// Appends one game and flushes it to the file.
    pub fn append(&mut self, record: &GgfGame) -> anyhow::Result<()> {
        let line = format!("{record}\n");
        let bytes = if self.compressed {
            compress(&line)?
        } else {
            line.into_bytes()
        };
        self.file
            .write_all(&bytes)
            .and_then(|_| self.file.flush())
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", self.path.display()))
    }

    /// Closes the file, packing a compressed one into a single gzip member.
    pub fn finish(self) -> anyhow::Result<()> {
        drop(self.file);
        if self.compressed {
            let text = read_text(&self.path)?;
            rewrite(&self.path, &text)?;
        }
        Ok(())
    }
}

/// `text` gzip-compressed as one member, at the best compression.
fn compress(text: &str) -> anyhow::Result<Vec<u8>> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
    encoder.write_all(text.as_bytes())?;
    Ok(encoder.finish()?)
}

/// Replaces the games file with `text` (compressed if its name says so) through a temporary
/// file beside it, so that a kill leaves either the old file or the new one.
fn rewrite(path: &Path, text: &str) -> anyhow::Result<()> {
    let bytes = if is_compressed(path) {
        compress(text)?
    } else {
        text.as_bytes().to_vec()
    };
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".part");
    let temporary = PathBuf::from(temporary);
    std::fs::write(&temporary, bytes)
        .and_then(|_| std::fs::rename(&temporary, path))
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(black_score: i32) -> GgfGame {
        GgfGame::parse(&format!(
            "(;GM[Othello]PC[oxello match]PB[a]PW[b]TY[8]RE[{black_score:+}.000]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]B[F5];)"
        ))
        .expect("a valid record")
    }

    fn scratch(name: &str) -> PathBuf {
        let path =
            std::env::temp_dir().join(format!("oxello-records-{}-{name}", std::process::id()));
        std::fs::remove_file(&path).ok();
        path
    }

    fn scores(path: &Path) -> Vec<String> {
        read_records(path)
            .unwrap()
            .iter()
            .map(|g| g.tag("RE").unwrap().to_string())
            .collect()
    }

    #[test]
    fn compressed_files_are_gzip_packed_in_one_member_at_the_end() {
        let path = scratch("a.ggf.gz");
        let mut file = GamesFile::open(&path).unwrap();
        for score in [2, -4, 0] {
            file.append(&game(score)).unwrap();
        }
        let members = std::fs::read(&path).unwrap();
        file.finish().unwrap();
        let packed = std::fs::read(&path).unwrap();
        assert!(
            packed.len() < members.len(),
            "{} >= {}",
            packed.len(),
            members.len()
        );
        assert_eq!(&packed[..2], &[0x1f, 0x8b], "gzip's magic");
        assert_eq!(scores(&path), ["+2.000", "-4.000", "+0.000"]);
        let mut plain = String::new();
        flate2::read::GzDecoder::new(&packed[..])
            .read_to_string(&mut plain)
            .unwrap();
        assert_eq!(plain.lines().count(), 3, "one member holds every game");
        std::fs::remove_file(&path).ok();
    }

    #[test]
    fn a_game_cut_short_by_a_kill_is_dropped_and_the_match_goes_on() {
        for name in ["b.ggf", "b.ggf.gz"] {
            let path = scratch(name);
            let mut file = GamesFile::open(&path).unwrap();
            file.append(&game(2)).unwrap();
            let one_game = std::fs::metadata(&path).unwrap().len() as usize;
            file.append(&game(6)).unwrap();
            drop(file);
            let bytes = std::fs::read(&path).unwrap();
            let halfway = (one_game + bytes.len()) / 2;
            std::fs::write(&path, &bytes[..halfway]).unwrap();
            assert_eq!(scores(&path), ["+2.000"], "{name}");
            let mut file = GamesFile::open(&path).unwrap();
            file.append(&game(-8)).unwrap();
            file.finish().unwrap();
            assert_eq!(scores(&path), ["+2.000", "-8.000"], "{name}");
            std::fs::remove_file(&path).ok();
        }
    }

    #[test]
    fn joined_compressed_shards_read_as_one_file() {
        let (first, second, joined) = (
            scratch("c1.ggf.gz"),
            scratch("c2.ggf.gz"),
            scratch("c.ggf.gz"),
        );
        for (path, score) in [(&first, 2), (&second, -2)] {
            let mut file = GamesFile::open(path).unwrap();
            file.append(&game(score)).unwrap();
            file.finish().unwrap();
        }
        let mut bytes = std::fs::read(&first).unwrap();
        bytes.extend(std::fs::read(&second).unwrap());
        std::fs::write(&joined, bytes).unwrap();
        assert_eq!(scores(&joined), ["+2.000", "-2.000"]);
        for path in [first, second, joined] {
            std::fs::remove_file(path).ok();
        }
    }
}
