//! Issue 15.7: fault injection. Rounds of a storm of remember / forget / optout / optin /
//! confirm / reject from several clients against the real server, SIGKILLed at a seeded
//! random moment each round, restarted, then checked against what the clients were told:
//! every acknowledged write present, nothing acknowledged as deleted still stored, in history
//! or recallable, every acknowledged opt-out holding, and the index in step with the store.
//!
//! Seeded: `GLOVEBOX_FAULT_SEED` (default 15) and `GLOVEBOX_FAULT_ROUNDS` (default 6) replay
//! or extend a run; a failure names the seed and the round.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::glovebox_on;
use crate::serve::start;

/// xorshift64*: small, seeded, good enough to pick operations and moments.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A client that reports a dead server instead of panicking.
struct Conn {
    rd: BufReader<UnixStream>,
    wr: UnixStream,
    next_id: u64,
}

impl Conn {
    fn open(socket: &Path) -> Option<Conn> {
        let s = UnixStream::connect(socket).ok()?;
        s.set_read_timeout(Some(Duration::from_secs(120))).ok()?;
        let mut c = Conn {
            rd: BufReader::new(s.try_clone().ok()?),
            wr: s,
            next_id: 1,
        };
        c.line(json!({"id": 0, "op": "hello", "version": 1}))?;
        Some(c)
    }

    fn line(&mut self, v: Value) -> Option<Value> {
        self.wr.write_all(format!("{v}\n").as_bytes()).ok()?;
        let mut line = String::new();
        match self.rd.read_line(&mut line) {
            Ok(n) if n > 0 => serde_json::from_str(&line).ok(),
            _ => None,
        }
    }

    /// One request; `None` when the server died before answering.
    fn call(&mut self, mut v: Value) -> Option<Value> {
        v["id"] = json!(self.next_id);
        self.next_id += 1;
        self.line(v)
    }
}

/// The categories the storm writes: multi-value details (a confirm replaces nothing).
const CATEGORIES: [&str; 2] = ["favorite_cuisine", "favorite_genres"];
/// The category opted out and in.
const OPT: &str = "favorite_cuisine";
/// The category remember writes (the fixture conversation's).
const TEMPERATURE: &str = "preferred_temperature";

/// What one user's client was told, kept across rounds.
#[derive(Default, Clone)]
struct Model {
    /// (category key, attribute) acknowledged as stored.
    live: BTreeSet<(String, String)>,
    /// (category key, attribute) acknowledged as deleted.
    gone: BTreeSet<(String, String)>,
    /// Whether `OPT` is opted out, as last acknowledged.
    opted_out: bool,
    /// Categories touched by the request the server died in: either outcome is right there.
    uncertain: BTreeSet<String>,
    opt_uncertain: bool,
    /// The acknowledged requests and their answers, shown when a check fails.
    log: Vec<String>,
}

impl Model {
    fn store(&mut self, cat: &str, attr: &str) {
        let p = (cat.to_string(), attr.to_string());
        self.gone.remove(&p);
        self.live.insert(p);
    }
    fn delete_where(&mut self, f: impl Fn(&(String, String)) -> bool) {
        let (out, keep): (BTreeSet<_>, BTreeSet<_>) = self.live.iter().cloned().partition(f);
        self.live = keep;
        self.gone.extend(out);
    }
}

fn prefs(list: &Value) -> Vec<&Value> {
    list["ok"]["preferences"]
        .as_array()
        .unwrap()
        .iter()
        .collect()
}

/// One step of the storm for `user`; returns false once the server is gone (the model then
/// marks what the unanswered request touched as uncertain).
fn step(c: &mut Conn, user: &str, m: &mut Model, rng: &mut Rng, tag: &str) -> bool {
    let pick = rng.below(100);
    let mut pinned: Option<(String, String)> = None;
    let (request, touched): (Value, Vec<String>) = if pick < 15 {
        let conv: Value = serde_json::from_str(
            &std::fs::read_to_string(
                Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/temperature.json"),
            )
            .unwrap(),
        )
        .unwrap();
        let touched = vec![TEMPERATURE.to_string()];
        (
            json!({"op": "remember", "user": user, "conversation": conv}),
            touched,
        )
    } else if pick < 35 {
        let cat = CATEGORIES[rng.below(2) as usize];
        (
            json!({"op": "forget", "user": user, "category": cat}),
            vec![cat.to_string()],
        )
    } else if pick < 60 {
        // Forget, confirm or reject one stored preference, read from `list`.
        let Some(list) = c.call(json!({"op": "list", "user": user})) else {
            return false;
        };
        let all = prefs(&list);
        if all.is_empty() {
            return true;
        }
        let p = all[rng.below(all.len() as u64) as usize];
        let id = p["id"].clone();
        let (attr, cat) = (
            p["attribute"].as_str().unwrap(),
            p["category_key"].as_str().unwrap(),
        );
        pinned = Some((cat.to_string(), attr.to_string()));
        let op = if p["status"] == "pending" {
            ["confirm", "reject"][rng.below(2) as usize]
        } else {
            "forget"
        };
        (
            json!({"op": op, "user": user, "preference_id": id}),
            vec![cat.to_string()],
        )
    } else if pick < 75 {
        let op = if m.opted_out { "optin" } else { "optout" };
        m.opt_uncertain = true;
        (
            json!({"op": op, "user": user, "category": OPT}),
            vec![OPT.to_string()],
        )
    } else {
        let r = json!({"op": "recall", "user": user, "text": format!("{tag} food")});
        (r, Vec::new())
    };
    let op = request["op"].as_str().unwrap().to_string();
    m.uncertain.extend(touched.iter().cloned());
    let Some(answer) = c.call(request.clone()) else {
        return false;
    };
    m.uncertain.clear();
    m.opt_uncertain = false;
    m.log.push(format!("{request} → {answer}"));
    assert!(
        answer["error"].is_null() || answer["error"]["code"] == "not_found",
        "{request} → {answer}"
    );
    let ok = &answer["ok"];
    match op.as_str() {
        "remember" => {
            for o in ok["remembered"].as_array().unwrap() {
                if let Some(r) = o["replaced"]["attribute"].as_str() {
                    let c = o["replaced"]["category_key"].as_str().unwrap().to_string();
                    let r = (c, r.to_string());
                    m.delete_where(|x| *x == r);
                }
                let p = &o["preference"];
                m.store(
                    p["category_key"].as_str().unwrap(),
                    p["attribute"].as_str().unwrap(),
                );
            }
        }
        "forget" | "reject" if !ok.is_null() => {
            if let Some(cat) = request["category"].as_str() {
                m.delete_where(|(c, _)| c == cat);
            } else if let Some(p) = pinned {
                m.delete_where(|x| *x == p);
            }
        }
        "optout" => {
            m.delete_where(|(c, _)| c == OPT);
            m.opted_out = true;
        }
        "optin" => m.opted_out = false,
        _ => {}
    }
    true
}

/// Seeds `user` through the command line while no server runs: two active and one pending
/// value per category (not into an opted-out one). Returns nothing; the model records them.
fn seed_values(data: &Path, user: &str, m: &mut Model, tag: &str) {
    let mut preferences = Vec::new();
    for cat in CATEGORIES {
        if cat == OPT && (m.opted_out || m.opt_uncertain) {
            continue;
        }
        for (i, status) in ["active", "active", "pending"].iter().enumerate() {
            let attr = format!("{tag}{user}{cat}{i}");
            preferences.push(json!({"category_key": cat, "attribute": attr, "sentences": [format!("I like {attr}.")], "status": status, "confidence": 0.5}));
        }
    }
    let doc = json!({"format": "glovebox-export", "version": 1, "user": user, "preferences": preferences});
    let file = data.with_extension(format!("{user}.json"));
    std::fs::write(&file, doc.to_string()).unwrap();
    let out = glovebox_on(data)
        .args(["prefs", "import", "--user", user, "--file"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for p in preferences {
        m.store(
            p["category_key"].as_str().unwrap(),
            p["attribute"].as_str().unwrap(),
        );
    }
}

/// What the restarted server holds for one user: (category key, attribute) pairs and whether
/// `OPT` is opted out.
type Found = (Vec<(String, String)>, bool);

/// Checks the restarted server against every user's model; returns what it found.
fn check(socket: &Path, models: &BTreeMap<String, Model>, at: &str) -> BTreeMap<String, Found> {
    let mut found = BTreeMap::new();
    let mut c = Conn::open(socket).expect("the restarted server answers");
    let mut stored_total = 0;
    for (user, m) in models {
        let list = c.call(json!({"op": "list", "user": user})).unwrap();
        let stored: Vec<(String, String)> = prefs(&list)
            .iter()
            .map(|p| {
                (
                    p["category_key"].as_str().unwrap().to_string(),
                    p["attribute"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        stored_total += stored.len();
        let ops: Vec<String> = c.call(json!({"op": "history", "user": user})).unwrap()["ok"]
            ["history"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                format!(
                    "{}:{}:{}",
                    h["operation"], h["category"], h["after"]["attribute"]
                )
            })
            .collect();
        for (cat, attr) in &m.live {
            if !m.uncertain.contains(cat) {
                assert!(
                    stored.contains(&(cat.clone(), attr.clone())),
                    "{at}: acknowledged {cat}={attr} of {user} is lost; stored {stored:?}; uncertain {:?}; history {ops:?}; log:\n{}",
                    m.uncertain,
                    m.log.join("\n")
                );
            }
        }
        let history = c
            .call(json!({"op": "history", "user": user}))
            .unwrap()
            .to_string();
        let export = c
            .call(json!({"op": "export", "user": user}))
            .unwrap()
            .to_string();
        for (_, attr) in m.gone.iter().filter(|(c, _)| !m.uncertain.contains(c)) {
            assert!(
                !stored.iter().any(|(_, a)| a == attr),
                "{at}: deleted {attr} of {user} is stored"
            );
            assert!(
                !history.contains(attr.as_str()),
                "{at}: deleted {attr} in history"
            );
            assert!(
                !export.contains(attr.as_str()),
                "{at}: deleted {attr} in export"
            );
            let r = c
                .call(json!({"op": "recall", "user": user, "text": attr, "k": 10}))
                .unwrap();
            assert!(
                !r.to_string().contains(attr.as_str()),
                "{at}: deleted {attr} recalled"
            );
        }
        let opted = list["ok"]["optouts"].to_string().contains(OPT);
        if m.opted_out && !m.opt_uncertain {
            assert!(opted, "{at}: acknowledged opt-out of {user} is lost");
            assert!(
                !stored.iter().any(|(c, _)| c == OPT),
                "{at}: {OPT} of {user} holds values"
            );
        }
        found.insert(user.clone(), (stored, opted));
    }
    let status = c.call(json!({"op": "status"})).unwrap();
    assert_eq!(
        status["ok"]["preferences_indexed"].as_u64().unwrap() as usize,
        stored_total,
        "{at}: the index is out of step with the store"
    );
    found
}

/// Settles what the request in flight at the kill touched, from what the server holds now.
fn settle(m: &mut Model, (stored, opted): &Found) {
    for cat in std::mem::take(&mut m.uncertain) {
        let known: Vec<(String, String)> = m.live.iter().chain(&m.gone).cloned().collect();
        for p in known.into_iter().filter(|(c, _)| *c == cat) {
            if stored.contains(&p) {
                m.store(&p.0, &p.1);
            } else {
                m.delete_where(|x| *x == p);
                m.gone.insert(p);
            }
        }
        for (c, a) in stored.iter().filter(|(c, _)| *c == cat) {
            m.store(c, a);
        }
    }
    if std::mem::take(&mut m.opt_uncertain) {
        m.opted_out = *opted;
    }
}

#[test]
fn storms_killed_at_random_lose_nothing_acknowledged() {
    let seed: u64 = std::env::var("GLOVEBOX_FAULT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(15);
    let rounds: u64 = std::env::var("GLOVEBOX_FAULT_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(6);
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let users = ["ann", "bob", "cem"];
    let mut models: BTreeMap<String, Model> = users
        .iter()
        .map(|u| (u.to_string(), Model::default()))
        .collect();
    let mut rng = Rng::new(seed);
    for round in 0..rounds {
        let at = format!("seed {seed} round {round}");
        let tag = format!("Zq{seed}x{round}y");
        for (u, m) in models.iter_mut() {
            seed_values(&data, u, m, &tag);
        }
        let mut server = start(&tmp, "[extraction]\nconfirm_below = 0.9\n");
        let stop = Arc::new(AtomicBool::new(false));
        let handles: Vec<_> = models
            .iter()
            .map(|(u, m)| {
                let (u, mut m, stop) = (u.clone(), m.clone(), stop.clone());
                let (socket, tag) = (server.socket.clone(), tag.clone());
                let mut r = Rng::new(rng.next());
                std::thread::spawn(move || {
                    if let Some(mut c) = Conn::open(&socket) {
                        while !stop.load(Ordering::Relaxed)
                            && step(&mut c, &u, &mut m, &mut r, &tag)
                        {}
                    }
                    (u, m)
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(200 + rng.below(2_500)));
        server.kill();
        stop.store(true, Ordering::Relaxed);
        for h in handles {
            let (u, m) = h.join().unwrap();
            models.insert(u, m);
        }
        drop(server);
        let server = start(&tmp, "");
        let found = check(&server.socket, &models, &at);
        for (u, m) in models.iter_mut() {
            settle(m, &found[u]);
        }
        eprintln!("{at}: ok");
    }
}
