#include "plots/gnuplot.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "numerics/escape.hpp"
#include "numerics/files.hpp"
#include "plots/markup.hpp"

namespace privamp::plots {

std::string quoted(const std::string& text) {
  // gnuplot reads a string as enhanced text only where it holds one of ^ _ @ & ~ { }: elsewhere an escaped backslash
  // (literal(), markup_quoted()) would print doubled, so it is written single there.
  std::string t = escape::plain(text);
  if (t.find_first_of("^_@&~{}") == std::string::npos)
    for (std::size_t at = t.find("\\\\"); at != std::string::npos; at = t.find("\\\\", at + 1)) t.erase(at, 1);
  // Always single quotes: gnuplot substitutes `commands` inside double quotes. It cannot read two doubled quotes in a
  // row ('q'''' c' is a syntax error): the second of two apostrophes is written as ’ (a figure file's labels with two
  // in a row are refused at load; other texts, such as a case name in an explore title, show it so).
  std::string q = "'";
  // (an apostrophe that opens the text as well: gnuplot reads ''' as an empty string, then a second string)
  for (std::size_t i = 0; i < t.size(); ++i)  // (controls are spaces by then)
    q += t[i] != '\'' ? std::string(1, t[i]) : i == 0 || t[i - 1] == '\'' ? std::string("\u2019") : std::string("''");
  return q + "'";
}

std::string tic_label(const std::string& text) {
  std::string out;
  for (char c : literal(text)) out += c == '%' ? std::string("%%") : std::string(1, c);
  return plots::quoted(out);  // (its backslashes single where gnuplot reads no enhanced text)
}

std::string markup_quoted(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    // A backslash escapes a markup character (and starts {/Symbol \245}'s octal code); before anything else, or at the
    // end, it is a backslash of the text, as the caption and pgfplots print it (gnuplot dropped it: "\n" read "n").
    if (text[i] == '\\') {
      if (i + 1 < text.size() && std::string_view("{}_^\\&@~0123456789").find(text[i + 1]) != std::string_view::npos) {
        out += text.substr(i, 2);
        ++i;
      } else {
        out += "\\\\";
      }
      continue;
    }
    if (text[i] == '&' || text[i] == '@' || text[i] == '~') out += '\\';
    // <=, >= and -> are markup for the relations (≤, ≥ and → in LaTeX and in text): drawn as such here too.
    if (const char* relation = text.compare(i, 2, "<=") == 0 ? "≤" : text.compare(i, 2, ">=") == 0 ? "≥" : text.compare(i, 2, "->") == 0 ? "→" : nullptr) {
      out += relation;
      ++i;
      continue;
    }
    out += text[i];
  }
  return plots::quoted(out);
}

std::string markup_title(const std::string& text, std::size_t width) {
  const auto printed = [](const std::string& markup) {  // characters as printed (UTF-8 code points of the plain text)
    const std::string plain = enhanced_to_plain(markup);
    return static_cast<std::size_t>(std::count_if(plain.begin(), plain.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
  };
  std::vector<std::string> words{""};  // (a space inside braces, or escaped, belongs to its word)
  int depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {  // an escaped character, whatever it is
      words.back() += text.substr(i, 2);
      ++i;
      continue;
    }
    depth += c == '{' ? 1 : c == '}' && depth > 0 ? -1 : 0;
    if (c == ' ' && depth == 0) {
      if (!words.back().empty()) words.emplace_back();
    } else {
      words.back() += c;
    }
  }
  const auto fill = [&](std::size_t w) {  // greedy: as many words on a line as fit in w characters
    std::vector<std::string> lines{""};
    for (const std::string& word : words) {
      if (word.empty()) continue;
      if (!lines.back().empty() && printed(lines.back() + " " + word) > w) lines.emplace_back();
      lines.back() += (lines.back().empty() ? "" : " ") + word;
    }
    return lines;
  };
  // As few lines as the width allows, balanced: the narrowest width that needs no more lines (a greedy fill left
  // "d)" or "t, α)" alone on a second line).
  std::vector<std::string> lines = fill(width);
  for (std::size_t w = width; w > 1 && lines.size() > 1; --w) {
    std::vector<std::string> narrower = fill(w - 1);
    if (narrower.size() > lines.size()) break;
    lines = std::move(narrower);
  }
  std::string out;
  for (const std::string& line : lines) out += (out.empty() ? "" : ".\"\\n\".") + markup_quoted(line);
  return out;
}

std::string literal(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '_' || c == '^' || c == '@' || c == '&' || c == '~' || c == '{' || c == '}' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

bool has_control_character(const std::string& text) { return !escape::text_problem(text).empty(); }

bool is_key_position_word(const std::string& word) {
  static const std::set<std::string> words = {"below", "above", "top", "bottom", "left", "right", "center", "inside", "outside"};
  return words.count(word) > 0;
}

std::string KeyOptions::render() const {
  if (off) return "off";
  std::string s = position;
  s += box ? " box" : " nobox";
  // Outside the plot there is no data to hide, only axis labels an opaque key would paint over.
  const bool outside = position.find("below") != std::string::npos || position.find("above") != std::string::npos ||
                       position.find("outside") != std::string::npos;
  s += opaque && !outside ? " opaque" : " noopaque";
  s += " Left reverse";  // the sample, then its text aligned left: as pgfplots draws a legend (legend cell align=left)
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
      invalid_input(
          "'{}' is not a key word (allowed: below, above, top, bottom, left, right, center, inside, outside, box, nobox, "
          "opaque, noopaque, off; or a table {{position = \"top left\", box = true, opaque = false, columns = 2}})",
          w);
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

bool program_available(const std::string& name) { return !find_on_path(name).empty(); }
std::string missing_plot_tools() {
  if (!program_available("gnuplot"))
    return "gnuplot was not found: install gnuplot-nox (scripts/install-deps.sh does) to render figures";
  if (!program_available("pdftoppm"))
    return "pdftoppm was not found: install poppler-utils (scripts/install-deps.sh does); a figure's PNG is its PDF "
           "rasterised";
  return "";
}
bool gnuplot_available() { return missing_plot_tools().empty(); }

void run_program(const std::filesystem::path& dir, const std::string& name, const std::vector<std::string>& args,
                 const std::string& log) {
  const std::string path = find_on_path(name);
  if (path.empty()) invalid_input("{} was not found on PATH (scripts/install-deps.sh installs it)", name);
  // Everything the child needs is prepared before fork: after it, only async-signal-safe calls.
  std::vector<std::vector<char>> storage;
  const auto keep = [&](const std::string& text) {
    storage.emplace_back(text.begin(), text.end());
    storage.back().push_back('\0');
  };
  keep(path);
  for (const auto& a : args) keep(a);
  keep(log);
  keep(dir.string());
  std::vector<char*> argv;
  for (std::size_t k = 0; k + 2 < storage.size(); ++k) argv.push_back(storage[k].data());
  argv.push_back(nullptr);
  char* const log_name = storage[storage.size() - 2].data();
  char* const where = storage.back().data();
  const pid_t pid = ::fork();
  if (pid < 0) throw NumericalError(fmt::format("cannot start {}: {}", name, std::strerror(errno)));
  if (pid == 0) {
    if (::chdir(where) != 0) ::_exit(126);
    // The log is appended to (several programs write one), never through a link.
    const int fd = ::open(log_name, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) ::_exit(126);
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, STDIN_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw NumericalError(fmt::format("waiting for {}: {}", name, std::strerror(errno)));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::ifstream in(dir / log);
    std::stringstream text;
    text << in.rdbuf();
    // A helper that cannot write says so only in its exit status (pdftoppm prints nothing on a full disk): a
    // file system with less than 1 MiB free is named as the likely cause.
    std::error_code ec;
    const auto space = std::filesystem::space(dir, ec);
    const std::string full = !ec && space.available < (1u << 20)
                                 ? fmt::format(" (the file system of {} has {} bytes free: no space left for its output?)",
                                               dir.parent_path().string(), space.available)
                                 : "";
    throw NumericalError(fmt::format("{} failed in {} (exit {}){}:\n{}", name, dir.string(),
                                     WIFEXITED(status) ? WEXITSTATUS(status) : -1, full, text.str()));
  }
}

// A helper's output, checked complete before it is published: a PDF ends with %%EOF (and at most a line end), a
// PNG with its IEND chunk. (pdftoppm exits 0 after a write the file-size limit cut short.)
void require_complete(const std::filesystem::path& file, std::string_view trailer) {
  std::ifstream in(file, std::ios::binary);
  std::string tail(64, '\0');
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::streamoff>(in.tellg());
  const std::streamoff n = std::min<std::streamoff>(size, 64);
  in.seekg(size - n);
  tail.resize(static_cast<std::size_t>(n));
  if (n > 0) in.read(tail.data(), n);
  if (!in || tail.find(trailer) == std::string::npos)
    throw NumericalError(fmt::format("{} was written incompletely ({} bytes; a full disk or a file-size limit?)", file.string(),
                                     size < 0 ? 0 : size));
}

void run_gnuplot(const std::filesystem::path& dir, const std::string& script, const std::string& log, const std::string& data_dir) {
  // Data files not found in `dir` are looked up in `data_dir` (gnuplot's loadpath; a quoted gnuplot string).
  // (the script as ./NAME: a name starting with '-' would be read as one of gnuplot's options)
  const std::string path = script.empty() || script[0] == '/' || script.rfind("./", 0) == 0 ? script : "./" + script;
  run_program(dir, "gnuplot", {"-e", "set loadpath " + quoted(data_dir.empty() ? "." : data_dir), path}, log);
}

std::optional<long long> source_date_epoch() {
  const char* text = std::getenv("SOURCE_DATE_EPOCH");
  if (text == nullptr) return std::nullopt;
  constexpr long long kLast = 253402300799;  // 9999-12-31 23:59:59 UTC: four digits of year
  const std::string value(text);
  const bool digits = !value.empty() && value.size() <= 12 && value.find_first_not_of("0123456789") == std::string::npos;
  const long long seconds = digits ? std::stoll(value) : -1;
  if (!digits || seconds > kLast)
    invalid_input("SOURCE_DATE_EPOCH: '{}' is not a time for a PDF's creation date (allowed: whole "
                  "seconds since 1970, 0 <= SOURCE_DATE_EPOCH <= {}; unset it for the current time)",
                  value.size() > 40 ? value.substr(0, 40) + "..." : value, kLast);
  return seconds;
}

void stamp_pdf_date(const std::filesystem::path& pdf) {
  const auto seconds = source_date_epoch();
  if (!seconds) return;
  std::string bytes = read_input_file("PDF", pdf, std::size_t{1} << 30);  // gnuplot's, in our private folder
  const std::string key = "/CreationDate (D:";
  const std::size_t at = bytes.find(key);
  const std::size_t end = at == std::string::npos ? at : bytes.find(')', at);
  const std::string date = fmt::format("{:%Y%m%d%H%M%S}Z", fmt::gmtime(static_cast<std::time_t>(*seconds)));
  if (end == std::string::npos || end - (at + key.size()) != date.size())
    throw NumericalError(fmt::format("{}: no creation date of the form D:YYYYMMDDHHMMSSZ to set from SOURCE_DATE_EPOCH",
                                     pdf.string()));
  bytes.replace(at + key.size(), date.size(), date);
  write_file(pdf, bytes);
}

}  // namespace privamp::plots
