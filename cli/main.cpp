// privamp: exact divergences and privacy-amplification bounds. The command is cli/app.cpp; subcommands are in cli/.
#include "cli/app.hpp"

int main(int argc, char** argv) { return privamp::cli::run(argc, argv); }
