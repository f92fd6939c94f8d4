#include "numerics/files.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "numerics/errors.hpp"

namespace privamp {

OutputFile::OutputFile(std::filesystem::path path) : path_(std::move(path)), out_(path_) {
  if (!out_) throw InvalidArgument(fmt::format("cannot write {}: {}", path_.string(), std::strerror(errno)));
}

OutputFile::~OutputFile() = default;

void OutputFile::close() {
  out_.flush();
  const bool written = static_cast<bool>(out_);
  out_.close();
  if (!written || out_.fail()) throw InvalidArgument(fmt::format("cannot write {}: the write failed", path_.string()));
}

void check_output_dir(std::string_view option, const std::filesystem::path& dir) {
  std::error_code ec;
  if (std::filesystem::exists(dir, ec)) {
    if (!std::filesystem::is_directory(dir, ec))
      throw InvalidArgument(fmt::format("{} {}: is a file, not a directory", option, dir.string()));
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
      throw InvalidArgument(fmt::format("{} {}: cannot write there", option, dir.string()));
    return;
  }
  // The nearest existing ancestor must be a directory we may create folders in.
  std::filesystem::path up = std::filesystem::absolute(dir, ec).parent_path();
  while (!up.empty() && !std::filesystem::exists(up, ec) && up != up.root_path()) up = up.parent_path();
  if (!std::filesystem::is_directory(up, ec))
    throw InvalidArgument(fmt::format("{} {}: cannot be created ({} is not a directory)", option, dir.string(), up.string()));
  if (::access(up.c_str(), W_OK | X_OK) != 0)
    throw InvalidArgument(fmt::format("{} {}: cannot be created (no permission to write in {})", option, dir.string(), up.string()));
}

void check_output_file(std::string_view option, const std::filesystem::path& file) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    throw InvalidArgument(fmt::format("{} {}: a directory (give a file name)", option, file.string()));
  check_output_dir(option, std::filesystem::absolute(file, ec).parent_path());
}

void make_output_dir(std::string_view option, const std::filesystem::path& dir) {
  check_output_dir(option, dir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InvalidArgument(fmt::format("{} {}: cannot be created: {}", option, dir.string(), ec.message()));
  // A probe file of our own (a unique name, created exclusively): no file of the user's is touched.
  std::string probe = (dir / ".privamp-probe-XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) throw InvalidArgument(fmt::format("{} {}: cannot write there", option, dir.string()));
  ::close(fd);
  ::unlink(probe.c_str());
}

void write_file(const std::filesystem::path& path, std::string_view text) {
  OutputFile out(path);
  out.stream().write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
}

}  // namespace privamp
