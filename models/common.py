"""Small helpers shared by the training, export and reference scripts (no third-party packages beyond
torch and numpy)."""
import json
import os
import platform
import random
import sys
import time

import numpy as np
import torch

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_WEIGHTS_DIR = os.path.join(REPO_ROOT, "weights")


def log(*args):
    print(time.strftime("[%H:%M:%S]"), *args, flush=True)


def seed_everything(seed: int):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


def pick_device(name: str = "auto") -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(name)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise SystemExit(f"--device {name} asked for, but torch {torch.__version__} sees no CUDA device")
    return device


def device_description(device: torch.device) -> str:
    if device.type == "cuda":
        return f"cuda ({torch.cuda.get_device_name(device)})"
    return f"cpu ({platform.processor() or platform.machine()}, {torch.get_num_threads()} threads)"


def environment() -> dict:
    env = {"python": platform.python_version(), "torch": torch.__version__, "numpy": np.__version__}
    for mod in ("onnx", "onnxscript", "onnxruntime"):
        try:
            env[mod] = __import__(mod).__version__
        except Exception:  # pragma: no cover - recorded as missing
            env[mod] = "missing"
    return env


def write_training_record(weights_dir: str, model: str, record: dict):
    """Writes weights/<model>_training.json and re-renders weights/TRAINING.md from every record there."""
    os.makedirs(weights_dir, exist_ok=True)
    with open(os.path.join(weights_dir, f"{model}_training.json"), "w") as f:
        json.dump(record, f, indent=2, sort_keys=False)
        f.write("\n")
    render_training_md(weights_dir)


def render_training_md(weights_dir: str):
    lines = ["# Training figures", "",
             "Written by models/train_convnet.py and models/train_ssa.py (from the *_training.json beside it).",
             "The criteria are those of shared/specs/models.md.", ""]
    for model in ("convnet", "ssa"):
        path = os.path.join(weights_dir, f"{model}_training.json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            rec = json.load(f)
        lines += [f"## {model}", "", "| figure | value |", "| --- | --- |"]
        for key, value in rec.items():
            if key == "history":
                continue
            if isinstance(value, float):
                value = f"{value:.6g}"
            elif isinstance(value, dict):
                value = ", ".join(f"{k} {v}" for k, v in value.items())
            lines.append(f"| {key} | {value} |")
        hist = rec.get("history", [])
        if hist:
            keys = list(hist[0].keys())
            lines += ["", "Per epoch:", "", "| " + " | ".join(keys) + " |", "|" + " --- |" * len(keys)]
            for h in hist:
                lines.append("| " + " | ".join(f"{h[k]:.6g}" if isinstance(h[k], float) else str(h[k])
                                               for k in keys) + " |")
        lines.append("")
    with open(os.path.join(weights_dir, "TRAINING.md"), "w") as f:
        f.write("\n".join(lines))


def command_line() -> str:
    return " ".join([os.path.basename(sys.executable)] + sys.argv)
