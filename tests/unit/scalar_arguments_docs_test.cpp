// docs/OPS.md's "Scalar arguments" section says how every registry op that takes a double scalar
// (Sig Scalar, Bounds, Affine or MaskFill) converts it to the tensor's dtype: a new such op fails here until its row
// is written. (What the conversion is, is checked by properties/scalar_rounding_props.cpp.)
#include <crossgrad/ops/op_list.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace crossgrad {
namespace {

const std::filesystem::path kSourceDir = CROSSGRAD_SOURCE_DIR;

TEST(ScalarArgumentsDocs, EveryOpWithAScalarHasARowInOpsMd) {
  std::ifstream in(kSourceDir / "docs" / "OPS.md", std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  const std::string page = text.str();
  const std::string heading = "\n## Scalar arguments\n";
  const auto begin = page.find(heading);
  ASSERT_NE(begin, std::string::npos) << "docs/OPS.md has no \"## Scalar arguments\" section";
  const auto end = page.find("\n## ", begin + heading.size());
  const std::string section = page.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  for (const OpInfo& op : kOps) {
    if (op.sig != OpSig::Scalar && op.sig != OpSig::Bounds && op.sig != OpSig::Affine && op.sig != OpSig::MaskFill) continue;
    EXPECT_NE(section.find("| `" + std::string(op.name) + "` |"), std::string::npos)
        << op.name << " takes a double scalar but docs/OPS.md's \"Scalar arguments\" table has no row for it";
  }
}

}  // namespace
}  // namespace crossgrad
