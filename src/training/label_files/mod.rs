//! Labels files: positions labelled with search or exact scores, as `oxello label` writes them
//! ([`mod@format`]) and packed with their games to travel with the repository ([`packed`]).

pub mod format;
pub mod packed;
