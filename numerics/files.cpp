#include "numerics/files.hpp"

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

void write_file(const std::filesystem::path& path, std::string_view text) {
  OutputFile out(path);
  out.stream().write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
}

}  // namespace privamp
