"""The reference encoder: sentence-transformers on PyTorch CPU, run in the benchmark's own environment.

    var/bench-reference-venv/bin/python bench/reference_encoder.py MODEL_FOLDER CHUNKS.json OUT.npy --threads N

Never imported by the project: bench/bench_encoder.py creates that environment
(bench/requirements-reference.txt, several GB) and runs this script in it. It
embeds the chunks of CHUNKS.json (a JSON list of strings) with the model folder
the project's package ships, as sentence-transformers does for any user (batch
32, L2-normalised), and prints the seconds of the timed pass as JSON.
"""

import argparse
import json
import os
import time

os.environ["HF_HUB_OFFLINE"] = "1"  # the model comes from the folder; nothing may be fetched

import numpy as np  # noqa: E402
import torch  # noqa: E402
from sentence_transformers import SentenceTransformer  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("chunks")
    parser.add_argument("out")
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    texts = json.loads(open(args.chunks).read())
    model = SentenceTransformer(args.folder, device="cpu")
    model.encode(texts[:8], batch_size=32)  # warm: allocations, thread pool
    started = time.perf_counter()
    with torch.inference_mode():
        vectors = model.encode(texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)
    seconds = time.perf_counter() - started
    np.save(args.out, vectors.astype(np.float32))
    print(json.dumps({"seconds": seconds, "torch": torch.__version__, "threads": torch.get_num_threads()}))


if __name__ == "__main__":
    main()
