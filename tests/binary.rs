//! The real binary: MCP over its stdin/stdout (as agent configurations launch
//! it), and the CLI's `retrieve` with its formats, `--out` and errors.

use crate::common::{assert_succeeded, fixture};
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_ctxloop");

#[tokio::test]
async fn serve_speaks_mcp_over_stdio() {
    let mut cmd = tokio::process::Command::new(BIN);
    cmd.arg("serve").arg("--root").arg(fixture());
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    let info = client.peer_info().expect("server info");
    assert_eq!(info.server_info.as_ref().unwrap().name, "ctxloop");
    assert!(info
        .instructions
        .as_deref()
        .unwrap_or("")
        .contains("retrieve"));
    let r = client
        .call_tool(
            CallToolRequestParams::new("retrieve").with_arguments(crate::common::obj(
                serde_json::json!({"task": "fix the token expiry bug"}),
            )),
        )
        .await
        .unwrap();
    assert_ne!(r.is_error, Some(true));
    let out = r.structured_content.unwrap();
    assert_eq!(out["files"][0]["path"], "auth/token.py");
    client.cancel().await.unwrap();
}

#[test]
fn serve_exits_cleanly_when_stdin_closes() {
    let out = Command::new(BIN)
        .arg("serve")
        .arg("--root")
        .arg(fixture())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_succeeded(&out);
    assert!(
        out.stdout.is_empty(),
        "nothing but JSON-RPC may reach stdout"
    );
}

#[test]
fn cli_retrieve_prints_json_text_and_markdown() {
    let run = |fmt: &str| {
        let out = Command::new(BIN)
            .args([
                "retrieve",
                "fix the token expiry bug",
                "--format",
                fmt,
                "--root",
            ])
            .arg(fixture())
            .output()
            .unwrap();
        assert_succeeded(&out);
        String::from_utf8(out.stdout).unwrap()
    };
    let json: serde_json::Value = serde_json::from_str(&run("json")).unwrap();
    assert_eq!(json["files"][0]["path"], "auth/token.py");
    assert!(run("text").contains("#1 auth/token.py [high"));
    assert!(run("markdown").contains("| 1 | `auth/token.py` | high |"));
}

#[test]
fn cli_out_writes_the_format_of_the_extension() {
    // What a parent agent hands a sub-agent that cannot call MCP tools: a file.
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str| {
        let file = dir.path().join(name);
        let out = Command::new(BIN)
            .args(["retrieve", "fix the token expiry bug", "--root"])
            .arg(fixture())
            .arg("--out")
            .arg(&file)
            .output()
            .unwrap();
        assert_succeeded(&out);
        assert!(out.stdout.is_empty(), "--out leaves stdout empty");
        assert!(
            String::from_utf8_lossy(&out.stderr)
                .contains(&format!("wrote 5 files to {}", file.display())),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::read_to_string(&file).unwrap()
    };
    let json: serde_json::Value = serde_json::from_str(&write("context.json")).unwrap();
    assert_eq!(json["files"][0]["path"], "auth/token.py");
    // The extension's case does not matter (`UP.JSON` wrote text before).
    let json: serde_json::Value = serde_json::from_str(&write("UP.JSON")).unwrap();
    assert_eq!(json["files"][0]["path"], "auth/token.py");
    assert!(write("UP.MD").starts_with("# ctxloop context\n"));
    let md = write("context.md");
    assert!(
        md.starts_with("# ctxloop context\n\nTask: fix the token expiry bug\n"),
        "a sub-agent handed the file sees the task: {md}"
    );
    assert!(md.contains("| 1 | `auth/token.py` | high |"), "{md}");
    assert!(
        md.contains("## `auth/token.py`:1-34\n\n```py\n")
            && md.contains("\nclass Token:\n")
            && md.contains("    def is_expired"),
        "snippets are fenced code under path:start-end headings (the small high file whole): {md}"
    );
}

#[test]
fn serve_refuses_a_root_that_is_not_a_directory() {
    let out = Command::new(BIN)
        .args(["serve", "--root", "/definitely/not/here"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not exist"));
    assert!(out.stdout.is_empty());
}

#[test]
fn cli_errors_go_to_stderr_with_a_nonzero_exit() {
    let cases: &[(&[&str], &str)] = &[
        (&["retrieve", "", "--root", "."], "task is empty"),
        (
            &["retrieve", "the a of and", "--root", "."],
            "has no searchable words",
        ),
        // A word longer than any name is dropped, and the message says so.
        (
            &["retrieve", &"x".repeat(300), "--root", "."],
            "words over 128 bytes are dropped",
        ),
        // Keywords without a searchable word leave the task as empty.
        (
            &[
                "retrieve",
                "!!!",
                "--keyword",
                "授权",
                "--keyword",
                "the",
                "--root",
                ".",
            ],
            "\"!!!\" with its 2 keyword(s) has no searchable words",
        ),
        (
            &[
                "retrieve",
                "token expiry",
                "--root",
                ".",
                "--history-git-dir",
                "/definitely/not/here",
                "--history-commit",
                "HEAD",
            ],
            "cannot read the history at \"HEAD\" in \"/definitely/not/here\"",
        ),
        (
            &["retrieve", "x", "--root", "/definitely/not/here"],
            "does not exist",
        ),
        (
            &["retrieve", "x", "--include", "a/[", "--root", "."],
            "invalid glob \"a/[\" in --include",
        ),
        (
            &["retrieve", "x", "--max-cycles", "99", "--root", "."],
            "'--max-cycles <MAX_CYCLES>': 99 is not in 1..=10",
        ),
        // It answered "0 files" with no word of the glob.
        (
            &[
                "retrieve",
                "token expiry",
                "--include",
                "nosuch/**",
                "--root",
                ".",
            ],
            "matches the include glob \"nosuch/**\" (`patterns`, --include): nothing was searched",
        ),
        // It answered "0 files" ("9 excluded").
        (
            &["retrieve", "token expiry", "--exclude", "**", "--root", "."],
            "the exclude glob \"**\" (`excludes`, --exclude) excludes every file under the root",
        ),
    ];
    for (args, expected) in cases {
        let out = Command::new(BIN).args(*args).output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(out.stdout.is_empty());
    }
}

/// A cache directory that is a file, an `--out` whose directory is missing
/// or that names a directory, a relative root that is a file: each error
/// says what is wrong once, names what was given, and how to fix it. The
/// cache's said "File exists (os error 17)" twice; `--out`'s gave no fix;
/// the root's named only the path it was resolved to (probe 32, P14).
#[test]
fn cli_errors_say_the_cause_once_how_to_fix_it_and_the_argument_as_given() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file.txt");
    std::fs::write(&file, "x").unwrap();
    let missing = dir.path().join("no/such/dir/ctx.md");
    let fixture = fixture();
    let run = |args: &[&std::ffi::OsStr], cwd: &std::path::Path| {
        let out = Command::new(BIN)
            .args(["retrieve", "token expiry"])
            .args(args)
            .current_dir(cwd)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let os = |s: &str| std::ffi::OsString::from(s);
    let err = run(
        &[
            &os("--root"),
            fixture.as_os_str(),
            &os("--cache-dir"),
            file.as_os_str(),
        ],
        dir.path(),
    );
    assert_eq!(
        err.trim_end(),
        format!(
            "ctxloop: cannot use the cache directory {:?}: a file is there, not a directory. Name a directory you can create and write with --cache-dir (or CTXLOOP_CACHE_DIR), or set neither to run without a cache",
            file
        )
    );
    // A symbolic link to nothing said only "File exists (os error 17)".
    #[cfg(unix)]
    {
        let link = dir.path().join("cache-link");
        std::os::unix::fs::symlink(dir.path().join("gone"), &link).unwrap();
        let err = run(
            &[
                &os("--root"),
                fixture.as_os_str(),
                &os("--cache-dir"),
                link.as_os_str(),
            ],
            dir.path(),
        );
        assert!(
            err.contains("it is a symbolic link to") && err.contains("which does not exist"),
            "{err}"
        );
    }
    let err = run(
        &[
            &os("--root"),
            fixture.as_os_str(),
            &os("--out"),
            missing.as_os_str(),
        ],
        dir.path(),
    );
    assert_eq!(
        err.trim_end(),
        format!(
            "ctxloop: cannot write {}: No such file or directory (os error 2): create its directory first (mkdir -p {}) or choose another --out path",
            missing.display(),
            missing.parent().unwrap().display()
        )
    );
    let err = run(
        &[
            &os("--root"),
            fixture.as_os_str(),
            &os("--out"),
            dir.path().as_os_str(),
        ],
        dir.path(),
    );
    assert!(
        err.contains(&format!(
            "--out names a directory: give a file in it, e.g. {}",
            dir.path().join("ctx.md").display()
        )),
        "{err}"
    );
    let err = run(&[&os("--root"), &os("auth/token.py")], &fixture);
    assert_eq!(
        err.trim_end(),
        format!(
            "ctxloop: root \"auth/token.py\" (resolved to {:?}) is not a directory: pass the repository's directory, not a file",
            fixture.join("auth/token.py")
        )
    );
}

/// Probe 32, P16: `--include '!GLOB'` excludes, as ripgrep's `-g` does;
/// `--exclude '!GLOB'` is refused with where it belongs (it did nothing).
#[test]
fn cli_a_leading_bang_excludes_in_include_and_is_refused_in_exclude() {
    let run = |flag: &str| {
        Command::new(BIN)
            .args(["retrieve", "token expiry session", "--format", "json"])
            .args([flag, "!auth/**", "--root"])
            .arg(fixture())
            .output()
            .unwrap()
    };
    let out = run("--exclude");
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--exclude \"!auth/**\": a leading `!` means exclude, and only in --include")
            && err.contains("To fix it, pass --exclude \"auth/**\", or --include \"!auth/**\""),
        "{err}"
    );
    let out = run("--include");
    assert_succeeded(&out);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let paths: Vec<&str> = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert!(
        !paths.is_empty() && paths.iter().all(|p| !p.starts_with("auth/")),
        "{paths:?}"
    );
}

/// Raw JSON-RPC lines to `serve` on the fixture; the replies by id. Stdin is
/// closed once every id in `expect` has its reply (or after a minute, so a
/// request that gets no reply fails the test instead of hanging it).
fn raw_replies(
    lines: &[&[u8]],
    expect: &[i64],
) -> std::collections::HashMap<i64, serde_json::Value> {
    let init: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
    let initialized: &[u8] = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let all: Vec<&[u8]> = [init, initialized]
        .into_iter()
        .chain(lines.iter().copied())
        .collect();
    replies_from_start(&all, expect)
}

/// [`raw_replies`] without the `initialize` handshake: `lines` are all the
/// session's client messages.
fn replies_from_start(
    lines: &[&[u8]],
    expect: &[i64],
) -> std::collections::HashMap<i64, serde_json::Value> {
    use std::io::{BufRead, Write};
    let mut child = Command::new(BIN)
        .arg("serve")
        .arg("--root")
        .arg(fixture())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for line in lines {
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
    }
    stdin.flush().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let v: serde_json::Value = serde_json::from_str(&line).expect("stdout is JSON-RPC");
            if tx.send(v).is_err() {
                break;
            }
        }
    });
    let mut got = std::collections::HashMap::new();
    while !expect.iter().all(|id| got.contains_key(id)) {
        match rx.recv_timeout(std::time::Duration::from_secs(60)) {
            Ok(v) => {
                if let Some(id) = v["id"].as_i64() {
                    got.insert(id, v);
                }
            }
            Err(_) => break,
        }
    }
    drop(stdin);
    let _ = child.wait();
    got
}

#[test]
fn serve_answers_a_request_with_a_lone_surrogate_or_invalid_utf8() {
    let got = raw_replies(
        &[
            br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"retrieve","arguments":{"task":"fix \ud83c bug"}}}"#,
            b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"retrieve\",\"arguments\":{\"task\":\"fix \xff bug\"}}}",
            br#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#,
        ],
        &[2, 3, 4],
    );
    let message = |id: i64| {
        let r = got
            .get(&id)
            .unwrap_or_else(|| panic!("no reply to request {id}: {got:?}"));
        assert_eq!(r["error"]["code"], -32700, "{r}");
        r["error"]["message"].as_str().unwrap().to_string()
    };
    assert!(message(2).contains("lone UTF-16 surrogate escape \\ud83c"));
    assert!(message(3).contains("not valid UTF-8 (byte 0xff"));
    assert!(
        got[&4]["result"].is_object(),
        "the server goes on answering"
    );
}

/// Python's `json.dumps` writes a float infinity as `Infinity`: the request
/// is not JSON, but its id is plain, and the client waited forever.
#[test]
fn serve_answers_a_request_holding_infinity_with_its_id() {
    let got = raw_replies(
        &[
            br#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"retrieve","arguments":{"task":"session","high_threshold":Infinity}}}"#,
            br#"{"jsonrpc":"2.0","id":13,"method":"ping"}"#,
        ],
        &[12, 13],
    );
    let r = got
        .get(&12)
        .unwrap_or_else(|| panic!("no reply to request 12: {got:?}"));
    assert_eq!(r["error"]["code"], -32700, "{r}");
    let m = r["error"]["message"].as_str().unwrap();
    assert!(m.contains("holds Infinity"), "{m}");
    assert!(m.contains("not a JSON number"), "{m}");
    assert!(
        got[&13]["result"].is_object(),
        "the server goes on answering"
    );
}

#[test]
fn serve_answers_tools_call_without_a_name_with_invalid_params() {
    let got = raw_replies(
        &[br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":{"task":"x"}}}"#],
        &[2],
    );
    let r = &got[&2];
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let message = r["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("missing tool name"), "{message}");
    // The names come from the server's one list of tools.
    assert!(
        message.ends_with("one of retrieve, dispatch, evaluate, refine"),
        "{message}"
    );
}

#[test]
fn serve_names_an_unknown_tool_and_the_tools_there_are() {
    let got = raw_replies(
        &[br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"retreive","arguments":{"task":"x"}}}"#],
        &[2],
    );
    let r = &got[&2];
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert_eq!(
        r["error"]["message"],
        "unknown tool `retreive`: the tools are retrieve, dispatch, evaluate, refine",
        "{r}"
    );
}

#[test]
fn serve_tells_a_client_that_skipped_initialize_or_asked_for_resources_what_to_do() {
    // A request before `initialize`, without the 2026-07-28 `_meta`; an
    // `initialize` without its params.
    let got = replies_from_start(
        &[
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            br#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{}}"#,
        ],
        &[1, 2],
    );
    let m = got[&1]["error"]["message"].as_str().unwrap();
    assert!(
        m.contains("Send `initialize` and wait for its reply"),
        "{m}"
    );
    let m = got[&2]["error"]["message"].as_str().unwrap();
    assert!(
        m.contains("`initialize` needs params with protocolVersion, capabilities, clientInfo"),
        "{m}"
    );
    // A method the server lacks, after `initialize`.
    let got = raw_replies(
        &[br#"{"jsonrpc":"2.0","id":2,"method":"resources/list"}"#],
        &[2],
    );
    let r = &got[&2];
    assert_eq!(r["error"]["code"], -32601, "{r}");
    let m = r["error"]["message"].as_str().unwrap();
    assert!(
        m.contains("\"resources/list\"") && m.contains("`tools/list`"),
        "{m}"
    );
}

#[test]
fn serve_answers_every_bad_request_of_a_burst() {
    // Good and undecodable requests in one write: each gets one reply. The
    // transport's own replies were written inside rmcp's receive future,
    // which rmcp drops when a reply of its own is ready: 98 of 200 were lost.
    let lines: Vec<Vec<u8>> = (2..202)
        .map(|id| {
            let params = if id % 2 == 0 {
                r#","params":[1,2]"#
            } else {
                ""
            };
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"{params}}}"#).into_bytes()
        })
        .collect();
    let lines: Vec<&[u8]> = lines.iter().map(Vec::as_slice).collect();
    let ids: Vec<i64> = (2..202).collect();
    let got = raw_replies(&lines, &ids);
    let missing: Vec<&i64> = ids.iter().filter(|id| !got.contains_key(id)).collect();
    assert!(missing.is_empty(), "no reply to {missing:?}");
    assert_eq!(got[&2]["error"]["code"], -32600, "{}", got[&2]);
    assert!(got[&3]["result"].is_object(), "{}", got[&3]);
}

#[test]
fn serve_answers_a_request_over_the_length_limit_nested_too_deep_or_sharing_its_line() {
    // Each got no reply at all: the client waited out its timeout.
    let long = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"retrieve","arguments":{{"task":"{}"}}}}}}"#,
        "a".repeat(17 << 20)
    );
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"retrieve","arguments":{{"task":"x","a":{}{}}}}}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    let got = raw_replies(
        &[
            long.as_bytes(),
            deep.as_bytes(),
            br#"{"jsonrpc":"2.0","id":4,"method":"ping"}{"jsonrpc":"2.0","id":5,"method":"ping"}"#,
            br#"{"id":6,"method":"ping"}"#,
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"retrieve"}"#,
            br#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#,
        ],
        &[2, 3, 4, 5, 6, 7, 8],
    );
    let message = |id: i64, code: i64| {
        let r = got
            .get(&id)
            .unwrap_or_else(|| panic!("no reply to request {id}: {:?}", got.keys()));
        assert_eq!(r["error"]["code"], code, "{r}");
        r["error"]["message"].as_str().unwrap().to_string()
    };
    let m = message(2, -32600);
    assert!(
        m.contains("over the limit of 16 MiB") && m.contains("shorten it"),
        "{m}"
    );
    let m = message(3, -32700);
    assert!(
        m.contains("203 levels deep, deeper than the 127 levels"),
        "{m}"
    );
    for id in [4, 5] {
        assert!(message(id, -32600).contains("each message must end with a newline"));
    }
    assert!(message(6, -32600).contains("`jsonrpc` is missing"));
    assert!(message(7, -32600).contains("`params` must be an object"));
    assert!(
        got[&8]["result"].is_object(),
        "the server goes on answering"
    );
}

#[test]
fn serve_outlives_a_notification_or_response_before_initialize() {
    // rmcp ended the session (exit 2, no reply) on a first message that is
    // not a request.
    let got = replies_from_start(
        &[
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            br#"{"jsonrpc":"2.0","id":7,"result":{}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            br#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        ],
        &[1, 2],
    );
    assert_eq!(
        got[&1]["result"]["serverInfo"]["name"], "ctxloop",
        "{got:?}"
    );
    assert!(got[&2]["result"]["tools"].is_array(), "{got:?}");
}

#[test]
fn cli_takes_a_task_that_starts_with_a_dash_before_or_after_the_options() {
    for args in [
        vec![
            "retrieve",
            "--token-expiry is wrong",
            "--root",
            "ROOT",
            "--format",
            "json",
        ],
        vec![
            "retrieve",
            "--root",
            "ROOT",
            "--format",
            "json",
            "--",
            "--token-expiry is wrong",
        ],
    ] {
        let root = fixture();
        let out = Command::new(BIN)
            .args(args.iter().map(|a| {
                if *a == "ROOT" {
                    root.to_str().unwrap()
                } else {
                    a
                }
            }))
            .output()
            .unwrap();
        assert_succeeded(&out);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        // The task was read: the flag `--token-expiry` names `token_expiry`
        // (defined in auth/session.py), and the words name auth/token.py.
        let top: Vec<&str> = v["files"].as_array().unwrap()[..2]
            .iter()
            .map(|f| f["path"].as_str().unwrap())
            .collect();
        assert!(
            top.contains(&"auth/token.py") && top.contains(&"auth/session.py"),
            "{args:?}: {top:?}"
        );
    }
}

#[test]
fn a_reader_that_closes_the_pipe_early_gets_a_quiet_exit() {
    // `ctxloop retrieve ... | head -c 0`: the reader took what it wanted.
    let mut child = Command::new(BIN)
        .args([
            "retrieve",
            "fix the token expiry bug",
            "--format",
            "json",
            "--root",
        ])
        .arg(fixture())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
    assert!(!stderr.contains("Broken pipe"), "{stderr}");
}

#[cfg(unix)]
#[test]
fn a_root_whose_name_is_not_utf8_is_refused_as_such() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join(std::ffi::OsStr::from_bytes(b"nu\xff"));
    std::fs::create_dir(&root).unwrap();
    let out = Command::new(BIN)
        .args(["retrieve", "token expiry", "--root"])
        .arg(&root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    // It exists: "does not exist" sent the user looking for a typo.
    assert!(stderr.contains("is not valid UTF-8"), "{stderr}");
}
