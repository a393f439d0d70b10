#pragma once
// Umbrella header of the oracle library (crossgrad::oracle).
#include <crossgrad/oracle/build.hpp>
#include <crossgrad/oracle/checks.hpp>
#include <crossgrad/oracle/expect.hpp>
#include <crossgrad/oracle/graph.hpp>
#include <crossgrad/oracle/model.hpp>
#include <crossgrad/oracle/numeric.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <crossgrad/oracle/render.hpp>
#include <crossgrad/oracle/snapshot.hpp>
#include <crossgrad/oracle/spec.hpp>
