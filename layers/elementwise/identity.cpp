// Identity: a view of its input (the planner may give the output the input's buffer).
#include <cstring>

#include "layers/common/elementwise.h"

namespace ie {

IE_REGISTER_OPS(identity) {
  OpRegistry::get().add(OpDef("", "Identity", [](InferContext& ctx) {
                          ctx.expect(ctx.has_input(0), "expects 1 input");
                          expect_type(ctx, 0, TypeClass::All);
                          ctx.set_output(0, ctx.input(0).dtype, ctx.input(0).shape);
                        }).view_of(0));
  OpRegistry::get().add_kernel("", "Identity", kernel_set::kCpu, [](const KernelInit&) {
    return make_kernel([](KernelContext& ctx) {
      if (ctx.outputs[0].data != ctx.inputs[0].data)
        std::memcpy(ctx.outputs[0].data, ctx.inputs[0].data, ctx.inputs[0].nbytes());
    });
  });
}

}  // namespace ie
