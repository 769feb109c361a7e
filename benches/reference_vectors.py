"""The embedder's quality gate reference: sentence-transformers' all-MiniLM-L6-v2 vectors of the
first 500 user sentences of the CarMem dev split, computed once and kept in the repository
(tests/fixtures/minilm_reference.json + .f16). The Rust test `embed::tests::quality_gate`
checks every vector Glovebox's embedder makes against them (cosine >= 0.999).

Sentences: the USER turns of each user's extraction conversations, in file order, split into
sentences the way Glovebox does (src/conversation.rs `split_sentences`: after `.`, `!` or `?`
followed by whitespace; trimmed; empty pieces dropped).

Usage: benches/reference-vectors [--carmem ../shared/carmem/dev.jsonl]   (sets up its venv)
"""
import argparse
import hashlib
import json
from pathlib import Path

import numpy as np
from sentence_transformers import SentenceTransformer, models

ROOT = Path(__file__).resolve().parent.parent
COUNT = 500


def split_sentences(text):
    out, start = [], 0
    for i, ch in enumerate(text):
        if ch in ".!?" and i + 1 < len(text) and text[i + 1] in " \t\n\r\x0c":
            piece = text[start : i + 1].strip()
            if piece:
                out.append(piece)
            start = i + 1
    piece = text[start:].strip()
    if piece:
        out.append(piece)
    return out


def user_sentences(path, count):
    out = []
    with open(path) as f:
        for line in f:
            for entry in json.loads(line)["data"]:
                for turn in entry["extraction_conversation"]:
                    if "USER" in turn:
                        out.extend(split_sentences(turn["USER"]))
                        if len(out) >= count:
                            return out[:count]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--carmem", default=str(ROOT.parent / "shared/carmem/dev.jsonl"))
    ap.add_argument("--models", default=str(ROOT / "models"))
    args = ap.parse_args()
    folder = Path(args.models) / "minilm"
    sentences = user_sentences(args.carmem, COUNT)
    assert len(sentences) == COUNT, len(sentences)
    bert = models.Transformer(str(folder), max_seq_length=256)
    dim = getattr(bert, "get_embedding_dimension", None) or bert.get_word_embedding_dimension
    pool = models.Pooling(dim(), pooling_mode="mean")
    model = SentenceTransformer(modules=[bert, pool, models.Normalize()], device="cpu")
    vecs = model.encode(sentences, batch_size=32, convert_to_numpy=True).astype(np.float32)
    fixtures = ROOT / "tests/fixtures"
    (fixtures / "minilm_reference.f16").write_bytes(vecs.astype("<f2").tobytes())
    weights = hashlib.sha256((folder / "model.safetensors").read_bytes()).hexdigest()
    index = {
        "about": "sentence-transformers all-MiniLM-L6-v2 vectors of the first 500 user "
        "sentences of the CarMem dev split (benches/reference_vectors.py)",
        "vectors": "minilm_reference.f16",
        "format": "float16 little-endian, row-major, count x dim",
        "count": len(sentences),
        "dim": int(vecs.shape[1]),
        "model_sha256": weights,
        "sentence_transformers": __import__("sentence_transformers").__version__,
        "torch": __import__("torch").__version__,
        "sentences": sentences,
    }
    (fixtures / "minilm_reference.json").write_text(json.dumps(index, indent=1) + "\n")
    print(f"wrote {len(sentences)} vectors of {vecs.shape[1]} to {fixtures}")


if __name__ == "__main__":
    main()
