//! The embedder's tests on the real all-MiniLM-L6-v2 (`models/minilm`, see `models/fetch`),
//! among them the quality gate: every vector within cosine 0.999 of sentence-transformers' on the
//! first 500 user sentences of the CarMem dev split (tests/fixtures/minilm_reference.*).

use super::*;

fn model() -> Embedder {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/minilm");
    Embedder::load(&dir).unwrap_or_else(|e| panic!("{e} (run `models/fetch`)"))
}

#[test]
fn embeddings_are_unit_and_meaningful() {
    let e = model();
    let v = e
        .embed(&[
            "The cabin is too cold, turn up the heat",
            "Preferred Temperature: 22 degree Celcius",
            "Favorite Genres: Jazz",
        ])
        .unwrap();
    for x in &v {
        assert_eq!(x.len(), EMBED_DIM);
        let n: f32 = x.iter().map(|a| a * a).sum();
        assert!((n - 1.0).abs() < 1e-4);
    }
    assert!(cosine(&v[0], &v[1]) > cosine(&v[0], &v[2]));
}

#[test]
fn batch_and_single_agree() {
    let e = model();
    let texts = [
        "short",
        "a considerably longer sentence about seat heating in winter",
    ];
    let batch = e.embed(&texts).unwrap();
    for (t, b) in texts.iter().zip(&batch) {
        let one = e.embed_one(t).unwrap();
        assert!(cosine(&one, b) > 0.9999, "{t}");
    }
}

#[test]
fn matches_the_sentence_transformers_reference() {
    // First values of sentence-transformers' all-MiniLM-L6-v2 embedding of this sentence.
    let e = model();
    let v = e.embed_one("This is an example sentence").unwrap();
    let reference = [0.0676569, 0.0634959, 0.0487131, 0.0793049, 0.0374480];
    for (a, b) in v.iter().zip(reference) {
        assert!((a - b).abs() < 1e-3, "{:?} vs {reference:?}", &v[..5]);
    }
}

#[test]
fn a_missing_model_names_the_file_and_the_fix() {
    let e = Embedder::load(Path::new("/nonexistent/minilm"))
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("/nonexistent/minilm/model.safetensors") && e.contains("models/fetch"),
        "{e}"
    );
}

/// The quality gate's reference: sentences and sentence-transformers' vectors.
fn reference() -> (Vec<String>, Vec<Vec<f32>>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("minilm_reference.json")).unwrap())
            .unwrap();
    let sentences: Vec<String> = serde_json::from_value(index["sentences"].clone()).unwrap();
    let dim = index["dim"].as_u64().unwrap() as usize;
    assert_eq!(dim, EMBED_DIM);
    let bytes = std::fs::read(dir.join(index["vectors"].as_str().unwrap())).unwrap();
    assert_eq!(
        bytes.len(),
        sentences.len() * dim * 2,
        "one f16 vector per sentence"
    );
    let values: Vec<f32> = bytes
        .chunks_exact(2)
        .map(|b| half::f16::from_bits(u16::from_le_bytes([b[0], b[1]])).to_f32())
        .collect();
    (
        sentences,
        values.chunks_exact(dim).map(<[f32]>::to_vec).collect(),
    )
}

/// The lowest cosine to the reference, and its sentence, over all 500 sentences embedded
/// [`BATCH`] at a time, and over the first 50 embedded one by one (as recall does).
fn worst_cosine(e: &Embedder) -> (f32, String) {
    let (sentences, want) = reference();
    let texts: Vec<&str> = sentences.iter().map(String::as_str).collect();
    let mut got = e.embed(&texts).unwrap();
    got.extend(texts[..50].iter().map(|t| e.embed_one(t).unwrap()));
    let want = want.iter().chain(&want[..50]);
    let texts = texts.iter().chain(&texts[..50]);
    got.iter()
        .zip(want)
        .zip(texts)
        .map(|((g, w), t)| (cosine(g, w) / cosine(w, w).sqrt(), t.to_string()))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .unwrap()
}

/// The quality gate: every reference sentence's vector within cosine 0.999 of the reference.
fn assert_quality_gate(e: &Embedder) {
    let (worst, sentence) = worst_cosine(e);
    eprintln!("lowest cosine to the reference: {worst} ({sentence:?})");
    assert!(
        worst >= 0.999,
        "cosine {worst} to the reference for {sentence:?}"
    );
}

#[test]
fn quality_gate_holds_in_the_default_precision() {
    assert_quality_gate(&model());
}

#[test]
fn quality_gate_holds_in_f32_on_one_thread() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/minilm");
    assert_quality_gate(&Embedder::load_with(&dir, 1, Precision::F32).unwrap());
}

#[test]
fn f16_weights_and_threads_change_the_vectors_by_almost_nothing() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/minilm");
    let a = Embedder::load_with(&dir, 1, Precision::F32).unwrap();
    let b = Embedder::load_with(&dir, 3, Precision::F16).unwrap();
    assert_eq!((a.threads(), b.threads()), (1, 3));
    let text = "Find me a charging station with fast chargers on the way to Munich, please.";
    assert!(cosine(&a.embed_one(text).unwrap(), &b.embed_one(text).unwrap()) > 0.9999);
}

#[test]
fn long_texts_are_truncated_not_refused() {
    let e = model();
    let long = "seat heating ".repeat(400);
    let v = e.embed(&[long.as_str(), "short"]).unwrap();
    assert_eq!(v.len(), 2);
    assert!(v.iter().all(|v| v.iter().all(|x| x.is_finite())));
}

#[test]
fn a_tap_gives_an_earlier_layers_pooling_beside_the_same_output() {
    let e = model();
    let texts = [
        "I always shop at Lidl.",
        "Where is the closest grocery store?",
    ];
    let plain = e.embed(&texts).unwrap();
    let tapped = e.embed_tapped(&texts, 3).unwrap();
    for ((v, t), p) in tapped.iter().zip(&plain) {
        // The output is the same as without a tap; the tap is another unit vector.
        assert_eq!(v, p);
        assert_eq!(t.len(), EMBED_DIM);
        assert!((t.iter().map(|a| a * a).sum::<f32>() - 1.0).abs() < 1e-4);
        assert!(cosine(v, t) < 0.99);
    }
    // Batched or alone, the tap is the same.
    let one = e.embed_tapped(&texts[1..], 3).unwrap();
    assert!(cosine(&one[0].1, &tapped[1].1) > 0.9999);
    let err = e.embed_tapped(&texts, e.layers()).unwrap_err().to_string();
    assert!(
        err.contains("after 0 to 5") && err.contains("not after 6"),
        "{err}"
    );
}
