// The `privamp` command: its subcommands (cli/*_command.cpp), parsing, and the exit status of every error.
#include "cli/app.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstring>
#include <system_error>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>

#include <unistd.h>

#include "numerics/errors.hpp"
#include "numerics/escape.hpp"
#include "cli/commands.hpp"
#include "cli/version.hpp"

namespace {

// Ctrl-C and SIGTERM stop a run at once, as they always did, and now say so: which state the outputs are in (every
// file is written to a temporary and renamed, so each is the old one or the complete new one). The handler writes a
// fixed text and re-raises the signal with its default action, so that a calling shell sees the program die of it
// (a loop in a script stops too). Only write(2), signal(2) and raise(3): all async-signal-safe.
extern "C" void stop_on_signal(int sig) {
  static const char kInt[] = "\nprivamp: interrupted (SIGINT): stopped at once; every output file is the old one or "
                             "a complete new one, none is half-written\n";
  static const char kTerm[] = "\nprivamp: terminated (SIGTERM): stopped at once; every output file is the old one or "
                              "a complete new one, none is half-written\n";
  const char* text = sig == SIGINT ? kInt : kTerm;
  const std::size_t size = sig == SIGINT ? sizeof kInt - 1 : sizeof kTerm - 1;
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, text, size);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// "option --seed = '1e3' is not a whole number >= 0 (random seed)": from CLI11's "Could not convert: --seed = 1e3",
// the option's type and its description in the command that was given.
// The option called `name` in the command that was given, and "command: " (or null and "").
std::pair<const CLI::Option*, std::string> given_option(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : app.get_subcommands())
    if (const CLI::Option* o = sub->get_option_no_throw(name)) return {o, sub->get_name() + ": "};
  return {app.get_option_no_throw(name), ""};
}

std::string conversion_message(const CLI::App& app, const std::string& what) {
  const auto colon = what.find(": "), equals = what.find(" = ");
  if (colon == std::string::npos || equals == std::string::npos || equals < colon) return what;
  const std::string name = what.substr(colon + 2, equals - colon - 2), value = what.substr(equals + 3);
  const auto [option, command] = given_option(app, name);
  if (!option) return what;
  const std::string type = option->get_type_name();
  const std::string kind = type == "UINT" ? "a whole number >= 0" : type == "INT" ? "a whole number" : type == "FLOAT" ? "a number"
                                                                                                   : "a value of type " + type;
  return fmt::format("{}option {} = '{}' is not {} ({})", command, name, value, kind, option->get_description());
}

// "explore: option --seed = '0x10' is not a whole number: decimal digits ... (seed of the Sobol rotation)": from a
// validator's "--seed: '0x10' is not a whole number: ...", with the command and the option's description.
std::string validation_message(const CLI::App& app, const std::string& what) {
  const auto colon = what.find(": ");
  if (colon == std::string::npos) return what;
  const std::string name = what.substr(0, colon);
  const auto [option, command] = given_option(app, name);
  if (!option) return what;
  return fmt::format("{}option {} = {} ({})", command, name, what.substr(colon + 2), option->get_description());
}

// Numbers typed strictly, and text options never empty, before CLI11 converts them: its conversion reads 010 as octal 8 and 0x10 as 16, and turns
// 99999999999999999999 into the largest integer without a word. Whole numbers are decimal digits within 64 bits
// (rewritten without leading zeros); numbers are decimal, finite and within a double's range ("inf", where a
// supremum is meant, is read by the list parser, not here).
void type_numbers_strictly(CLI::App& app) {
  // (an option that cannot be negative takes digits alone: `--seed +1` and `--jobs -0` were read as 1 and 0)
  const auto whole = [](bool can_be_negative) {
    return CLI::Validator(
        [can_be_negative](std::string& s) -> std::string {
          const std::size_t sign = can_be_negative && !s.empty() && s[0] == '-' ? 1 : 0;
          long long value = 0;
          const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
          if (s.size() == sign || s.find_first_not_of("0123456789", sign) != std::string::npos || ec != std::errc() ||
              end != s.data() + s.size())
            return fmt::format("'{}' is not a whole number: decimal digits{}, at most 9223372036854775807 in size", s,
                               can_be_negative ? " (a minus sign before them or none)" : "");
          s = std::to_string(value);  // CLI11 reads a leading 0 as octal: 010 is 10 here
          return "";
        },
        "");
  };
  const CLI::Validator real(
      [](std::string& s) -> std::string {
        double value = 0;
        const char* begin = s.data() + (!s.empty() && s[0] == '+' ? 1 : 0);
        const auto [end, ec] = std::from_chars(begin, s.data() + s.size(), value);
        if (privamp::outside_double_range(ec, value) && end == s.data() + s.size())
          return fmt::format("'{}' is out of the range of doubles: {}", s, privamp::kDoubleRange);
        if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(value) ||
            s.find_first_not_of("+-.0123456789eE") != std::string::npos)
          return fmt::format("'{}' is not a number: decimal or exponent notation, e.g. 0.5 or 1e-5", s);
        return "";
      },
      "");
  // No text option means anything when empty: `--out ''` once wrote nothing and said nothing.
  const CLI::Validator given([](std::string& s) -> std::string { return s.empty() ? "'' is empty: give a value, or leave the option out" : ""; },
                             "");
  std::vector<CLI::App*> apps{&app};
  for (std::size_t i = 0; i < apps.size(); ++i) {
    for (CLI::Option* option : apps[i]->get_options()) {
      const std::string type = option->get_type_name();
      if (type == "INT" || type == "UINT") option->transform(whole(type == "INT"));
      if (type == "FLOAT") option->check(real);
      if (type == "TEXT") option->check(given);
    }
    for (CLI::App* sub : apps[i]->get_subcommands([](CLI::App*) { return true; })) apps.push_back(sub);
  }
}

}  // namespace

namespace privamp::cli {

int run(int argc, char** argv) {
  const privamp::cli::Processes processes(&argc, &argv);
  const bool root = privamp::cli::process_communicator().rank() == 0;  // only rank 0 reports errors
  privamp::cli::set_command_line(argc, argv);
  CLI::App app{"privamp — exact Renyi and hockey-stick divergences, and checks of privacy-amplification theorems"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("privamp ") + privamp::cli::kVersion + " (commit " + privamp::cli::kCommit + ")",
                       "print the version and the commit it was built from, and exit");
  std::vector<privamp::cli::Action> actions = {
      privamp::cli::add_verify_command(app), privamp::cli::add_list_command(app), privamp::cli::add_figures_command(app),
      privamp::cli::add_divergence_command(app), privamp::cli::add_account_command(app), privamp::cli::add_laws_command(app),
      privamp::cli::add_engines_command(app), privamp::cli::add_kernel_command(app), privamp::cli::add_explore_command(app)};
  type_numbers_strictly(app);
  // "-hgaussian(0,1)" would be read as the help flag: a law never starts with '-', so say what is wrong.
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.size() > 2 && a[0] == '-' && a[1] == 'h') {
      std::cerr << "privamp: error: unknown option '" << privamp::escape::plain(a) << "' (-h takes no value; a law expression starts with a name)\n";
      return 2;
    }
  }
  // A misspelt command: name it and suggest the nearest ("privamp verfy": did you mean 'verify'?).
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      if (root)
        std::cerr << "privamp: error: unknown command '" << privamp::escape::plain(argv[1]) << "' (" << privamp::did_you_mean(argv[1], names) << "commands: "
                  << fmt::format("{}", fmt::join(names, ", ")) << ")\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ConversionError& e) {
    // CLI11 says "Could not convert: --seed = 1e3": name the option, the value and what it takes instead.
    if (root) std::cerr << "privamp: error: " << privamp::escape::plain(conversion_message(app, e.what()), true) << "\n";
    return 2;
  } catch (const CLI::ValidationError& e) {
    if (root) std::cerr << "privamp: error: " << privamp::escape::plain(validation_message(app, e.what()), true) << "\n";
    return 2;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // CLI11's message quotes the argument it did not expect: printable, as every message (an escape sequence in an
    // argument reached the terminal).
    if (root) std::cerr << privamp::escape::plain(e.what(), true) << "\nRun with --help for more information.\n";
    return 2;
  }
  // One process: the handler above. Under MPI the launcher forwards signals to every rank; each stops as before.
  if (privamp::cli::process_communicator().size() == 1) {
    // A signal ignored at start (a background job of a script, nohup) stays ignored.
    for (int sig : {SIGINT, SIGTERM})
      if (std::signal(sig, stop_on_signal) == SIG_IGN) std::signal(sig, SIG_IGN);
  }
  try {
    for (const auto& action : actions) {
      const int status = action();
      if (status >= 0) return status;
    }
  } catch (const privamp::InvalidArgument& e) {
    if (root) std::cerr << "privamp: error: " << privamp::escape::plain(e.what(), true) << "\n";
    return 2;
  } catch (const std::exception& e) {
    if (root) std::cerr << "privamp: computation failed: " << privamp::escape::plain(e.what(), true) << "\n";
    return 1;
  }
  return 0;
}

}  // namespace privamp::cli
