"""PyTorch reference for Glovebox's embedder: sentence-transformers all-MiniLM-L6-v2, loaded
from the local model folder (models/minilm), on the same utterances as `glovebox bench`
(src/eval/bench.rs UTTERANCES). Prints JSON: per-sentence latency medians in ms with 1 and 2
threads, and the first values of the first utterance's embedding (to check the two agree).

Usage: benches/pytorch-embed [--rounds N]   (sets up its venv, then runs this file)
"""
import argparse
import json
import re
import statistics
import time
from pathlib import Path

import torch
from sentence_transformers import SentenceTransformer, models

ROOT = Path(__file__).resolve().parent.parent


def utterances():
    """The utterances of `glovebox bench` and benches/micro.rs, read from their one definition
    (`UTTERANCES` in src/eval/bench.rs), so that both sides always embed the same sentences."""
    src = (ROOT / "src/eval/bench.rs").read_text()
    body = src[src.index("pub const UTTERANCES: &[&str] = &["):]
    body = body[: body.index("];")]
    found = re.findall(r'^\s*"((?:[^"\\]|\\.)*)",?\s*$', body, re.MULTILINE)
    if not found:
        raise SystemExit("no UTTERANCES found in src/eval/bench.rs")
    return [json.loads(f'"{u}"') for u in found]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--models", default=str(ROOT / "models"))
    args = ap.parse_args()
    folder = str(Path(args.models) / "minilm")
    # The same pipeline as sentence-transformers' all-MiniLM-L6-v2: BERT, mean pooling, L2
    # normalisation, built from the local files so nothing is fetched.
    bert = models.Transformer(folder, max_seq_length=256)
    dim = getattr(bert, "get_embedding_dimension", None) or bert.get_word_embedding_dimension
    pool = models.Pooling(dim(), pooling_mode="mean")
    model = SentenceTransformer(modules=[bert, pool, models.Normalize()], device="cpu")
    sentences = utterances()
    out = {"torch": torch.__version__, "utterances": len(sentences)}
    for threads in (1, 2):
        torch.set_num_threads(threads)
        with torch.inference_mode():
            for u in sentences:  # warm-up
                model.encode(u)
            times = []
            for _ in range(args.rounds):
                for u in sentences:
                    t0 = time.perf_counter()
                    model.encode(u)
                    times.append((time.perf_counter() - t0) * 1e3)
        out[f"embed_ms_p50_{threads}_threads"] = statistics.median(times)
    out["first_values"] = [round(float(x), 6) for x in model.encode(sentences[0])[:4]]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
