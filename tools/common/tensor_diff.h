// How far one tensor is from a reference (compare, per output and per layer), Polygraphy-style: max abs error and
// where, mean and p99 abs, max rel, cosine similarity, the share of elements out of tolerance, and the smallest
// atol (rtol fixed) and rtol (atol fixed) that would pass. An element passes when |got - ref| <= atol + rtol*|ref|.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/api/engine.h"

namespace ie::cli {

struct Tolerance {
  double atol = 1e-5;
  double rtol = 1e-4;
};

/// Per-element atol / rtol of each mode: fp32 1e-5 / 1e-4; tf32 1e-3 / 1e-2; fp16 1e-2 / 1e-2; bf16 2e-2 / 2e-2.
Tolerance default_tolerance(Precision precision);

/// The relative L2 error of a whole output each mode is held to against the CPU's fp32 (`--precision auto`'s gates
/// and the GPU tests'): fp32 1e-5, tf32 1e-3, fp16 and bf16 1e-2.
double rel_l2_gate(Precision precision);

struct DiffStats {
  std::string problem;  // non-empty when the tensors cannot be compared (shape or size mismatch)
  int64_t count = 0;
  double max_abs = 0;
  int64_t max_abs_index = 0;  // flat index of max_abs
  std::vector<int64_t> max_abs_position;
  double mean_abs = 0, p99_abs = 0;
  double max_rel = 0;  // |got - ref| / max(|ref|, 1e-6)
  double cosine = 1;
  double rel_l2 = 0;  // ||got - ref|| / ||ref|| over the finite pairs (inf when ref is all zeros and got is not)
  double fail_percent = 0;            // elements out of tolerance, in %
  int64_t non_finite_mismatches = 0;  // NaN/Inf in one tensor where the other differs
  double min_atol = 0;                // smallest atol that passes with the given rtol (inf: a non-finite mismatch)
  double min_rtol = 0;                // smallest rtol that passes with the given atol (inf: a zero reference is off)
  Tolerance tolerance;
  bool pass = false;
};

/// Compares `got` against `ref` element by element (any numeric or bool dtype, read as double).
DiffStats diff_tensors(const Tensor& ref, const Tensor& got, Tolerance tol);
/// JSON of the statistics (infinities as the string "inf").
nlohmann::json diff_json(const DiffStats& d);

}  // namespace ie::cli
