// The atoll command line: compile, run, explain (see shared/spec/cli.md).
#include "src/runtime/version.h"

#include <cstring>
#include <iostream>

int main(int argc, char **argv) {
  if (argc >= 2 && std::strcmp(argv[1], "--version") == 0) {
    std::cout << atl::version_text();
    return 0;
  }
  std::cerr << "usage: atoll compile|run|explain BATCH.json ...\n";
  return 2;
}
