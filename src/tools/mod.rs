//! The four tools' parameters, one module each. Each params struct is plain
//! serde + `JsonSchema` data (a `///` on every field becomes the schema
//! description); the engine validates it once into a [`crate::engine::LoopConfig`].

pub mod dispatch;
pub mod evaluate;
pub mod refine;
pub mod retrieve;
