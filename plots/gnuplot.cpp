#include "plots/gnuplot.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "numerics/errors.hpp"

namespace privamp::plots {

std::string quoted(const std::string& text) {
  std::string q = "'";
  for (char c : text) {
    if (c == '\'') q += "''";
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) q += ' ';
    else q += c;
  }
  return q + "'";
}

std::string literal(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '_' || c == '^' || c == '@' || c == '&' || c == '~' || c == '{' || c == '}' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

bool has_control_character(const std::string& text) {
  for (char c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  return false;
}

bool is_key_position_word(const std::string& word) {
  static const std::set<std::string> words = {"below", "above", "top", "bottom", "left", "right", "center", "inside", "outside"};
  return words.count(word) > 0;
}

std::string KeyOptions::render() const {
  if (off) return "off";
  std::string s = position;
  s += box ? " box" : " nobox";
  s += opaque ? " opaque" : " noopaque";
  if (columns > 0) s += fmt::format(" maxcols {}", columns);
  // Below the plot, a line of space above the key keeps it clear of the x axis label.
  if (position.find("below") != std::string::npos) s += " height 1";
  return s;
}

KeyOptions parse_key_words(const std::string& words) {
  KeyOptions k;
  std::vector<std::string> position;
  std::istringstream in(words);
  std::string w;
  while (in >> w) {
    if (is_key_position_word(w)) position.push_back(w);
    else if (w == "box") k.box = true;
    else if (w == "nobox") k.box = false;
    else if (w == "opaque") k.opaque = true;
    else if (w == "noopaque") k.opaque = false;
    else if (w == "off") k.off = true;
    else
      throw InvalidArgument(fmt::format(
          "'{}' is not a key word (allowed: below, above, top, bottom, left, right, center, inside, outside, box, nobox, "
          "opaque, noopaque, off; or a table {{position = \"top left\", box = true, opaque = false, columns = 2}})",
          w));
  }
  if (!position.empty()) {
    k.position.clear();
    for (const auto& p : position) k.position += (k.position.empty() ? "" : " ") + p;
  }
  return k;
}

namespace {

// The executable `name` on PATH, or "" (what `command -v` finds, without a shell).
std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    // Absolute: gnuplot is started after changing into the output folder.
    const std::string candidate = std::filesystem::absolute(std::filesystem::path(dir.empty() ? "." : dir) / name).string();
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

}  // namespace

bool gnuplot_available() { return !find_on_path("gnuplot").empty(); }

void run_gnuplot(const std::filesystem::path& dir, const std::string& script, const std::string& log, const std::string& data_dir) {
  const std::string gnuplot = find_on_path("gnuplot");
  if (gnuplot.empty())
    throw InvalidArgument("gnuplot was not found: install gnuplot-nox (scripts/install-deps.sh does) to render figures");
  const std::string directory = dir.string();
  // Everything the child needs is prepared before fork: after it, only async-signal-safe calls.
  // Data files not found in `dir` are looked up in `data_dir` (gnuplot's loadpath; a quoted gnuplot string).
  const std::string loadpath = "set loadpath " + quoted(data_dir.empty() ? "." : data_dir);
  std::vector<char> program(gnuplot.begin(), gnuplot.end()), script_arg(script.begin(), script.end()),
      log_name(log.begin(), log.end()), where(directory.begin(), directory.end()), e_flag{'-', 'e', '\0'},
      e_arg(loadpath.begin(), loadpath.end());
  program.push_back('\0');
  script_arg.push_back('\0');
  log_name.push_back('\0');
  where.push_back('\0');
  e_arg.push_back('\0');
  char* const argv[] = {program.data(), e_flag.data(), e_arg.data(), script_arg.data(), nullptr};
  const pid_t pid = ::fork();
  if (pid < 0) throw NumericalError(fmt::format("cannot start gnuplot: {}", std::strerror(errno)));
  if (pid == 0) {
    if (::chdir(where.data()) != 0) ::_exit(126);
    const int fd = ::open(log_name.data(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) ::_exit(126);
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, STDIN_FILENO);
    ::execv(program.data(), argv);
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw NumericalError(fmt::format("waiting for gnuplot: {}", std::strerror(errno)));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::ifstream in(dir / log);
    std::stringstream text;
    text << in.rdbuf();
    throw NumericalError(fmt::format("gnuplot failed on {} (exit {}):\n{}", (dir / script).string(),
                                     WIFEXITED(status) ? WEXITSTATUS(status) : -1, text.str()));
  }
}

}  // namespace privamp::plots
