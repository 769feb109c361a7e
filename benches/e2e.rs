//! End-to-end benches with the real models: extraction of one CarMem conversation (schema prefix
//! cached, answer cache cleared so the model is measured) beside llama.cpp's raw cost for the
//! same request's own tokens; maintenance decisions (a restated value, decided without the LLM,
//! and a new value in a multi-value category, which the LLM decides); and a recall round trip
//! over the real Unix socket of an in-process server. Budgets and results are in
//! benches/README.md.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use glovebox::config::Config;
use glovebox::eval::bench::{bench_user, conversations, populate};
use glovebox::ipc::server;
use glovebox::memory::{Extracted, Models, NewPreference};

fn config() -> Config {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    assert!(
        dir.join("gemma-3-270m-q4_k_m.gguf").is_file(),
        "the models are missing in {}: run `models/fetch` first",
        dir.display()
    );
    let mut c = Config::default();
    c.models.dir = dir;
    c
}

fn extraction(c: &mut Criterion) {
    let cfg = config();
    let models = Models::load(&cfg).expect("models load");
    models.warm_up().expect("prefixes evaluate");
    let llm = models.load_llm().unwrap().clone();
    let users = conversations(models.schema()).unwrap();
    let all = models.schema().all_details();
    // The first conversation that offers a category (all of the built-in ones do).
    let (conv, x) = users
        .iter()
        .flat_map(|u| &u.entries)
        .map(|e| {
            models.clear_answer_cache();
            (
                &e.conversation,
                models.extract(&e.conversation, &all).unwrap(),
            )
        })
        .find(|(_, x)| !x.offered.is_empty())
        .expect("a conversation offers a category");
    let said = glovebox::memory::extract::Statements::of(conv, conv.user_sentences());
    let request = models.extraction_request(&said, &x.offered);
    let mut g = c.benchmark_group("extract");
    g.sample_size(10);
    g.bench_function("one_conversation", |b| {
        b.iter(|| {
            models.clear_answer_cache();
            models.extract(conv, &all).unwrap()
        })
    });
    g.bench_function("raw_llama_same_tokens", |b| {
        b.iter(|| llm.raw_cost(request.clone(), x.decoded_tokens).unwrap())
    });
    g.finish();
}

fn maintenance(c: &mut Criterion) {
    let cfg = config();
    let models = Models::load(&cfg).expect("models load");
    models.warm_up().expect("prefixes evaluate");
    let tmp = tempfile::tempdir().unwrap();
    let memory = populate(tmp.path(), &models, 0).unwrap();
    let users = conversations(models.schema()).unwrap();
    let e = &users[0].entries[0];
    let user = bench_user();
    memory
        .import(
            &user,
            vec![NewPreference {
                detail: e.detail,
                attribute: e.attribute.clone(),
                sentences: vec![e.conversation.user_sentences().join(" ")],
                condition: None,
            }],
        )
        .unwrap();
    // The user restates the stored preference (CarMem's `equal` question).
    let incoming = Extracted {
        detail: e.detail,
        attribute: e.attribute.clone(),
        sentence: e.equal.clone(),
        confidence: 1.0,
        condition: None,
        one_off: false,
    };
    // A new value in a multi-value category: `append` or `update`, the case the LLM decides.
    let genres = models.schema().detail_by_key("favorite_genres").unwrap();
    memory
        .import(
            &user,
            vec![NewPreference {
                detail: genres,
                attribute: "Rock".into(),
                sentences: vec!["Rock is my favourite.".into()],
                condition: None,
            }],
        )
        .unwrap();
    let other_value = Extracted {
        detail: genres,
        attribute: "Jazz".into(),
        sentence: "I've been enjoying jazz a lot lately.".into(),
        confidence: 1.0,
        condition: None,
        one_off: false,
    };
    let mut g = c.benchmark_group("maintain");
    g.sample_size(10);
    g.bench_function("decision", |b| {
        b.iter(|| memory.decide(&user, &incoming).unwrap())
    });
    g.bench_function("llm_decision", |b| {
        b.iter(|| memory.decide(&user, &other_value).unwrap())
    });
    g.finish();
}

fn socket(c: &mut Criterion) {
    let cfg = config();
    let models = Models::load(&cfg).expect("models load");
    let tmp = tempfile::tempdir().unwrap();
    let memory = Arc::new(populate(&tmp.path().join("data"), &models, 100).unwrap());
    let path: PathBuf = tmp.path().join("glovebox.sock");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let listener = {
        let _guard = rt.enter();
        server::bind(&path).unwrap()
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = rt.spawn(server::run(listener, memory, cfg.server.clone(), stopped));
    let stream = UnixStream::connect(&path).unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    let mut line = String::new();
    let mut call = |request: &str| {
        writer.write_all(request.as_bytes()).unwrap();
        writer.write_all(b"\n").unwrap();
        line.clear();
        reader.read_line(&mut line).unwrap();
        assert!(line.contains("\"ok\""), "{line}");
    };
    call(r#"{"id": 0, "op": "hello", "version": 1}"#);
    c.bench_function("socket/recall_round_trip", |b| {
        b.iter(|| call(r#"{"id": 1, "op": "recall", "user": "bench", "text": "It's freezing in here.", "k": 5}"#))
    });
    drop(stop);
    rt.block_on(serving).unwrap().unwrap();
}

criterion_group!(benches, extraction, maintenance, socket);
criterion_main!(benches);
