// The executor's replay path on a backend that cannot record (the CPU): the second run asks to record, gets
// nothing, and the plan goes step by step from then on with unchanged results.
#include <doctest/doctest.h>

#include "engine/planner/plan.h"
#include "graph_builder.h"
#include "model_builder.h"

using namespace ie;

TEST_CASE("executor: a backend without recording runs every step every time") {
  test::GraphBuilder b;
  b.input("x", {-1, 4});
  b.node("Relu", {"x"}, {"r"}, {}, "relu");
  b.node("Neg", {"r"}, {"y"}, {}, "neg");
  Graph g = b.output("y").build();
  auto plan = test::plan_cpu(g, {{"x", Shape{3, 4}}});
  CHECK(plan->graphs);  // PlanOptions::graphs defaults to on
  for (int run = 0; run < 3; ++run) {
    Tensor x = test::random_tensor({3, 4}, 40 + run);
    auto out = test::run_plan(*plan, {{"x", x}});
    REQUIRE(out.size() == 1);
    for (int64_t i = 0; i < x.numel(); ++i) {
      const float v = x.data_as<float>()[i];
      CHECK(out[0].data_as<float>()[i] == -(v < 0 ? 0.f : v));
    }
    CHECK(plan->recording == nullptr);
    CHECK(plan->graph_off == (run >= 1));
  }
}
