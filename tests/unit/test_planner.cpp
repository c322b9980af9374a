// Planner property test over random graphs: no two tensors alive at once share arena bytes (views excepted), every
// tensor is written before it is read, and the planned run equals a node-by-node evaluation. Plus the plan cache
// and sessions on several threads.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <thread>

#include "graph_builder.h"
#include "model_builder.h"

using namespace ie;
using test::GraphBuilder;

namespace {

struct RandomGraph {
  Graph graph;
  std::map<std::string, Shape> shapes;
  std::map<std::string, Tensor> inputs;
};

constexpr int64_t kMaxElements = 4096;

int64_t numel_of(const Shape& s) { return numel_range(s, 0, s.size()); }

// A random DAG of 5-40 nodes over Relu/Add/Mul/Sigmoid/Concat/Transpose/Reshape/Identity/Squeeze/Unsqueeze with
// random fan-out, constants mixed in, and several graph outputs (some also read by later nodes).
RandomGraph random_graph(std::mt19937& gen, unsigned seed) {
  auto pick = [&](size_t n) { return static_cast<size_t>(gen() % n); };
  GraphBuilder b;
  RandomGraph r;
  std::vector<std::pair<std::string, Shape>> values;
  std::vector<std::string> produced;
  int n_inputs = 1 + static_cast<int>(pick(3));
  for (int i = 0; i < n_inputs; ++i) {
    Shape s(1 + pick(3));
    for (auto& d : s) d = 1 + static_cast<int64_t>(pick(4));
    std::string name = "in" + std::to_string(i);
    b.input(name, s);
    r.shapes[name] = s;
    r.inputs[name] = test::random_tensor(s, seed * 31 + i);
    values.emplace_back(name, s);
  }
  int n_constants = 0;
  auto new_constant = [&](const Shape& s) {
    std::string name = "k" + std::to_string(n_constants++);
    b.constant(name, test::random_tensor(s, seed * 17 + n_constants));
    return name;
  };
  // Recent values are picked more often, so chains form as well as wide fan-out.
  auto pick_value = [&]() -> const std::pair<std::string, Shape>& {
    if (values.size() > 4 && pick(2)) return values[values.size() - 1 - pick(4)];
    return values[pick(values.size())];
  };
  int n_nodes = 5 + static_cast<int>(pick(36));
  for (int j = 0; j < n_nodes; ++j) {
    auto [a, shape] = pick_value();
    std::string out = "t" + std::to_string(j);
    Shape out_shape = shape;
    const char* ops[] = {"Relu",      "Add",     "Mul",      "Sigmoid", "Concat",
                         "Transpose", "Reshape", "Identity", "Squeeze", "Unsqueeze"};
    std::string op = ops[pick(10)];
    if (op == "Add" || op == "Mul") {
      std::vector<std::string> same;
      for (auto& [n, s] : values)
        if (s == shape) same.push_back(n);
      std::string other = same[pick(same.size())];
      size_t k = pick(5);
      if (k == 0) other = new_constant(shape);
      if (k == 1) other = new_constant({shape.back()});  // broadcast over the leading dims
      if (pick(2))
        b.node(op, {a, other}, {out});
      else
        b.node(op, {other, a}, {out});
    } else if (op == "Concat") {
      int64_t axis = static_cast<int64_t>(pick(shape.size()));
      std::vector<std::string> parts = {a};
      for (auto& [n, s] : values) {
        if (s.size() != shape.size() || parts.size() >= 3 || pick(2)) continue;
        bool fits = true;
        for (size_t d = 0; d < s.size(); ++d) fits &= d == static_cast<size_t>(axis) || s[d] == shape[d];
        if (fits && numel_of(out_shape) + numel_of(s) <= kMaxElements) {
          parts.push_back(n);
          out_shape[axis] += s[axis];
        }
      }
      if (parts.size() == 1 && 2 * numel_of(shape) > kMaxElements) {
        b.node("Relu", {a}, {out});
        values.emplace_back(out, shape);
        produced.push_back(out);
        continue;
      }
      if (parts.size() == 1) {
        parts.push_back(a);
        out_shape[axis] *= 2;
      }
      Attributes at;
      at.set_int("axis", axis - (pick(2) ? static_cast<int64_t>(shape.size()) : 0));
      b.node("Concat", parts, {out}, at);
    } else if (op == "Transpose") {
      std::vector<int64_t> perm(shape.size());
      for (size_t d = 0; d < perm.size(); ++d) perm[d] = static_cast<int64_t>(d);
      std::shuffle(perm.begin(), perm.end(), gen);
      for (size_t d = 0; d < perm.size(); ++d) out_shape[d] = shape[perm[d]];
      Attributes at;
      at.set_ints("perm", perm);
      b.node("Transpose", {a}, {out}, at);
    } else if (op == "Reshape") {
      int64_t n = numel_of(shape);
      Shape target;
      switch (pick(4)) {
        case 0:
          out_shape = target = {n};
          break;
        case 1:
          target = {1, -1};
          out_shape = {1, n};
          break;
        case 2:
          out_shape = target = Shape(shape.rbegin(), shape.rend());
          break;
        default:
          target = {-1, shape.back()};
          out_shape = {n / shape.back(), shape.back()};
          break;
      }
      std::string target_name = "shape" + std::to_string(j);
      b.constant(target_name, test::i64_tensor({static_cast<int64_t>(target.size())}, target));
      b.node("Reshape", {a, target_name}, {out});
    } else if (op == "Squeeze" || op == "Unsqueeze") {
      auto one = std::find(shape.begin(), shape.end(), 1);
      std::string axes = "axes" + std::to_string(j);
      if (op == "Squeeze" && one != shape.end() && shape.size() > 1) {
        int64_t axis = one - shape.begin();
        out_shape.erase(out_shape.begin() + axis);
        b.constant(axes, test::i64_tensor({1}, {axis}));
        b.node("Squeeze", {a, axes}, {out});
      } else if (shape.size() < 4) {
        int64_t axis = static_cast<int64_t>(pick(shape.size() + 1));
        out_shape.insert(out_shape.begin() + axis, 1);
        b.constant(axes, test::i64_tensor({1}, {axis}));
        b.node("Unsqueeze", {a, axes}, {out});
      } else {
        b.node("Identity", {a}, {out});
      }
    } else {
      b.node(op, {a}, {out});
    }
    values.emplace_back(out, out_shape);
    produced.push_back(out);
  }
  // The last node, and a few others (possibly read by later nodes, possibly a graph input).
  std::set<std::string> outs = {produced.back()};
  for (size_t k = pick(4); k > 0; --k)
    outs.insert(pick(10) == 0 ? values[pick(values.size())].first : produced[pick(produced.size())]);
  for (auto& o : outs) b.output(o);
  r.graph = b.build();
  return r;
}

struct Interval {
  int first = 0, last = 0;
};

// Checks the plan's arena and ordering properties from its slots, steps and offsets alone.
void check_plan_properties(const Plan& plan) {
  const int n_steps = static_cast<int>(plan.steps.size());
  const int kEnd = n_steps + 1;
  std::map<int, Interval> live;
  std::map<int, int> root;
  auto root_of = [&](int s) {
    while (root.count(s)) s = root[s];
    return s;
  };
  std::set<int> written(plan.input_slots.begin(), plan.input_slots.end());
  for (int s : plan.input_slots) live[s] = {-1, -1};
  // Views left out of the schedule: the output sits on its input's bytes, written when the input is.
  for (auto& v : plan.views) {
    CHECK(plan.slots[v.output].offset == plan.slots[v.input].offset);
    CHECK(!plan.slots[v.input].is_constant);
    root[v.output] = v.input;
  }
  for (int i = 0; i < n_steps; ++i) {
    const Step& step = plan.steps[i];
    for (int s : step.inputs) {
      if (s < 0 || plan.slots[s].is_constant) continue;
      // (b) written before read: a graph input or the output of an earlier step.
      CHECK_MESSAGE(written.count(root_of(s)), "step ", i, " ", step.node.label(), " reads '", plan.slots[s].name,
                    "' before it is written");
      live[root_of(s)].last = std::max(live[root_of(s)].last, i);  // an elided view lives as its source
    }
    for (int s : step.outputs) {
      if (s < 0) continue;
      CHECK_MESSAGE(!written.count(s), "'", plan.slots[s].name, "' is written twice");
      CHECK(!plan.slots[s].is_constant);
      written.insert(s);
      live[s] = {i, i};
    }
    const OpDef* def = OpRegistry::get().find(step.node.domain, step.node.op_type);
    if (def && def->view_of_input >= 0) {
      int in = step.inputs[def->view_of_input];
      if (in >= 0 && !plan.slots[in].is_constant) root[step.outputs[0]] = root_of(in);
    }
  }
  for (int s : plan.output_slots)
    if (!plan.slots[s].is_constant) live[root_of(s)].last = kEnd;

  auto bytes_of = [&](int s) {
    return static_cast<size_t>(numel_of(plan.slots[s].info.shape)) * dtype_size(plan.slots[s].info.dtype);
  };
  std::vector<int> slots;
  for (auto& [s, iv] : live) slots.push_back(s);
  for (int s : slots) CHECK(plan.slots[s].offset + bytes_of(s) <= plan.arena_bytes);
  // (a) tensors alive at the same time never share bytes, unless one is a view of the other.
  for (size_t x = 0; x < slots.size(); ++x)
    for (size_t y = x + 1; y < slots.size(); ++y) {
      int s = slots[x], t = slots[y];
      if (root_of(s) == root_of(t) || bytes_of(s) == 0 || bytes_of(t) == 0) continue;
      bool together = live[s].first <= live[t].last && live[t].first <= live[s].last;
      if (!together) continue;
      size_t a0 = plan.slots[s].offset, a1 = a0 + bytes_of(s), b0 = plan.slots[t].offset, b1 = b0 + bytes_of(t);
      CHECK_MESSAGE((a1 <= b0 || b1 <= a0), "'", plan.slots[s].name, "' [", a0, ",", a1, ") and '", plan.slots[t].name,
                    "' [", b0, ",", b1, ") overlap while both are alive");
    }
  // Step workspaces never overlap a tensor alive during that step.
  for (int i = 0; i < n_steps; ++i) {
    const Step& step = plan.steps[i];
    if (!step.workspace_bytes) continue;
    for (int s : slots) {
      if (live[s].first > i || live[s].last < i) continue;
      size_t a0 = plan.slots[s].offset, a1 = a0 + bytes_of(s);
      CHECK((a1 <= step.workspace_offset || step.workspace_offset + step.workspace_bytes <= a0));
    }
  }
  CHECK(plan.arena_bytes <= plan.tensor_bytes);
}

}  // namespace

TEST_CASE("planner: random graphs plan without overlap, in order, and compute the node-by-node result") {
  std::mt19937 gen(2024);
  size_t total_steps = 0, total_views = 0;
  for (unsigned trial = 0; trial < 200; ++trial) {
    CAPTURE(trial);
    RandomGraph r = random_graph(gen, trial);
    auto plan = test::plan_cpu(r.graph, r.shapes);
    check_plan_properties(*plan);
    total_steps += plan->steps.size() + plan->views.size();
    for (auto* op : {"Reshape", "Identity", "Squeeze", "Unsqueeze"}) total_views += test::steps_of(*plan, op).size();
    total_views += plan->views.size();

    auto planned = test::run_plan(*plan, r.inputs);
    auto reference = test::run_node_by_node(r.graph, r.inputs);
    REQUIRE(planned.size() == reference.size());
    for (size_t i = 0; i < planned.size(); ++i) {
      CAPTURE(r.graph.outputs[i].name);
      CHECK(test::max_abs_diff(planned[i], reference[i]) <= 1e-6);
    }
    // A second run of the same plan on other values must not see stale data.
    std::map<std::string, Tensor> other;
    for (auto& [name, t] : r.inputs) other[name] = test::random_tensor(t.shape(), trial + 1000);
    auto planned2 = test::run_plan(*plan, other);
    auto reference2 = test::run_node_by_node(r.graph, other);
    for (size_t i = 0; i < planned2.size(); ++i) CHECK(test::max_abs_diff(planned2[i], reference2[i]) <= 1e-6);
  }
  // The generator must exercise what it is meant to.
  CHECK(total_steps > 1000);
  CHECK(total_views > 200);
}

TEST_CASE("planner: a chain reuses memory, so the arena is smaller than the tensors") {
  GraphBuilder b;
  b.input("x", {-1, 64});
  std::string prev = "x";
  for (int i = 0; i < 10; ++i) {
    std::string out = "t" + std::to_string(i);
    b.node(i % 2 ? "Relu" : "Sigmoid", {prev}, {out});
    prev = out;
  }
  auto plan = test::plan_cpu(b.output(prev).build(), {{"x", {16, 64}}});
  check_plan_properties(*plan);
  CHECK(plan->arena_bytes <= 3 * 16 * 64 * 4);
  CHECK(plan->arena_bytes < plan->tensor_bytes);
}

namespace {

Graph cache_graph() {
  GraphBuilder b;
  b.input("x", {-1, 4, 6});
  b.constant("target", test::i64_tensor({2}, {0, -1}));
  Attributes perm;
  perm.set_ints("perm", {0, 2, 1});
  Attributes axis;
  axis.set_int("axis", 1);
  b.node("Relu", {"x"}, {"r"});
  b.node("Transpose", {"x"}, {"t"}, perm);
  b.node("Reshape", {"t", "target"}, {"flat"});
  b.node("Mul", {"flat", "flat"}, {"sq"});
  b.node("Concat", {"sq", "flat"}, {"cat"}, axis);
  b.node("Sigmoid", {"cat"}, {"y"});
  b.node("Add", {"r", "x"}, {"r2"});
  return b.output("y").output("r2").output("flat").build();
}

std::vector<Tensor> fresh_run(const Graph& g, const Tensor& x) { return test::run_engine(g, {{"x", x}}); }

void check_same(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) CHECK(test::max_abs_diff(a[i], b[i]) == 0);
}

}  // namespace

TEST_CASE("planner: the plan cache gives the same results when shapes repeat") {
  Graph g = cache_graph();
  Engine engine = Engine::from_graph(g, Options{"cpu"});
  Session session = engine.create_session();
  int seed = 0;
  for (int64_t batch : {2, 3, 2, 2, 5, 3}) {
    CAPTURE(batch);
    Tensor x = test::random_tensor({batch, 4, 6}, ++seed);
    auto got = session.run_ordered({{"x", x}});
    check_same(got, fresh_run(g, x));
    check_same(got, test::run_node_by_node(g, {{"x", x}}));
    check_same(session.run_ordered({{"x", x}}), got);
  }
}

TEST_CASE("planner: sessions on two threads give identical results") {
  Graph g = cache_graph();
  Engine engine = Engine::from_graph(g, Options{"cpu"});
  std::vector<Tensor> xs;
  for (int i = 0; i < 6; ++i) xs.push_back(test::random_tensor({1 + i % 3, 4, 6}, 100 + i));
  std::vector<std::vector<Tensor>> expected;
  for (auto& x : xs) expected.push_back(fresh_run(g, x));

  std::vector<std::vector<std::vector<Tensor>>> results(2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      Session session = engine.create_session();
      for (int rep = 0; rep < 5; ++rep)
        for (auto& x : xs) results[t].push_back(session.run_ordered({{"x", x}}));
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 2; ++t) {
    REQUIRE(results[t].size() == 5 * xs.size());
    for (size_t k = 0; k < results[t].size(); ++k) check_same(results[t][k], expected[k % xs.size()]);
  }
}
