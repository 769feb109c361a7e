//! Issue 15 (8): `glovebox client` against a real `glovebox serve`, and the server started the
//! way systemd starts it, with its listening socket passed as file descriptor 3.

use std::collections::BTreeMap;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

use crate::common::models_dir;
use crate::serve::{start, Client};

/// Runs `glovebox client --socket <socket> [args]` with `stdin` and returns its output.
fn client(socket: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_glovebox"))
        .arg("client")
        .arg("--socket")
        .arg(socket)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// The answer lines a client printed, by id (`null` ids under `u64::MAX`).
fn answers(out: &Output) -> BTreeMap<u64, Value> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("every line printed is an answer");
            (v["id"].as_u64().unwrap_or(u64::MAX), v)
        })
        .collect()
}

/// A child process killed when the test ends, however it ends.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn client_sends_one_request_or_a_stream_and_prints_every_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let s = start(&tmp, "");

    // One request as the argument: hello is said for it, an id is added.
    let out = client(&s.socket, &[r#"{"op": "status"}"#], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let got = answers(&out);
    assert_eq!(
        got.len(),
        1,
        "only the request's answer, not hello's: {got:?}"
    );
    assert!(got[&1]["ok"]["server_version"].is_string(), "{got:?}");

    // A stream: a slow remember first, then quick requests; every answer is waited for.
    let conversation: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/temperature.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let lines = [
        json!({"id": 1, "op": "remember", "user": "ann", "conversation": conversation}),
        json!({"id": 2, "op": "optout", "user": "ann", "category": "music"}),
        json!({"id": 3, "op": "status"}),
        json!({"id": 4, "op": "list", "user": "ann"}),
    ];
    let stdin: String = lines.iter().map(|l| format!("{l}\n\n")).collect();
    let out = client(&s.socket, &[], &stdin);
    assert!(out.status.success(), "{}", stderr(&out));
    let got = answers(&out);
    assert_eq!(
        got.keys().copied().collect::<Vec<_>>(),
        vec![1, 2, 3, 4],
        "{got:?}"
    );
    assert_eq!(
        got[&1]["ok"]["remembered"][0]["preference"]["category_key"], "preferred_temperature",
        "{got:?}"
    );
    assert_eq!(got[&2]["ok"]["optout"]["key"], "music");

    // Bad lines are the server's to judge: every answer is printed, and the exit status says
    // that some were errors.
    let out = client(
        &s.socket,
        &[],
        "{\"id\": 5, \"op\": \"list\", \"user\": \"ann\"}\n{\"id\": 6, \"op\": \nnot json\n",
    );
    assert!(!out.status.success());
    let got = answers(&out);
    assert!(got[&5]["ok"]["preferences"].is_array(), "{got:?}");
    assert_eq!(got[&u64::MAX]["error"]["code"], "bad_json", "{got:?}");
    let printed = String::from_utf8(out.stdout.clone()).unwrap();
    assert_eq!(printed.lines().count(), 3, "{printed}");
    assert!(
        stderr(&out).contains("2 of 3 answers were errors"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn client_says_clearly_when_no_server_listens() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("missing.sock");
    let out = client(&missing, &[r#"{"op": "status"}"#], "");
    assert!(!out.status.success());
    let e = stderr(&out);
    assert!(
        e.contains("cannot connect to") && e.contains("no such socket"),
        "{e}"
    );
    assert!(e.contains(&missing.display().to_string()), "{e}");

    // A socket file nobody listens on any more (a crashed server's).
    let stale = tmp.path().join("stale.sock");
    drop(std::os::unix::net::UnixListener::bind(&stale).unwrap());
    let out = client(&stale, &[r#"{"op": "status"}"#], "");
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("connection refused"),
        "{}",
        stderr(&out)
    );

    let out = client(&stale, &["{\"op\": "], "");
    assert!(!out.status.success());
    assert!(stderr(&out).contains("is not JSON"), "{}", stderr(&out));
}

#[test]
fn a_socket_passed_by_systemd_is_served_and_left_in_place() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("activated.sock");
    // What systemd does for glovebox.socket: bind and listen before the service starts...
    let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    let inode = std::fs::metadata(&path).unwrap().ino();
    let fd = listener.as_raw_fd();
    // ...then start the service with the socket as fd 3 and LISTEN_PID/LISTEN_FDS naming it.
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(r#"export LISTEN_PID=$$ LISTEN_FDS=1; exec "$0" "$@""#)
        .arg(env!("CARGO_BIN_EXE_glovebox"))
        .arg("--data-dir")
        .arg(tmp.path().join("data"))
        .arg("--models")
        .arg(models_dir())
        .arg("serve")
        .stdin(Stdio::null());
    // SAFETY: between fork and exec only dup2 and fcntl run, both async-signal-safe; they put
    // the listening socket on fd 3 without close-on-exec, as systemd passes it.
    unsafe {
        cmd.pre_exec(move || {
            let r = if fd == 3 {
                libc::fcntl(3, libc::F_SETFD, 0)
            } else {
                libc::dup2(fd, 3)
            };
            if r < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    // Killed if the test fails first, so that no server outlives it.
    let mut child = KillOnDrop(cmd.spawn().unwrap());
    // The server holds the socket now; the test keeps no copy of it.
    drop(listener);

    // Connecting works at once: connections wait in the backlog while the server starts.
    let mut c = Client::connect(&path);
    let r = c.call(json!({"id": 1, "op": "optout", "user": "ann", "category": "music"}));
    assert_eq!(r["ok"]["optout"]["key"], "music", "{r}");
    let r = c.call(json!({"id": 2, "op": "list", "user": "ann"}));
    assert_eq!(r["ok"]["optouts"][0]["key"], "music", "{r}");
    let r = c.call(json!({"id": 3, "op": "recall", "user": "ann", "text": "it is cold in here"}));
    assert!(r["ok"]["recalled"].is_array(), "{r}");
    let out = client(&path, &[r#"{"op": "status"}"#], "");
    assert!(out.status.success(), "{}", stderr(&out));
    drop(c);

    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(child.0.id() as i32, libc::SIGTERM) };
    let status = child.0.wait().unwrap();
    assert!(status.success(), "{status}");
    // The socket file is systemd's: neither removed nor replaced by the server...
    let after = std::fs::metadata(&path).expect("the socket file is left in place");
    assert_eq!(after.ino(), inode, "the socket file was replaced");
    // ...and the server bound nothing of its own in the data directory.
    assert!(!tmp.path().join("data/glovebox.sock").exists());
}
