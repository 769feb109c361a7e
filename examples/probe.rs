use glovebox::llm::*;
use std::sync::Arc;
fn main() {
    let mut cfg = glovebox::config::LlmConfig::default();
    cfg.context = std::env::var("CTX")
        .map(|v| v.parse().unwrap())
        .unwrap_or(4096);
    cfg.threads = std::env::var("TH").map(|v| v.parse().unwrap()).unwrap_or(2);
    let llm = Llm::spawn(
        std::path::Path::new("models/gemma-3-270m-q4_k_m.gguf"),
        &cfg,
        4,
    )
    .unwrap();
    let schema = glovebox::schema::Schema::embedded();
    let prefix: Arc<str> = if std::env::var("SHORT").is_ok() {
        "Hello.\n".into()
    } else {
        glovebox::memory::extract::prompt_prefix(&schema).into()
    };
    println!("prefix chars {}", prefix.len());
    for i in 0..3 {
        let t = std::time::Instant::now();
        let c = llm.raw_cost(Request { prefix: prefix.clone(), prompt: "Example.\nConversation:\nS1: I like jazz a lot, it is my favourite.\nOffered categories: favorite_genres\nPreferences:\n".into(), grammar: String::new() }, 12).unwrap();
        println!("{i}: total {:?} {:?}", t.elapsed(), c);
    }
}
