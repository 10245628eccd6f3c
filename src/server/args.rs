//! Tool arguments: checked against the tool's input schema before serde sees
//! them, so a wrong type names the field, the type it needs and its range
//! (serde alone says `invalid type: string "5", expected usize`).

use rmcp::handler::server::common::schema_for_input;
use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// Longest echo of a wrong value in an error.
const ECHO_CHARS: usize = 60;

/// `args` as the tool's params, or the error text saying which field is wrong and how.
pub fn parse<T: DeserializeOwned + JsonSchema + 'static>(
    mut args: JsonObject,
) -> Result<T, String> {
    let schema = schema_for_input::<T>()?;
    let defs = schema.get("$defs").and_then(Value::as_object);
    check_object("", &mut args, &schema, defs)?;
    serde_json::from_value(Value::Object(args)).map_err(|e| {
        format!(
            "invalid arguments: {}",
            crate::error::clip_to(&e.to_string(), 300)
        )
    })
}

fn resolve<'a>(
    schema: &'a Map<String, Value>,
    defs: Option<&'a Map<String, Value>>,
) -> &'a Map<String, Value> {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
        .and_then(|name| defs?.get(name)?.as_object())
        .unwrap_or(schema)
}

fn check_object(
    prefix: &str,
    obj: &mut Map<String, Value>,
    schema: &Map<String, Value>,
    defs: Option<&Map<String, Value>>,
) -> Result<(), String> {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    for (key, value) in obj.iter_mut() {
        // Unknown fields are left to serde (`deny_unknown_fields` lists the valid ones).
        if let Some(prop) = props.get(key).and_then(Value::as_object) {
            check_value(&format!("{prefix}{key}"), value, resolve(prop, defs), defs)?;
        }
    }
    Ok(())
}

fn check_value(
    field: &str,
    value: &mut Value,
    schema: &Map<String, Value>,
    defs: Option<&Map<String, Value>>,
) -> Result<(), String> {
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => return Ok(()),
    };
    if types.contains(&"integer") {
        whole_float_to_integer(value);
    }
    let fits = |t: &str, value: &Value| match (t, value) {
        ("null", Value::Null) => true,
        ("string", Value::String(_)) => true,
        ("boolean", Value::Bool(_)) => true,
        ("number", Value::Number(_)) => true,
        ("integer", Value::Number(n)) => {
            let unsigned = schema
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| f.starts_with('u'));
            if unsigned {
                n.is_u64()
            } else {
                n.is_i64() || n.is_u64()
            }
        }
        ("array", Value::Array(_)) => true,
        ("object", Value::Object(_)) => true,
        _ => false,
    };
    if !types.iter().any(|t| fits(t, value)) {
        return Err(format!(
            "`{field}` must be {}, not {}",
            expected(&types, schema, defs),
            describe(value)
        ));
    }
    match value {
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items").and_then(Value::as_object) {
                let item_schema = resolve(item_schema, defs);
                for (i, item) in items.iter_mut().enumerate() {
                    check_value(&format!("{field}[{i}]"), item, item_schema, defs)?;
                }
            }
        }
        Value::Object(obj) => check_object(&format!("{field}."), obj, schema, defs)?,
        _ => {}
    }
    Ok(())
}

/// A number with no fraction written as a float (`5.0`, `1e2`) becomes the
/// integer it is: JSON Schema counts it as an integer, and Python clients
/// send whole numbers that way; serde would refuse it for an integer field.
/// Only exact values (below 2^53) are rewritten; a larger one stays a float
/// and is refused with the field's range.
fn whole_float_to_integer(value: &mut Value) {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    let Value::Number(n) = value else { return };
    if !n.is_f64() {
        return;
    }
    let Some(f) = n.as_f64() else { return };
    if f.fract() != 0.0 || f.abs() >= EXACT {
        return;
    }
    *value = if f >= 0.0 {
        Value::from(f as u64)
    } else {
        Value::from(f as i64)
    };
}

/// "an integer from 1 to 100", "a number from 0.05 to 1.0 (or null)", "an array of strings".
fn expected(
    types: &[&str],
    schema: &Map<String, Value>,
    defs: Option<&Map<String, Value>>,
) -> String {
    let main = types
        .iter()
        .find(|t| **t != "null")
        .copied()
        .unwrap_or("null");
    let range = match (schema.get("minimum"), schema.get("maximum")) {
        (Some(lo), Some(hi)) => format!(" from {lo} to {hi}"),
        (Some(lo), None) => format!(" of at least {lo}"),
        (None, Some(hi)) => format!(" of at most {hi}"),
        (None, None)
            if main == "integer"
                && schema
                    .get("format")
                    .and_then(Value::as_str)
                    .is_some_and(|f| f.starts_with('u')) =>
        {
            " of at least 0".to_string()
        }
        _ => String::new(),
    };
    let what = match main {
        "integer" => format!("a whole number{range}"),
        "number" => format!("a number{range}"),
        "string" => "a string".to_string(),
        "boolean" => "true or false".to_string(),
        "object" => "an object".to_string(),
        "array" => {
            let item = schema
                .get("items")
                .and_then(Value::as_object)
                .map(|i| resolve(i, defs));
            match item.and_then(|i| i.get("type")).and_then(Value::as_str) {
                Some("string") => "an array of strings".to_string(),
                Some("object") => "an array of objects".to_string(),
                _ => "an array".to_string(),
            }
        }
        other => other.to_string(),
    };
    if types.contains(&"null") && main != "null" {
        format!("{what} (or null for the default)")
    } else {
        what
    }
}

fn describe(value: &Value) -> String {
    let text = crate::error::clip_to(&value.to_string(), ECHO_CHARS);
    let kind = match value {
        Value::Null => return "null".to_string(),
        Value::Bool(_) => "the boolean",
        Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() != 0.0) => "the fraction",
        Value::Number(n) if n.is_i64() && n.as_i64() < Some(0) => "the negative number",
        Value::Number(_) => "the number",
        Value::String(_) => "the string",
        Value::Array(_) => "the array",
        Value::Object(_) => "the object",
    };
    format!("{kind} {text}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::evaluate::EvaluateParams;
    use crate::tools::retrieve::RetrieveParams;

    fn err<T: DeserializeOwned + JsonSchema + 'static>(v: Value) -> String {
        let Value::Object(m) = v else { unreachable!() };
        parse::<T>(m).err().expect("an error")
    }

    #[test]
    fn a_whole_number_written_as_a_float_is_an_integer() {
        // JSON Schema counts 5.0 as an integer; Python clients send it so.
        for v in [serde_json::json!(5.0), serde_json::json!(1e1)] {
            let Value::Object(m) = serde_json::json!({"task": "x", "limit": v}) else {
                unreachable!()
            };
            let p = parse::<RetrieveParams>(m).unwrap();
            assert!(matches!(p.limit, Some(5) | Some(10)), "{:?}", p.limit);
        }
        let e = err::<RetrieveParams>(serde_json::json!({"task": "x", "limit": 1e30}));
        assert!(e.ends_with("not the number 1e+30"), "{e}");
    }

    #[test]
    fn a_wrong_type_names_the_field_its_type_and_range() {
        let e = err::<RetrieveParams>(serde_json::json!({"task": "x", "limit": "5"}));
        assert_eq!(
            e,
            "`limit` must be a whole number from 1 to 100 (or null for the default), not the string \"5\""
        );
        let e = err::<RetrieveParams>(serde_json::json!({"task": 42}));
        assert_eq!(e, "`task` must be a string, not the number 42");
        let e = err::<RetrieveParams>(serde_json::json!({"task": "x", "max_cycles": -1}));
        assert!(
            e.starts_with("`max_cycles` must be a whole number from 1 to 10"),
            "{e}"
        );
        let e = err::<RetrieveParams>(serde_json::json!({"task": "x", "limit": 2.5}));
        assert!(e.contains("not the fraction 2.5"), "{e}");
        let e = err::<RetrieveParams>(serde_json::json!({"task": "x", "patterns": "src"}));
        assert!(
            e.starts_with("`patterns` must be an array of strings"),
            "{e}"
        );
        let e = err::<EvaluateParams>(
            serde_json::json!({"session_id": "s", "judgments": [{"path": "a", "relevance": "high"}]}),
        );
        assert!(
            e.starts_with("`judgments[0].relevance` must be a number"),
            "{e}"
        );
    }

    #[test]
    fn an_echoed_value_is_cut_short() {
        let e = err::<RetrieveParams>(serde_json::json!({"task": ["a".repeat(1_000_000)]}));
        assert!(e.len() < 300, "{}", e.len());
    }
}
