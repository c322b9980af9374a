// What a model may ask of the machine (part of the public interface through engine/api/engine.h). A model file is
// a few bytes that can claim terabytes; a plan beyond a limit fails at plan time, before anything is allocated.
//
//   ie::Options opts;
//   opts.limits.max_arena_bytes = opts.limits.max_tensor_bytes = 64ull << 30;   // what `--max-memory 64G` does
#pragma once

#include <cstdint>

namespace ie {

struct Limits {
  /// Bytes of the plan's one arena (every intermediate tensor and workspace, with reuse). The default holds both
  /// shipped models at batch 65536 on the CPU, unfused, with room to spare.
  uint64_t max_arena_bytes = uint64_t(32) << 30;
  /// Bytes of any single tensor the plan computes (a node's output, a graph input).
  uint64_t max_tensor_bytes = uint64_t(16) << 30;
  /// Arithmetic of one step by the cost model (a convolution's multiply-adds, a pool's kernel volume times its
  /// output): about a day of one CPU core at 10 GFLOP/s, far beyond any real model's single op.
  double max_op_flops = 1e15;
};

}  // namespace ie
