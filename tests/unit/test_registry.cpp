#include <doctest/doctest.h>

#include "engine/registry/node_runner.h"

TEST_CASE("registry rejects unknown ops with the node named") {
  ie::Node n = ie::make_node("NoSuchOp", {"x"}, {"y"});
  ie::Tensor x(ie::DType::Float32, {2});
  CHECK_THROWS_WITH_AS(ie::run_node_cpu(n, {x}), doctest::Contains("NoSuchOp"), ie::Error);
}
