#!/usr/bin/env bash
# Builds the environments the capture scripts run in (docs/conformance.md, "Regenerating"):
# one venv with torch (the PyPI Linux wheel; its nvidia-* dependencies are needed for `import torch`
# even on a CPU-only machine), and torchao / ModelOpt releases side by side as `pip --target`
# directories that share that torch (select one with PYTHONPATH). ModelOpt is installed without its
# declared dependencies plus the few that its NVFP4 path imports.
#   tools/conformance/setup_envs.sh [DIR]      (default DIR: ./.conformance-envs)
set -euo pipefail
dir=${1:-.conformance-envs}
mkdir -p "$dir"
python3 -m venv "$dir/torch"
pip="$dir/torch/bin/pip"
"$pip" install -q torch==2.15.0 numpy==2.4.6 h5py==3.16.0 ml_dtypes==0.6.0
for v in 0.16.0 0.17.0 0.18.0; do "$pip" install -q --no-deps --target "$dir/torchao-$v" "torchao==$v"; done
for v in 0.43.0 0.47.0; do "$pip" install -q --no-deps --target "$dir/modelopt-$v" "nvidia-modelopt==$v"; done
# What `from modelopt.torch.quantization.qtensor.nvfp4_tensor import NVFP4QTensor` imports (found by
# importing until nothing was missing, for 0.43.0 and 0.47.0).
# Versions as used for the committed captures (2026-12-01).
"$pip" install -q --no-deps packaging==26.4 requests==2.34.2 urllib3==2.8.0 idna==3.20 \
  certifi==2026.10.19.post1 tqdm==4.70.1 pydantic==2.14.4 pydantic_core==2.50.5 \
  typing_inspection==0.4.5 annotated_types==0.8.0 pulp==3.3.2 rich==15.0.0 scipy==1.17.1 \
  regex==2026.11.19 omegaconf==2.4.0 pyyaml==6.0.4 huggingface_hub==2.4.0 httpx2==2.16.2
echo "environments in $dir; run e.g.:"
echo "  PYTHONPATH=$dir/torchao-0.18.0 $dir/torch/bin/python tools/conformance/capture_torchao.py"
