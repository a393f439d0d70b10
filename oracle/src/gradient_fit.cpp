// Note [Every gradient fits its leaf] (crossgrad/oracle/gradient_fit.hpp).
#include <crossgrad/oracle/gradient_fit.hpp>

#include <crossgrad/oracle/build.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <crossgrad/oracle/render.hpp>

#include <crossgrad/crossgrad.hpp>

namespace crossgrad::oracle {

Failure gradient_misfit(const GraphSpec& g, const GraphRun& run, const Gradients& grads, DType dtype) {
  for (std::size_t i = 0; i < run.leaves.size() && i < g.leaf_shapes.size(); ++i) {
    const std::optional<DispatchTensor> grad = Dispatch::grad(run.leaves[i], grads);
    if (!grad) continue;
    const std::size_t backend = run.backends.at(i);
    const std::string leaf = "leaf " + std::to_string(i) + " (" + render_dtype(dtype) + render_shape(g.leaf_shapes[i]) + " on " +
                             all_backends().at(backend).name + ")";
    if (grad->kind.is_autodiff() || primitive_of(grad->kind) != PrimitiveKind::Float) {
      return leaf + ": its gradient is not a plain float tensor";
    }
    const DispatchDevice want_device = dispatch_device(backend, all_backends().at(backend).default_device, false);
    const DispatchDevice got_device = Dispatch::float_device(*grad);
    if (backend_of(grad->kind) != backend || !(got_device == want_device)) {
      return leaf + ": its gradient is on " + got_device.to_string() + ", not on the leaf's " + want_device.to_string();
    }
    const Shape shape = Dispatch::float_shape(*grad);
    if (shape.dims() != g.leaf_shapes[i]) return leaf + ": its gradient has shape " + render_shape(shape.dims());
    const DType got_dtype = Dispatch::float_dtype(*grad);
    if (got_dtype != dtype) return leaf + ": its gradient has dtype " + render_dtype(got_dtype);
  }
  return std::nullopt;
}

}  // namespace crossgrad::oracle
