//! The loop's settings as tool parameters, declared once: `retrieve` and
//! `dispatch` both take a root, the filters and the five bounded settings.
//! [`loop_params!`] writes those nine fields (their types, `serde(default)`
//! and the [`crate::config::Bound`]'s schema range) into a params struct
//! around the tool's own fields; each tool gives only the descriptions, so
//! the generated schema is what the fields written out by hand gave.

/// Declares a params struct: `$head` fields, then the nine shared fields in
/// a fixed order (each preceded by its `///` description), then `$tail`
/// fields. Also writes `into_request(self, task, deadline_ms)`, the shared
/// fields as a [`crate::request::RetrieveRequest`].
macro_rules! loop_params {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $($head:tt)*
        }
        shared {
            $(#[$root:meta])* root,
            $(#[$patterns:meta])* patterns,
            $(#[$keywords:meta])* keywords,
            $(#[$excludes:meta])* excludes,
            $(#[$max_cycles:meta])* max_cycles,
            $(#[$min_high:meta])* min_high,
            $(#[$high_threshold:meta])* high_threshold,
            $(#[$limit:meta])* limit,
            $(#[$budget_tokens:meta])* budget_tokens,
        }
        $($tail:tt)*
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            $($head)*
            $(#[$root])*
            #[serde(default)]
            pub root: Option<String>,
            $(#[$patterns])*
            #[serde(default)]
            #[schemars(length(max = $crate::config::MAX_LIST_ITEMS))]
            pub patterns: Vec<String>,
            $(#[$keywords])*
            #[serde(default)]
            #[schemars(length(max = $crate::config::MAX_LIST_ITEMS))]
            pub keywords: Vec<String>,
            $(#[$excludes])*
            #[serde(default)]
            #[schemars(length(max = $crate::config::MAX_LIST_ITEMS))]
            pub excludes: Vec<String>,
            $(#[$max_cycles])*
            #[serde(default)]
            #[schemars(range(min = $crate::config::MAX_CYCLES.min, max = $crate::config::MAX_CYCLES.max))]
            pub max_cycles: Option<usize>,
            $(#[$min_high])*
            #[serde(default)]
            #[schemars(range(min = $crate::config::MIN_HIGH.min, max = $crate::config::MIN_HIGH.max))]
            pub min_high: Option<usize>,
            $(#[$high_threshold])*
            #[serde(default)]
            #[schemars(range(min = $crate::config::HIGH_THRESHOLD.min, max = $crate::config::HIGH_THRESHOLD.max))]
            pub high_threshold: Option<f64>,
            $(#[$limit])*
            #[serde(default)]
            #[schemars(range(min = $crate::config::LIMIT.min, max = $crate::config::LIMIT.max))]
            pub limit: Option<usize>,
            $(#[$budget_tokens])*
            #[serde(default)]
            #[schemars(range(min = $crate::config::BUDGET_TOKENS.min, max = $crate::config::BUDGET_TOKENS.max))]
            pub budget_tokens: Option<usize>,
            $($tail)*
        }

        impl $name {
            /// The shared fields, with `task` and `deadline_ms`, as the core request.
            fn into_request(
                self,
                task: String,
                deadline_ms: Option<u64>,
            ) -> $crate::request::RetrieveRequest {
                $crate::request::RetrieveRequest {
                    task,
                    root: self.root,
                    patterns: self.patterns,
                    keywords: self.keywords,
                    excludes: self.excludes,
                    max_cycles: self.max_cycles,
                    min_high: self.min_high,
                    high_threshold: self.high_threshold,
                    limit: self.limit,
                    budget_tokens: self.budget_tokens,
                    deadline_ms,
                }
            }
        }
    };
}

pub(crate) use loop_params;
