#include <doctest/doctest.h>

#include "engine/io/file_names.h"

TEST_CASE("file_safe_name: exporter names become safe file names") {
  CHECK(ie::file_safe_name("onnx::Gemm_432") == "onnx_Gemm_432");
  CHECK(ie::file_safe_name("/fc4/Softmax_output_0") == "fc4_Softmax_output_0");
  CHECK(ie::file_safe_name("/blocks.0/attn/MatMul_1_output_0") == "blocks.0_attn_MatMul_1_output_0");
  CHECK(ie::file_safe_name("input") == "input");
  CHECK(ie::file_safe_name("a-b.c_d") == "a-b.c_d");
  CHECK(ie::file_safe_name("a  b\t\nc") == "a_b_c");
  CHECK(ie::file_safe_name("a__b") == "a_b");
  CHECK(ie::file_safe_name("..") == "tensor");
  CHECK(ie::file_safe_name("../../etc/passwd") == "etc_passwd");
  CHECK(ie::file_safe_name("._x_.") == "x");
  CHECK(ie::file_safe_name("") == "tensor");
  CHECK(ie::file_safe_name("::/") == "tensor");
  CHECK(ie::file_safe_name("\xc3\xa9t\xc3\xa9") == "t");
  std::string long_name = ie::file_safe_name(std::string(500, 'x'));
  CHECK(long_name.size() <= 200);
  CHECK(!long_name.empty());
}

TEST_CASE("make_unique_names: later repeats get _1, _2, never taking a listed name") {
  using V = std::vector<std::string>;
  CHECK(ie::make_unique_names({}) == V{});
  CHECK(ie::make_unique_names({"a", "b"}) == V{"a", "b"});
  CHECK(ie::make_unique_names({"a", "a", "a"}) == V{"a", "a_1", "a_2"});
  CHECK(ie::make_unique_names({"a", "a", "A"}) == V{"a", "a_1", "A_2"});
  CHECK(ie::make_unique_names({"a", "a", "a_1"}) == V{"a", "a_2", "a_1"});
  CHECK(ie::make_unique_names({"a_1", "a", "a"}) == V{"a_1", "a", "a_2"});
  CHECK(ie::unique_file_names({"onnx::Add_1", "onnx:Add_1", "/x/y", "x.y"}) ==
        V{"onnx_Add_1", "onnx_Add_1_1", "x_y", "x.y"});
}
