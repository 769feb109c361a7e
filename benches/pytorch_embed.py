"""PyTorch reference for Glovebox's embedder: sentence-transformers all-MiniLM-L6-v2, loaded
from the local model folder (models/minilm), on the same utterances as `glovebox bench`
(src/eval/bench.rs UTTERANCES). Prints JSON: per-sentence latency medians in ms with 1 and 2
threads, and the first values of the first utterance's embedding (to check the two agree).

Usage: benches/pytorch-embed [--rounds N]   (sets up its venv, then runs this file)
"""
import argparse
import json
import statistics
import time
from pathlib import Path

import torch
from sentence_transformers import SentenceTransformer, models

UTTERANCES = [
    "It's freezing in here.",
    "Find me somewhere to eat tonight.",
    "Play something for the drive home.",
    "Where can I charge the car on the way to Munich?",
    "I need to park near the stadium.",
    "Take me to a gas station.",
    "Put on a podcast.",
    "Is there a supermarket on the way?",
    "Can you make the seat a bit warmer?",
    "Avoid the traffic jam if you can.",
    "Let's grab a quick burger.",
    "Turn the music down a little."
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--models", default=str(Path(__file__).resolve().parent.parent / "models"))
    args = ap.parse_args()
    folder = str(Path(args.models) / "minilm")
    # The same pipeline as sentence-transformers' all-MiniLM-L6-v2: BERT, mean pooling, L2
    # normalisation, built from the local files so nothing is fetched.
    bert = models.Transformer(folder, max_seq_length=256)
    dim = getattr(bert, "get_embedding_dimension", None) or bert.get_word_embedding_dimension
    pool = models.Pooling(dim(), pooling_mode="mean")
    model = SentenceTransformer(modules=[bert, pool, models.Normalize()], device="cpu")
    out = {"torch": torch.__version__}
    for threads in (1, 2):
        torch.set_num_threads(threads)
        with torch.inference_mode():
            for u in UTTERANCES:  # warm-up
                model.encode(u)
            times = []
            for _ in range(args.rounds):
                for u in UTTERANCES:
                    t0 = time.perf_counter()
                    model.encode(u)
                    times.append((time.perf_counter() - t0) * 1e3)
        out[f"embed_ms_p50_{threads}_threads"] = statistics.median(times)
    out["first_values"] = [round(float(x), 6) for x in model.encode(UTTERANCES[0])[:4]]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
