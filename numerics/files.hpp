// Output files whose every failure is an error: a file that cannot be opened, and a write or close that fails (a
// full disk, an I/O error), throw InvalidArgument naming the file. Every file privamp writes goes through here.
#pragma once

#include <filesystem>
#include <fstream>
#include <string_view>

namespace privamp {

class OutputFile {
 public:
  explicit OutputFile(std::filesystem::path path);  // InvalidArgument if it cannot be opened
  ~OutputFile();                                    // closes without checking: call close() to check
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream() { return out_; }
  template <class T>
  OutputFile& operator<<(const T& x) {
    out_ << x;
    return *this;
  }
  // Flushes and closes; InvalidArgument if anything written was lost.
  void close();

 private:
  std::filesystem::path path_;
  std::ofstream out_;
};

// The whole text to one file, checked.
void write_file(const std::filesystem::path& path, std::string_view text);

}  // namespace privamp
