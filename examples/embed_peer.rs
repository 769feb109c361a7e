//! Glovebox's side of `benches/peers` (the embedder beside PyTorch and ONNX Runtime): loads the
//! embedder, then answers one JSON request per stdin line with one JSON line on stdout.
//!
//! * `{"time": ["text", ...], "repeat": n}`: embeds the texts as one call, `n` times; answers
//!   `{"ms": [...]}`, the milliseconds of each call (tokenizer, forward pass and pooling; no
//!   embedding cache exists at this level).
//! * `{"embed": ["text", ...]}`: answers `{"vectors": [[...], ...]}`.
//!
//! Usage: embed_peer [--threads N] [--precision f32|f16] [--models DIR]

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::time::Instant;

use glovebox::embed::{default_precision, default_threads, Embedder, Precision};
use serde_json::{json, Value};

fn main() -> anyhow::Result<()> {
    let mut threads = default_threads();
    let mut precision = default_precision();
    let mut models = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| anyhow::anyhow!("{a} needs a value"))
        };
        match a.as_str() {
            "--threads" => threads = value()?.parse()?,
            "--precision" => {
                precision = match value()?.as_str() {
                    "f32" => Precision::F32,
                    "f16" => Precision::F16,
                    p => anyhow::bail!("--precision {p}: expected f32 or f16"),
                }
            }
            "--models" => models = value()?.into(),
            _ => anyhow::bail!("unknown argument {a}"),
        }
    }
    let e = Embedder::load_with(&models.join("minilm"), threads, precision)?;
    eprintln!("embed_peer: {} threads, {precision:?}", e.threads());
    let mut out = std::io::stdout().lock();
    for line in std::io::stdin().lock().lines() {
        let req: Value = serde_json::from_str(&line?)?;
        let texts =
            |k: &str| -> Vec<String> { serde_json::from_value(req[k].clone()).unwrap_or_default() };
        let answer = if req.get("time").is_some() {
            let texts = texts("time");
            let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
            let mut ms = Vec::new();
            for _ in 0..req["repeat"].as_u64().unwrap_or(1) {
                let t0 = Instant::now();
                e.embed(&texts)?;
                ms.push(t0.elapsed().as_secs_f64() * 1e3);
            }
            json!({ "ms": ms })
        } else {
            let texts = texts("embed");
            let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
            json!({ "vectors": e.embed(&texts)? })
        };
        writeln!(out, "{answer}")?;
        out.flush()?;
    }
    Ok(())
}
