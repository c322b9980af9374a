"""Batch inference on Ray Data: a callable class for Dataset.map_batches, one engine per actor.

    import ray
    from inferengine.ray import Predictor

    ds = ray.data.from_arrow(table)                       # columns "image" (uint8 [28, 28]), "label"
    probs = ds.map_batches(
        Predictor, fn_constructor_kwargs={"model": "configs/convnet.yaml", "inputs": {"images": "image"},
                                          "keep": ["label"]},
        batch_size=1000, batch_format="numpy",
        compute=ray.data.ActorPoolStrategy(size=4), num_gpus=1)   # or num_cpus=N for CPU actors

Each actor loads the model once and keeps one session. A GPU actor (num_gpus=1) sees only its own GPU (Ray sets
CUDA_VISIBLE_DEVICES), which the engine calls device 0; backend="auto" picks CUDA there. A CPU actor runs as many
engine threads as the CPUs Ray assigned it (num_cpus), so actors do not oversubscribe the cores.
"""
from typing import Dict, Mapping, Optional, Sequence

import numpy as np

import inferengine as ie


def assigned_cpus() -> int:
    """The CPUs Ray assigned to the calling actor or task (0 outside Ray: the engine then uses every core)."""
    try:
        import ray

        if ray.is_initialized():
            return int(ray.get_runtime_context().get_assigned_resources().get("CPU", 0))
    except ImportError:
        pass
    return 0


class Predictor:
    """Runs one engine on numpy batches: {column: array} in, the batch's kept columns plus the outputs out.

    model: an ONNX file or a model config, at a path every node can read (see the README's multi-node notes).
    inputs: {graph input name: column}; default: columns named after the graph inputs.
    outputs: {graph output name: column}; default: every output, under its own name.
    keep: columns passed through unchanged (ids, labels), so results stay joined to their rows.
    threads: CPU engine threads; default: the CPUs Ray assigned the actor.
    Other keyword arguments go to inferengine.Engine.load (backend, precision, preprocess, form ...).
    """

    def __init__(self, model: str, *, inputs: Optional[Mapping[str, str]] = None,
                 outputs: Optional[Mapping[str, str]] = None, keep: Sequence[str] = (),
                 threads: Optional[int] = None, **options):
        if threads is None:
            threads = assigned_cpus()
        self.engine = ie.Engine.load(model, threads=threads, **options)
        self.session = self.engine.session()
        self.inputs = dict(inputs) if inputs else {i.name: i.name for i in self.engine.inputs}
        self.dtypes = {i.name: np.dtype(i.dtype) for i in self.engine.inputs}
        self.outputs = dict(outputs) if outputs else {o.name: o.name for o in self.engine.outputs}
        self.keep = tuple(keep)

    def __call__(self, batch: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
        # Ray hands columns in whatever dtype the source stored; the engine takes its declared ones.
        feed = {name: np.ascontiguousarray(batch[column], dtype=self.dtypes[name])
                for name, column in self.inputs.items()}
        result = self.session.run(feed)
        out = {column: batch[column] for column in self.keep}
        out.update({column: result[name] for name, column in self.outputs.items()})
        return out
