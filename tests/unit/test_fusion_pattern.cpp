// The fusion pattern helper on its own: optional steps, alternatives, domains, checks, side nodes, the shared
// legality checks (one reader, not a graph output, known dtypes and shapes, one output, untaken nodes) and
// candidates offered largest first to a backend that refuses some of them.
#include <doctest/doctest.h>

#include <algorithm>

#include "engine/planner/fusion_pattern.h"
#include "engine/planner/shape_inference.h"
#include "graph_builder.h"
#include "model_builder.h"

using namespace ie;
using test::GraphBuilder;

namespace {

// A graph with its inferred infos, every input bound to [2, 3].
struct Inferred {
  explicit Inferred(Graph graph) : g(std::move(graph)) {
    std::map<std::string, Shape> shapes;
    for (auto& in : g.inputs) shapes[in.name] = {2, 3};
    infos = infer_and_fold(g, shapes).infos;
  }
  FusionContext ctx(FusionContext::Accept accept = nullptr) { return FusionContext(g, infos, std::move(accept)); }
  size_t index(const std::string& node) const {
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (g.nodes[i].name == node) return i;
    FAIL("no node ", node);
    return 0;
  }
  Graph g;
  std::map<std::string, TensorInfo> infos;
};

// x -> Relu "relu" -> r, then each (op, output) in `chain` fed by the previous output; `outputs` are graph outputs.
Inferred chain_graph(const std::vector<std::pair<std::string, std::string>>& chain, std::vector<std::string> outputs) {
  GraphBuilder b;
  b.input("x", {-1, 3});
  b.node("Relu", {"x"}, {"r"}, {}, "relu");
  std::string prev = "r";
  for (auto& [op, out] : chain) {
    b.node(op, {prev}, {out}, {}, out + "_node");
    prev = out;
  }
  for (auto& o : outputs) b.output(o);
  return Inferred(b.build());
}

// The names of the matched nodes, in graph order.
std::vector<std::string> names(const Inferred& t, const PatternMatch& m) {
  std::vector<size_t> idx = m.indices();
  std::sort(idx.begin(), idx.end());
  std::vector<std::string> out;
  for (size_t i : idx) out.push_back(t.g.nodes[i].name);
  return out;
}

// A stand-in fused node that records how many steps it covers.
Node chain_node(FusionContext&, const PatternMatch& m) {
  Node n;
  n.name = m.root().name + "/chain";
  n.domain = "test";
  n.op_type = "Chain";
  n.inputs = m.root().inputs;
  n.outputs = {m.output()};
  n.attrs.set_int("nodes", static_cast<int64_t>(m.indices().size()));
  return n;
}

}  // namespace

TEST_CASE("fusion pattern: an optional step present or absent") {
  const Pattern p = {"Relu", "Tanh?"};
  SUBCASE("present") {
    Inferred t = chain_graph({{"Tanh", "y"}}, {"y"});
    auto ctx = t.ctx();
    auto m = p.match(ctx, t.index("relu"));
    REQUIRE(m);
    CHECK(m->has(1));
    CHECK(m->output() == "y");
    CHECK(names(t, *m) == std::vector<std::string>{"relu", "y_node"});
  }
  SUBCASE("absent: the next node is another op") {
    Inferred t = chain_graph({{"Neg", "y"}}, {"y"});
    auto ctx = t.ctx();
    auto m = p.match(ctx, t.index("relu"));
    REQUIRE(m);
    CHECK(!m->has(1));
    CHECK(m->output() == "r");
    CHECK(names(t, *m) == std::vector<std::string>{"relu"});
  }
  SUBCASE("absent: the root's output is the graph output") {
    Inferred t = chain_graph({}, {"r"});
    auto ctx = t.ctx();
    auto m = p.match(ctx, t.index("relu"));
    REQUIRE(m);
    CHECK(!m->has(1));
  }
  SUBCASE("in the middle of the chain") {
    const Pattern middle = {"Relu", "Tanh?", "Sigmoid"};
    Inferred with = chain_graph({{"Tanh", "t"}, {"Sigmoid", "y"}}, {"y"});
    auto ctx = with.ctx();
    auto m = middle.match(ctx, with.index("relu"));
    REQUIRE(m);
    CHECK(names(with, *m) == std::vector<std::string>{"relu", "t_node", "y_node"});
    Inferred without = chain_graph({{"Sigmoid", "y"}}, {"y"});
    auto ctx2 = without.ctx();
    auto m2 = middle.match(ctx2, without.index("relu"));
    REQUIRE(m2);
    CHECK(!m2->has(1));
    CHECK(m2->has(2));
    Inferred wrong_end = chain_graph({{"Tanh", "t"}, {"Neg", "y"}}, {"y"});
    auto ctx3 = wrong_end.ctx();
    CHECK(!middle.match(ctx3, wrong_end.index("relu")));
  }
  SUBCASE("skipped when taking it leaves a later step unmatched") {
    const Pattern greedy = {"Relu", "Tanh?", "Tanh"};
    Inferred t = chain_graph({{"Tanh", "y"}}, {"y"});
    auto ctx = t.ctx();
    auto m = greedy.match(ctx, t.index("relu"));
    REQUIRE(m);
    CHECK(!m->has(1));
    CHECK(m->has(2));
    CHECK(m->output() == "y");
  }
}

TEST_CASE("fusion pattern: alternatives and domains") {
  const Pattern p = {"Relu", "Tanh|Sigmoid|Gelu"};
  for (const char* op : {"Tanh", "Sigmoid", "Gelu"}) {
    CAPTURE(op);
    Inferred t = chain_graph({{op, "y"}}, {"y"});
    auto ctx = t.ctx();
    auto m = p.match(ctx, t.index("relu"));
    REQUIRE(m);
    CHECK(m->node(1).op_type == op);
  }
  Inferred neg = chain_graph({{"Neg", "y"}}, {"y"});
  auto ctx = neg.ctx();
  CHECK(!p.match(ctx, neg.index("relu")));

  // A node of another domain matches only a step that names that domain.
  Inferred t = chain_graph({{"Tanh", "y"}}, {"y"});
  t.g.nodes[t.index("y_node")].domain = "com.example";
  auto ctx2 = t.ctx();
  CHECK(!p.match(ctx2, t.index("relu")));
  auto m = Pattern{"Relu", "com.example.Tanh"}.match(ctx2, t.index("relu"));
  REQUIRE(m);
  CHECK(m->node(1).domain == "com.example");
}

TEST_CASE("fusion pattern: checks, constant inputs and the fed input") {
  GraphBuilder b;
  b.input("x", {-1, 3}).input("v", {2, 3});
  b.constant("c", test::random_tensor({3}, 1));
  b.node("Relu", {"x"}, {"r"}, {}, "relu");
  b.node("Sub", {"r", "c"}, {"s1"}, {}, "sub_rc");
  b.node("Sub", {"c", "s1"}, {"s2"}, {}, "sub_cr");
  b.node("Sub", {"s2", "v"}, {"y"}, {}, "sub_rv");
  Inferred t(b.output("y").build());
  auto ctx = t.ctx();
  // relu(x) - c: fed at input 0, a constant at input 1, and the check sees the Relu matched before it.
  auto after_relu = [](const PatternMatch& m, const Node&) { return m.has(0) && m.root().op_type == "Relu"; };
  auto m = Pattern{"Relu", PatternStep("Sub").fed_at(0).constant_input(1).when(after_relu)}.match(ctx, t.index("relu"));
  REQUIRE(m);
  CHECK(m->outside_input(m->node(1)) == "c");
  // c - s1 is fed at input 1.
  CHECK(!Pattern{"Sub", PatternStep("Sub").fed_at(0)}.match(ctx, t.index("sub_rc")));
  CHECK(Pattern{"Sub", PatternStep("Sub").fed_at(1)}.match(ctx, t.index("sub_rc")));
  // c - s1 has a constant first input; s2 - v has a graph input second.
  CHECK(Pattern{"Sub", PatternStep("Sub").constant_input(0)}.match(ctx, t.index("sub_rc")));
  CHECK(!Pattern{"Sub", PatternStep("Sub").constant_input(1)}.match(ctx, t.index("sub_cr")));
  // A failing check refuses the node.
  auto never = [](const PatternMatch&, const Node&) { return false; };
  CHECK(!Pattern{PatternStep("Relu").when(never)}.match(ctx, t.index("relu")));
  // The first step may not be optional.
  CHECK(!Pattern{"Relu?"}.match(ctx, t.index("relu")));
}

TEST_CASE("fusion pattern: a side node makes a small DAG") {
  GraphBuilder b;
  b.input("x", {-1, 3});
  b.node("Relu", {"x"}, {"r"}, {}, "relu");
  b.node("Tanh", {"x"}, {"t"}, {}, "tanh");
  b.node("Mul", {"t", "r"}, {"y"}, {}, "mul");
  SUBCASE("matched, the side node included") {
    Inferred t(b.output("y").build());
    auto ctx = t.ctx();
    auto m = Pattern{"Relu", PatternStep("Mul").beside("Tanh")}.match(ctx, t.index("relu"));
    REQUIRE(m);
    REQUIRE(m->beside(1));
    CHECK(m->beside(1)->name == "tanh");
    CHECK(m->beside(0) == nullptr);
    CHECK(names(t, *m) == std::vector<std::string>{"relu", "tanh", "mul"});
    CHECK(!Pattern{"Relu", PatternStep("Mul").beside("Sigmoid")}.match(ctx, t.index("relu")));
  }
  SUBCASE("refused when the side node's output has a second reader") {
    b.node("Neg", {"t"}, {"z"}, {}, "side");
    Inferred t(b.output("y").output("z").build());
    auto ctx = t.ctx();
    CHECK(!Pattern{"Relu", PatternStep("Mul").beside("Tanh")}.match(ctx, t.index("relu")));
  }
  SUBCASE("refused when the side node's output is a graph output") {
    Inferred t(b.output("y").output("t").build());
    auto ctx = t.ctx();
    CHECK(!Pattern{"Relu", PatternStep("Mul").beside("Tanh")}.match(ctx, t.index("relu")));
  }
}

TEST_CASE("fusion pattern: an intermediate with two readers or that is a graph output is refused") {
  const Pattern p = {"Relu", "Tanh", "Sigmoid"};
  SUBCASE("the match as it should be") {
    Inferred t = chain_graph({{"Tanh", "t"}, {"Sigmoid", "y"}}, {"y"});
    auto ctx = t.ctx();
    CHECK(p.match(ctx, t.index("relu")));
  }
  SUBCASE("two readers") {
    GraphBuilder b;
    b.input("x", {-1, 3});
    b.node("Relu", {"x"}, {"r"}, {}, "relu");
    b.node("Tanh", {"r"}, {"t"}, {}, "tanh");
    b.node("Sigmoid", {"t"}, {"y"}, {}, "sigmoid");
    b.node("Neg", {"t"}, {"z"}, {}, "neg");
    Inferred t(b.output("y").output("z").build());
    auto ctx = t.ctx();
    CHECK(!p.match(ctx, t.index("relu")));
    // An optional step there is skipped instead.
    auto m = Pattern{"Relu", "Tanh", "Sigmoid?"}.match(ctx, t.index("relu"));
    REQUIRE(m);
    CHECK(m->output() == "t");
  }
  SUBCASE("a graph output") {
    Inferred t = chain_graph({{"Tanh", "t"}, {"Sigmoid", "y"}}, {"y", "t"});
    auto ctx = t.ctx();
    CHECK(!p.match(ctx, t.index("relu")));
  }
  SUBCASE("the same tensor read twice by the next node") {
    GraphBuilder b;
    b.input("x", {-1, 3});
    b.node("Relu", {"x"}, {"r"}, {}, "relu");
    b.node("Mul", {"r", "r"}, {"y"}, {}, "square");
    Inferred t(b.output("y").build());
    auto ctx = t.ctx();
    CHECK(!Pattern{"Relu", "Mul"}.match(ctx, t.index("relu")));
  }
}

TEST_CASE("fusion pattern: unknown dtypes or shapes, extra outputs and taken nodes refuse a match") {
  const Pattern p = {"Relu", "Tanh"};
  Inferred t = chain_graph({{"Tanh", "y"}}, {"y"});
  SUBCASE("the intermediate's info is missing") { t.infos.erase("r"); }
  SUBCASE("the intermediate's dtype is unknown") { t.infos["r"].dtype = DType::Undefined; }
  SUBCASE("the intermediate's shape has an unbound dim") { t.infos["r"].shape = {-1, 3}; }
  SUBCASE("the input's info is missing") { t.infos.erase("x"); }
  SUBCASE("the output's info is missing") { t.infos.erase("y"); }
  SUBCASE("a matched node has a second output") {
    t.g.nodes[t.index("relu")].outputs.push_back("mask");
    t.infos["mask"] = t.infos["r"];
  }
  SUBCASE("the root is already taken") {
    auto ctx = t.ctx();
    REQUIRE(ctx.replace({t.index("relu")}, Node{}, "other"));
    CHECK(!p.match(ctx, t.index("relu")));
    return;
  }
  auto ctx = t.ctx();
  CHECK(!p.match(ctx, t.index("relu")));
}

TEST_CASE("fusion pattern: candidates are tried largest first when the backend refuses") {
  const Pattern p = {"Relu", "Tanh?", "Sigmoid?"};
  Inferred t = chain_graph({{"Tanh", "t"}, {"Sigmoid", "y"}}, {"y"});
  {
    auto ctx = t.ctx();
    auto m = p.match(ctx, t.index("relu"));
    REQUIRE(m);
    auto forms = p.shrink(*m);
    REQUIRE(forms.size() == 3);
    CHECK(forms[0].indices().size() == 3);
    CHECK(forms[1].output() == "t");
    CHECK(forms[2].output() == "r");
  }
  std::vector<int64_t> offered;
  auto refuse_above = [&](int64_t limit) {
    offered.clear();
    return [&offered, limit](const Node& n) {
      offered.push_back(n.attrs.get_int("nodes", 0));
      return n.attrs.get_int("nodes", 0) <= limit;
    };
  };
  SUBCASE("the largest is refused, the next one taken") {
    auto ctx = t.ctx(refuse_above(2));
    CHECK(fuse(ctx, t.index("relu"), p, "chain", chain_node));
    CHECK(offered == std::vector<int64_t>{3, 2});
    CHECK(ctx.commit() == 1);
    REQUIRE(t.g.nodes.size() == 2);
    CHECK(t.g.nodes[0].op_type == "Chain");
    CHECK(t.g.nodes[0].covers == std::vector<std::string>{"relu", "t_node"});
    CHECK(t.g.nodes[0].outputs == std::vector<std::string>{"t"});
    CHECK(t.g.nodes[0].fusion == "chain");
    CHECK(t.g.nodes[1].op_type == "Sigmoid");
  }
  SUBCASE("every one is refused: the graph stays as it was") {
    auto ctx = t.ctx(refuse_above(0));
    CHECK(!fuse(ctx, t.index("relu"), p, "chain", chain_node));
    CHECK(offered == std::vector<int64_t>{3, 2, 1});
    CHECK(ctx.commit() == 0);
    CHECK(t.g.nodes.size() == 3);
  }
  SUBCASE("a required last step is never dropped") {
    auto ctx = t.ctx(refuse_above(2));
    CHECK(!fuse(ctx, t.index("relu"), Pattern{"Relu", "Tanh", "Sigmoid"}, "chain", chain_node));
    CHECK(offered == std::vector<int64_t>{3});
  }
  SUBCASE("replace_first takes the first accepted of an explicit list") {
    auto ctx = t.ctx(refuse_above(1));
    Node big, small;
    big.attrs.set_int("nodes", 2);
    small.attrs.set_int("nodes", 1);
    small.outputs = {"r"};
    CHECK(replace_first(ctx, {{{0, 1}, big}, {{0}, small}}, "chain"));
    CHECK(offered == std::vector<int64_t>{2, 1});
    CHECK(ctx.is_taken(0));
    CHECK(!ctx.is_taken(1));
  }
}
