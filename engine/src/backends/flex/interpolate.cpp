// Flex: interpolate plane by plane instead of the composite's passes of select, mul and add over
// the whole tensor (Note [Interpolation as separable taps]): each input row interpolated along the
// width into a scratch plane, then those rows combined along the height; the same taps and weights
// and the same terms in the same order (x * b summed left to right, then row * a summed left to
// right, in the dtype; nearest without products), so the same bits as every other backend. Runs
// of [batch, channels] planes go to Flex's threads; the backward pass below does the same for the
// composite's select_add adjoint.
#include <crossgrad/backends/flex.hpp>

#include "../composite_interpolate.hpp"
#include "backends/host_pool.hpp"
#include "common.hpp"
#include "thread_pool.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace crossgrad::backends {
namespace {

// An axis's weights as one flat array of T (their own values): tap j's weight for output o at
// j * outputs + o.
template <class T>
std::vector<T> flat_weights(const composite::AxisTaps& taps) {
  std::vector<T> out;
  for (std::size_t j = 0; j < taps.count; ++j) out.insert(out.end(), taps.weight[j].begin(), taps.weight[j].end());
  return out;
}

}  // namespace

FlexTensor Flex::interpolate(const FlexTensor& x, const Size2& output_size, const InterpolateOptions& options) {
  const rules::Pool2dPlan p = rules::plan_interpolate(x.shape, x.dtype, output_size, options);
  FlexTensor out = host_pool::make<FlexTensor>(p.out, x.dtype);
  if (p.out.num_elements() == 0) return out;
  const composite::AxisTaps rows = composite::axis_taps(p.in_h, p.out_h, options, x.dtype);
  const composite::AxisTaps cols = composite::axis_taps(p.in_w, p.out_w, options, x.dtype);
  const bool weighted = composite::weighted(options);
  host::with_float_type(x.dtype, [&]<class T>(T) {
    const std::vector<T> a = flat_weights<T>(rows), b = flat_weights<T>(cols);
    const T* in = x.template data<T>();
    T* y = out.template mutable_data<T>();
    const std::size_t plane_in = p.in_h * p.in_w, plane_out = p.out_h * p.out_w;
    const std::size_t per_plane = p.in_h * p.out_w * cols.count + plane_out * rows.count;
    const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / per_plane);
    flex::parallel_range(p.planes, grain, [&](std::size_t begin, std::size_t end) {
      std::vector<T> widths(p.in_h * p.out_w);  // every input row interpolated along the width
      for (std::size_t c = begin; c < end; ++c) {
        const T* src = in + c * plane_in;
        T* dst = y + c * plane_out;
        for (std::size_t h = 0; h < p.in_h; ++h) {
          const T* line = src + h * p.in_w;
          T* t = widths.data() + h * p.out_w;
          const std::int64_t* at = cols.index[0].data();
          if (!weighted) {
            for (std::size_t ow = 0; ow < p.out_w; ++ow) t[ow] = line[at[ow]];
            continue;
          }
          for (std::size_t ow = 0; ow < p.out_w; ++ow) t[ow] = line[at[ow]] * b[ow];
          for (std::size_t k = 1; k < cols.count; ++k) {
            const std::int64_t* atk = cols.index[k].data();
            const T* bk = b.data() + k * p.out_w;
            for (std::size_t ow = 0; ow < p.out_w; ++ow) t[ow] = t[ow] + line[atk[ow]] * bk[ow];
          }
        }
        for (std::size_t oh = 0; oh < p.out_h; ++oh) {
          T* d = dst + oh * p.out_w;
          const T* r0 = widths.data() + std::size_t(rows.index[0][oh]) * p.out_w;
          if (!weighted) {
            std::copy(r0, r0 + p.out_w, d);
            continue;
          }
          const T a0 = a[oh];
          for (std::size_t ow = 0; ow < p.out_w; ++ow) d[ow] = r0[ow] * a0;
          for (std::size_t j = 1; j < rows.count; ++j) {
            const T* rj = widths.data() + std::size_t(rows.index[j][oh]) * p.out_w;
            const T aj = a[j * p.out_h + oh];
            for (std::size_t ow = 0; ow < p.out_w; ++ow) d[ow] = d[ow] + rj[ow] * aj;
          }
        }
      }
    });
  });
  return out;
}

// The adjoint, plane by plane in the composite's order: the gradient times each height tap's weight
// added into the rows it read (taps in order, outputs in order), then those rows times each width
// tap's weight added into the columns (the same): the bits of select_add's passes.
FlexTensor Flex::interpolate_backward(const FlexTensor& x, const FlexTensor& grad, const Size2& output_size,
                                      const InterpolateOptions& options) {
  const rules::Pool2dPlan p = rules::plan_interpolate_backward(x.shape, x.dtype, grad.shape, grad.dtype, output_size, options);
  FlexTensor out = host_pool::make<FlexTensor>(x.shape, x.dtype);
  const composite::AxisTaps rows = composite::axis_taps(p.in_h, p.out_h, options, x.dtype);
  const composite::AxisTaps cols = composite::axis_taps(p.in_w, p.out_w, options, x.dtype);
  const bool weighted = composite::weighted(options);
  host::with_float_type(x.dtype, [&]<class T>(T) {
    T* dx = out.template mutable_data<T>();
    const std::size_t plane_in = p.in_h * p.in_w, plane_out = p.out_h * p.out_w;
    std::fill(dx, dx + p.planes * plane_in, T(0));
    if (plane_out == 0) return;
    const std::vector<T> a = flat_weights<T>(rows), b = flat_weights<T>(cols);
    const T* g = grad.template data<T>();
    const std::size_t per_plane = plane_out * rows.count + p.in_h * p.out_w * cols.count;
    const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / per_plane);
    flex::parallel_range(p.planes, grain, [&](std::size_t begin, std::size_t end) {
      std::vector<T> heights(p.in_h * p.out_w);  // the gradient added back along the height
      for (std::size_t c = begin; c < end; ++c) {
        const T* src = g + c * plane_out;
        T* dst = dx + c * plane_in;
        std::fill(heights.begin(), heights.end(), T(0));
        for (std::size_t j = 0; j < rows.count; ++j) {
          for (std::size_t oh = 0; oh < p.out_h; ++oh) {
            T* r = heights.data() + std::size_t(rows.index[j][oh]) * p.out_w;
            const T* line = src + oh * p.out_w;
            if (!weighted) {
              for (std::size_t ow = 0; ow < p.out_w; ++ow) r[ow] += line[ow];
              continue;
            }
            const T aj = a[j * p.out_h + oh];
            for (std::size_t ow = 0; ow < p.out_w; ++ow) r[ow] += line[ow] * aj;
          }
        }
        for (std::size_t h = 0; h < p.in_h; ++h) {
          const T* r = heights.data() + h * p.out_w;
          T* line = dst + h * p.in_w;
          for (std::size_t k = 0; k < cols.count; ++k) {
            const std::int64_t* at = cols.index[k].data();
            const T* bk = b.data() + k * p.out_w;
            if (!weighted) {
              for (std::size_t ow = 0; ow < p.out_w; ++ow) line[at[ow]] += r[ow];
            } else {
              for (std::size_t ow = 0; ow < p.out_w; ++ow) line[at[ow]] += r[ow] * bk[ow];
            }
          }
        }
      }
    });
  });
  return out;
}

}  // namespace crossgrad::backends
