// The `privamp` command as a function of its arguments: what main() runs (cli/main.cpp). Declared without the
// command-line library's header, which only cli/ compiles (once: its folder is one translation unit).
#pragma once

namespace privamp::cli {

// Parses the arguments, runs the subcommand and returns the exit status: 0 ok, 1 a violation or a failed
// computation, 2 bad input (reported on standard error before anything runs).
int run(int argc, char** argv);

}  // namespace privamp::cli
