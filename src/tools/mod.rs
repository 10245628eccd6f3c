//! The four tools' parameters, one module each. Each params struct is plain
//! serde + `JsonSchema` data (a `///` on every field becomes the schema
//! description). Each converts (`From`) into its core-side request in
//! [`crate::request`]; the engine validates that once (bounds in
//! [`crate::config`]), so nothing below the MCP edge imports these types.

pub mod dispatch;
pub mod evaluate;
pub mod refine;
pub mod retrieve;

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
}
