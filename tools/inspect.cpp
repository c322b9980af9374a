// inspect: prints a model's graph summary, its fused schedule (each step with the ONNX nodes it replaced) and the
// memory plan, for a batch size or explicit input shapes.
//
//   inspect weights/ssa.onnx --batch 64
//   inspect model.onnx --shape x=1x3x224x224 --no-fuse
//   inspect weights/ssa.onnx --backend cuda --precision bf16     # which kernel set serves each step, and why
#include <iostream>

#include "tools/common/cli.h"

int main(int argc, char** argv) {
  CLI::App app{"Show the fused execution plan of an ONNX model"};
  std::string model, backend = "cpu", precision = "fp32";
  int64_t batch = 1;
  std::vector<std::string> shapes;
  bool no_fuse = false;
  std::vector<std::string> disable;
  ie::Limits limits;
  app.add_option("model", model, "ONNX file")->required();
  app.add_option("--batch,-b", batch, "batch size bound to the symbolic first dimension")
      ->check(ie::cli::at_least(1, "--batch"));
  app.add_option("--shape", shapes, "explicit input shape NAME=2x3x4 (repeatable)");
  app.add_option("--backend", backend, "backend whose kernels to plan for: cpu, cuda, cuda-reference");
  ie::cli::add_precision_option(app, &precision, "modes the backend implements");
  app.add_flag("--no-fuse", no_fuse, "plan without fusion rules");
  app.add_option("--disable-fusion", disable, "rule to switch off (repeatable)");
  ie::cli::add_max_memory_option(app, &limits);
  IE_CLI_PARSE(app, argc, argv);
  return ie::cli::guarded_main("inspect", [&] {
    ie::Options opts;
    opts.backend = backend;
    opts.precision = ie::precision_from_name(precision);
    opts.batch = 0;
    opts.fuse = !no_fuse;
    opts.disabled_fusions = disable;
    opts.limits = limits;
    ie::Engine engine = ie::Engine::load(model, opts);
    auto named = ie::cli::parse_named_shapes(shapes);
    if (named.empty())
      for (auto& in : engine.inputs()) {
        std::vector<int64_t> s = in.dims;
        for (size_t i = 0; i < s.size(); ++i)
          if (s[i] < 0) {
            if (i != 0)
              throw ie::Error(ie::ErrorKind::Usage,
                              "input '" + in.name + "' has symbolic dims beyond the batch: use --shape");
            s[i] = batch;
          }
        named[in.name] = s;
      }
    std::cout << engine.describe(named);
    return 0;
  });
}
