#!/usr/bin/python3
"""The same measurement as hotkv-vecbench, on hnswlib (Debian: python3-hnswlib),
so that both can be run on one machine and compared as ratios.

    /usr/bin/python3 hnswlib_ref.py FILE.fvecs [n] [q]

Base = the first n vectors, queries = the last q; cosine, M=16, efC=200,
one thread; recall@10 against exact float64 ground truth.
"""
import sys, time
import numpy as np
import hnswlib

path = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
nq = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
raw = np.fromfile(path, dtype=np.int32)
dim = raw[0]
vecs = raw.reshape(-1, dim + 1)[:, 1:].view(np.float32)
base, queries = vecs[:n].copy(), vecs[-nq:].copy()

def unit(m):
    m = m.astype(np.float64)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1
    return m / norms

ub, uq = unit(base), unit(queries)
gt = []
for i in range(0, nq, 100):
    sims = uq[i:i + 100] @ ub.T
    gt.extend(np.argsort(-sims, axis=1, kind="stable")[:, :10])

print(f"hnswlib {n} base, {nq} queries, dim {dim}, cosine, M=16, efC=200")
idx = hnswlib.Index(space="cosine", dim=int(dim))
idx.init_index(max_elements=n, ef_construction=200, M=16, random_seed=1)
idx.set_num_threads(1)
t, c = time.time(), time.process_time()
idx.add_items(base, np.arange(n), num_threads=1)
wall, cpu = time.time() - t, time.process_time() - c
print(f"build 1 thread: wall {wall:.1f} s ({n / wall:.0f}/s), CPU {cpu:.1f} s ({n / cpu:.0f} per CPU-s)")

for ef in (40, 80, 150, 300, 500):
    idx.set_ef(ef)
    labels, _ = idx.knn_query(queries, k=10, num_threads=1)
    hit = sum(len(set(labels[i]) & set(gt[i])) for i in range(nq))
    count, t, c = 0, time.time(), time.process_time()
    while time.time() - t < 2:
        idx.knn_query(queries, k=10, num_threads=1)
        count += nq
    wall, cpu = time.time() - t, time.process_time() - c
    print(f"ef {ef}: recall {hit / (nq * 10):.4f}, {count / wall:.0f} q/s wall, {count / cpu:.0f} per CPU-s")
