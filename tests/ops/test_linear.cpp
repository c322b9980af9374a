#include "tests/ops/nn_test_util.h"

using namespace ie;
using namespace ie::test;

TEST_CASE("Linear trans_w=1 activation none") {
  Attributes a;
  a.set_int("trans_w", 1); a.set_string("activation", "");
  auto y = run_node_cpu(make_node("Linear", {"i0", "i1", "i2"}, {"o0"}, a, "ie"),
                         {tensor(DType::Float32, {2, 3, 5}, {0.976, -0.766, -0.646, 0.15, -0.107, 0.501, -0.619, 0.829, -0.566, 0.538, -0.865, -0.053, -0.935, -0.372, -0.376, 0.439, -0.09, -0.886, 0.991, 0.777, 0.833, -0.507, -0.212, -0.546, -0.75, -0.934, 0.007, -0.754, -0.647, 0.721}),
                          tensor(DType::Float32, {4, 5}, {-0.032, -0.633, 0.34, -0.468, 0.054, -0.434, 0.032, 0.257, 0.072, -0.209, 0.582, 0.747, -0.641, -0.727, -0.774, 0.959, 0.883, -0.539, 0.94, -0.584}),
                          tensor(DType::Float32, {4}, {0.013, -0.005, 0.83, -0.919})}, 17);
  check_close(y[0], {2, 3, 4}, {0.171028, -0.585955, 1.213684, -0.107712, 0.964595, -0.182383, 0.12287, -2.278181, -0.08987901, 0.180219, 1.447782, -1.421465, -0.667148, -0.517149, 0.264339, 0.377857, 0.450223, -0.319792, 2.049411, -0.5288061, 0.123827, 0.009528973, 0.6872699, -2.431363}, 1e-4, 1e-5);
}

TEST_CASE("Linear trans_w=1 activation Relu") {
  Attributes a;
  a.set_int("trans_w", 1); a.set_string("activation", "Relu");
  auto y = run_node_cpu(make_node("Linear", {"i0", "i1", "i2"}, {"o0"}, a, "ie"),
                         {tensor(DType::Float32, {2, 3, 5}, {-0.369, 0.2, -0.867, -0.527, -0.07, 0.762, 0.522, 0.658, 0.522, 0.415, 0.699, 0.363, 0.471, -0.397, -0.665, 0.513, -0.668, 0.839, 0.193, -0.341, 0.873, -0.69, 0.029, -0.817, 0.931, 0.151, 0.607, -0.436, 0.604, 0.406}),
                          tensor(DType::Float32, {4, 5}, {0.287, 0.901, -0.133, -0.17, 0.384, 0.67, -0.33, 0.339, -0.582, 0.103, 0.538, -0.869, 0.456, -0.969, 0.917, -0.063, -0.182, 0.441, 0.047, 0.462}),
                          tensor(DType::Float32, {4}, {-0.83, 0.126, 0.116, 0.864})}, 17);
  check_close(y[0], {2, 3, 4}, {0, 0, 0, 0.411391, 0, 0.426283, 0.247123, 1.227432, 0, 0.796768, 0.166279, 0.635719, 0, 0.827122, 0.8553561, 1.174785, 0, 1.519828, 2.843908, 1.339093, 0, 0, 0, 0.767697}, 1e-4, 1e-5);
}

TEST_CASE("Linear trans_w=1 activation Gelu") {
  Attributes a;
  a.set_int("trans_w", 1); a.set_string("activation", "Gelu");
  auto y = run_node_cpu(make_node("Linear", {"i0", "i1", "i2"}, {"o0"}, a, "ie"),
                         {tensor(DType::Float32, {2, 3, 5}, {-0.921, -0.094, 0.262, 0.101, -0.852, 0.186, -0.556, -0.609, 0.757, -0.604, -0.091, 0.501, 0.415, 0.107, 0.614, -0.068, 0.241, 0.638, 0.356, 0.284, -0.188, 0.117, -0.208, 0.489, -0.239, -0.067, 0.511, 0.007, -0.324, 0.654}),
                          tensor(DType::Float32, {4, 5}, {-0.238, 0.689, 0.57, -0.105, 0.426, -0.931, -0.22, 0.721, 0.159, 0.116, 0.329, 0.355, 0.167, -0.159, -0.633, -0.415, -0.414, -0.139, 0.998, -0.295}),
                          tensor(DType::Float32, {4}, {-0.105, -0.257, 0.163, 0.896})}, 17);
  check_close(y[0], {2, 3, 4}, {-0.07526667, 0.5574207, 0.2570707, 1.549167, -0.1361504, -0.1692932, 0.1074215, 2.027303, 0.5787568, 0.05686286, -0.01246857, 0.430201, 0.3671655, 0.1874518, 0.05187451, 0.849229, -0.1007376, -0.08674704, 0.1038093, 1.414467, 0.4167146, -0.1084608, -0.01886289, 0.1125716}, 1e-4, 1e-5);
}

TEST_CASE("Linear trans_w=1 activation Tanh") {
  Attributes a;
  a.set_int("trans_w", 1); a.set_string("activation", "Tanh");
  auto y = run_node_cpu(make_node("Linear", {"i0", "i1", "i2"}, {"o0"}, a, "ie"),
                         {tensor(DType::Float32, {2, 3, 5}, {0.778, -0.246, -0.466, 0.769, -0.012, 0.371, -0.853, 0.733, -0.374, -0.011, -0.604, -0.16, 0.656, 0.655, -0.053, 0.536, -0.084, -0.253, 0.092, -0.597, -0.367, 0.413, 0.541, -0.887, 0.466, 0.635, -0.11, -0.875, 0.366, -0.508}),
                          tensor(DType::Float32, {4, 5}, {0.287, -0.247, 0.274, -0.484, -0.047, 0.049, 0.262, -0.594, 0.924, -0.422, -0.388, -0.487, -0.865, -0.154, 0.544, 0.419, -0.609, -0.726, -0.357, 0.537}),
                          tensor(DType::Float32, {4}, {-0.024, 0.846, 0.313, 0.242})}, 17);
  check_close(y[0], {2, 3, 4}, {-0.2348042, 0.9480442, 0.3876862, 0.6499055, 0.5886142, -0.1348172, 0.002029953, 0.4717968, -0.284538, 0.7667553, -0.07174654, -0.5731411, 0.06469851, 0.8710657, 0.0258432, 0.3345873, 0.3133898, -0.3811214, 0.1745947, 0.01084456, -0.204671, 0.9579671, 0.4962729, 0.6678472}, 1e-4, 1e-5);
}

TEST_CASE("Linear trans_w=1 activation Sigmoid") {
  Attributes a;
  a.set_int("trans_w", 1); a.set_string("activation", "Sigmoid");
  auto y = run_node_cpu(make_node("Linear", {"i0", "i1", "i2"}, {"o0"}, a, "ie"),
                         {tensor(DType::Float32, {2, 3, 5}, {0.535, 0.501, -0.312, -0.486, -0.125, -0.022, -0.717, -0.117, 0.28, -0.729, -0.724, -0.653, -0.433, 0.923, -0.948, -0.633, -0.67, -0.051, -0.97, -0.084, -0.674, -0.461, 0.585, -0.632, 0.234, -0.187, -0.165, 0.634, -0.678, 0.848}),
                          tensor(DType::Float32, {4, 5}, {0.787, 0.337, -0.901, 0.327, 0.201, 0.544, -0.572, 0.907, 0.772, -0.771, -0.37, -0.935, 0.662, 0.83, 0.98, 0.224, 0.332, 0.357, 0.14, 0.905}),
                          tensor(DType::Float32, {4}, {0.216, -0.329, 0.026, -0.963})}, 17);
  check_close(y[0], {2, 3, 4}, {0.7115548, 0.2918671, 0.2021664, 0.2750047, 0.5018762, 0.6772704, 0.5362018, 0.1337402, 0.4818972, 0.6684965, 0.6117892, 0.09750381, 0.3108638, 0.2649407, 0.4913704, 0.1740403, 0.239302, 0.3613091, 0.6896418, 0.2819331, 0.3522266, 0.2811966, 0.718589, 0.4598839}, 1e-4, 1e-5);
}

TEST_CASE("Linear trans_w=0 without bias") {
  Attributes a;
  a.set_int("trans_w", 0);
  auto y = run_node_cpu(make_node("Linear", {"i0", "i1"}, {"o0"}, a, "ie"),
                         {tensor(DType::Float32, {3, 5}, {0.448, 0.388, -0.158, 0.703, 0.511, -0.327, -0.845, -0.736, -0.631, -0.392, -0.105, 0.856, -0.443, 0.797, 0.361}),
                          tensor(DType::Float32, {5, 2}, {0.707, -0.193, -0.993, 0.574, -0.509, -0.715, 0.599, 0.373, -0.575, -0.465})}, 17);
  check_close(y[0], {3, 2}, {0.139146, 0.273822, 0.829951, 0.05123798, -0.428928, 0.95777}, 1e-4, 1e-5);
}

TEST_CASE("Linear float16 Gelu") {
  Attributes a;
  a.set_int("trans_w", 0); a.set_string("activation", "Gelu");
  auto y = run_node_cpu(make_node("Linear", {"i0", "i1"}, {"o0"}, a, "ie"),
                         {tensor(DType::Float16, {3, 5}, {0.447998, 0.3879395, -0.157959, 0.703125, 0.5112305, -0.3269043, -0.8452148, -0.7358398, -0.6308594, -0.3920898, -0.1049805, 0.855957, -0.4431152, 0.796875, 0.361084}),
                          tensor(DType::Float16, {5, 2}, {0.7070312, -0.1929932, -0.9931641, 0.5742188, -0.5087891, -0.7148438, 0.5991211, 0.3730469, -0.5751953, -0.4650879})}, 17);
  check_close(y[0], {3, 2}, {0.07727232, 0.1664535, 0.6612359, 0.02666589, -0.1432567, 0.7958213}, 1e-2, 1e-2);
}

TEST_CASE("Linear rejects bad shapes and activations") {
  Tensor a(DType::Float32, {2, 5}), w(DType::Float32, {4, 5}), bias(DType::Float32, {5});
  CHECK_THROWS_WITH_AS(run_node_cpu(make_node("Linear", {"a", "w", "b"}, {"y"}, {}, "ie"), {a, w, bias}),
                       doctest::Contains("bias"), Error);
  Attributes t;
  t.set_int("trans_w", 0);
  CHECK_THROWS_WITH_AS(run_node_cpu(make_node("Linear", {"a", "w"}, {"y"}, t, "ie"), {a, w}), doctest::Contains("K"), Error);
  Attributes act;
  act.set_string("activation", "Mish");
  CHECK_THROWS_WITH_AS(run_node_cpu(make_node("Linear", {"a", "w"}, {"y"}, act, "ie"), {a, w}), doctest::Contains("Mish"), Error);
}

// The products' buffers that Eigen reads or writes (inputs converted from 16-bit types, the attention's q | k | v)
// are aligned to its packets (layers/common/compute_type.h): run after run, with whatever the heap gives, a plan
// gives the same bits (the im2col convolution did not, before its scratch was aligned).
TEST_CASE("Linear, MatMul and projected Attention give the same bits on every run, also from float16 inputs") {
  auto values = [](int64_t n, int seed) {
    std::vector<double> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[i] = std::sin(0.37 * static_cast<double>(i) + seed) * 0.8;
    return v;
  };
  Attributes lin;
  lin.set_int("trans_w", 0);
  lin.set_string("activation", "Gelu");
  Attributes att;
  att.set_int("heads", 4);
  att.set_float("scale", 0.25f);
  att.set_string("rope", "none");
  att.set_int("projection", 1);
  for (DType t : {DType::Float32, DType::Float16}) {
    CAPTURE(dtype_name(t));
    struct Case {
      Node node;
      std::vector<Tensor> in;
    };
    const std::vector<Case> cases = {
        {make_node("Linear", {"a", "w", "b"}, {"y"}, lin, "ie"),
         {tensor(t, {3, 37}, values(3 * 37, 1)), tensor(t, {37, 29}, values(37 * 29, 2)),
          tensor(t, {29}, values(29, 3))}},
        {make_node("MatMul", {"a", "b"}, {"y"}),
         {tensor(t, {2, 5, 33}, values(2 * 5 * 33, 4)), tensor(t, {33, 19}, values(33 * 19, 5))}},
        {make_node("Attention", {"x", "w", "b"}, {"y"}, att, "ie"),
         {tensor(t, {3, 10, 24}, values(3 * 10 * 24, 6)), tensor(t, {24, 192}, values(24 * 192, 7)),
          tensor(t, {192}, values(192, 8))}},
    };
    for (const Case& c : cases) {
      CAPTURE(c.node.op_type);
      const Tensor first = run_node_cpu(c.node, c.in, 17)[0];
      for (int run = 1; run < 4; ++run) {
        std::vector<std::unique_ptr<char[]>> shift;  // other heap addresses for the next run's buffers
        for (int i = 0; i < run; ++i) shift.emplace_back(new char[24 + 8 * run]);
        CHECK(bitwise_equal(run_node_cpu(c.node, c.in, 17)[0], first));
      }
    }
  }
}
