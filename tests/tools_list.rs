//! Golden test of the full `tools/list` output (names, descriptions, input and
//! output schemas, annotations): interface drift shows up in review as a
//! snapshot diff. Update with `cargo insta review` (or `INSTA_UPDATE=always`).

use crate::common;

#[tokio::test]
async fn tools_list_matches_the_golden_snapshot() {
    let c = common::client(None).await;
    let mut tools = c.list_all_tools().await.unwrap();
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    insta::assert_json_snapshot!("tools_list", tools);
    c.cancel().await.unwrap();
}
