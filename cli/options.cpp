// Options shared by the subcommands: comma-separated lists and the progress bar.
#include <unistd.h>

#include <cstdio>
#include <mutex>
#include <memory>
#include <cmath>
#include <chrono>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "numerics/work_limit.hpp"
#include "numerics/errors.hpp"
#include "numerics/escape.hpp"

namespace privamp::cli {

std::string data_path(const std::string& name) {
  std::error_code error;
  if (std::filesystem::exists(name, error)) return name;
  const auto executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return name;
  // Installed by CMake (PREFIX/bin/privamp, PREFIX/share/privamp) or inside the Python package (privamp/bin/privamp,
  // privamp/data).
  const auto root = executable.parent_path().parent_path();
  for (const auto& installed : {root / "share" / "privamp" / name, root / "data" / name})
    if (std::filesystem::exists(installed, error)) return installed.string();
  return name;
}

std::vector<std::filesystem::path> input_paths(const std::vector<std::string>& given) {
  std::vector<std::filesystem::path> out;
  for (const std::string& p : given) {
    std::error_code error;
    const std::string shipped = std::filesystem::exists(p, error) ? p : data_path(p);
    if (shipped != p)
      std::fprintf(stderr, "privamp: %s is not in this folder: reading the copy installed with privamp, %s\n",
                   escape::plain(p).c_str(), escape::plain(shipped).c_str());
    out.emplace_back(shipped);
  }
  return out;
}

namespace {
std::string& command_line_text() {
  static std::string text;
  return text;
}
}  // namespace

void set_command_line(int argc, const char* const* argv) {
  std::string& text = command_line_text();
  text.clear();
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    const bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=,:+-") == std::string::npos;
    if (i > 0) text += ' ';
    if (plain) {
      text += a;
      continue;
    }
    // An argument with a control character, a bidirectional control or invalid UTF-8 in bash's $'...' quoting, each
    // such byte as an escape: the command line stays one line that a shell reads back as typed (a newline in an
    // argument broke the HTML report's command line in two, and an escape sequence would reach a terminal).
    if (!escape::text_problem(a).empty()) {
      text += "$'";
      for (unsigned char c : a) {
        if (c == '\'' || c == '\\') text += '\\', text += static_cast<char>(c);
        else if (c == '\n') text += "\\n";
        else if (c == '\t') text += "\\t";
        else if (c < 0x20 || c >= 0x7f) text += fmt::format("\\x{:02x}", c);
        else text += static_cast<char>(c);
      }
      text += '\'';
      continue;
    }
    text += '\'';
    for (char c : a) text += c == '\'' ? std::string("'\\''") : std::string(1, c);
    text += '\'';
  }
}

const std::string& command_line() { return command_line_text(); }

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::vector<std::string> list_option(const std::string& command, const std::string& option, const std::string& text) {
  std::vector<std::string> items = split(text);
  if (items.empty() && !text.empty())
    invalid_input("{} {} '{}': names nothing (give a comma-separated list such as E1,T5)", command, option, text);
  return items;
}

std::function<void(std::size_t, std::size_t)> terminal_progress(const std::string& unit) {
  // On a terminal a bar redrawn in place (at most ten times a second); otherwise (a log, CI) one line every
  // kLogSeconds, so long runs show they are alive without flooding the log. Both with the time left, extrapolated
  // from the rate so far.
  constexpr double kLogSeconds = 5;
  struct State {
    std::mutex mutex;
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now(), last = start;
    bool printed = false;
  };
  const bool tty = isatty(STDERR_FILENO);
  return [unit, tty, state = std::make_shared<State>()](std::size_t done, std::size_t total) {
    std::lock_guard lock(state->mutex);
    const auto now = std::chrono::steady_clock::now();
    const double since_last = std::chrono::duration<double>(now - state->last).count(),
                 elapsed = std::chrono::duration<double>(now - state->start).count();
    const bool finished = done >= total;
    if (!finished && since_last < (tty ? 0.1 : kLogSeconds)) return;
    if (finished && !state->printed) return;  // a short run: nothing to report (on a terminal too)
    state->last = now;
    state->printed = true;
    const std::string left = done > 0 && !finished
                                 ? ", about " + duration_text(elapsed * static_cast<double>(total - done) / static_cast<double>(done)) + " left"
                                 : "";
    if (tty) {
      const int width = 40, filled = static_cast<int>(width * done / std::max<std::size_t>(total, 1));
      std::fprintf(stderr, "\r[%s%s] %zu/%zu %s%s   ", std::string(filled, '#').c_str(), std::string(width - filled, ' ').c_str(),
                   done, total, unit.c_str(), left.c_str());
      if (finished) std::fprintf(stderr, "\n");
    } else {
      std::fprintf(stderr, "privamp: %zu/%zu %s (%.0f%%), %s elapsed%s\n", done, total, unit.c_str(),
                   100.0 * static_cast<double>(done) / static_cast<double>(std::max<std::size_t>(total, 1)),
                   duration_text(elapsed).c_str(), left.c_str());
    }
  };
}

}  // namespace privamp::cli
