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

// An output directory (--out): checked before any work (a file there, or a parent that cannot hold it, is refused,
// naming `option`), created only afterwards by make_output_dir, which probes that it is writable with a file of its
// own (no file of the user's is touched).
void check_output_dir(std::string_view option, const std::filesystem::path& dir);
void make_output_dir(std::string_view option, const std::filesystem::path& dir);
// An output file (--junit): not a directory, in a directory that exists or can be created; checked before any work.
void check_output_file(std::string_view option, const std::filesystem::path& file);

// The whole text to one file, checked.
void write_file(const std::filesystem::path& path, std::string_view text);

}  // namespace privamp
