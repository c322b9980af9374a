// Loads a model through the installed library, runs it on the given inputs twice from two threads' sessions
// and prints the first output's shape and checksum.
#include <engine/api/engine.h>

#include <iostream>
#include <thread>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: embed_example MODEL.onnx\n";
    return 2;
  }
  try {
    ie::Options opts;
    opts.backend = "cpu";
    ie::Engine engine = ie::Engine::load(argv[1], opts);
    std::map<std::string, ie::Tensor> inputs;
    for (auto& in : engine.inputs()) {
      std::vector<int64_t> shape = in.dims;
      for (auto& d : shape)
        if (d < 0) d = 2;
      ie::Tensor t(in.dtype, shape);
      if (in.dtype == ie::DType::Float32)
        for (int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = 0.25f * static_cast<float>(i % 7) - 0.5f;
      inputs[in.name] = t;
    }
    double sums[2] = {0, 0};
    std::thread threads[2];
    for (int k = 0; k < 2; ++k)
      threads[k] = std::thread([&, k] {
        ie::Session session = engine.create_session();
        auto out = session.run_ordered(inputs);
        for (int64_t i = 0; i < out[0].numel(); ++i) sums[k] += out[0].data_as<float>()[i];
      });
    for (auto& t : threads) t.join();
    std::cout << "outputs: " << engine.outputs().size() << " checksum " << sums[0] << "\n";
    return sums[0] == sums[1] ? 0 : 1;
  } catch (const ie::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return e.exit_code();
  }
}
