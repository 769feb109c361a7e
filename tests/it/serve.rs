//! Issue 5: the Unix-socket service, against the real `glovebox serve` process on a temp socket.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tempfile::TempDir;

use crate::common::glovebox_on;

pub struct Server {
    child: Child,
    pub socket: PathBuf,
    dir: PathBuf,
}

impl Server {
    /// SIGKILLs the server and reaps it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn start(tmp: &TempDir, extra_config: &str) -> Server {
    let dir = tmp.path().join("data");
    let socket = tmp.path().join("gb.sock");
    let cfg = tmp.path().join("glovebox.toml");
    // A small line limit unless the test sets its own.
    let limit = if extra_config.contains("max_line_bytes") {
        ""
    } else {
        "max_line_bytes = 4096\n"
    };
    std::fs::write(&cfg, format!("[server]\n{limit}{extra_config}")).unwrap();
    let child = glovebox_on(&dir)
        .arg("--config")
        .arg(&cfg)
        .arg("serve")
        .arg("--socket")
        .arg(&socket)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let mut s = Server { child, socket, dir };
    let t = Instant::now();
    while UnixStream::connect(&s.socket).is_err() {
        if let Some(status) = s.child.try_wait().unwrap() {
            panic!("server exited early: {status}");
        }
        assert!(
            t.elapsed() < Duration::from_secs(120),
            "server did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    s
}

pub struct Client {
    rd: BufReader<UnixStream>,
    wr: UnixStream,
}

impl Client {
    pub fn raw(path: &Path) -> Client {
        let s = UnixStream::connect(path).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
        Client {
            rd: BufReader::new(s.try_clone().unwrap()),
            wr: s,
        }
    }

    pub fn connect(path: &Path) -> Client {
        let mut c = Client::raw(path);
        let r = c.call(json!({"id": 0, "op": "hello", "version": 1}));
        assert_eq!(r["ok"]["version"], 1, "{r}");
        c
    }

    pub fn send_bytes(&mut self, b: &[u8]) {
        self.wr.write_all(b).unwrap();
    }

    pub fn send(&mut self, v: Value) {
        self.send_bytes(format!("{v}\n").as_bytes());
    }

    pub fn recv(&mut self) -> Value {
        let mut line = String::new();
        let n = self.rd.read_line(&mut line).unwrap();
        assert!(n > 0, "connection closed");
        serde_json::from_str(&line).unwrap()
    }

    /// Whether an answer (or part of one) has arrived and not been read yet; does not wait.
    pub fn answer_waiting(&mut self) -> bool {
        self.wr.set_nonblocking(true).unwrap();
        let waiting = match self.rd.fill_buf() {
            Ok(buf) => !buf.is_empty(),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => false,
            Err(e) => panic!("{e}"),
        };
        self.wr.set_nonblocking(false).unwrap();
        waiting
    }

    pub fn call(&mut self, v: Value) -> Value {
        self.send(v);
        self.recv()
    }
}

fn conversation(name: &str) -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

pub fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

#[test]
fn every_request_round_trips_and_pipelined_ids_match() {
    let tmp = tempfile::tempdir().unwrap();
    let s = start(&tmp, "");
    let mut c = Client::connect(&s.socket);
    let r = c.call(json!({"id": 1, "op": "remember", "user": "ann", "conversation": conversation("temperature.json")}));
    assert_eq!(r["id"], 1);
    assert_eq!(
        r["ok"]["remembered"][0]["preference"]["category_key"], "preferred_temperature",
        "{r}"
    );
    let pid = r["ok"]["remembered"][0]["preference"]["id"]
        .as_u64()
        .unwrap();

    // Pipelined: send all, then read all; match by id.
    let reqs = [
        json!({"id": 10, "op": "recall", "user": "ann", "text": "can you make it warmer in here", "k": 2}),
        json!({"id": 11, "op": "list", "user": "ann"}),
        json!({"id": 12, "op": "history", "user": "ann"}),
        json!({"id": 13, "op": "export", "user": "ann"}),
        json!({"id": 14, "op": "status"}),
        json!({"id": 15, "op": "optout", "user": "bob", "category": "Music"}),
        json!({"id": 16, "op": "optin", "user": "bob", "category": "music"}),
    ];
    for r in &reqs {
        c.send(r.clone());
    }
    let mut got = std::collections::HashMap::new();
    for _ in &reqs {
        let r = c.recv();
        got.insert(r["id"].as_u64().unwrap(), r);
    }
    assert_eq!(got[&10]["ok"]["recalled"][0]["id"], pid);
    assert_eq!(got[&11]["ok"]["preferences"].as_array().unwrap().len(), 1);
    assert_eq!(got[&12]["ok"]["history"][0]["operation"], "append");
    assert_eq!(got[&13]["ok"]["format"], "glovebox-export");
    assert_eq!(got[&14]["ok"]["preferences_indexed"], 1);
    assert_eq!(got[&15]["ok"]["optout"]["key"], "music");
    assert_eq!(got[&16]["ok"]["optin"]["level"], "sub");

    let r = c.call(json!({"id": 20, "op": "forget", "user": "ann", "preference_id": pid}));
    assert_eq!(r["ok"]["forgotten"], 1, "{r}");
    let r = c.call(json!({"id": 21, "op": "forget", "user": "ann", "preference_id": pid}));
    assert_eq!(code(&r), "not_found");
    let r = c.call(json!({"id": 22, "op": "forget", "user": "ann", "all": true}));
    assert_eq!(r["ok"]["forgotten"], 0);
}

#[test]
fn bad_input_gets_clear_errors_and_the_server_keeps_serving() {
    let tmp = tempfile::tempdir().unwrap();
    let s = start(&tmp, "");
    let mut c = Client::raw(&s.socket);
    let r = c.call(json!({"id": 1, "op": "status"}));
    assert_eq!(code(&r), "hello_required");
    let r = c.call(json!({"id": 2, "op": "hello", "version": 99}));
    assert_eq!(code(&r), "unsupported_version");
    assert_eq!(r["id"], 2);
    c.call(json!({"id": 3, "op": "hello", "version": 1}));
    c.send_bytes(b"{\"id\": 4, \"op\": \n");
    assert_eq!(code(&c.recv()), "bad_json");
    c.send_bytes(b"\xff\xfe{}\n");
    assert_eq!(code(&c.recv()), "bad_utf8");
    let r = c.call(json!({"id": 5, "op": "teleport"}));
    assert_eq!(code(&r), "unknown_op");
    assert_eq!(r["id"], 5);
    let r = c.call(json!({"id": 6, "op": "optout", "user": "ann", "category": "Horoscopes"}));
    assert_eq!(code(&r), "unknown_category");
    let r = c.call(json!({"id": 7, "op": "remember", "user": "ann", "conversation": [{"role": "driver", "text": "x"}]}));
    assert_eq!(code(&r), "bad_conversation");
    assert!(r["error"]["message"].as_str().unwrap().contains("driver"));
    let long = format!(
        "{{\"id\": 8, \"op\": \"recall\", \"user\": \"ann\", \"text\": \"{}\"}}\n",
        "a".repeat(10_000)
    );
    c.send_bytes(long.as_bytes());
    assert_eq!(code(&c.recv()), "line_too_long");
    // Still serving this connection after all that...
    let r = c.call(json!({"id": 9, "op": "status"}));
    assert!(r["ok"].is_object(), "{r}");
    // ...and a connection that dies mid-line gets an error, not a crash.
    let mut t = Client::connect(&s.socket);
    t.send_bytes(b"{\"id\": 1, \"op\": \"sta");
    t.wr.shutdown(std::net::Shutdown::Write).unwrap();
    assert_eq!(code(&t.recv()), "truncated_line");
    let mut d = Client::connect(&s.socket);
    assert!(d.call(json!({"id": 1, "op": "status"}))["ok"].is_object());
}

#[test]
fn recalls_are_answered_while_remembering_and_under_load() {
    let tmp = tempfile::tempdir().unwrap();
    let s = start(&tmp, "");
    let mut seed = Client::connect(&s.socket);
    let r = seed.call(json!({"id": 1, "op": "remember", "user": "ann", "conversation": conversation("temperature.json")}));
    assert!(r["ok"].is_object(), "{r}");

    // A long remember on one connection...
    let mut slow = Client::connect(&s.socket);
    let long: Vec<Value> = (0..12)
        .flat_map(|i| {
            [
                json!({"role": "user", "text": format!("Let me think about the route number {i}, it should avoid the highways and the toll roads because I really dislike them.")}),
                json!({"role": "assistant", "text": "Understood, I will plan routes without highways and toll roads from now on."}),
            ]
        })
        .collect();
    slow.send(json!({"id": 2, "op": "remember", "user": "ann", "conversation": long}));
    std::thread::sleep(Duration::from_millis(100));
    // ...while a recall on another is answered first.
    let mut fast = Client::connect(&s.socket);
    let r = fast.call(json!({"id": 3, "op": "recall", "user": "ann", "text": "it's cold"}));
    assert!(r["ok"]["recalled"].is_array(), "{r}");
    // The recall has been answered; the remember is still in flight (or just done).
    let slow_reply = slow.recv();
    assert_eq!(slow_reply["id"], 2, "{slow_reply}");

    // 32 concurrent recall clients while another remembers.
    let path = s.socket.clone();
    let mut rem = Client::connect(&s.socket);
    rem.send(json!({"id": 4, "op": "remember", "user": "bob", "conversation": conversation("temperature.json")}));
    let handles: Vec<_> = (0..32)
        .map(|i| {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut c = Client::connect(&path);
                for j in 0..3 {
                    let r = c.call(json!({"id": j, "op": "recall", "user": "ann", "text": format!("warm it up {i}")}));
                    assert!(r["ok"]["recalled"].is_array(), "{r}");
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(rem.recv()["id"], 4);
}

#[test]
fn a_uid_not_allowed_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let s = start(&tmp, "allowed_uids = []\n");
    let mut c = Client::raw(&s.socket);
    let r = c.recv();
    assert_eq!(code(&r), "forbidden");
}

#[test]
fn a_second_server_on_the_same_data_dir_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let s = start(&tmp, "");
    let out = glovebox_on(&s.dir)
        .args(["serve", "--socket"])
        .arg(tmp.path().join("other.sock"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("already using the data directory"));
}

#[test]
fn acknowledged_preferences_survive_sigkill() {
    let tmp = tempfile::tempdir().unwrap();
    let pid = {
        let mut s = start(&tmp, "");
        let mut c = Client::connect(&s.socket);
        let r = c.call(json!({"id": 1, "op": "remember", "user": "ann", "conversation": conversation("temperature.json")}));
        let pid = r["ok"]["remembered"][0]["preference"]["id"]
            .as_u64()
            .unwrap();
        // Kill it in the middle of another remember.
        c.send(json!({"id": 2, "op": "remember", "user": "bob", "conversation": conversation("temperature.json")}));
        std::thread::sleep(Duration::from_millis(300));
        s.child.kill().unwrap();
        s.child.wait().unwrap();
        pid
    };
    // The stale socket file is replaced on restart.
    let s = start(&tmp, "");
    let mut c = Client::connect(&s.socket);
    let r = c.call(
        json!({"id": 1, "op": "recall", "user": "ann", "text": "can you make it warmer in here"}),
    );
    assert_eq!(r["ok"]["recalled"][0]["id"], pid, "{r}");
    let st = c.call(json!({"id": 2, "op": "status"}));
    let ann = c.call(json!({"id": 3, "op": "list", "user": "ann"}));
    let bob = c.call(json!({"id": 4, "op": "list", "user": "bob"}));
    let stored = ann["ok"]["preferences"].as_array().unwrap().len()
        + bob["ok"]["preferences"].as_array().unwrap().len();
    assert_eq!(
        st["ok"]["preferences_indexed"], stored as u64,
        "store and index agree"
    );
}

#[test]
fn sigterm_answers_the_request_in_flight_then_exits_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let mut s = start(&tmp, "");
    let mut c = Client::connect(&s.socket);
    c.send(json!({"id": 1, "op": "remember", "user": "ann", "conversation": conversation("temperature.json")}));
    std::thread::sleep(Duration::from_millis(100));
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(s.child.id() as i32, libc::SIGTERM) };
    let r = c.recv();
    assert_eq!(r["id"], 1);
    assert!(r["ok"]["remembered"].is_array(), "{r}");
    let status = s.child.wait().unwrap();
    assert!(status.success(), "{status}");
    assert!(!s.socket.exists());
}

#[test]
fn pending_preferences_are_confirmed_and_rejected_over_the_socket() {
    let tmp = tempfile::tempdir().unwrap();
    // Every fixture extraction is below 1.0: stored pending.
    let s = start(&tmp, "[extraction]\nconfirm_below = 1.0\n");
    let mut c = Client::connect(&s.socket);
    let r = c.call(json!({"id": 1, "op": "remember", "user": "ann", "conversation": conversation("temperature.json")}));
    let p = &r["ok"]["remembered"][0]["preference"];
    assert_eq!(p["status"], "pending", "{r}");
    let pid = p["id"].as_u64().unwrap();
    let cold =
        json!({"id": 2, "op": "recall", "user": "ann", "text": "can you make it warmer in here"});
    assert_eq!(c.call(cold.clone())["ok"]["recalled"], json!([]));
    let l = c.call(json!({"id": 3, "op": "list", "user": "ann"}));
    assert_eq!(l["ok"]["preferences"][0]["status"], "pending", "{l}");

    let r = c.call(json!({"id": 4, "op": "confirm", "user": "ann", "preference_id": pid + 100}));
    assert_eq!((code(&r), &r["id"]), ("not_found", &json!(4)), "{r}");
    let r = c.call(json!({"id": 5, "op": "confirm", "user": "bob", "preference_id": pid}));
    assert_eq!(code(&r), "not_found", "another user's preference");
    let r = c.call(json!({"id": 6, "op": "confirm", "user": "ann"}));
    assert_eq!(code(&r), "bad_request");
    let r = c.call(json!({"id": 7, "op": "confirm", "user": "ann", "preference_id": pid}));
    assert_eq!(r["ok"]["confirmed"]["status"], "active", "{r}");
    assert_eq!(c.call(cold.clone())["ok"]["recalled"][0]["id"], pid);
    let r = c.call(json!({"id": 8, "op": "confirm", "user": "ann", "preference_id": pid}));
    assert_eq!(code(&r), "not_pending");
    let r = c.call(json!({"id": 9, "op": "reject", "user": "ann", "preference_id": pid}));
    assert_eq!(code(&r), "not_pending");

    // An uncertain update waits beside the confirmed value; rejecting it keeps the old one.
    let r = c.call(json!({"id": 10, "op": "remember", "user": "ann", "conversation": conversation("temperature_cooler.json")}));
    let p = &r["ok"]["remembered"][0]["preference"];
    assert_eq!(
        (&p["status"], &p["replaces_id"]),
        (&json!("pending"), &json!(pid)),
        "{r}"
    );
    let cool = p["id"].as_u64().unwrap();
    let r = c.call(json!({"id": 11, "op": "reject", "user": "ann", "preference_id": cool}));
    assert_eq!(r["ok"]["rejected"], cool, "{r}");
    let r = c.call(json!({"id": 12, "op": "reject", "user": "ann", "preference_id": cool}));
    assert_eq!(code(&r), "not_found");
    let l = c.call(json!({"id": 13, "op": "list", "user": "ann"}));
    let ids: Vec<u64> = l["ok"]["preferences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, vec![pid]);
    let h = c.call(json!({"id": 14, "op": "history", "user": "ann"}));
    let ops: Vec<&str> = h["ok"]["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["operation"].as_str().unwrap())
        .collect();
    assert_eq!(ops, vec!["append", "confirm", "reject"], "{h}");
}
