// inferengine.Pipeline: batches in flight (ie::Pipeline) from Python. The batches come from any Python iterable of
// {name: array} dicts, pulled on the pipeline's reader thread (which takes the GIL only to pull the next one);
// outputs come back in batch order on the calling thread, with the GIL released while the device works.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <exception>
#include <map>
#include <memory>

#include "engine/api/pipeline.h"
#include "engine/python/bindings/arrays.h"
#include "engine/python/bindings/handles.h"

namespace ie::python {

namespace nb = nanobind;
using namespace nb::literals;

namespace {

struct PipelineHandle {
  Engine engine;
  std::shared_ptr<Pipeline> pipeline;
  PipelineStats stats;  // of the last run
};

// {name: array} of one batch; the arrays stay referenced by `held` while the engine may read them.
HostInputs batch_inputs(nb::handle item, size_t index) {
  if (!nb::isinstance<nb::dict>(item))
    throw Error(ErrorKind::Usage, "batch " + std::to_string(index) + " is a " + nb::inst_name(item).c_str() +
                                      ", not a dict of {input name: array}");
  return host_inputs(nb::borrow<nb::dict>(item));
}

nb::dict outputs_dict(const Engine& engine, std::vector<Tensor>& outputs) {
  nb::dict result;
  const auto& decls = engine.outputs();
  for (size_t i = 0; i < outputs.size(); ++i)
    result[decls[i].name.c_str()] = to_numpy(std::move(outputs[i]), "output '" + decls[i].name + "'");
  return result;
}

// Runs every batch of `batches`; with `done` (a callable) each batch's outputs go to done(index, outputs) in batch
// order and the result is None, else the result is the list of output dicts. A Python exception raised by the
// iterable or by `done` stops the stream (the batches before it have been handed back) and is re-raised as itself;
// an engine error names the batch.
nb::object run(PipelineHandle& p, nb::handle batches, nb::handle done) {
  if (!done.is_none() && !PyCallable_Check(done.ptr()))
    throw Error(ErrorKind::Usage, "done must be a callable done(index, outputs) or None");
  nb::object iterator = nb::steal(PyObject_GetIter(batches.ptr()));
  if (!iterator.is_valid()) throw nb::python_error();
  // Touched only with the GIL held (the reader thread takes it), which also orders their accesses; destroyed here
  // with the GIL held.
  std::map<size_t, HostInputs> held;
  std::exception_ptr python_error;
  nb::list results;

  const BatchReader read = [&](size_t index, TensorMap& inputs) -> bool {
    nb::gil_scoped_acquire gil;
    try {
      nb::object item = nb::steal(PyIter_Next(iterator.ptr()));
      if (!item.is_valid()) {
        if (PyErr_Occurred()) throw nb::python_error();
        return false;
      }
      HostInputs in = batch_inputs(item, index);
      inputs = in.tensors;
      held.emplace(index, std::move(in));
      return true;
    } catch (nb::python_error&) {
      python_error = std::current_exception();
      throw Error(ErrorKind::Usage, "the batch iterable raised a Python exception");
    }
  };
  const BatchSink sink = [&](size_t index, std::vector<Tensor>& outputs) {
    nb::gil_scoped_acquire gil;
    try {
      nb::dict out = outputs_dict(p.engine, outputs);
      held.erase(index);
      if (done.is_none())
        results.append(out);
      else
        done(index, out);
    } catch (nb::python_error&) {
      python_error = std::current_exception();
      throw Error(ErrorKind::Usage, "done() raised a Python exception");
    }
  };
  try {
    nb::gil_scoped_release release;
    p.stats = p.pipeline->run(read, sink);
  } catch (const Error&) {
    if (python_error) std::rethrow_exception(python_error);
    throw;
  }
  if (done.is_none()) return std::move(results);
  return nb::none();
}

void prepare(PipelineHandle& p, const nb::list& examples) {
  std::vector<HostInputs> held;
  std::vector<TensorMap> maps;
  for (size_t i = 0; i < examples.size(); ++i) {
    held.push_back(batch_inputs(examples[i], i));
    maps.push_back(held.back().tensors);
  }
  nb::gil_scoped_release release;
  p.pipeline->prepare(maps);
}

}  // namespace

void bind_pipeline(nb::module_& m) {
  auto engine = nb::borrow<nb::class_<EngineHandle>>(m.attr("Engine"));
  nb::class_<PipelineStats>(m, "PipelineStats", "What Pipeline.run did.")
      .def_ro("batches", &PipelineStats::batches)
      .def_ro("samples", &PipelineStats::samples, "Dimension 0 of the first input, summed over the batches.")
      .def_ro("seconds", &PipelineStats::seconds, "From the first read to the last output handed back.")
      .def_ro("reader_wait_s", &PipelineStats::reader_wait_s,
              "Time the device side waited for the next batch (the iterable is the bottleneck when large).")
      .def("__repr__", [](const PipelineStats& s) {
        return "PipelineStats(batches=" + std::to_string(s.batches) + ", samples=" + std::to_string(s.samples) +
               ", seconds=" + std::to_string(s.seconds) + ")";
      });

  nb::class_<PipelineHandle>(m, "Pipeline",
                             "Batches in flight through one engine (Engine.pipeline): the next batch is pulled on a "
                             "reader thread and uploaded while the previous one computes; outputs in batch order.")
      .def("run", &run, "batches"_a, "done"_a.none() = nb::none(),
           nb::sig("def run(self, batches: collections.abc.Iterable[collections.abc.Mapping[str, "
                   "numpy.typing.ArrayLike]], done: collections.abc.Callable[[int, dict[str, typing.Any]], None] | "
                   "None = None) -> list[dict[str, typing.Any]] | None"),
           "Runs every {input name: array} batch of `batches`. Without `done`, returns each batch's {output name:\n"
           "array} in batch order; with it, calls done(index, outputs) for each batch in order (on this thread)\n"
           "and returns None. Arrays are read in place as in Session.run and must stay unchanged until their\n"
           "batch's outputs are back. A Python exception from `batches` or `done` stops the stream and is raised\n"
           "as itself; an engine error names the batch.")
      .def("prepare", &prepare, "examples"_a,
           nb::sig("def prepare(self, examples: collections.abc.Sequence[collections.abc.Mapping[str, "
                   "numpy.typing.ArrayLike]]) -> None"),
           "Plans (and on GPUs tunes and records) each example's shapes in every session, so run() pays none of it.")
      .def_ro("stats", &PipelineHandle::stats, "The last run's PipelineStats.")
      .def_prop_ro(
          "sessions", [](const PipelineHandle& p) { return p.pipeline->sessions(); },
          "Sessions holding batches in flight (depth per device on GPU backends, one per device on the CPU).");

  engine.def(
      "pipeline",
      [](const EngineHandle& e, int depth, int read_ahead) {
        nb::gil_scoped_release release;
        return PipelineHandle{e.engine, std::make_shared<Pipeline>(e.engine, PipelineOptions{depth, read_ahead}), {}};
      },
      "depth"_a = 2, "read_ahead"_a = 2,
      "A Pipeline over this engine: `depth` batches on each device at once on GPU backends (the CPU runs one at a "
      "time), `read_ahead` batches pulled ahead of those.");
}

}  // namespace ie::python
