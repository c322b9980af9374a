"""InferEngine from Python: load an ONNX model or a model config, make sessions, run them on NumPy arrays.

    import inferengine as ie
    engine = ie.Engine.load("configs/convnet.yaml", backend="cpu")   # or an .onnx file
    engine.inputs                        # [TensorInfo(name='images', dtype='uint8', shape=('batch', 28, 28))]
    session = engine.session()           # one per thread; they share the weights
    probs = session.run({"images": images})["probs"]
    outputs = engine.pipeline().run({"images": b} for b in batches)   # batches in flight, outputs in order

Everything here is the C++ library (inferengine._core); errors are inferengine.Error subclasses whose `kind` and
`exit_code` match the command-line tools'. inferengine.ray adds a callable class for Ray Data's map_batches.
"""
from ._core import (
    BadInputError,
    CheckFailedError,
    DeviceError,
    Engine,
    Error,
    NonFiniteError,
    Pipeline,
    PipelineStats,
    ProfileReport,
    RegressionError,
    Session,
    StepProfile,
    TensorInfo,
    UsageError,
    __version__,
    backend_available,
    read_tensor,
    write_tensor,
)

__all__ = [
    "BadInputError", "CheckFailedError", "DeviceError", "Engine", "Error", "NonFiniteError", "Pipeline",
    "PipelineStats", "ProfileReport",
    "RegressionError", "Session", "StepProfile", "TensorInfo", "UsageError", "__version__", "backend_available",
    "read_tensor", "write_tensor",
]
