//! One module per subcommand: each has an `Args` (clap) and a `run`.

pub mod bench_track;
pub mod check;
pub mod log;
pub mod move_piece;
pub mod roll;
pub mod serve;
