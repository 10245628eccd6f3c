//! The MCP tools, one file each: a [`Tool`] holds a tool's name, its
//! description, its parameters (plain serde + `JsonSchema` data; a `///` on
//! every field becomes the schema description), their conversion into the
//! core-side request in [`crate::request`], the call into the [`Engine`] and
//! the text rendering of its answer. The server builds its router, its
//! instructions and the tool names in its errors from [`TOOLS`], the one list.
//!
//! Adding a tool: a file `src/tools/<tool>.rs` with a type that implements
//! [`Tool`], its `pub mod` line and its row in [`TOOLS`] here; then the
//! accepted `tools/list` snapshot and a test.

use crate::engine::Engine;
use crate::error::Result;
use crate::request::CallOptions;
use crate::server::CtxServer;
use rmcp::handler::server::router::tool::ToolRoute;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;

pub mod dispatch;
pub mod evaluate;
mod loop_params;
pub mod refine;
pub mod retrieve;

/// One MCP tool. The server runs [`Tool::call`] on a blocking thread with
/// the request's cancellation in `opts`, and answers `structuredContent`
/// (the output's JSON) plus [`Tool::text`]. Every tool is read-only and
/// closed-world (annotations).
pub trait Tool: Sized + 'static {
    /// The tool's name in `tools/list` and `tools/call`.
    const NAME: &'static str;
    /// The tool's description in `tools/list`: what it does and when.
    const DESCRIPTION: &'static str;
    /// Its part of the server's instructions (joined with a space, in the
    /// order of [`TOOLS`]).
    const GUIDE: &'static str;
    /// The arguments; their JSON schema is the tool's input schema.
    type Params: DeserializeOwned + JsonSchema + Send + 'static;
    /// The answer; its JSON schema is the tool's output schema.
    type Output: Serialize + JsonSchema + Send + 'static;

    /// Runs the tool on the engine. Errors: the engine's, as the tool's
    /// error result.
    fn call(engine: &Engine, params: Self::Params, opts: &CallOptions) -> Result<Self::Output>;

    /// The compact text rendering of the answer (the result's text content).
    fn text(out: &Self::Output) -> String;

    /// The route the server adds: by default parse the arguments, run
    /// [`Tool::call`] and answer its JSON and [`Tool::text`]. A tool whose
    /// call needs more of the request (e.g. progress) replaces it.
    fn route() -> ToolRoute<CtxServer> {
        crate::server::route::<Self>()
    }
}

/// One row of [`TOOLS`]: what the server needs of a [`Tool`] without its
/// types.
#[derive(Clone, Copy)]
pub struct Entry {
    /// [`Tool::NAME`].
    pub name: &'static str,
    /// [`Tool::GUIDE`].
    pub guide: &'static str,
    /// [`Tool::route`].
    pub route: fn() -> ToolRoute<CtxServer>,
}

impl Entry {
    /// The row of tool `T`.
    pub const fn of<T: Tool>() -> Entry {
        Entry {
            name: T::NAME,
            guide: T::GUIDE,
            route: T::route,
        }
    }
}

/// Every tool the server offers, in the order its instructions and errors
/// name them: the one list to add a tool to.
pub const TOOLS: &[Entry] = &[
    Entry::of::<retrieve::Retrieve>(),
    Entry::of::<dispatch::Dispatch>(),
    Entry::of::<evaluate::Evaluate>(),
    Entry::of::<refine::Refine>(),
];

#[cfg(test)]
mod tests {
    use crate::config::{Bound, BUDGET_TOKENS, HIGH_THRESHOLD, LIMIT, MAX_CYCLES, MIN_HIGH};
    use serde_json::Value;

    /// A bounded argument's schema: its minimum and maximum are the bound's,
    /// and its description states the range ("1-10") and `default`.
    fn states<T: std::fmt::Debug + Copy>(
        schema: &Value,
        b: &Bound<T>,
        as_f64: fn(T) -> f64,
        default: &str,
    ) {
        let p = &schema["properties"][b.name];
        assert_eq!(p["minimum"].as_f64(), Some(as_f64(b.min)), "{}", b.name);
        assert_eq!(p["maximum"].as_f64(), Some(as_f64(b.max)), "{}", b.name);
        let d = p["description"].as_str().unwrap_or_default();
        let range = format!("{:?}-{:?}", b.min, b.max);
        assert!(d.contains(&range), "{}: {d:?} lacks {range}", b.name);
        assert!(d.contains(default), "{}: {d:?} lacks {default}", b.name);
    }

    #[test]
    fn schema_ranges_and_descriptions_come_from_the_bounds() {
        let schema = |s| serde_json::to_value(s).unwrap();
        let retrieve = schema(schemars::schema_for!(super::retrieve::RetrieveParams));
        let dispatch = schema(schemars::schema_for!(super::dispatch::DispatchParams));
        for s in [&retrieve, &dispatch] {
            for b in [MAX_CYCLES, MIN_HIGH, LIMIT, BUDGET_TOKENS] {
                let default = format!("(default {})", b.default);
                states(s, &b, |v| v as f64, &default);
            }
            let default = format!("(default {:?})", HIGH_THRESHOLD.default);
            states(s, &HIGH_THRESHOLD, |v| v, &default);
        }
        let d = crate::config::DEADLINE_MS;
        states(&retrieve, &d, |v| v as f64, &format!("else {})", d.default));
    }

    #[test]
    fn every_tool_in_the_list_has_a_route_and_a_guide_under_its_name() {
        for t in super::TOOLS {
            assert_eq!((t.route)().name(), t.name);
            let name = format!("`{}`", t.name);
            assert!(t.guide.contains(&name), "{:?} lacks {name}", t.guide);
        }
    }
}
