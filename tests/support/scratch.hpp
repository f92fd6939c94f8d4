// A scratch directory of this test process's own (created on first use, removed at exit): CTest runs every test
// case as a process of its own, so tests that run in parallel (ctest -j) never write to one path.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace privamp::test {

class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "privamp_test_XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create a scratch directory");
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// This process's scratch directory.
inline const std::filesystem::path& scratch() {
  static const ScratchDir dir;
  return dir.path();
}

// Writes `text` to `name` in the scratch directory and returns its path.
inline std::filesystem::path scratch_file(const std::string& name, const std::string& text) {
  const auto path = scratch() / name;
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
  return path;
}

}  // namespace privamp::test
