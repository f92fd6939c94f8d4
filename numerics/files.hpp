// Output files: every file privamp writes goes through here, and every failure is an error naming the file.
//
// A file is written whole or not at all: its text goes to a fresh temporary file beside the target (created
// exclusively, never through a link), which is flushed, synced and renamed over the target. A run killed at any
// moment leaves the target either as it was or complete. A target that is a symbolic link or not a regular file is
// refused (InvalidArgument naming the path): privamp never writes through a link. A folder that a run writes into is
// locked for that run (OutputLock), so a second run into it is refused while the first holds it.
#pragma once

#include <filesystem>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace privamp {

class OutputFile {
 public:
  explicit OutputFile(std::filesystem::path path);  // InvalidArgument if the target may not be written (a link, a folder)
  ~OutputFile();                                    // without close(): nothing is written, the target is untouched
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream() { return out_; }
  template <class T>
  OutputFile& operator<<(const T& x) {
    out_ << x;
    return *this;
  }
  // Writes the text atomically (temporary file, fsync, rename); InvalidArgument if anything failed.
  void close();

 private:
  std::filesystem::path path_;
  std::ostringstream out_;
  bool closed_ = false;
};

// The text of an input file (a case, figure or kernel file), at most max_bytes: a path that is not a regular file
// (a folder, /dev/zero, a pipe) or a longer file is InvalidArgument naming `what` and the path, before it is read.
std::string read_input_file(std::string_view what, const std::filesystem::path& path, std::size_t max_bytes);

// The longest output folder path accepted (in bytes, as given): PATH_MAX (4096) less room for what is written inside.
inline constexpr std::size_t kMaxOutputDirPath = 3584;

// JSON text privamp reads (kernel files, golden files) nests a few levels; deeper text is refused before it is
// parsed (InvalidArgument naming `what`): copying and destroying a parsed tree recurse, and a 300 kB file of 150,000
// brackets crashed the copy. Brackets inside strings do not count.
inline constexpr int kMaxJsonNesting = 64;
void check_json_nesting(std::string_view what, std::string_view text);

// The whole text to one file, atomically (as OutputFile).
void write_file(const std::filesystem::path& path, std::string_view text);

// A target path that may be written: absent, or a regular file (not a symbolic link, folder, device or pipe).
// InvalidArgument naming `option` and the path otherwise.
void check_target(std::string_view option, const std::filesystem::path& path);

// Moves a finished file (written by a helper program into a private folder) onto `target` by rename, with the same
// refusal of links as write_file.
void move_into_place(const std::filesystem::path& from, const std::filesystem::path& target);

// A new private folder inside `dir` (mkdtemp: created exclusively, mode 0700) for a helper program's files, named
// like the temporary files so that a killed run's folder is removed by the next OutputLock. The caller removes it.
std::filesystem::path make_temporary_folder(const std::filesystem::path& dir, std::string_view name);

// An output directory (--out): checked before any work (a file there, or a parent that cannot hold it, is refused,
// naming `option`), created only afterwards by make_output_dir, which probes that it is writable with a file of its
// own (no file of the user's is touched) and locks it for the run (keep the OutputLock until the files are written).
void check_output_dir(std::string_view option, const std::filesystem::path& dir);
// (make_output_dir: declared after OutputLock below)
// An output file (--junit): not a directory, in a directory that exists (or is one of `made`, the output folders the
// run creates: --junit OUT/j.xml beside --out OUT); checked before any work.
void check_output_file(std::string_view option, const std::filesystem::path& file, const std::vector<std::filesystem::path>& made = {});
// A run's outputs, each an (option, file) pair — a folder's output lock (DIR/.privamp.lock) among them: refused
// (InvalidArgument naming both options) where two resolve to one file, so that no output overwrites another (a
// --junit file named like --out's summary.tex, a golden file named like results.json) or the lock that keeps a
// second run out; and where one resolves to one of the run's `inputs` (a --junit file named like its case file).
void check_distinct_outputs(const std::vector<std::pair<std::string, std::filesystem::path>>& outputs,
                            const std::vector<std::filesystem::path>& inputs = {});
// A path as the file system would resolve it, for comparing two that may name one file or folder: absolute, its links
// and dots resolved as far as it exists, no trailing separator ("out/" and "./out" are one folder).
std::filesystem::path resolved_path(const std::filesystem::path& path);
// The lock file of an output folder.
std::filesystem::path lock_file(const std::filesystem::path& dir);

// A run's hold on an output folder: an exclusive lock on DIR/.privamp.lock (flock, released by the kernel when the
// process ends, however it ends), holding the pid of its holder. A second run into the folder is refused with
// InvalidArgument naming the folder and the holder's pid. On taking the lock, temporary files that a killed run left
// in the folder are removed.
class OutputLock {
 public:
  OutputLock() = default;
  OutputLock(std::string_view option, const std::filesystem::path& dir);
  ~OutputLock();
  OutputLock(OutputLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  OutputLock& operator=(OutputLock&& o) noexcept;
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  int fd_ = -1;
};

[[nodiscard]] OutputLock make_output_dir(std::string_view option, const std::filesystem::path& dir);

// A run's output folder: the option that names it and the files the run will write there.
struct OutputFolder {
  std::string option;
  std::filesystem::path dir;
  std::vector<std::string> files;
};
// A run's output folders, before any work: each folder once (two options may name one), all checked
// (check_output_dir) and their files too (check_target: a link, folder or pipe planted where a file will go is refused
// now, not after the computation), then the existing folders locked before new ones are created, so that a refusal
// (a linked lock, another run's lock) leaves no new folder. Keep the locks until the files are written.
[[nodiscard]] std::vector<OutputLock> lock_output_folders(const std::vector<OutputFolder>& folders);

// Files published together (a figure's data, script, PDF, PNG and captions): each is written into a private folder
// inside `dir` (make_temporary_folder) at path(name), and commit() moves them into place, one rename each, only after
// all were written. A failure before commit (a full disk, a helper program that fails, an interrupt) leaves `dir` as
// it was: the folder is removed when the set is destroyed. Every target named is checked (check_target) on
// construction; with no list, commit() publishes every regular file written to the folder (each checked then).
class StagedFiles {
 public:
  StagedFiles(const std::filesystem::path& dir, std::string_view name, const std::vector<std::string>& files = {});
  ~StagedFiles();
  StagedFiles(const StagedFiles&) = delete;
  StagedFiles& operator=(const StagedFiles&) = delete;

  const std::filesystem::path& folder() const { return folder_; }  // where the files are written
  std::filesystem::path path(const std::string& file) const { return folder_ / file; }
  // Moves every staged file that exists into `dir`, one rename each, after checking every target; an empty file
  // named in `drop_if_empty` (a name, or "*.log" for every file so ending: a helper's log that says nothing) is not
  // published, and an earlier run's file of that name is removed. (The renames are not one atomic step: a rename
  // that fails, an I/O error say, leaves those before it published.)
  void commit(const std::vector<std::string>& drop_if_empty = {});

 private:
  std::filesystem::path dir_, folder_;
  std::vector<std::string> files_;
};

}  // namespace privamp
