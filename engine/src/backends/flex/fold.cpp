// Flex: fold4d (col2im) plane by plane instead of the composite's select_add over padded planes:
// plane (b, c) receives only rows (c, i, j) of batch b, added in the composite's order (kernel cells
// i, j, then blocks row-major) in the dtype, cells in the padding dropped, so the same bits as every
// other backend; runs of [batch, channels] planes go to Flex's threads.
#include <crossgrad/backends/flex.hpp>

#include "backends/host_pool.hpp"
#include "common.hpp"
#include "thread_pool.hpp"

#include <algorithm>

namespace crossgrad::backends {

FlexTensor Flex::fold4d(const FlexTensor& x, const Size2& output_size, const Size2& kernel_size, const UnfoldOptions& o) {
  const rules::Conv2dPlan p = rules::plan_fold4d(x.shape, x.dtype, output_size, kernel_size, o);
  FlexTensor out = host_pool::make<FlexTensor>(p.out, x.dtype);
  const std::size_t planes = p.batch * p.channels_in, plane_out = p.in_h * p.in_w, blocks = p.out_h * p.out_w;
  host::with_float_type(x.dtype, [&]<class T>(T) {
    const T* in = x.template data<T>();
    T* y = out.template mutable_data<T>();
    std::fill(y, y + planes * plane_out, T(0));
    if (blocks == 0 || p.k_h * p.k_w == 0) return;
    const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / (p.k_h * p.k_w * blocks + plane_out));
    flex::parallel_range(planes, grain, [&](std::size_t begin, std::size_t end) {
      for (std::size_t plane = begin; plane < end; ++plane) {
        T* dst = y + plane * plane_out;
        // Plane (b, c) is rows c k_h k_w .. (c + 1) k_h k_w - 1 of batch b: row-major [b, rows, blocks].
        const T* rows = in + plane * p.k_h * p.k_w * blocks;
        for (std::size_t i = 0; i < p.k_h; ++i) {
          for (std::size_t j = 0; j < p.k_w; ++j, rows += blocks) {
            for (std::size_t by = 0; by < p.out_h; ++by) {
              const std::size_t yy = by * o.stride[0] + i * o.dilation[0];
              if (yy < o.padding[0] || yy - o.padding[0] >= p.in_h) continue;
              T* line = dst + (yy - o.padding[0]) * p.in_w;
              const T* src = rows + by * p.out_w;
              for (std::size_t bx = 0; bx < p.out_w; ++bx) {
                const std::size_t xx = bx * o.stride[1] + j * o.dilation[1];
                if (xx < o.padding[1] || xx - o.padding[1] >= p.in_w) continue;
                line[xx - o.padding[1]] += src[bx];
              }
            }
          }
        }
      }
    });
  });
  return out;
}

}  // namespace crossgrad::backends
