//! The arguments of a GTP command as both the command loop and the clock read them.

use crate::board::Color;

/// The `index`th argument, or a syntax error naming `what` is missing.
pub(super) fn argument<'a>(args: &[&'a str], index: usize, what: &str) -> Result<&'a str, String> {
    args.get(index)
        .copied()
        .ok_or_else(|| format!("syntax error: missing {what}"))
}

/// A colour as GTP writes it: `b`, `black`, `w` or `white`, in any case.
pub(super) fn parse_color(text: &str) -> Result<Color, String> {
    match text.to_ascii_lowercase().as_str() {
        "b" | "black" => Ok(Color::Black),
        "w" | "white" => Ok(Color::White),
        _ => Err(format!("invalid color '{text}'")),
    }
}
