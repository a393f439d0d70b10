// docs/OPS.md's "Accuracy in ulps" table says what the oracle's one table of ulp bounds says (Note
// [One table of ulp bounds], oracle/ulp_bounds.hpp): one row per op of the table, with its F32 and
// F64 bounds, and no row for an op outside it. Editing either alone fails here.
#include <crossgrad/oracle/numeric.hpp>
#include <crossgrad/oracle/ulp_bounds.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>

namespace crossgrad {
namespace {

const std::filesystem::path kSourceDir = CROSSGRAD_SOURCE_DIR;

std::string section_of(const std::string& heading) {
  std::ifstream in(kSourceDir / "docs" / "OPS.md", std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  const std::string page = text.str();
  const auto begin = page.find("\n" + heading + "\n");
  if (begin == std::string::npos) return {};
  const auto end = page.find("\n## ", begin + heading.size() + 1);
  return page.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

// Rows "| `op` | f32 | f64 | ..." of the section, by op name.
std::map<std::string, std::pair<std::string, std::string>> rows_of(const std::string& section) {
  std::map<std::string, std::pair<std::string, std::string>> rows;
  std::istringstream in(section);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    std::vector<std::string> cells;
    std::istringstream cols(line.substr(1));
    for (std::string cell; std::getline(cols, cell, '|');) {
      const auto a = cell.find_first_not_of(' '), b = cell.find_last_not_of(' ');
      cells.push_back(a == std::string::npos ? "" : cell.substr(a, b - a + 1));
    }
    if (cells.size() < 3) continue;
    rows[cells[0].substr(1, cells[0].size() - 2)] = {cells[1], cells[2]};
  }
  return rows;
}

std::string number(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

TEST(OpAccuracyDocs, TheUlpTableInOpsMdIsTheOraclesTable) {
  const std::string section = section_of("## Accuracy in ulps");
  ASSERT_FALSE(section.empty()) << "docs/OPS.md has no \"## Accuracy in ulps\" section";
  const auto rows = rows_of(section);
  for (const OpInfo& op : kOps) {
    const std::string name(op.name);
    const auto bound = oracle::ulp_bound(op.id);
    const auto row = rows.find(name);
    if (!bound) {
      EXPECT_EQ(row, rows.end()) << name << " has a row in docs/OPS.md's ulp table but no bound in oracle/src/ulp_bounds.cpp";
      continue;
    }
    ASSERT_NE(row, rows.end()) << name << " has an ulp bound in oracle/src/ulp_bounds.cpp but no row in docs/OPS.md";
    EXPECT_EQ(row->second.first, number(bound->f32)) << name << " F32";
    EXPECT_EQ(row->second.second, number(bound->f64)) << name << " F64";
  }
  for (const auto& [name, cells] : rows) {
    bool known = false;
    for (const OpInfo& op : kOps) known = known || op.name == name;
    EXPECT_TRUE(known) << "docs/OPS.md's ulp table names `" << name << "`, which is not a registry op";
  }
}

// bound_for, the oracle's tolerance for comparing an op's values, says the same: an op of 0 ulps is
// exact (bit for bit), and any other has the relative bound 2 ulps * eps (two results each within
// the table's ulps of the correctly rounded value).
TEST(OpAccuracyDocs, BoundForAgreesWithTheUlpTable) {
  for (const OpInfo& op : kOps) {
    const auto bound = oracle::ulp_bound(op.id);
    if (!bound) continue;
    for (const auto& [dtype, eps] : {std::pair{DType::F32, 0x1p-23}, std::pair{DType::F64, 0x1p-52}}) {
      SCOPED_TRACE(std::string(op.name) + " " + std::string(dtype_name(dtype)));
      const oracle::Bound b = oracle::bound_for(op.id, dtype, 1, 1.0);
      EXPECT_EQ(b.exact, bound->of(dtype) == 0);
      if (!b.exact) {
        EXPECT_EQ(b.rel, 2 * bound->of(dtype) * eps);
      }
    }
  }
}

}  // namespace
}  // namespace crossgrad
