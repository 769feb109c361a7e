//! Micro benches: one embedder pass (bare, and through the embedder's thread as recall pays it),
//! recall over 100 / 1,000 / 10,000 stored preferences, an ANN search, a store put and get,
//! reading the gazetteer and asking it a name's kind, and a socket frame round trip. Inputs
//! are seeded; budgets and results are in benches/README.md.
//!
//! Under `cargo test --all-targets` criterion runs each bench once; the 1,000 and 10,000 sizes
//! (whose set-up embeds that many preferences) are measured only under `cargo bench`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use glovebox::config::Config;
use glovebox::embed::Embedder;
use glovebox::eval::bench::{bench_user, populate, synthetic_preferences, Rng, UTTERANCES};
use glovebox::gazetteer::Gazetteer;
use glovebox::index::VectorIndex;
use glovebox::ipc::protocol;
use glovebox::memory::{Memory, Models};
use glovebox::pref::{Millis, Preference, PreferenceId, Status};
use glovebox::store::{Change, Store};

/// Whether criterion measures (`cargo bench`) rather than runs each bench once as a test.
fn measuring() -> bool {
    std::env::args().any(|a| a == "--bench")
}

fn models_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    assert!(
        dir.join("minilm/model.safetensors").is_file(),
        "the models are missing in {}: run `models/fetch` first",
        dir.display()
    );
    dir
}

fn config() -> Config {
    let mut c = Config::default();
    c.models.dir = models_dir();
    c
}

fn embedder(c: &mut Criterion) {
    let cfg = config();
    let bare = Embedder::load(&cfg.embedder_path()).expect("embedder loads");
    let models = Models::load(&cfg).expect("models load");
    let text = UTTERANCES[0];
    let mut g = c.benchmark_group("embed");
    g.bench_function("forward_pass", |b| {
        b.iter(|| bare.embed_one(black_box(text)).unwrap())
    });
    g.bench_function("one_utterance", |b| {
        b.iter(|| models.embed(vec![black_box(text).to_string()]).unwrap())
    });
    g.finish();
}

fn recall(c: &mut Criterion) {
    let cfg = config();
    let models = Models::load(&cfg).expect("models load");
    let sizes: &[usize] = if measuring() {
        &[100, 1_000, 10_000]
    } else {
        &[100]
    };
    let tmp = tempfile::tempdir().unwrap();
    let user = bench_user();
    let mut g = c.benchmark_group("recall");
    g.sample_size(30);
    for &n in sizes {
        let memory: Memory =
            populate(&tmp.path().join(n.to_string()), &models, n).expect("store fills");
        let mut i = 0;
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                i = (i + 1) % UTTERANCES.len();
                memory.recall(&user, UTTERANCES[i], 5).unwrap()
            })
        });
    }
    g.finish();
}

fn index(c: &mut Criterion) {
    const DIM: usize = 384;
    let n = if measuring() { 10_000 } else { 1_000 };
    let mut rng = Rng::new(11);
    let mut vector = || {
        let v: Vec<f32> = (0..DIM)
            .map(|_| (rng.below(2_000) as f32 / 1_000.0) - 1.0)
            .collect();
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.into_iter().map(|x| x / norm).collect::<Vec<f32>>()
    };
    let mut idx = VectorIndex::new(DIM).unwrap();
    for key in 0..n as u64 {
        idx.add(key, &vector()).unwrap();
    }
    let query = vector();
    c.bench_function(&format!("index/search_top5_of_{n}"), |b| {
        b.iter(|| idx.search(black_box(&query), 5, |_| true).unwrap())
    });
}

fn store(c: &mut Criterion) {
    let schema = Arc::new(glovebox::schema::Schema::embedded());
    let tmp = tempfile::tempdir().unwrap();
    let store = Store::open(&tmp.path().join("bench.redb"), schema.clone()).unwrap();
    let new = &synthetic_preferences(&schema, 1, 5)[0];
    let mut next = 0u64;
    let pref = |id: u64| Preference {
        id: PreferenceId(id),
        user: bench_user(),
        detail: new.detail,
        attribute: new.attribute.clone(),
        sentences: new.sentences.clone(),
        status: Status::Active,
        confidence: 1.0,
        created: Millis(1),
        updated: Millis(1),
        last_recalled: None,
        replaces: None,
        condition: None,
        last_written: Millis(1),
    };
    let mut g = c.benchmark_group("store");
    g.bench_function("put_durable", |b| {
        b.iter(|| {
            next += 1;
            store.apply(vec![Change::Put(pref(next))]).unwrap()
        })
    });
    g.bench_function("get", |b| {
        b.iter(|| store.get(black_box(PreferenceId(1))).unwrap())
    });
    g.finish();
}

/// Reading the gazetteer (`extraction.stand_ins` pays it once, at the first name no category
/// lists) and asking it what kind of thing a name is.
fn gazetteer(c: &mut Criterion) {
    let dir = config().gazetteer_path();
    let mut g = c.benchmark_group("gazetteer");
    if measuring() {
        g.sample_size(10);
    }
    g.bench_function("load", |b| {
        b.iter(|| Gazetteer::load(black_box(&dir)).unwrap())
    });
    let gz = Gazetteer::load(&dir).unwrap();
    g.bench_function("kind_of_name", |b| {
        b.iter(|| {
            ["Leeds", "H-E-B", "Paul Kelly", "the M25", "Hard Fork"]
                .map(|n| gz.is_place(black_box(n)) || gz.is_person(black_box(n)))
        })
    });
    g.finish();
}

fn frame(c: &mut Criterion) {
    let line =
        br#"{"id": 7, "op": "recall", "user": "ann", "text": "it is freezing in here", "k": 3}"#;
    let result = serde_json::json!({"preferences": [{"id": 1, "category": "preferred_temperature",
        "attribute": "22 degree Celcius", "score": 0.71}]});
    c.bench_function("frame/round_trip", |b| {
        b.iter(|| {
            let req = protocol::parse(black_box(line)).unwrap();
            protocol::ok(req.id, result.clone())
        })
    });
}

criterion_group!(benches, embedder, recall, index, store, gazetteer, frame);
criterion_main!(benches);
