//! The opening book. Its file format, loading and move choice are the playing engine's
//! (`minishogi_engine::book`, re-exported here: the USI session plays from a book); `engine book`,
//! which builds books from games and from the engine's own search, is the lab's (`build`).

pub use minishogi_engine::book::*;

pub mod build;
