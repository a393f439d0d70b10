#pragma once
// CG_PROP: RC_GTEST_PROP with a per-property default number of cases. RC_PARAMS still wins:
// `RC_PARAMS="max_success=50"` runs fewer, `RC_PARAMS="reproduce=..."` replays one failure.
#include <crossgrad/oracle/checks.hpp>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>

namespace crossgrad::properties {

// The grad_replace properties run at least this many cases by default (issue 3).
inline constexpr int kGradReplaceCases = 1000;

// Runs `testable` as the current Google Test with `default_cases` successes unless RC_PARAMS
// sets max_success; prints RapidCheck's reproduce string on failure.
void run_property(const rc::detail::Property& property, int default_cases);

template <class Testable>
void check_property(Testable&& testable, int default_cases) {
  run_property(rc::detail::toProperty(std::forward<Testable>(testable)), default_cases);
}

// Fails the current RapidCheck case with the oracle's message.
inline void require(const oracle::Failure& failure) {
  if (failure) RC_FAIL(*failure);
}

}  // namespace crossgrad::properties

#define CG_PROP(TestCase, Name, Cases, ArgList)                                               \
  void cgProp_##TestCase##_##Name ArgList;                                                   \
  TEST(TestCase, Name) { ::crossgrad::properties::check_property(&cgProp_##TestCase##_##Name, (Cases)); } \
  void cgProp_##TestCase##_##Name ArgList
