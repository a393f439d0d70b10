// Model-based (rapidcheck/state.h): random sequences of backward / grad / grad_remove /
// grad_replace / inner / from_inner against a model of the Gradients container
// (oracle::GradientsSession checks every command against the oracle and the model). Graphs may
// span backends.
#include "gen/hops.hpp"
#include "gen/specs.hpp"
#include "support/prop.hpp"

#include <crossgrad/oracle/model.hpp>

#include <rapidcheck/state.h>

using namespace crossgrad;
using namespace crossgrad::properties;
namespace og = crossgrad::oracle;

namespace {

struct Model {
  std::size_t commands = 0;
};
struct Sut {
  og::GradientsSession session;
};
using Command = rc::state::Command<Model, Sut>;

struct Base : Command {
  void apply(Model& m) const override { ++m.commands; }
};

// Half the graphs span backends (hops, leaves on several backends: CONTRACT section 7), so the
// container holds entries of several backends from one backward and grad_replace meets a gradient
// of another backend of the same graph.
struct Backward : Base {
  og::GraphSpec graph = *rc::gen::weightedOneOf<og::GraphSpec>({{1, gen::graph(gen::Values::WithSpecials, og::all_ops(), 3)},
                                                                {1, gen::hop_graph(gen::Values::WithSpecials, og::all_ops(), 3)}});
  void run(const Model&, Sut& s) const override { require(s.session.backward(graph)); }
  void show(std::ostream& os) const override { os << "backward+extend " << graph; }
};
struct AddTensor : Base {
  og::DispatchSpec spec = *gen::dispatch(gen::kind_mix());
  void run(const Model&, Sut& s) const override { require(s.session.add_tensor(spec)); }
  void show(std::ostream& os) const override { os << "add " << spec; }
};
struct Grad : Base {
  std::size_t index = *rc::gen::inRange<std::size_t>(0, 64);
  void run(const Model&, Sut& s) const override { require(s.session.grad(index)); }
  void show(std::ostream& os) const override { os << "grad #" << index; }
};
struct GradRemove : Base {
  std::size_t index = *rc::gen::inRange<std::size_t>(0, 64);
  void run(const Model&, Sut& s) const override { require(s.session.grad_remove(index)); }
  void show(std::ostream& os) const override { os << "grad_remove #" << index; }
};
struct GradReplace : Base {
  std::size_t index = *rc::gen::inRange<std::size_t>(0, 64);
  og::DispatchSpec grad = *gen::dispatch(rc::gen::weightedOneOf<og::KindSpec>(
      {{6, rc::gen::mapcat(gen::backend(), [](std::size_t b) { return gen::plain_float_kind_on(b); })}, {4, gen::kind_mix()}}));
  void run(const Model&, Sut& s) const override { require(s.session.grad_replace(index, grad)); }
  void show(std::ostream& os) const override { os << "grad_replace #" << index << " with " << grad; }
};
struct BackwardOf : Base {
  std::size_t index = *rc::gen::inRange<std::size_t>(0, 64);
  void run(const Model&, Sut& s) const override { require(s.session.backward_of(index)); }
  void show(std::ostream& os) const override { os << "backward #" << index; }
};
struct Inner : Base {
  std::size_t index = *rc::gen::inRange<std::size_t>(0, 64);
  void run(const Model&, Sut& s) const override { require(s.session.inner(index)); }
  void show(std::ostream& os) const override { os << "inner #" << index; }
};
struct FromInner : Base {
  std::size_t index = *rc::gen::inRange<std::size_t>(0, 64);
  void run(const Model&, Sut& s) const override { require(s.session.from_inner(index)); }
  void show(std::ostream& os) const override { os << "from_inner #" << index; }
};

}  // namespace

CG_PROP(GradientsModel, CommandSequencesMatchModel, 500, ()) {
  Model model;
  Sut sut;
  rc::state::check(model, sut,
                   rc::state::gen::execOneOfWithArgs<Backward, Backward, AddTensor, Grad, GradRemove, GradReplace,
                                                     GradReplace, BackwardOf, Inner, FromInner>());
}
