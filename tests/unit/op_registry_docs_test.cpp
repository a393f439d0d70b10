// The docs follow the op registry (ops/op_list.hpp): docs/OP_TABLE.md is exactly what the
// registry renders (tools/op_table, scripts/gen-docs), and every registry op has its semantics
// written in docs/OPS.md's "Op semantics" section. A new X(...) line without `scripts/gen-docs`
// and without its semantics text fails here.
#include "../../tools/op_table/op_table.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace crossgrad {
namespace {

const std::filesystem::path kSourceDir = CROSSGRAD_SOURCE_DIR;

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(OpRegistryDocs, OpTableIsGenerated) {
  const std::filesystem::path committed = kSourceDir / "docs" / "OP_TABLE.md";
  const std::string page = op_table::render_op_table();
  ASSERT_TRUE(std::filesystem::exists(committed)) << committed << " is missing: run scripts/gen-docs";
  const std::string on_disk = read_file(committed);
  if (on_disk == page) return;
  // Only on a mismatch, and into the temp dir: run from the source tree, the test must not leave
  // an OP_TABLE.md beside the sources. The file is there so the hint below can name it to diff.
  const std::filesystem::path regenerated = std::filesystem::temp_directory_path() / "crossgrad-OP_TABLE.regenerated.md";
  std::ofstream(regenerated, std::ios::binary) << page;
  const auto want = lines_of(page), have = lines_of(on_disk);
  std::size_t line = 0;
  while (line < want.size() && line < have.size() && want[line] == have[line]) ++line;
  ADD_FAILURE() << "docs/OP_TABLE.md differs from what the op registry renders: run scripts/gen-docs\n"
                << "  diff -u " << committed.string() << " " << regenerated.string() << "\n"
                << "first difference at line " << line + 1 << ":\n"
                << "  committed:   " << (line < have.size() ? have[line] : "<end of file>") << "\n"
                << "  regenerated: " << (line < want.size() ? want[line] : "<end of file>");
}

// The table is one row per op and one column per known backend, whatever this build contains.
TEST(OpRegistryDocs, OpTableHasEveryOpAndEveryKnownBackend) {
  const std::string page = op_table::render_op_table();
  for (const OpInfo& op : kOps) {
    std::string cell = "| `";
    cell.append(op.name).append("` | `").append(op.method).append("` |");
    EXPECT_NE(page.find(cell), std::string::npos) << op.name << " has no row";
  }
  for (const KnownBackend& b : kKnownBackends) {
    std::string column = " ";
    column.append(b.name).append(" |");
    EXPECT_NE(page.find(column), std::string::npos) << b.name << " has no column";
  }
}

// docs/OPS.md's section "## Op semantics" (up to the next "## " heading) names every op as `name`.
TEST(OpRegistryDocs, EveryOpHasSemanticsInOpsMd) {
  const std::string ops_md = read_file(kSourceDir / "docs" / "OPS.md");
  const std::string heading = "\n## Op semantics\n";
  const auto begin = ops_md.find(heading);
  ASSERT_NE(begin, std::string::npos) << "docs/OPS.md has no \"## Op semantics\" section";
  const auto end = ops_md.find("\n## ", begin + heading.size());
  const std::string section = ops_md.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  for (const OpInfo& op : kOps) {
    std::string quoted = "`";
    quoted.append(op.name).append("`");
    EXPECT_NE(section.find(quoted), std::string::npos)
        << op.name << " is in the op registry but not in docs/OPS.md's \"Op semantics\" section: "
        << "write its semantics and backward rule there";
  }
}

}  // namespace
}  // namespace crossgrad
