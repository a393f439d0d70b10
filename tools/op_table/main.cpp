// crossgrad_op_table: prints docs/OP_TABLE.md (the op registry x the known backends) to stdout,
// or writes it to the path given. scripts/gen-docs runs it; the unit test
// OpRegistryDocs.OpTableIsGenerated checks the committed page against the same renderer.
#include "op_table.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>

int main(int argc, char** argv) {
  if (argc > 2) {
    std::fprintf(stderr, "usage: %s [OUT.md]\n", argv[0]);
    return 2;
  }
  const std::string page = crossgrad::op_table::render_op_table();
  if (argc == 1) {
    std::cout << page;
    return std::cout ? 0 : 1;
  }
  std::ofstream out(argv[1], std::ios::binary);
  out << page;
  if (!out) {
    std::fprintf(stderr, "crossgrad_op_table: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}
