"""torch_two: two PyTorch worker processes on one GPU, for `perfhunt run --gpu-trace`.

Each worker (a spawned process: its own CUDA context) allocates a different
amount of device memory through PyTorch's caching allocator, multiplies
matrices inside an NVTX range and reports, as probe lines in its own lane
(`worker=N`, its first line naming its `pid=`, so perfhunt charges that lane
its own process's GPU activity), what PyTorch itself says it reserved at
most, and what nvidia-smi lists for it at that point (its peak: PyTorch's
caching allocator keeps what it reserved), so perfhunt's per-process figures
can be checked against both.

    python3 torch_two.py [GIB_WORKER0 GIB_WORKER1]
"""
import os
import subprocess
import sys

import torch
import torch.multiprocessing as mp


def probe(rank, text):
    print(f"PERFHUNT: worker={rank} {text}", file=sys.stderr, flush=True)


def smi_used_mib(pid):
    """nvidia-smi's used_memory of this process (MiB), or None."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory",
                              "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    for line in out.splitlines():
        fields = [f.strip() for f in line.split(",")]
        if len(fields) == 2 and fields[0] == str(pid) and fields[1].isdigit():
            return int(fields[1])
    return None


def worker(rank, sizes):
    torch.cuda.set_device(0)
    probe(rank, f"pid={os.getpid()} begin=alloc")
    keep = torch.empty(int(sizes[rank] * 2**30) // 4, device="cuda")
    keep.fill_(1.0)
    torch.cuda.synchronize()
    probe(rank, "end=alloc")
    probe(rank, "begin=matmul")
    torch.cuda.nvtx.range_push("matmul_loop")
    a = torch.randn(4096, 4096, device="cuda")
    for _ in range(40):
        a = (a @ a).clamp_(-1, 1)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    smi = smi_used_mib(os.getpid())
    probe(rank, f"end=matmul reserved_peak_bytes={torch.cuda.max_memory_reserved()}"
          + (f" smi_used_mib={smi}" if smi is not None else ""))
    del keep, a


if __name__ == "__main__":
    sizes = [float(v) for v in sys.argv[1:3]] or [4.0, 7.0]
    mp.spawn(worker, args=(sizes,), nprocs=2, join=True)
