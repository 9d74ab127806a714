#!/bin/sh
# The main job's training epoch, typed-tensor (criterion) then PyTorch on the CPU, in one run.
# PyTorch and NumPy go in a venv under ~/.cache/typed-tensor/torch-cpu (installed once by this
# script; `cargo test` never needs them).
set -e
cd "$(dirname "$0")/.."
venv="${XDG_CACHE_HOME:-$HOME/.cache}/typed-tensor/torch-cpu"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -c "import torch, numpy" 2>/dev/null || "$venv/bin/pip" install -q torch numpy
cargo bench -p typed-tensor-benches --bench digits -- --noplot
"$venv/bin/python" benches/digits_torch.py
