// Options shared by the subcommands: comma-separated lists and the progress bar.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "numerics/errors.hpp"

namespace privamp::cli {

std::string data_path(const std::string& name) {
  std::error_code error;
  if (std::filesystem::exists(name, error)) return name;
  const auto executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return name;
  const auto installed = executable.parent_path().parent_path() / "share" / "privamp" / name;
  return std::filesystem::exists(installed, error) ? installed.string() : name;
}

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
    throw InvalidArgument(fmt::format("{} {} '{}': names nothing (give a comma-separated list such as E1,T5)", command, option, text));
  return items;
}

std::function<void(std::size_t, std::size_t)> terminal_progress(const std::string& unit) {
  if (!isatty(STDERR_FILENO)) return {};
  return [unit](std::size_t done, std::size_t total) {
    const int width = 40, filled = static_cast<int>(width * done / std::max<std::size_t>(total, 1));
    std::fprintf(stderr, "\r[%s%s] %zu/%zu %s", std::string(filled, '#').c_str(), std::string(width - filled, ' ').c_str(),
                 done, total, unit.c_str());
    if (done == total) std::fprintf(stderr, "\n");
  };
}

}  // namespace privamp::cli
