"""Glovebox's embedder side by side with PyTorch (sentence-transformers) and ONNX Runtime, on the
same model (all-MiniLM-L6-v2 from models/minilm), the same texts and the same thread count, in
one invocation, rounds interleaved (each engine runs a round's texts as one block) so that the
machine's load hits all three alike.

* single utterance: the 12 utterances of `glovebox bench` (src/eval/bench.rs UTTERANCES), one
  call each, no padding anywhere (a single text is its own length);
* batch of 32: the first 32 quality-gate sentences (tests/fixtures/minilm_reference.json) in
  one call; PyTorch and ONNX Runtime pad to the longest of the 32 (with the attention mask),
  Glovebox does not pad at all.

Every figure is text in, unit vector out (tokenizer, model, mean pooling, normalisation); no
engine has an embedding cache. ONNX Runtime runs the model exported from the same weights by
torch.onnx (BERT + mean pooling + normalisation in the graph), f32, ORT_ENABLE_ALL graph
optimisation, intra-op threads = the thread count, sequential execution. Glovebox runs
`examples/embed_peer` (its `Embedder`, the code recall runs).

Prints a Markdown table per thread count and, with --json, the figures as JSON lines.
Usage: benches/peers [--threads 1,2] [--rounds 10] [--json]
"""
import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
import torch
from sentence_transformers import SentenceTransformer, models
from tokenizers import Tokenizer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pytorch_embed import utterances  # noqa: E402  the same parser of UTTERANCES

ROOT = Path(__file__).resolve().parent.parent


class Pooled(torch.nn.Module):
    """BERT + mean pooling over the mask + L2 normalisation: sentence-transformers' pipeline as
    one graph."""

    def __init__(self, bert):
        super().__init__()
        self.bert = bert

    def forward(self, input_ids, attention_mask, token_type_ids):
        hidden = self.bert(
            input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
        ).last_hidden_state
        m = attention_mask.unsqueeze(-1).to(hidden.dtype)
        mean = (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(mean, p=2.0, dim=1)


def export_onnx(folder, path):
    from transformers import AutoModel

    bert = AutoModel.from_pretrained(str(folder)).eval()
    ids = torch.ones((1, 8), dtype=torch.int64)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {n: {0: "batch", 1: "tokens"} for n in names}
    axes["embedding"] = {0: "batch"}
    with torch.inference_mode():
        torch.onnx.export(
            Pooled(bert), (ids, ids, torch.zeros_like(ids)), str(path),
            input_names=names, output_names=["embedding"], dynamic_axes=axes,
            opset_version=17, dynamo=False,
        )


class Glovebox:
    name = "Glovebox (candle weights, own kernels)"

    def __init__(self, threads, models_dir):
        exe = ROOT / "target/release/examples/embed_peer"
        self.p = subprocess.Popen(
            [str(exe), "--threads", str(threads), "--models", str(models_dir)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )

    def _ask(self, req):
        self.p.stdin.write(json.dumps(req) + "\n")
        self.p.stdin.flush()
        return json.loads(self.p.stdout.readline())

    def time(self, texts, repeat=1):
        return self._ask({"time": texts, "repeat": repeat})["ms"]

    def embed(self, texts):
        return np.array(self._ask({"embed": texts})["vectors"], dtype=np.float32)


class PyTorch:
    name = "PyTorch (sentence-transformers)"

    def __init__(self, threads, folder):
        torch.set_num_threads(threads)
        bert = models.Transformer(str(folder), max_seq_length=256)
        dim = getattr(bert, "get_embedding_dimension", None) or bert.get_word_embedding_dimension
        pool = models.Pooling(dim(), pooling_mode="mean")
        self.model = SentenceTransformer(modules=[bert, pool, models.Normalize()], device="cpu")

    def embed(self, texts):
        with torch.inference_mode():
            return self.model.encode(texts, batch_size=32, convert_to_numpy=True)

    def time(self, texts, repeat=1):
        return timed(lambda: self.embed(texts), repeat)


class OnnxRuntime:
    name = "ONNX Runtime (f32, ORT_ENABLE_ALL)"

    def __init__(self, threads, folder, onnx_path):
        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        self.s = ort.InferenceSession(str(onnx_path), opts, providers=["CPUExecutionProvider"])
        self.tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tok.no_padding()
        self.tok.enable_truncation(256)

    def embed(self, texts):
        enc = self.tok.encode_batch(texts)
        n = max(len(e.ids) for e in enc)
        ids = np.zeros((len(enc), n), dtype=np.int64)
        mask = np.zeros((len(enc), n), dtype=np.int64)
        for i, e in enumerate(enc):  # pad to the longest (none for a single text)
            ids[i, : len(e.ids)] = e.ids
            mask[i, : len(e.ids)] = 1
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        return self.s.run(None, feed)[0]

    def time(self, texts, repeat=1):
        return timed(lambda: self.embed(texts), repeat)


def timed(f, repeat):
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", default="1,2", help="thread counts, comma-separated")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--models", default=str(ROOT / "models"))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    folder = Path(args.models) / "minilm"
    onnx_path = ROOT / "benches/.venv/minilm-pooled.onnx"
    if not onnx_path.exists():
        export_onnx(folder, onnx_path)
    for threads in [int(t) for t in args.threads.split(",")]:
        run(args, threads, folder, onnx_path)


def run(args, threads, folder, onnx_path):
    """All three engines on `threads` threads, rounds interleaved; prints the table."""
    single = utterances()
    batch = json.loads((ROOT / "tests/fixtures/minilm_reference.json").read_text())["sentences"][:32]
    engines = [
        Glovebox(threads, args.models),
        PyTorch(threads, folder),
        OnnxRuntime(threads, folder, onnx_path),
    ]
    # Agreement with sentence-transformers (the PyTorch engine) on every text measured.
    texts = single + batch
    ref = engines[1].embed(texts)
    agree = {e.name: float(np.min(np.sum(e.embed(texts) * ref, axis=1))) for e in engines}
    for e in engines:  # warm-up
        for u in single:
            e.time([u], 2)
        e.time(batch, 1)
    one = {e.name: [] for e in engines}
    many = {e.name: [] for e in engines}
    # Rounds interleave the engines; within a round each runs its texts as one block, so that
    # the thread pools of one (ONNX Runtime and OpenMP spin a while after a call) do not sit
    # spinning through every call of another.
    for r in range(args.rounds):
        for e in engines[r % 3:] + engines[: r % 3]:
            e.time([single[0]])  # wakes its threads
            for u in single:
                one[e.name] += e.time([u])
            many[e.name] += e.time(batch)
    rows = []
    for e in engines:
        rows.append({
            "engine": e.name,
            "one_ms_p50": statistics.median(one[e.name]),
            "batch32_ms_p50": statistics.median(many[e.name]),
            "min_cosine_to_sentence_transformers": agree[e.name],
        })
    g, pt, onnx = rows
    result = {
        "threads": threads,
        "rounds": args.rounds,
        "single_samples": len(one[g["engine"]]),
        "torch": torch.__version__,
        "onnxruntime": ort.__version__,
        "engines": rows,
        "glovebox_per_pytorch": g["one_ms_p50"] / pt["one_ms_p50"],
        "glovebox_per_onnxruntime": g["one_ms_p50"] / onnx["one_ms_p50"],
        "glovebox_per_pytorch_batch32": g["batch32_ms_p50"] / pt["batch32_ms_p50"],
        "glovebox_per_onnxruntime_batch32": g["batch32_ms_p50"] / onnx["batch32_ms_p50"],
    }
    engines[0].p.stdin.close()
    engines[0].p.wait()
    if args.json:
        print(json.dumps(result))
        return
    print(f"\n{threads} threads, {args.rounds} rounds, torch {torch.__version__}, "
          f"onnxruntime {ort.__version__}\n")
    print("| engine | one utterance p50 | batch of 32 p50 | min cosine to sentence-transformers |")
    print("| --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['engine']} | {r['one_ms_p50']:.2f} ms | {r['batch32_ms_p50']:.1f} ms "
              f"| {r['min_cosine_to_sentence_transformers']:.7f} |")
    print(f"\nGlovebox / PyTorch: {result['glovebox_per_pytorch']:.2f} (one), "
          f"{result['glovebox_per_pytorch_batch32']:.2f} (batch of 32); "
          f"Glovebox / ONNX Runtime: {result['glovebox_per_onnxruntime']:.2f} (one), "
          f"{result['glovebox_per_onnxruntime_batch32']:.2f} (batch of 32)")


if __name__ == "__main__":
    main()
