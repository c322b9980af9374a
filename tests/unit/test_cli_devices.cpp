// The CLI's device options: --devices parsing, and which GPUs a run on the default device lets the driver start.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "scoped_env.h"
#include "tools/common/cli.h"

namespace ie {
namespace {

using test::ScopedEnv;

TEST_CASE("cli: --devices lists device numbers and refuses anything else") {
  CHECK(cli::devices_from_text("", "cpu").empty());
  CHECK(cli::devices_from_text("0,1", "cuda") == std::vector<int>{0, 1});
  CHECK_THROWS_AS(cli::devices_from_text("0,x", "cuda"), Error);
  CHECK_THROWS_AS(cli::devices_from_text("-1", "cuda"), Error);
}

TEST_CASE("cli: a run on the default device lets the driver start device 0 alone") {
  ScopedEnv visible("CUDA_VISIBLE_DEVICES", nullptr);
  CHECK(cli::start_only_the_default_device(""));
  REQUIRE(std::getenv("CUDA_VISIBLE_DEVICES") != nullptr);
  CHECK(std::string(std::getenv("CUDA_VISIBLE_DEVICES")) == "0");
  // A choice made already, by the user or by --devices, stays.
  visible.set("1");
  CHECK_FALSE(cli::start_only_the_default_device(""));
  CHECK(std::string(std::getenv("CUDA_VISIBLE_DEVICES")) == "1");
  visible.set(nullptr);
  CHECK_FALSE(cli::start_only_the_default_device("all"));
  CHECK_FALSE(cli::start_only_the_default_device("0,1"));
  CHECK(std::getenv("CUDA_VISIBLE_DEVICES") == nullptr);
}

}  // namespace
}  // namespace ie
